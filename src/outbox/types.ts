/**
 * Shared types of the notification path:
 *
 *   POST /hooks/platform/<token> ─▶ Outbox.enqueue (durable, deduplicated) ─▶ 2xx
 *   Worker: Outbox.claimDue ─▶ pending items ─▶ reduce into VideoState ─▶ Slack (post/update/thread)
 *
 * One "video key" per (workspace, profile, video): its deliveries are processed in order by one
 * worker at a time (a lease), so two bot processes on one Redis never post the same thing twice.
 */
import type { VideoKey } from "../domain/index.js";
import type { Delivery } from "../platform/index.js";

export interface OutboxItem {
  /** Unique per outbox; increases in arrival order within a video key. */
  id: string;
  teamId: string;
  profileId: string;
  channelId: string;
  videoKey: VideoKey;
  delivery: Delivery;
  /** Wall-clock ms when the route stored it. */
  receivedAt: number;
  /**
   * Set when the stored item could not be read back (damaged in the store): the worker sets it
   * aside as a dead letter instead of retrying it forever. Its other fields come from its key.
   */
  damaged?: string;
}

export type NewOutboxItem = Omit<OutboxItem, "id" | "damaged">;

export type EnqueueOutcome = "stored" | "duplicate" | "full";

export interface OutboxStats {
  /** Items stored and not yet acknowledged. */
  depth: number;
  /** receivedAt of the oldest such item, or null. */
  oldestReceivedAt: number | null;
  /** Video keys scheduled (due now or later). */
  scheduled: number;
  /** Dead letters kept. */
  dead: number;
}

export interface DeadLetter {
  item: OutboxItem;
  reason: string;
  at: number;
}

/**
 * Durable outbox with per-video scheduling and leases. Implementations: memory, sqlite, Redis.
 * Every method is safe to call from several processes sharing one backend (Redis), and from
 * concurrent async tasks of one process.
 */
export interface Outbox {
  readonly kind: "memory" | "sqlite" | "redis";
  /**
   * Stores the item durably unless `dedupeKey` was seen within the outbox's dedupe window (the
   * `dedupeTtlMs` option, default 24 h; then nothing is stored: "duplicate"), or its route
   * (teamId, profileId) already has `profileQuota` items stored and not yet acknowledged (option,
   * default 20,000; then nothing is stored and the dedupe key is not kept: "full"). The per-route
   * count is kept with the items, in the same atomic step as the enqueue, and decreased by `ack`
   * (dead-lettered items are acknowledged too), so the check never walks the pending items.
   * Schedules its video at `dueAt` unless the video is already scheduled: an earlier time, or a
   * later one within PULL_FORWARD_MS (common.ts) of `dueAt`, is kept as it is; a later one beyond
   * it becomes `dueAt` unless the video is leased (a lease keeps its own due time). Resolves only
   * once the item is stored.
   */
  enqueue(item: NewOutboxItem, dedupeKey: string, dueAt: number): Promise<EnqueueOutcome>;
  /**
   * Atomically claims up to `max` scheduled video keys whose due time is <= `now` and whose lease is
   * free or expired: each gets a lease for `owner` until `now + leaseMs` (and is not due for
   * anyone else meanwhile). Returns the claimed keys, earliest due first.
   */
  claimDue(owner: string, now: number, max: number, leaseMs: number): Promise<VideoKey[]>;
  /** Extends a lease this owner holds; false if it is no longer this owner's. */
  renew(owner: string, key: VideoKey, until: number): Promise<boolean>;
  /** Up to `limit` unacknowledged items of the video, oldest first. */
  pending(key: VideoKey, limit: number): Promise<OutboxItem[]>;
  /**
   * Removes these items (by id) of the video, if `owner` still holds an unexpired lease (by the
   * outbox's clock, which must be the clock the worker passes to claimDue; for Redis, wall-clock
   * ms: leases, dedupe and `once` expire by Redis's own clock); false otherwise.
   */
  ack(owner: string, key: VideoKey, ids: readonly string[]): Promise<boolean>;
  /**
   * Ends the lease. If `dueAt` is a number the video is scheduled at that time (now instead, when
   * that is more than PULL_FORWARD_MS away and items arrived meanwhile: enqueue would have brought
   * it forward); if null, it is scheduled now when it still has pending items (arrived meanwhile)
   * and unscheduled otherwise.
   */
  release(owner: string, key: VideoKey, dueAt: number | null): Promise<void>;
  /**
   * Brings a scheduled video forward to `at`: nothing when it is leased (its pass decides when it
   * is due next), not scheduled, or already due by then. Something the video waited for happened
   * (its title was read: src/notify/title.ts).
   */
  wake(key: VideoKey, at: number): Promise<void>;
  /**
   * The end of a pass over a batch, in one atomic step (one transaction, one Lua script): writes
   * `state` like setState (undefined: the stored state is left as it is) and removes the items
   * like ack, if `owner` still holds the lease; false otherwise (nothing written).
   */
  settle(
    owner: string,
    key: VideoKey,
    state: unknown,
    ids: readonly string[],
    opts?: { final?: boolean },
  ): Promise<boolean>;
  /** Per-video state (opaque JSON for the outbox); undefined when none. */
  getState(key: VideoKey): Promise<unknown>;
  /**
   * Writes state if `owner` still holds the lease; false otherwise. The state is kept for the
   * outbox's retention after this write (`final`: the shorter one, for a video whose messages
   * will not change again); never dropped while the video is scheduled or leased
   * (src/outbox/common.ts, "State retention").
   */
  setState(owner: string, key: VideoKey, state: unknown, opts?: { final?: boolean }): Promise<boolean>;
  /**
   * Drops up to `max` states past their retention whose video is neither scheduled nor leased;
   * returns how many. memory/sqlite (claimDue also runs it now and then); Redis expires states by
   * itself and returns 0.
   */
  sweepStates(max: number): Promise<number>;
  /** Keeps an item Slack refused for good (at most the last 1,000 per workspace). */
  deadLetter(item: OutboxItem, reason: string, at: number): Promise<void>;
  /** Newest first. */
  listDead(teamId: string, limit: number): Promise<DeadLetter[]>;
  /** Set-if-absent with a time to live: true the first time for `key` within `ttlMs`. */
  once(key: string, ttlMs: number): Promise<boolean>;
  /**
   * A small value every process sharing the backend can read for `ttlMs` (overwritten by a later
   * put): what one replica learnt for the others, e.g. a video's title (src/notify/title.ts).
   */
  putNote(key: string, value: string, ttlMs: number): Promise<void>;
  /** The note's value, or undefined when there is none (or it expired). */
  getNote(key: string): Promise<string | undefined>;
  stats(): Promise<OutboxStats>;
  close(): Promise<void>;
}
