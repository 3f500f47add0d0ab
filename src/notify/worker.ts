/**
 * The outbox worker: claims due videos and runs one pass over each (pass.ts), which folds their
 * stored deliveries into the video's state and makes Slack show that state: one parent message per
 * video (posted once, then chat.update), and milestones as thread replies (the Slack steps:
 * show.ts; after a Slack failure: outcome.ts).
 * More: README.md ("worker.ts").
 */

import { randomUUID } from "node:crypto";
import type { VideoKey } from "../domain/index.js";
import { GoneWorkspaces } from "./gone.js";
import { VideoPass, type WorkerParts } from "./pass.js";
import { LostPosts } from "./posted.js";
import { RevokedProfiles } from "./revoked.js";
import { VideoTitles } from "./title.js";
import { UnsavedSlackFacts } from "./unsaved.js";
import { LeaseLost, type Outcome, type WorkerConfig, type WorkerOptions } from "./worker-options.js";

export type { WorkerOptions } from "./worker-options.js";

/** Resolves on the event loop's next turn (after pending I/O), not as a microtask. */
const yieldTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

export class NotifyWorker {
  private readonly options: WorkerConfig;
  private running = false;
  private loop: Promise<void> | undefined;
  private readonly wakers = new Set<() => void>();
  /** A wake-up is scheduled for the end of this tick (kicks in between add nothing). */
  private wakeQueued = false;
  /** Bumped by each wake-up: a loop whose claim began before the last one looks again at once. */
  private wakeups = 0;
  /** The per-process helpers every pass is given (pass.ts). */
  private readonly parts: WorkerParts;

  constructor(opts: WorkerOptions) {
    this.options = {
      owner: `worker-${randomUUID()}`,
      now: Date.now,
      pollMs: 250,
      gatherMs: 20,
      leaseMs: 30_000,
      coalesceMs: 3_000,
      concurrency: 4,
      batch: 500,
      ...Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)),
    } as NotifyWorker["options"];
    this.parts = {
      unsaved: new UnsavedSlackFacts(),
      gone: new GoneWorkspaces(this.options.now),
      posts: new LostPosts(this.options.logger),
      revokedProfiles: new RevokedProfiles(this.options.now),
      titles: opts.names
        ? new VideoTitles({
            names: opts.names,
            outbox: this.options.outbox,
            logger: this.options.logger,
            now: this.options.now,
            budget: opts.titleBudget,
            woken: () => this.kick(),
          })
        : undefined,
    };
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    // One loop per concurrency slot: a slow channel holds one slot, never the others.
    this.loop = Promise.all(Array.from({ length: this.options.concurrency }, () => this.run())).then(
      () => undefined,
    );
  }

  /** Stops claiming; resolves when the videos in progress are done (their Slack call included). */
  async stop(): Promise<void> {
    this.running = false;
    this.parts.titles?.close();
    for (const wake of [...this.wakers]) wake();
    await this.loop;
  }

  /**
   * Something was enqueued: look soon instead of at the next poll. Coalesced: however many kicks
   * arrive within `gatherMs` (a delivery each), one idle loop wakes up once, after them, and claims
   * once (a video's events, which come in bursts, are folded in one pass); a loop whose claim finds work wakes the next idle one (see `run`). So a delivery costs
   * at most one claim, and none while every loop is busy (they claim again when done).
   */
  kick(): void {
    if (this.wakeQueued) return;
    this.wakeQueued = true;
    setTimeout(() => {
      this.wakeQueued = false;
      this.wakeOne();
    }, this.options.gatherMs);
  }

  /** Wakes one idle loop; records the wake-up for the loops that are claiming right now. */
  private wakeOne(): void {
    this.wakeups++;
    const first = this.wakers.values().next();
    if (!first.done) first.value();
  }

  /** Claims and processes due videos until none is due now and no title read is in flight (tests and the demo use it). */
  async drain(maxRounds = 1000): Promise<void> {
    for (let i = 0; i < maxRounds; i++) {
      if ((await this.claimAndProcess(this.options.concurrency)) > 0) continue;
      // Titles being read: their answers bring their videos forward, due now.
      if (!(await this.parts.titles?.answered())) return;
    }
  }

  private async run(): Promise<void> {
    while (this.running) {
      let n = 0;
      let failed = false;
      const seen = this.wakeups;
      try {
        n = await this.claimAndProcess(1, () => this.wakeOne());
      } catch (err) {
        failed = true;
        this.options.logger.warn({ err }, "notification worker could not claim work; retrying");
      }
      if (!this.running) break;
      // A wake-up during the claim may be for work the claim did not see: look again first.
      if (n === 0 && (failed || seen === this.wakeups))
        await this.idle(failed ? Math.max(2_000, this.options.pollMs) : this.options.pollMs);
      // The event loop's turn before the next claim: a pass on the memory store may await nothing
      // but settled promises (a video its channel's gate turns away, due again 50 ms later), and
      // thousands of such passes would otherwise hold every HTTP answer, and the Slack answer that
      // opens the gate, for good (test/notify/event-loop.test.ts).
      else await yieldTurn();
    }
  }

  private idle(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(t);
        this.wakers.delete(wake);
        resolve();
      };
      const t = setTimeout(wake, ms);
      this.wakers.add(wake);
    });
  }

  /**
   * Claims up to `max` due videos and processes them in parallel. Returns how many. `found`: called
   * when the claim got work (there may be more due: the loop wakes another idle loop for it).
   */
  private async claimAndProcess(max: number, found?: () => void): Promise<number> {
    const keys = await this.options.outbox.claimDue(
      this.options.owner,
      this.options.now(),
      max,
      this.options.leaseMs,
    );
    if (keys.length > 0) found?.();
    await Promise.all(keys.map((k) => this.processSafely(k)));
    return keys.length;
  }

  private async processSafely(key: VideoKey): Promise<void> {
    let outcome: Outcome = { dueAt: null };
    let pass: VideoPass | undefined;
    try {
      const read = await this.options.outbox.pending(key, this.options.batch);
      pass = new VideoPass(this.options, this.parts, key, read);
      outcome = await pass.run();
    } catch (err) {
      if (err instanceof LeaseLost) {
        this.options.logger.warn({ video: key }, "lease on the video lost; another worker continues it");
        return;
      }
      this.options.logger.warn({ err, video: key }, "video not processed; it will be tried again");
      outcome = { dueAt: this.options.now() + 2_000 };
      if (pass) outcome = await pass.countAttempt(err, outcome);
    } finally {
      // A title read that answered during the pass found the video leased: it is due now.
      const { titles } = this.parts;
      const dueAt = titles?.dueAfter(key, pass?.shown, outcome.dueAt) ?? outcome.dueAt;
      await this.options.outbox.release(this.options.owner, key, dueAt).catch((err: unknown) => {
        this.options.logger.warn(
          { err, video: key },
          "could not release a video lease; it expires by itself",
        );
      });
      // A pass that could not even read its items did nothing to record.
      await pass?.recordTally();
    }
  }
}
