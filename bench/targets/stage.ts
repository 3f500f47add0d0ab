/**
 * A target's start-up stages, told to the runner (bench/lib/target.ts) as they begin: a target
 * that is not ready in time is then named with the stage it was stuck in, not only a timeout.
 */
import type { FromTarget } from "../lib/protocol.js";

export function stage(name: string): void {
  process.send?.({ type: "stage", stage: name } satisfies FromTarget);
}
