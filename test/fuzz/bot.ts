/**
 * The bot the fuzzers of Slack requests send to: one harness per file with the read budgets off
 * (the fuzz floods from a few users, and a refusal would stand in for the answers it checks),
 * closed after the file, with no unhandled rejection allowed meanwhile.
 */
import { afterAll, beforeAll } from "vitest";
import { type Harness, startHarness } from "../support/harness.js";
import { guardUnhandled } from "./checks.js";

/** `started` gets the harness once it listens (before any test); the guard is checked after the file. */
export function fuzzedBotForFile(started: (h: Harness) => void | Promise<void>): { check(): void } {
  let h: Harness | undefined;
  const guard = guardUnhandled();
  beforeAll(async () => {
    h = await startHarness({
      worker: { manual: true },
      env: { LOG_LEVEL: "warn", USER_READS_PER_MINUTE: "0", WORKSPACE_READS_PER_MINUTE: "0" },
    });
    await started(h);
  });
  afterAll(async () => {
    await h?.close();
    guard.dispose();
    guard.check();
  });
  return guard;
}

/** Everything a request could change in `team`: settings, managers, the platform's webhooks, the outbox. */
export async function stateOf(h: Harness, team: string): Promise<string> {
  const s = h.built.deps.settings;
  const webhooks = [...h.sandbox.state.profiles.entries()].map(([id, p]) => [id, p.webhook]);
  return JSON.stringify({
    profiles: await s.listProfiles(team),
    managers: await s.listManagers(team),
    defaultProfile: (await s.defaultProfileId(team)) ?? null,
    webhooks,
    outbox: (await h.outbox.stats()).depth,
  });
}
