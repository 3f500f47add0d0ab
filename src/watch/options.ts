/** The live watch service's options, the watch it takes and what it reports (service.ts). */
import type { WebClient } from "@slack/web-api";
import type { Logger } from "../log.js";
import type { Livestream } from "../platform/index.js";
import type { ChannelGate, SlackUsers } from "../posting/index.js";
import type { Store } from "../store/index.js";
import type { WatchAccess } from "./access.js";
import type { WatchRegistry } from "./registry.js";
import type { WatchSchedule } from "./schedule.js";

export interface WatchMetrics {
  /** One poll: its outcome, HTTP status (0 none), latency. */
  onPoll?(opts: { livestreamId: string; ok: boolean; status: number; latencyMs: number }): void;
  onStateChange?(opts: { livestreamId: string; from: string; to: string }): void;
  /** How many livestreams are watched (after watch/unwatch/start). */
  onWatched?(count: number): void;
}

export interface WatchServiceOptions {
  store: Store;
  logger: Logger;
  /**
   * The schedule's livestream reads, through the platform door (src/access `PlatformDoor`,
   * `livestreams`): each charged to its watch, which the schedule pays (one read per livestream
   * per interval, whatever watches it), so no person's or workspace's budget is taken.
   */
  platform: {
    getLivestream(
      id: string,
      fields?: readonly string[],
      opts?: { signal?: AbortSignal },
    ): Promise<Livestream>;
  };
  slackFor: (teamId: string) => Promise<WebClient>;
  /** The process's one `users.info` cache (DM watches; shared with the manager check). */
  users?: SlackUsers | undefined;
  /** The channels' pacing shared with the worker and digests (none: the watch posts unpaced). */
  gate?: ChannelGate | undefined;
  access: WatchAccess;
  /** LIVE_WATCH_INTERVAL_MS */
  intervalMs: number;
  /** LIVE_OFFAIR_GRACE_MS */
  graceMs: number;
  /** Least time between two updates of one message (default max(interval, 1000)). */
  minUpdateIntervalMs?: number | undefined;
  maxWatchesPerTeam?: number | undefined;
  /** DM watches per person (default 10). */
  maxDmWatchesPerUser?: number | undefined;
  /** How long a person's `users.info` answer is kept (default 5 minutes; dm.ts). */
  memberCacheMs?: number | undefined;
  /** LIVE_WATCH_MAX: watched livestreams in all. */
  maxWatched?: number;
  concurrency?: number | undefined;
  tickMs?: number | undefined;
  metrics?: WatchMetrics;
  schedule?: WatchSchedule;
  registry?: WatchRegistry;
  /** Channels whose messages of a profile are held back (digests and pauses), handed in by compose.ts. */
  held?: HeldChannels;
  now?: () => number;
  random?: () => number;
}

/**
 * Digests and pauses (src/notify/digest, handed in by compose.ts): a channel whose subscription to
 * the livestream's profile holds its messages back gets no live message; each broadcast is
 * recorded for its digest or catch-up when it ends.
 */
export interface HeldChannels {
  /** Whether the channel's messages of the profile are held back now. */
  held(teamId: string, profileId: string, channelId: string): Promise<boolean>;
  /** Records the broadcast for the channel's digest or catch-up; false when the channel is not held. */
  recordBroadcast(b: {
    teamId: string;
    channelId: string;
    profileId: string;
    livestreamId: string;
    title: string | null;
    startedAt: number;
    endedAt: number;
    adsUsed: number | null;
  }): Promise<boolean>;
}

export interface NewWatch {
  teamId: string;
  enterpriseId?: string | undefined;
  /** The channel told, or `dmKey(by)`: a personal watch told by DM (only ever the asker's own). */
  channelId: string;
  livestreamId: string;
  /** The livestream's profile, from the read that authorized the watch. */
  profileId?: string | undefined;
  /** Slack user id of who asked. */
  by: string;
}

export interface WatchHealth {
  /** Livestreams this replica polled at least once. */
  polled: number;
  failing: Array<{ livestreamId: string; failures: number; error: string; at: number }>;
}

export const DEFAULT_MAX_WATCHES_PER_TEAM = 100;
/**
 * DM watches per person: anyone who may read a livestream can ask for one, so one person cannot
 * take the workspace's 100 watches alone.
 */
export const DEFAULT_MAX_DM_WATCHES_PER_USER = 10;
/** LIVE_WATCH_MAX's default. */
export const DEFAULT_MAX_WATCHED = 1000;
