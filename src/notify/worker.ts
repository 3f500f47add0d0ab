/**
 * The outbox worker: claims due videos, folds their stored deliveries into the video's state, and
 * makes Slack show that state: one parent message per video (posted once, then chat.update), and
 * milestones as thread replies (the Slack steps: show.ts; after a Slack failure: outcome.ts).
 * More: README.md ("worker.ts").
 */

import { randomUUID } from "node:crypto";
import type { Digests } from "../digest/index.js";
import { isChannelKey, profileKeyOf, type VideoKey } from "../domain/index.js";
import type { OutboxItem } from "../outbox/index.js";
import { StoreUnavailableError } from "../store/index.js";
import type { VideoState } from "../video/state.js";
import { setAsideDamaged, setAsideRefused } from "./dead-letters.js";
import { directFilter, fanOut } from "./fanout.js";
import { countAttempt, foldBatch, isFinal, loadState, type Pass } from "./fold.js";
import { GoneWorkspaces } from "./gone.js";
import { LostPosts } from "./posted.js";
import { RevokedProfiles, setAsideRevoked } from "./revoked.js";
import { show } from "./show.js";
import { lastVideoOf, recordTally, type Tally } from "./tally.js";
import { VideoTitles } from "./title.js";
import { UnsavedSlackFacts } from "./unsaved.js";
import { LeaseLost, type Outcome, type WorkerConfig, type WorkerOptions } from "./worker-options.js";

export type { WorkerOptions } from "./worker-options.js";

export class NotifyWorker {
  private readonly options: WorkerConfig;
  private running = false;
  private loop: Promise<void> | undefined;
  private readonly wakers = new Set<() => void>();
  /** A wake-up is scheduled for the end of this tick (kicks in between add nothing). */
  private wakeQueued = false;
  /** Bumped by each wake-up: a loop whose claim began before the last one looks again at once. */
  private wakeups = 0;
  private readonly unsaved = new UnsavedSlackFacts();
  private readonly posts: LostPosts;
  private readonly gone: GoneWorkspaces;
  private readonly revokedProfiles: RevokedProfiles;
  private readonly titles: VideoTitles | undefined;

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
    this.gone = new GoneWorkspaces(this.options.now);
    this.posts = new LostPosts(this.options.logger);
    this.revokedProfiles = new RevokedProfiles(this.options.now);
    this.titles = opts.names
      ? new VideoTitles({
          names: opts.names,
          outbox: this.options.outbox,
          logger: this.options.logger,
          now: this.options.now,
          budget: opts.titleBudget,
          woken: () => this.kick(),
        })
      : undefined;
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
    this.titles?.close();
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
      if (!(await this.titles?.answered())) return;
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
    const tally: Tally = {};
    const pass: Pass = {};
    try {
      outcome = await this.process(key, tally, pass);
    } catch (err) {
      if (err instanceof LeaseLost) {
        this.options.logger.warn({ video: key }, "lease on the video lost; another worker continues it");
        return;
      }
      this.options.logger.warn({ err, video: key }, "video not processed; it will be tried again");
      outcome = { dueAt: this.options.now() + 2_000 };
      if (pass.loaded && pass.head && !pass.acked && !(err instanceof StoreUnavailableError)) {
        outcome = await countAttempt(this.options, key, pass.loaded, pass.head, err).catch((e: unknown) => {
          this.options.logger.warn({ err: e, video: key }, "could not count the failed attempt");
          return outcome;
        });
      }
    } finally {
      // A title read that answered during the pass found the video leased: it is due now.
      const dueAt = this.titles?.dueAfter(key, pass.shown, outcome.dueAt) ?? outcome.dueAt;
      await this.options.outbox.release(this.options.owner, key, dueAt).catch((err: unknown) => {
        this.options.logger.warn(
          { err, video: key },
          "could not release a video lease; it expires by itself",
        );
      });
      await recordTally(this.options, key, tally);
    }
  }

  private async process(key: VideoKey, tally: Tally, pass: Pass): Promise<Outcome> {
    const { outbox, owner } = this.options;
    const read = await outbox.pending(key, this.options.batch);
    // Access first, before anything is copied or posted (src/notify/revoked.ts).
    const revoked = this.options.revoked;
    if (revoked) {
      const r = await setAsideRevoked({ ...this.options, revoked }, this.revokedProfiles, key, read);
      if (r) {
        tally.teamId = r.teamId;
        tally.profileId = r.profileId;
        tally.failed = r.count || undefined;
        return { dueAt: null };
      }
    }
    // A profile key is shown in place when its only channel is its own (fanout.ts), else copied;
    // with nothing pending, what its state still owes Slack (a paced reply) is shown in place.
    const direct =
      isChannelKey(key) || read.length === 0 ? () => true : await directFilter(this.options, key, read[0]);
    if (direct === null) {
      // A profile key: its items are copied to the subscribed channels' keys (counted here, once).
      const { dueAt, handled } = await fanOut(this.options, key);
      const first = handled[0];
      if (first) {
        tally.teamId = first.teamId;
        tally.profileId = first.profileId;
        tally.received = handled.length;
        tally.lastDeliveryAt = handled.reduce((m, i) => Math.max(m, i.receivedAt), 0);
      }
      return { dueAt };
    }
    const good = read.filter((i) => i.damaged === undefined);
    if (good.length < read.length && !(await setAsideDamaged(this.options, key, read)))
      return { dueAt: null };
    const loaded = await loadState(this.options, this.unsaved, key, good[0], profileKeyOf(key));
    if (!loaded) return { dueAt: null };
    const { state: start, fresh } = loaded;
    // After a failed batch, its first item alone: the one that fails is found in a few tries.
    const items = start.attempt && start.attempt.id === good[0]?.id ? good.slice(0, 1) : good;
    pass.loaded = start;
    pass.head = items[0];
    // One pass over the batch; applyDelivery copies only what each delivery changes.
    // Items the callback channel's subscription filters out are acknowledged without being applied.
    const applied = items.filter(direct);
    const { state: folded, refused } = foldBatch(start, applied);
    // The video's title, read once and kept with the state written below (title.ts).
    const state = (await this.titles?.settle(key, folded)) ?? folded;
    pass.shown = state;
    tally.teamId = state.teamId;
    tally.profileId = state.profileId;
    if (items.length > 0) {
      await setAsideRefused(this.options, key, refused);
      tally.failed = refused.length || undefined;
      const nothing = fresh && refused.length === applied.length;
      // While the first post waits for the title, the applied items stay pending: acknowledged
      // by the pass that posts, so what Slack refuses then is set aside with them (title.ts).
      const waiting = nothing ? 0 : (this.titles?.holdUntil(state) ?? 0);
      const kept = new Set(
        waiting ? applied.filter((i) => !refused.some((r) => r.item === i)).map((i) => i.id) : [],
      );
      // The state and the acknowledgement in one atomic step (one round trip, one transaction).
      const ids = items.map((i) => i.id).filter((id) => !kept.has(id));
      if (!(await this.unsaved.settle(outbox, owner, key, nothing ? undefined : state, isFinal(state), ids)))
        return { dueAt: null }; // lease lost
      pass.acked = kept.size === 0;
      if (nothing) return { dueAt: null };
      if (waiting) return { dueAt: waiting };
    }
    // No event applied yet (only refused items so far): nothing to show.
    if (state.eventCount === 0) return { dueAt: null };
    // A digest or a pause: recorded for it, nothing posted (src/digest/).
    const hold = await this.options.digests?.holdOf(state.teamId, state.profileId, state.channelId);
    if (hold && this.options.digests) return this.record(key, state, hold, this.options.digests);
    // The refused items are dead letters already: Slack's refusals concern the others only.
    const shown = refused.length === 0 ? applied : applied.filter((i) => !refused.some((r) => r.item === i));
    tally.lastVideo = lastVideoOf(state);
    const outcome = await this.show(key, state, shown, tally);
    // A title still pending: back soon to show it in place.
    return { dueAt: this.titles?.pollAt(state, outcome.dueAt) ?? outcome.dueAt };
  }

  /** Records the video's new milestones for the channel's digest or catch-up instead of posting. */
  private async record(
    key: VideoKey,
    state: VideoState,
    hold: NonNullable<Awaited<ReturnType<Digests["holdOf"]>>>,
    digests: Pick<Digests, "recordVideo">,
  ): Promise<Outcome> {
    if (state.milestones.every((m) => m.posted)) return { dueAt: this.titles?.pollAt(state, null) ?? null };
    // The title, for the digest to name the video: the same wait as a first post (2 s at most).
    const wait = this.titles?.holdUntil(state);
    if (wait) return { dueAt: wait };
    const next = await digests.recordVideo(key, state, hold);
    if (!(await this.unsaved.writeState(this.options.outbox, this.options.owner, key, next, isFinal(next))))
      return { dueAt: null }; // lease lost
    return { dueAt: this.titles?.pollAt(next, null) ?? null };
  }

  private show(key: VideoKey, state: VideoState, items: OutboxItem[], tally: Tally): Promise<Outcome> {
    const { options: opts, unsaved, posts, gone, titles } = this;
    return show({ opts, unsaved, posts, gone, titles }, key, state, items, tally);
  }
}
