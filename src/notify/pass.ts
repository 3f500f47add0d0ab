/**
 * One pass of the worker over a claimed video (src/notify/worker.ts builds one per key): the
 * options, the key, its pending items and the worker's per-process helpers in one object, whose
 * methods are the pass's steps, in order: access asked again, filter or fan-out, the state loaded,
 * the batch folded and acknowledged, then the digest or Slack. The helpers (fanout.ts, fold.ts,
 * revoked.ts, dead-letters.ts, show.ts, tally.ts) read what they need from it.
 * More: README.md ("worker.ts").
 */

import type { Digests } from "../digest/index.js";
import { isChannelKey, profileKeyOf, type VideoKey } from "../domain/index.js";
import type { OutboxItem } from "../outbox/index.js";
import { StoreUnavailableError } from "../store/index.js";
import type { VideoState } from "../video/state.js";
import { type Refused, setAsideDamaged, setAsideRefused } from "./dead-letters.js";
import { directFilter, fanOut } from "./fanout.js";
import { countAttempt, foldBatch, isFinal, loadState } from "./fold.js";
import type { GoneWorkspaces } from "./gone.js";
import type { LostPosts } from "./posted.js";
import { type RevokedProfiles, setAsideRevoked } from "./revoked.js";
import { show } from "./show.js";
import { lastVideoOf, recordTally, type Tally } from "./tally.js";
import type { VideoTitles } from "./title.js";
import type { UnsavedSlackFacts } from "./unsaved.js";
import type { Outcome, WorkerConfig } from "./worker-options.js";

/** The worker's per-process helpers, handed to each of its passes. */
export interface WorkerParts {
  unsaved: UnsavedSlackFacts;
  posts: LostPosts;
  gone: GoneWorkspaces;
  revokedProfiles: RevokedProfiles;
  titles: VideoTitles | undefined;
}

type Hold = NonNullable<Awaited<ReturnType<Digests["holdOf"]>>>;
type Filter = (item: OutboxItem) => boolean;

/** One pass over one claimed video: its steps, what it did (`tally`) and where it is. */
export class VideoPass {
  /** What the pass did, recorded once it ends (`recordTally`). */
  readonly tally: Tally = {};
  /** The state the pass started from (as validated), and the first item of its batch. */
  loaded: VideoState | undefined;
  head: OutboxItem | undefined;
  /** Set once the batch is acknowledged (a later failure is not the items'). */
  acked = false;
  /** The state the pass went on with (its title settled). */
  shown: VideoState | undefined;
  readonly unsaved: UnsavedSlackFacts;
  readonly posts: LostPosts;
  readonly gone: GoneWorkspaces;
  readonly revokedProfiles: RevokedProfiles;
  readonly titles: VideoTitles | undefined;

  constructor(
    readonly opts: WorkerConfig,
    parts: WorkerParts,
    readonly key: VideoKey,
    /** The video's pending items, read once the key was claimed. */
    readonly read: readonly OutboxItem[],
  ) {
    this.unsaved = parts.unsaved;
    this.posts = parts.posts;
    this.gone = parts.gone;
    this.revokedProfiles = parts.revokedProfiles;
    this.titles = parts.titles;
  }

  /** The pass's steps, in order; the video's next due time. */
  async run(): Promise<Outcome> {
    // Access first, before anything is copied or posted (src/notify/revoked.ts).
    if (await this.setAsideRevoked()) return { dueAt: null };
    const direct = await this.filter();
    // A profile key: its items are copied to the subscribed channels' keys (counted here, once).
    if (direct === null) return this.fanOut();
    const good = this.read.filter((i) => i.damaged === undefined);
    if (good.length < this.read.length && !(await setAsideDamaged(this, this.read))) return { dueAt: null };
    const loaded = await this.loadState(good[0]);
    if (!loaded) return { dueAt: null };
    return this.fold(loaded.state, loaded.fresh, good, direct);
  }

  /** Access asked again: true when the workspace may no longer get the profile's notifications. */
  private async setAsideRevoked(): Promise<boolean> {
    const { revoked } = this.opts;
    if (!revoked) return false;
    const r = await setAsideRevoked(this, revoked);
    if (!r) return false;
    this.tally.teamId = r.teamId;
    this.tally.profileId = r.profileId;
    this.tally.failed = r.count || undefined;
    return true;
  }

  /**
   * A profile key is shown in place when its only channel is its own (fanout.ts), else copied
   * (null); with nothing pending, what its state still owes Slack (a paced reply) is shown in place.
   */
  private async filter(): Promise<Filter | null> {
    return isChannelKey(this.key) || this.read.length === 0 ? () => true : directFilter(this);
  }

  private async fanOut(): Promise<Outcome> {
    const { dueAt, handled } = await fanOut(this);
    const first = handled[0];
    if (first) {
      this.tally.teamId = first.teamId;
      this.tally.profileId = first.profileId;
      this.tally.received = handled.length;
      this.tally.lastDeliveryAt = handled.reduce((m, i) => Math.max(m, i.receivedAt), 0);
    }
    return { dueAt };
  }

  private loadState(first: OutboxItem | undefined): ReturnType<typeof loadState> {
    return loadState(this, first, profileKeyOf(this.key));
  }

  /** The batch folded into the state, acknowledged with it, then recorded for a digest or shown. */
  private async fold(
    start: VideoState,
    fresh: boolean,
    good: OutboxItem[],
    direct: Filter,
  ): Promise<Outcome> {
    // After a failed batch, its first item alone: the one that fails is found in a few tries.
    const items = start.attempt && start.attempt.id === good[0]?.id ? good.slice(0, 1) : good;
    this.loaded = start;
    this.head = items[0];
    // One pass over the batch; applyDelivery copies only what each delivery changes.
    // Items the callback channel's subscription filters out are acknowledged without being applied.
    const applied = items.filter(direct);
    const { state: folded, refused } = foldBatch(start, applied);
    // The video's title, read once and kept with the state written below (title.ts).
    const state = (await this.titles?.settle(this.key, folded)) ?? folded;
    this.shown = state;
    this.tally.teamId = state.teamId;
    this.tally.profileId = state.profileId;
    if (items.length > 0) {
      const done = await this.acknowledge(state, fresh, items, applied, refused);
      if (done) return done;
    }
    // No event applied yet (only refused items so far): nothing to show.
    if (state.eventCount === 0) return { dueAt: null };
    // A digest or a pause: recorded for it, nothing posted (src/digest/).
    const { digests } = this.opts;
    const hold = await digests?.holdOf(state.teamId, state.profileId, state.channelId);
    if (hold && digests) return this.record(state, hold, digests);
    // The refused items are dead letters already: Slack's refusals concern the others only.
    const shown = refused.length === 0 ? applied : applied.filter((i) => !refused.some((r) => r.item === i));
    this.tally.lastVideo = lastVideoOf(state);
    const outcome = await show(this, state, shown);
    // A title still pending: back soon to show it in place.
    return { dueAt: this.titles?.pollAt(state, outcome.dueAt) ?? outcome.dueAt };
  }

  /**
   * The refused items set aside, the state and the acknowledgement in one atomic step. An outcome
   * when the pass ends here (lease lost, nothing applied, the first post waiting for the title).
   */
  private async acknowledge(
    state: VideoState,
    fresh: boolean,
    items: OutboxItem[],
    applied: OutboxItem[],
    refused: Refused[],
  ): Promise<Outcome | undefined> {
    await setAsideRefused(this, refused);
    this.tally.failed = refused.length || undefined;
    const nothing = fresh && refused.length === applied.length;
    // While the first post waits for the title, the applied items stay pending: acknowledged
    // by the pass that posts, so what Slack refuses then is set aside with them (title.ts).
    const waiting = nothing ? 0 : (this.titles?.holdUntil(state) ?? 0);
    const kept = new Set(
      waiting ? applied.filter((i) => !refused.some((r) => r.item === i)).map((i) => i.id) : [],
    );
    // The state and the acknowledgement in one atomic step (one round trip, one transaction).
    const ids = items.map((i) => i.id).filter((id) => !kept.has(id));
    const { outbox, owner } = this.opts;
    if (
      !(await this.unsaved.settle(outbox, owner, this.key, nothing ? undefined : state, isFinal(state), ids))
    )
      return { dueAt: null }; // lease lost
    this.acked = kept.size === 0;
    if (nothing) return { dueAt: null };
    if (waiting) return { dueAt: waiting };
    return undefined;
  }

  /** Records the video's new milestones for the channel's digest or catch-up instead of posting. */
  private async record(
    state: VideoState,
    hold: Hold,
    digests: Pick<Digests, "recordVideo">,
  ): Promise<Outcome> {
    if (state.milestones.every((m) => m.posted)) return { dueAt: this.titles?.pollAt(state, null) ?? null };
    // The title, for the digest to name the video: the same wait as a first post (2 s at most).
    const wait = this.titles?.holdUntil(state);
    if (wait) return { dueAt: wait };
    const next = await digests.recordVideo(this.key, state, hold);
    if (!(await this.unsaved.writeState(this.opts.outbox, this.opts.owner, this.key, next, isFinal(next))))
      return { dueAt: null }; // lease lost
    return { dueAt: this.titles?.pollAt(next, null) ?? null };
  }

  /**
   * The pass threw (`err`): a batch that failed before its items were acknowledged, not for a store
   * outage, is counted (fold.ts `countAttempt`); otherwise, or when counting fails, `fallback`.
   */
  async countAttempt(err: unknown, fallback: Outcome): Promise<Outcome> {
    const { loaded, head } = this;
    if (!loaded || !head || this.acked || err instanceof StoreUnavailableError) return fallback;
    return countAttempt(this, loaded, head, err).catch((e: unknown) => {
      this.opts.logger.warn({ err: e, video: this.key }, "could not count the failed attempt");
      return fallback;
    });
  }

  /** What the pass did, for the App Home's activity (tally.ts). */
  recordTally(): Promise<void> {
    return recordTally(this);
  }
}
