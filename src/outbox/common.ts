/**
 * What the three outbox implementations share: options, limits and the item encoding.
 *
 * Time: `claimDue` gets `now` from the caller, but `enqueue` (dedupe window), `once`, `release(…,
 * null)` ("due now") and the lease checks of `ack`/`setState`/`renew`/`release` have no `now`
 * parameter; they read the outbox's clock (`OutboxOptions.now`, Date.now by default). Pass the same
 * clock the worker uses for `claimDue`. Redis is the exception for expiries: dedupe keys, `once`
 * keys and leases expire by Redis's own clock (PX), so there the caller's clock must be wall time.
 * More: README.md ("common.ts").
 */
import { partsOfVideoKey, type VideoKey } from "../domain/index.js";
import { StoreCorruptError } from "../store/index.js";
import type { NewOutboxItem, OutboxItem } from "./types.js";

export type Clock = () => number;

export interface OutboxOptions {
  /** Clock for the operations that get no `now` argument (see the module comment). */
  now?: Clock;
  /** How long a dedupe key makes a later delivery with the same key a duplicate. Default 24 h. */
  dedupeTtlMs?: number;
  /**
   * Items a route (teamId, profileId) may have stored and not yet acknowledged; enqueue answers
   * "full" beyond it. Default DEFAULT_PROFILE_QUOTA.
   */
  profileQuota?: number;
  /** How long a state is kept after its last write (see the module comment). Default 30 days. */
  stateRetentionMs?: number;
  /** The same for a state written as final. Default 7 days. */
  finalStateRetentionMs?: number;
  /**
   * Fair due times: a video a delivery schedules comes due this many ms later per item its
   * profile (or profile and channel) already has waiting. Default BACKLOG_SPACING_MS; 0 turns it off.
   */
  backlogSpacingMs?: number;
}

const DAY_MS = 24 * 3600_000;
export const STATE_RETENTION_MS = 30 * DAY_MS;
export const FINAL_STATE_RETENTION_MS = 7 * DAY_MS;
/** memory/sqlite: `claimDue` sweeps expired states at most this often (by the outbox clock)... */
export const STATE_SWEEP_EVERY_MS = 60_000;
/** ...and drops at most this many per sweep (one short statement, never a long lock). */
export const STATE_SWEEP_MAX = 500;

export interface Retention {
  /** For a state written as not final / final. */
  normal: number;
  final: number;
}

export function retentionOf(opts: OutboxOptions): Retention {
  return {
    normal: positiveMs(opts.stateRetentionMs ?? STATE_RETENTION_MS),
    final: positiveMs(opts.finalStateRetentionMs ?? FINAL_STATE_RETENTION_MS),
  };
}

export const DEFAULT_DEDUPE_TTL_MS = 24 * 3600_000;
/**
 * enqueue: a video scheduled (not leased) more than this beyond the new item's due time comes due
 * then instead. A video waiting for its turn to post in a busy channel (minutes away) has its new
 * deliveries folded as they arrive (each costs one pass, and the per-profile quota is freed) rather
 * than all of them at its turn; nearer due times (coalescing windows, short pauses) are kept, so
 * their deliveries are folded together.
 */
export const PULL_FORWARD_MS = 10_000;
/**
 * Pending items per profile: far above a real profile's backlog (a burst of 10,000 deliveries to
 * one route is stored whole), far below what would let one route fill the store.
 */
export const DEFAULT_PROFILE_QUOTA = 20_000;

/**
 * Fair due times (README.md, "Fair due times"): a delivery's video comes due behind what its own
 * route already has waiting, `backlog × spacing` after the time asked, counted from the head of
 * the schedule when the worker lags behind it (the earliest due time still scheduled): a flooded
 * route queues behind itself, and a route with nothing waiting is next, whatever the flood's lag.
 */
export const BACKLOG_SPACING_MS = 10;

export function backlogSpacingOf(opts: OutboxOptions): number {
  const v = opts.backlogSpacingMs ?? BACKLOG_SPACING_MS;
  return Number.isFinite(v) && v > 0 ? v : 0;
}

/**
 * When a video scheduled by a delivery comes due: `dueAt` (or, for a video due by `now`, the
 * schedule's `head`, the earliest due time scheduled, when that is earlier) plus the route's
 * `backlog` items × `spacingMs`.
 * Spacing 0: `dueAt` as asked.
 */
export function fairDue(
  dueAt: number,
  backlog: number,
  spacingMs: number,
  head?: number,
  now?: number,
): number {
  if (spacingMs <= 0) return dueAt;
  // Only a video due now starts from a lagging head; one asked for later keeps its time.
  const base = head !== undefined && head < dueAt && now !== undefined && dueAt <= now ? head : dueAt;
  return base + Math.max(0, backlog) * spacingMs;
}

export function profileQuotaOf(opts: OutboxOptions): number {
  return Math.max(1, Math.floor(opts.profileQuota ?? DEFAULT_PROFILE_QUOTA));
}
/** Dead letters kept per workspace (the newest). */
export const DEAD_LETTERS_PER_TEAM = 1000;

/** The stored form of an item: everything but its id (the backend assigns and keeps the id). */
export function encodeItem(item: NewOutboxItem): string {
  const { teamId, profileId, channelId, videoKey, delivery, receivedAt } = item;
  return JSON.stringify({ teamId, profileId, channelId, videoKey, delivery, receivedAt });
}

/**
 * The item stored under `id` in the queue of `key`. An unreadable one does not throw (that would
 * block its video for good, retried every few seconds): it comes back marked `damaged`, with what
 * its key tells (team, profile), for the worker to set aside as a dead letter.
 */
export function decodeItem(id: string, json: string, key: VideoKey): OutboxItem {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return damagedItem(id, key, "not JSON");
  }
  const o = parsed as Partial<NewOutboxItem> | null;
  if (
    typeof o !== "object" ||
    o === null ||
    typeof o.videoKey !== "string" ||
    typeof o.teamId !== "string" ||
    typeof o.delivery !== "object" ||
    o.delivery === null ||
    typeof o.delivery.type !== "string"
  ) {
    return damagedItem(id, key, "not an outbox item");
  }
  return { ...(o as NewOutboxItem), id };
}

function damagedItem(id: string, key: VideoKey, reason: string): OutboxItem {
  const { teamId, profileId, channelId } = partsOfVideoKey(key);
  return {
    id,
    teamId,
    profileId,
    channelId,
    videoKey: key,
    delivery: { type: "damaged", timestamp: 0, data: {}, known: false },
    receivedAt: 0,
    damaged: reason,
  };
}

export function parseJson(what: string, json: string): unknown {
  try {
    return JSON.parse(json);
  } catch (err) {
    throw new StoreCorruptError(what, "not JSON", { cause: err });
  }
}

/** JSON text of a state; `undefined` (no state) is stored as absent. */
export function encodeState(state: unknown): string | undefined {
  return state === undefined ? undefined : JSON.stringify(state);
}

/** ms >= 1: a zero or negative TTL/lease would mean "already expired" (Redis PX refuses it). */
export const positiveMs = (ms: number): number => Math.max(1, Math.floor(ms));
