/**
 * The mention a subscription asked for (`mention=`: `@here` or one person) on its channel's
 * format-error replies, bounded. Deliveries are unsigned: whoever holds a profile's callback URL can
 * make up format errors, a new video id each, and every one of them would ping the channel. So a
 * channel is pinged at most MENTIONS_PER_CHANNEL_PER_HOUR times in any 60 minutes; past that the
 * reply is posted without the mention and says it was held back.
 * More: README.md ("mentions.ts").
 */
import { MENTIONS_PER_CHANNEL_PER_HOUR } from "../domain/index.js";
import type { Outbox } from "../outbox/index.js";
import type { SettingsRepo } from "../store/index.js";
import type { VideoState } from "../video/state.js";

/** Pings per channel in any 60 minutes: the held-back reply quotes it, so it is defined in src/messages. */
export { MENTIONS_PER_CHANNEL_PER_HOUR };

const HOUR_MS = 3_600_000;
/**
 * How long a format-error reply that asks for a mention waits for the title read's answer, after
 * the title was first asked for. The read ends sooner (the platform client's timeouts and
 * retries): this only bounds the wait when the replica reading it stopped meanwhile.
 */
export const MENTION_WAIT_MS = 60_000;

/** Why a mention asked for is not put on the reply. */
export type HeldBack = "hourly" | "unconfirmed";

export interface MentionDecision {
  /** The mention to put on the reply (null: none). */
  mention: string | null;
  /** A mention was asked for and held back, and why (the reply says so); null otherwise. */
  heldBack: HeldBack | null;
  /** The video's title read has not answered yet: come back then (or sooner) to decide. */
  waitUntil?: number;
}

export type MentionCheck = { ok: boolean } | { waitUntil: number };

/**
 * Whether the video's format errors may ping: the one place for "only videos the platform
 * confirms". Deliveries are unsigned; the video's title read (src/notify/title.ts) is the only
 * check that the video is real.
 *  - Confirmed (the platform has the video): yes.
 *  - 404 (no such video), 422 (an id it refuses), or no answer (5xx, timeout, a broken body): no.
 *    A leaked callback URL cannot ping with made-up ids, not even while the platform is down.
 *  - Not checkable because the key lacks `video.read` (not granted, or refused with 403): no.
 *    Nobody confirmed the video (fail closed, the contract's trust rules).
 *  - An answer that does not show the video is the profile's: no (names.ts answers it as 404).
 *  - No answer yet: wait for it, at most until MENTION_WAIT_MS after the title was first asked
 *    for; no after that.
 */
export function mayMention(state: VideoState, now: number): MentionCheck {
  const t = state.title;
  if (t === undefined) {
    if (state.videoId === null || state.titleAskedAt === undefined) return { ok: false };
    const until = state.titleAskedAt + MENTION_WAIT_MS;
    return until > now ? { waitUntil: until } : { ok: false };
  }
  // Only a video the platform confirmed as the profile's pings: not a 403, nor a key without
  // `video.read` (nobody confirmed the video), nor any other failure.
  return { ok: "title" in t };
}

/**
 * What a format-error reply of this video's channel carries: its subscription's mention, for a
 * video `mayMention` allows (unless `checkVideo` is false: a worker that reads no titles), bounded.
 */
export async function mentionFor(
  opts: { outbox: Pick<Outbox, "once">; settings: Pick<SettingsRepo, "getProfile">; now: () => number },
  state: VideoState,
  checkVideo = true,
): Promise<MentionDecision> {
  const p = await opts.settings.getProfile(state.teamId, state.profileId);
  const asked = p?.subscriptions.find((x) => x.channelId === state.channelId)?.mention ?? null;
  if (asked === null) return { mention: null, heldBack: null };
  const check: MentionCheck = checkVideo ? mayMention(state, opts.now()) : { ok: true };
  if ("waitUntil" in check) return { mention: null, heldBack: null, waitUntil: check.waitUntil };
  if (!check.ok) return { mention: null, heldBack: "unconfirmed" };
  for (let n = 1; n <= MENTIONS_PER_CHANNEL_PER_HOUR; n++) {
    if (await opts.outbox.once(`mention:${state.teamId}:${state.channelId}:${n}`, HOUR_MS))
      return { mention: asked, heldBack: null };
  }
  return { mention: null, heldBack: "hourly" };
}
