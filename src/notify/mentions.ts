/**
 * The mention a subscription asked for (`mention=`: `@here` or one person) on its channel's
 * format-error replies, bounded. Deliveries are unsigned: whoever holds a route's callback URL can
 * make up format errors, a new video id each, and every one of them would ping the channel. So a
 * channel is pinged at most MENTIONS_PER_CHANNEL_PER_HOUR times in any 60 minutes; past that the
 * reply is posted without the mention and says it was held back.
 *
 * Shared and durable: each ping takes one of the channel's slots `mention:<channel>:<n>` with the
 * outbox's set-if-absent with a time to live (`once`: Redis `SET NX PX`, one sqlite upsert, a map
 * in memory), so replicas on one Redis share the slots and a restart keeps them. A slot taken at
 * t is free again at t + 1 h, so no 60-minute span holds more pings than there are slots. A reply
 * tried again after a failed post takes a slot again: that can only hold a mention back, never add
 * one.
 */
import type { SettingsRepo } from "../store/index.js";
import type { Outbox } from "./types.js";
import type { VideoState } from "./video/state.js";

/** Pings per channel in any 60 minutes. */
export const MENTIONS_PER_CHANNEL_PER_HOUR = 3;
const HOUR_MS = 3_600_000;

export interface MentionDecision {
  /** The mention to put on the reply (null: none). */
  mention: string | null;
  /** A mention was asked for and held back (the channel had its pings this hour). */
  heldBack: boolean;
}

/**
 * Whether the video's format errors may ping at all. The one place for "only videos the platform
 * confirms": the video's title read (one GET per video, a later change) will mark the videos the
 * platform does not know, and those will never ping. Until then every video may, within the
 * hourly bound.
 */
export function mayMention(_state: VideoState): boolean {
  return true;
}

/** What a format-error reply of this video's channel carries: its subscription's mention, bounded. */
export async function mentionFor(
  o: { outbox: Pick<Outbox, "once">; settings: Pick<SettingsRepo, "getProfile"> },
  state: VideoState,
): Promise<MentionDecision> {
  const p = await o.settings.getProfile(state.teamId, state.profileId);
  const asked = p?.subscriptions.find((x) => x.channelId === state.channelId)?.mention ?? null;
  if (asked === null || !mayMention(state)) return { mention: null, heldBack: false };
  for (let n = 1; n <= MENTIONS_PER_CHANNEL_PER_HOUR; n++) {
    if (await o.outbox.once(`mention:${state.channelId}:${n}`, HOUR_MS))
      return { mention: asked, heldBack: false };
  }
  return { mention: null, heldBack: true };
}
