/**
 * The waiting steps of a livestream, at each poll of it (poller.ts): failed at their timeout,
 * completed when the poll shows the wait is over, failed when the workspace lost access. Each is
 * completed exactly once: its watch is removed from the registry first, and only the caller the
 * registry answers `removed` to (one, whatever the replicas) tells Slack.
 * More: README.md ("waiting.ts").
 */
import type { WebClient } from "@slack/web-api";
import type { Logger } from "../log.js";
import { stepRevokedText, stepTimedOutText } from "../messages/index.js";
import type { Livestream } from "../platform/index.js";
import type { Broadcast } from "./broadcast.js";
import type { WatchEntry, WatchRegistry } from "./registry.js";
import { type StepDocs, type StepOutputs, stepOf, stepOutputs, waitOver } from "./steps.js";

type Outcome = { outputs: StepOutputs } | { error: string };

export interface WaitingStepsParts {
  registry: WatchRegistry;
  docs: StepDocs;
  /** The workspace's bot client: the event's workflow token is not kept (docs/workflow-steps.md). */
  slackFor: (teamId: string) => Promise<WebClient>;
  log: Logger;
  now: () => number;
}

/** The watchers that are waiting steps, and the others (channels and DMs). */
export function splitSteps(watchers: readonly WatchEntry[]): { steps: WatchEntry[]; others: WatchEntry[] } {
  const steps: WatchEntry[] = [];
  const others: WatchEntry[] = [];
  for (const w of watchers) (stepOf(w.channelId) ? steps : others).push(w);
  return { steps, others };
}

export class WaitingSteps {
  constructor(private readonly p: WaitingStepsParts) {}

  /**
   * The steps past their timeout failed; the watchers left. `left`: the livestream's watchers
   * once the last one was removed (0: nobody watches it any more), undefined when none was.
   */
  async expire(watchers: WatchEntry[]): Promise<{ watchers: WatchEntry[]; left: number | undefined }> {
    let left: number | undefined;
    const out: WatchEntry[] = [];
    for (const w of watchers) {
      const step = stepOf(w.channelId);
      if (step === undefined) {
        out.push(w);
        continue;
      }
      const doc = await this.p.docs.read(step.executionId);
      if (doc === undefined) {
        // Its document is written before its watch and removed after: a step completed half-way.
        this.p.log.warn({ execution: step.executionId }, "waiting step without its document: removed");
        left = (await this.p.registry.remove(w)).left;
      } else if (this.p.now() >= doc.deadline) {
        left = await this.finish(w, { error: stepTimedOutText(step.kind, doc.timeoutMinutes) });
      } else out.push(w);
    }
    return { watchers: out, left };
  }

  /** The steps whose wait this poll ended, completed with its outputs; the watchers left (as `expire`). */
  async polled(
    id: string,
    steps: readonly WatchEntry[],
    ls: Livestream,
    next: Broadcast | null,
  ): Promise<number | undefined> {
    let left: number | undefined;
    const outputs = stepOutputs(id, ls);
    for (const w of steps) {
      const step = stepOf(w.channelId);
      if (step === undefined || !waitOver(step.kind, outputs.on_air, next?.phase ?? null)) continue;
      const done =
        step.kind === "wait_until_off_air"
          ? { ...outputs, on_air_minutes: onAirMinutes(next) }
          : { ...outputs, on_air_since: outputs.on_air_since || isoOf(next?.startedAt) };
      left = await this.finish(w, { outputs: done });
    }
    return left;
  }

  /** A step whose workspace lost access (already removed from the registry by the poller): failed. */
  async revoked(w: WatchEntry): Promise<void> {
    const step = stepOf(w.channelId);
    if (step === undefined) return;
    await this.send(w, step.executionId, { error: stepRevokedText(w.livestreamId) });
    await this.p.docs.remove(step.executionId);
  }

  /** Removes the step's watch; only the one caller told `removed` completes it. */
  private async finish(w: WatchEntry, outcome: Outcome): Promise<number> {
    const step = stepOf(w.channelId);
    const r = await this.p.registry.remove(w);
    if (step === undefined || !r.removed) return r.left;
    await this.send(w, step.executionId, outcome);
    await this.p.docs.remove(step.executionId);
    return r.left;
  }

  private async send(w: WatchEntry, executionId: string, outcome: Outcome): Promise<void> {
    const log = this.p.log.child({ team: w.teamId, livestream: w.livestreamId, execution: executionId });
    try {
      const slack = await this.p.slackFor(w.teamId);
      if ("outputs" in outcome)
        await slack.functions.completeSuccess({
          function_execution_id: executionId,
          outputs: outcome.outputs,
        });
      else await slack.functions.completeError({ function_execution_id: executionId, error: outcome.error });
      log.info({ ok: "outputs" in outcome }, "waiting step completed");
    } catch (err) {
      // At most once: a step whose completion Slack did not take is not tried again.
      log.error({ err }, "could not complete the waiting step");
    }
  }
}

const isoOf = (ms: number | undefined) => (ms === undefined ? "" : new Date(ms).toISOString());

/** How long the broadcast that ended lasted, in minutes (0: none was seen on air). */
function onAirMinutes(b: Broadcast | null): number {
  if (b === null || b.endedAt === null) return 0;
  return Math.round(((b.endedAt - b.startedAt) / 60_000) * 100) / 100;
}
