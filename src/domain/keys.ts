/**
 * The keys the notification path stores things under, built and read only here (ids carry no ':'
 * and no blank: src/domain/ids.ts, the platform's ids):
 *
 * - a profile's video key `team:profile:video` (`-` for a delivery without a video id): the order
 *   and lease unit of the outbox before fan-out;
 * - a channel's copy of it `team:profile␠channel:video`: one per subscribed channel after fan-out;
 * - a digest key `team:profile:channel`: one digest log per subscription;
 * - a title reference `title:team:profile:video`: the same for a video's profile key and its copies.
 */

/** A profile's video key or a channel's copy of it. */
export type VideoKey = string;

/** `team:profile:channel`. */
export type DigestKey = string;

export interface KeyParts {
  teamId: string;
  profileId: string;
  /** The channel of a channel's copy; "" for a profile key. */
  channelId: string;
  /** The video id; "-" for a delivery without one. */
  videoId: string;
}

export function videoKeyOf(teamId: string, profileId: string, videoId: string | null): VideoKey {
  return `${teamId}:${profileId}:${videoId ?? "-"}`;
}

/**
 * The per-profile part of a key, `team:profile` (or `team:profile␠channel` for a channel's copy):
 * enqueue and ack both derive the profile's quota name from it, so they always count alike.
 */
export function profileOfVideoKey(key: VideoKey): string {
  const first = key.indexOf(":");
  const second = first < 0 ? -1 : key.indexOf(":", first + 1);
  return second < 0 ? key : key.slice(0, second);
}

/** The key of one channel's copy of a video: `team:profile␠channel:video`. */
export function channelKeyOf(profileKey: VideoKey, channelId: string): VideoKey {
  const profile = profileOfVideoKey(profileKey);
  return `${profile} ${channelId}${profileKey.slice(profile.length)}`;
}

/** Whether `key` is a channel's copy (fan-out done) rather than a profile key. */
export function isChannelKey(key: VideoKey): boolean {
  return profileOfVideoKey(key).includes(" ");
}

/** The profile key a channel's copy was made from (a profile key is its own). */
export function profileKeyOf(channelKey: VideoKey): VideoKey {
  const profile = profileOfVideoKey(channelKey);
  const blank = profile.indexOf(" ");
  return blank < 0 ? channelKey : `${profile.slice(0, blank)}${channelKey.slice(profile.length)}`;
}

/** The parts of a profile key or a channel's copy (empty strings where the key lacks them). */
export function partsOfVideoKey(key: VideoKey): KeyParts {
  const profile = profileOfVideoKey(key);
  const colon = profile.indexOf(":");
  const blank = profile.indexOf(" ");
  return {
    teamId: colon < 0 ? profile : profile.slice(0, colon),
    profileId: colon < 0 ? "" : profile.slice(colon + 1, blank < 0 ? undefined : blank),
    channelId: blank < 0 ? "" : profile.slice(blank + 1),
    videoId: key.slice(profile.length + 1),
  };
}

/** The workspace and profile of a profile key or a channel's copy. */
export function workspaceOfKey(key: VideoKey): { teamId: string; profileId: string } {
  const { teamId, profileId } = partsOfVideoKey(key);
  return { teamId, profileId };
}

export function digestKeyOf(teamId: string, profileId: string, channelId: string): DigestKey {
  return `${teamId}:${profileId}:${channelId}`;
}

export function partsOfDigestKey(
  key: DigestKey,
): { teamId: string; profileId: string; channelId: string } | null {
  const [teamId, profileId, channelId, ...rest] = key.split(":");
  if (!teamId || !profileId || !channelId || rest.length > 0) return null;
  return { teamId, profileId, channelId };
}

/** The marker and note name of a video's title: the same for its profile key and its channels' copies. */
export function titleRef(key: VideoKey): string {
  return `title:${profileKeyOf(key)}`;
}
