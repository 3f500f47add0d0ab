/**
 * What goes into a digest or a catch-up, recorded as it happens (the digest log, types.ts):
 * More: README.md ("record.ts").
 */
import { digestKeyOf, type VideoKey } from "../domain/index.js";
import type { Logger } from "../log.js";
import { type Hold, holdOf, type SettingsRepo } from "../store/index.js";
import type { Milestone, VideoState } from "../video/state.js";
import {
  type BroadcastSummary,
  broadcastSchema,
  type DigestEntry,
  type DigestLog,
  type EntryKind,
  entrySchema,
} from "./types.js";

export interface DigestsOptions {
  log: DigestLog;
  settings: SettingsRepo;
  /** DIGEST_PERIOD, ms. */
  periodMs: number;
  logger: Logger;
  now?: () => number;
}

/** A broadcast of a livestream a channel watches, as the live watch hands it over. */
export interface BroadcastRecord extends BroadcastSummary {
  teamId: string;
  channelId: string;
  /** The livestream's profile: the channel's subscription to it decides. */
  profileId: string;
}

/** The entry kind of a milestone; undefined: not part of a digest (a format's deletion). */
function kindOf(m: Milestone): EntryKind | undefined {
  if (m.key === "published" || m.key === "complete" || m.key === "deleted") return m.key;
  if (m.key.startsWith("error:")) return "format_error";
  if (m.key.startsWith("event:")) return "other";
  return undefined;
}

/** What the video's state says of its title, as an entry keeps it. */
function titleFields(s: VideoState): Pick<DigestEntry, "title" | "notConfirmed"> {
  if (s.title === undefined) return {};
  if ("title" in s.title) return { title: s.title.title };
  if ("notConfirmed" in s.title) return { title: null, notConfirmed: true };
  return { title: null };
}

export function entryOfMilestone(
  key: VideoKey,
  s: VideoState,
  m: Milestone,
  at: number,
): DigestEntry | undefined {
  const kind = kindOf(m);
  if (kind === undefined) return undefined;
  const preset = m.data.preset_name;
  return {
    id: `v:${s.videoId ?? "-"}:${m.key}`.slice(0, 500),
    at,
    kind,
    eventAt: m.timestamp,
    ...(s.videoId !== null ? { videoId: s.videoId, videoKey: key.slice(0, 400), ...titleFields(s) } : {}),
    ...(kind === "format_error"
      ? { preset: (typeof preset === "string" ? preset : m.key.slice("error:".length)).slice(0, 200) }
      : {}),
    ...(kind === "other" ? { type: m.type.slice(0, 200) } : {}),
  };
}

export class Digests {
  readonly log: DigestLog;
  readonly periodMs: number;
  private readonly settings: SettingsRepo;
  private readonly logger: Logger;
  private readonly now: () => number;

  constructor(opts: DigestsOptions) {
    this.log = opts.log;
    this.settings = opts.settings;
    this.periodMs = opts.periodMs;
    this.logger = opts.logger;
    this.now = opts.now ?? Date.now;
  }

  /** Whether the channel's subscription to the profile holds its live messages back now. */
  async holdOf(teamId: string, profileId: string, channelId: string): Promise<Hold | null> {
    const p = await this.settings.getProfile(teamId, profileId);
    const sub = p?.subscriptions.find((s) => s.channelId === channelId);
    return sub ? holdOf(sub, this.periodMs, this.now()) : null;
  }

  /**
   * Records the video's milestones not shown yet for the channel's digest or catch-up; returns the
   * state with them marked done (the caller writes it). The parent message is not posted.
   */
  async recordVideo(key: VideoKey, s: VideoState, hold: Hold): Promise<VideoState> {
    const dkey = digestKeyOf(s.teamId, s.profileId, s.channelId);
    const at = this.now();
    for (const m of s.milestones) {
      if (m.posted) continue;
      const entry = entryOfMilestone(key, s, m, at);
      if (entry) await this.log.record(dkey, entry.id, JSON.stringify(entry), hold.dueAt);
    }
    return { ...s, milestones: s.milestones.map((m) => (m.posted ? m : { ...m, posted: true })) };
  }

  /**
   * For the live watch: a broadcast of a livestream the channel watches ended. Recorded for the
   * channel's digest (or catch-up) when its subscription to the livestream's profile holds its
   * messages back; true then. false: the channel gets live messages (nothing recorded), or the
   * summary is not one (logged). Recording the same broadcast again changes nothing.
   */
  async recordBroadcast(b: BroadcastRecord): Promise<boolean> {
    const { teamId, channelId, profileId, ...rest } = b;
    const summary = broadcastSchema.safeParse(rest);
    if (!summary.success) {
      this.logger.warn(
        { team: teamId, channel: channelId },
        "a broadcast summary that is not one; not recorded",
      );
      return false;
    }
    const hold = await this.holdOf(teamId, profileId, channelId);
    if (hold === null) return false;
    const entry = entrySchema.parse({
      id: `b:${summary.data.livestreamId}:${summary.data.startedAt}`,
      at: this.now(),
      kind: "broadcast",
      eventAt: summary.data.endedAt,
      broadcast: summary.data,
    });
    await this.log.record(
      digestKeyOf(teamId, profileId, channelId),
      entry.id,
      JSON.stringify(entry),
      hold.dueAt,
    );
    return true;
  }

  /** The subscription's log comes due at `dueAt` at the latest (a pause's end, a resume, `digest=off`). */
  async wake(teamId: string, profileId: string, channelId: string, dueAt: number): Promise<void> {
    await this.log.wake(digestKeyOf(teamId, profileId, channelId), dueAt);
  }

  /** Forgets what was recorded for the subscription (it is gone). */
  async drop(teamId: string, profileId: string, channelId: string): Promise<void> {
    await this.log.drop(digestKeyOf(teamId, profileId, channelId));
  }
}
