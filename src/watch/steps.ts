/**
 * Workflow steps (Workflow Builder's custom steps, src/slack/listeners/functions/): what a step
 * gives back, and the waiting steps the live watch keeps. A waiting step is a watch of its
 * livestream whose key, in place of a channel, names the step (`!live.<function_execution_id>`,
 * `!off.<function_execution_id>`), so it shares the one read per interval, the caps and the access checks
 * of the channels' and DMs' watches; its timeout sits in a document of its own, written once.
 * More: README.md ("steps.ts").
 */
import { z } from "zod";
import type { Logger } from "../log.js";
import type { Livestream } from "../platform/index.js";
import { Documents, type Store } from "../store/index.js";

export type WaitKind = "wait_until_live" | "wait_until_off_air";

const PREFIX: Record<WaitKind, string> = { wait_until_live: "!live.", wait_until_off_air: "!off." };

/** The registry key of a waiting step (Slack ids never start with '!'). */
export const stepKey = (kind: WaitKind, executionId: string) => `${PREFIX[kind]}${executionId}`;

/** The waiting step a registry key names; undefined for a channel's or a person's watch. */
export function stepOf(channelId: string): { kind: WaitKind; executionId: string } | undefined {
  for (const kind of ["wait_until_live", "wait_until_off_air"] as const) {
    const p = PREFIX[kind];
    if (channelId.startsWith(p) && channelId.length > p.length)
      return { kind, executionId: channelId.slice(p.length) };
  }
  return undefined;
}

/** The outputs of every step (manifest.yml, `output_parameters`). */
export interface StepOutputs {
  [name: string]: string | number | boolean;
  livestream_id: string;
  title: string;
  url: string;
  on_air: boolean;
  /** ISO 8601; empty when off air. */
  on_air_since: string;
  /** Of 24 this hour; 0 when the platform gives none. */
  ads_left: number;
}

type Sparse = Pick<Livestream, "livestream_id" | "title" | "livestream_url" | "status" | "advertising">;

export function stepOutputs(id: string, ls: Partial<Sparse>): StepOutputs {
  const onAir = ls.status?.onair === true;
  const remaining = ls.advertising?.remaining;
  return {
    livestream_id: ls.livestream_id ?? id,
    title: ls.title ?? "",
    url: ls.livestream_url ?? "",
    on_air: onAir,
    on_air_since: onAir ? (ls.status?.airing_at ?? "") : "",
    ads_left: typeof remaining === "number" ? remaining : 0,
  };
}

/** Whether a wait is over for a livestream whose broadcast is in `phase` (none: never seen on air). */
export function waitOver(kind: WaitKind, onAir: boolean, phase: "live" | "grace" | "ended" | null): boolean {
  return kind === "wait_until_live" ? onAir : !onAir && (phase === null || phase === "ended");
}

const stepDocSchema = z.strictObject({
  v: z.literal(1),
  kind: z.enum(["wait_until_live", "wait_until_off_air"]),
  teamId: z.string(),
  livestreamId: z.string(),
  timeoutMinutes: z.number().positive(),
  /** When it fails for its timeout (ms). */
  deadline: z.number(),
});
export type StepDoc = z.infer<typeof stepDocSchema>;

/** How long a step's document outlives its deadline in the store (then it expires). */
const STEP_DOC_KEPT_MS = 24 * 3_600_000;

export const stepDocKey = (executionId: string) => `watch:step:${executionId}`;

/** A waiting step's own document: written once when it starts, removed when it is completed. */
export class StepDocs {
  private readonly docs: Documents;

  constructor(store: Store, logger: Logger) {
    this.docs = new Documents(store, logger.child({ component: "watch-steps" }));
  }

  read(executionId: string): Promise<StepDoc | undefined> {
    return this.docs.read(stepDocKey(executionId), stepDocSchema);
  }

  /**
   * Kept a day past its deadline at most: a step completed or failed removes it, and one whose
   * workspace was uninstalled (nothing left to tell Slack) is forgotten by the store.
   */
  write(executionId: string, doc: StepDoc): Promise<void> {
    return this.docs.write(
      stepDocKey(executionId),
      doc,
      Math.max(doc.deadline - Date.now(), 0) + STEP_DOC_KEPT_MS,
    );
  }

  remove(executionId: string): Promise<void> {
    return this.docs.remove(stepDocKey(executionId));
  }
}
