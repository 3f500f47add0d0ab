/**
 * What the three outbox implementations share: options, limits and the item encoding.
 *
 * Time: `claimDue` gets `now` from the caller, but `enqueue` (dedupe window), `once`, `release(…,
 * null)` ("due now") and the lease checks of `ack`/`setState`/`renew`/`release` have no `now`
 * parameter; they read the outbox's clock (`OutboxOptions.now`, Date.now by default). Pass the same
 * clock the worker uses for `claimDue`. Redis is the exception for expiries: dedupe keys, `once`
 * keys and leases expire by Redis's own clock (PX), so there the caller's clock must be wall time.
 */
import { StoreCorruptError } from "../../store/index.js";
import type { NewOutboxItem, OutboxItem } from "../types.js";

export type Clock = () => number;

export interface OutboxOptions {
  /** Clock for the operations that get no `now` argument (see the module comment). */
  now?: Clock;
  /** How long a dedupe key makes a later delivery with the same key a duplicate. Default 24 h. */
  dedupeTtlMs?: number;
}

export const DEFAULT_DEDUPE_TTL_MS = 24 * 3600_000;
/** Dead letters kept per workspace (the newest). */
export const DEAD_LETTERS_PER_TEAM = 1000;

/** The stored form of an item: everything but its id (the backend assigns and keeps the id). */
export function encodeItem(item: NewOutboxItem): string {
  const { teamId, profileId, channelId, videoKey, delivery, receivedAt } = item;
  return JSON.stringify({ teamId, profileId, channelId, videoKey, delivery, receivedAt });
}

export function decodeItem(id: string, json: string): OutboxItem {
  const parsed = parseJson(`outbox item ${id}`, json);
  if (typeof parsed !== "object" || parsed === null || !("videoKey" in parsed) || !("delivery" in parsed)) {
    throw new StoreCorruptError(`outbox item ${id}`, "not an outbox item");
  }
  return { ...(parsed as NewOutboxItem), id };
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
