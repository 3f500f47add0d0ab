/**
 * Folding a claim's batch into the video's state, and what the worker does with the items it
 * cannot fold: refused by the reducer (a dead letter at once, deterministic), or a batch that keeps
 * failing otherwise (counted in the stored state; its first item a dead letter at MAX_ATTEMPTS).
 */
import type { VideoKey } from "../domain/index.js";
import type { Logger } from "../log.js";
import type { Outbox, OutboxItem } from "../outbox/index.js";
import { StoreCorruptError } from "../store/index.js";
import { applyDelivery, initialState, type VideoState } from "../video/state.js";
import { validateState } from "../video/validate.js";
import { type DeadLetterPass, type Refused, setAsideRefused } from "./dead-letters.js";
import type { UnsavedSlackFacts } from "./unsaved.js";

/** Failures of one batch (before its items are acknowledged) before its first item is a dead letter. */
export const MAX_ATTEMPTS = 3;

/**
 * The state after the items, and those the reducer refused. One pass: applyDelivery copies only
 * what each delivery changes (bounded parts), never the whole state.
 */
export function foldBatch(
  start: VideoState,
  items: readonly OutboxItem[],
): { state: VideoState; refused: Refused[] } {
  let state = start;
  const refused: Refused[] = [];
  for (const item of items) {
    try {
      const s = state.channelId === item.channelId ? state : { ...state, channelId: item.channelId };
      state = applyDelivery(s, item.delivery);
    } catch (err) {
      // Deterministic (the reducer is pure): the same item would fail every time.
      refused.push({ item, reason: `refused by the worker: ${errorText(err)}` });
    }
  }
  return { state: state.attempt ? withoutAttempt(state) : state, refused };
}

/**
 * The video's stored state (validated, with what Slack shows but the store missed laid over), or
 * a new one from the first item (`fresh`); undefined when there is neither.
 */
export async function loadState(
  pass: { key: VideoKey; opts: { outbox: Outbox; logger: Logger }; unsaved: UnsavedSlackFacts },
  first: OutboxItem | undefined,
  legacyKey?: VideoKey,
): Promise<{ state: VideoState; fresh: boolean } | undefined> {
  const { key, opts, unsaved } = pass;
  let raw: unknown;
  try {
    raw = await opts.outbox.getState(key);
    // A channel key without a state yet: a video in progress before the fan-out (src/notify/
    // fanout.ts) kept its state at the profile key; it continues from there for the same channel.
    if (raw === undefined && legacyKey !== undefined && legacyKey !== key && first) {
      const old = validateState(await opts.outbox.getState(legacyKey));
      if (old && old.channelId === first.channelId)
        return { state: unsaved.apply(legacyKey, old), fresh: false };
    }
  } catch (err) {
    // Unreadable (not JSON): started again like a damaged state, instead of failing for ever.
    if (!(err instanceof StoreCorruptError)) throw err;
    raw = null;
  }
  if (raw !== undefined) {
    const s = validateState(raw);
    if (s) return { state: unsaved.apply(key, s), fresh: false };
    opts.logger.error({ video: key }, "stored video state is damaged; starting it again");
  }
  return first ? { state: initialStateOf(first), fresh: true } : undefined;
}

/** The state of a video without one, from its first item (read defensively: whatever shape was stored). */
export function initialStateOf(first: OutboxItem): VideoState {
  const data: unknown = first.delivery.data;
  const field = (name: string): string | null => {
    const v =
      typeof data === "object" && data !== null
        ? Object.getOwnPropertyDescriptor(data, name)?.value
        : undefined;
    return typeof v === "string" ? v.slice(0, 200) : null;
  };
  return initialState({
    teamId: first.teamId,
    profileId: first.profileId,
    channelId: first.channelId,
    videoId: field("video_id"),
    ownerId: field("owner_id"),
  });
}

/**
 * A batch failed before its items were acknowledged (not a store outage): counted in the stored
 * state, so a restart keeps the count; the next pass folds the first item alone. At MAX_ATTEMPTS
 * that item becomes a dead letter and the video goes on with the next.
 */
export async function countAttempt(
  pass: DeadLetterPass,
  loaded: VideoState,
  head: OutboxItem,
  err: unknown,
): Promise<{ dueAt: number }> {
  const { opts, key } = pass;
  const { outbox, owner } = opts;
  const n = (loaded.attempt?.id === head.id ? loaded.attempt.n : 0) + 1;
  const reason = errorText(err);
  if (n < MAX_ATTEMPTS) {
    await outbox.setState(owner, key, { ...loaded, attempt: { id: head.id, n, reason } });
    return { dueAt: opts.now() + 2_000 };
  }
  await setAsideRefused(pass, [{ item: head, reason: `failed ${n} times: ${reason}` }]);
  if (await outbox.ack(owner, key, [head.id])) await outbox.setState(owner, key, withoutAttempt(loaded));
  return { dueAt: opts.now() };
}

/** Complete or deleted, every reply posted: kept for the outbox's shorter (final) retention. */
export const isFinal = (s: VideoState): boolean =>
  (s.stage === "complete" || s.stage === "deleted") && s.milestones.every((m) => m.posted);

export function withoutAttempt(s: VideoState): VideoState {
  const { attempt: _, ...rest } = s;
  return rest;
}

/** A short, single-line reason for a dead letter or a log line (no stack). */
export function errorText(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  return text.replace(/\s+/g, " ").slice(0, 300);
}
