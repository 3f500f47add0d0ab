/**
 * Watches and broadcast state in the bot's Keyv store (typed, zod-validated, versioned documents).
 *
 *   watch:ls:<livestreamId>     { v: 1, watchers: [{ teamId, channelId, by, at }] }
 *   watch:team:<teamId>         { v: 1, watches: [{ livestreamId, channelId, by, at }] }
 *   watch:index                 { v: 1, livestreams: [id…] }   every watched livestream (start-up)
 *   watch:live:<livestreamId>   { v: 1, broadcast, messages: { "<team>:<channel>": Msg }, poll }
 *
 * A workspace's watches are one read (its team document), never a scan. The live document is
 * written only by the replica holding the livestream's lease (schedule.ts): it carries the current
 * broadcast (broadcast.ts), the Slack message of each channel for that broadcast (`ts` null while
 * the post is under way: see service.ts for the ordering) and the last poll's outcome (App Home).
 * A new broadcast starts with no messages. The live document of an unwatched livestream is
 * deleted with its last watcher.
 *
 * Watch commands are read-modify-write without compare-and-set (like settings.ts): two managers
 * changing the same livestream's watchers in the same instant may lose one change; accepted for
 * rare, human-driven commands.
 */
import { z } from "zod";
import type { Logger } from "../log.js";
import { Documents, type Store } from "../store/index.js";
import type { Broadcast } from "./broadcast.js";

/** Slack and platform ids become parts of keys: no separators, no blanks. */
const ID_RE = /^(?!__proto__$)[^\s:]{1,100}$/;
export const watchIdSchema = z.string().regex(ID_RE);
const isoDateTime = z.iso.datetime({ offset: true });

export interface Watch {
  teamId: string;
  channelId: string;
  livestreamId: string;
  /** Slack user who asked. */
  by: string;
  /** ISO date-time. */
  at: string;
}

const watcherSchema = z.strictObject({
  teamId: watchIdSchema,
  channelId: watchIdSchema,
  by: z.string().min(1),
  at: isoDateTime,
});
const lsDocSchema = z.strictObject({ v: z.literal(1), watchers: z.array(watcherSchema) });
const teamWatchSchema = z.strictObject({
  livestreamId: watchIdSchema,
  channelId: watchIdSchema,
  by: z.string().min(1),
  at: isoDateTime,
});
const teamDocSchema = z.strictObject({ v: z.literal(1), watches: z.array(teamWatchSchema) });
const indexDocSchema = z.strictObject({ v: z.literal(1), livestreams: z.array(watchIdSchema) });

const num = z.number().finite();
const broadcastSchema = z.strictObject({
  id: z.string().regex(/^\d{1,16}$/),
  phase: z.enum(["live", "grace", "ended"]),
  startedAt: num,
  lastOnAirAt: num,
  offAirSince: num.nullable(),
  endedAt: num.nullable(),
  finalized: z.boolean(),
  title: z.string(),
  url: z.string().nullable(),
  thumbnailUrl: z.string().nullable(),
  adEndAt: num.nullable(),
  adsRemaining: num.nullable(),
  recording: z.enum(["starting", "started", "stopping", "stopped"]).nullable(),
  adBreaks: z.number().int().min(0),
  recordings: z.number().int().min(0),
  quotaUsedUp: z.boolean(),
});

const messageSchema = z.strictObject({
  /** null: the post was started and its answer not saved (never posted again: at most once). */
  ts: z.string().nullable(),
  postedAt: num,
  /** Hash of the last rendered content (skip identical updates). */
  hash: z.string(),
  updatedAt: num,
  ended: z.boolean(),
});
export type LiveMessage = z.infer<typeof messageSchema>;

const pollSchema = z.strictObject({
  at: num,
  ok: z.boolean(),
  /** Consecutive failures. */
  failures: z.number().int().min(0),
  error: z.string().nullable(),
});
export type PollOutcome = z.infer<typeof pollSchema>;

const liveDocSchema = z.strictObject({
  v: z.literal(1),
  broadcast: broadcastSchema.nullable(),
  messages: z.record(z.string(), messageSchema),
  poll: pollSchema.nullable(),
});
export interface LiveDoc {
  v: 1;
  broadcast: Broadcast | null;
  /** By `messageKey(teamId, channelId)`, for the current broadcast. */
  messages: Record<string, LiveMessage>;
  poll: PollOutcome | null;
}

export const watchKeys = {
  livestream: (id: string) => `watch:ls:${id}`,
  team: (teamId: string) => `watch:team:${teamId}`,
  index: "watch:index",
  live: (id: string) => `watch:live:${id}`,
};

export const messageKey = (teamId: string, channelId: string) => `${teamId}:${channelId}`;

export class WatchLimitError extends Error {
  readonly code = "WATCH_LIMIT";
  constructor(readonly limit: number) {
    super(`a workspace can watch at most ${limit} livestream channels`);
    this.name = "WatchLimitError";
  }
}

export function checkWatchIds(w: { teamId: string; channelId: string; livestreamId: string }): void {
  for (const [k, v] of Object.entries(w)) {
    if (!ID_RE.test(v)) throw new TypeError(`${k} must be 1-100 characters without blanks or ":"`);
  }
}

export class WatchStore {
  private readonly docs: Documents;

  constructor(store: Store, logger: Logger) {
    this.docs = new Documents(store, logger.child({ component: "watch-store" }));
  }

  /** Adds the watch; false when it existed. Throws WatchLimitError past `maxPerTeam`. */
  async add(w: Watch, maxPerTeam: number): Promise<boolean> {
    checkWatchIds({ teamId: w.teamId, channelId: w.channelId, livestreamId: w.livestreamId });
    const team = (await this.docs.read(watchKeys.team(w.teamId), teamDocSchema)) ?? { v: 1, watches: [] };
    if (team.watches.some((x) => x.livestreamId === w.livestreamId && x.channelId === w.channelId))
      return false;
    if (team.watches.length >= maxPerTeam) throw new WatchLimitError(maxPerTeam);
    const ls = (await this.docs.read(watchKeys.livestream(w.livestreamId), lsDocSchema)) ?? {
      v: 1,
      watchers: [],
    };
    // Livestream side first: a crash in between leaves a watcher the team list misses (the next
    // watch of the same pair repairs it), never a team entry nobody polls.
    if (!ls.watchers.some((x) => x.teamId === w.teamId && x.channelId === w.channelId)) {
      ls.watchers.push({ teamId: w.teamId, channelId: w.channelId, by: w.by, at: w.at });
      await this.docs.write(watchKeys.livestream(w.livestreamId), ls);
    }
    team.watches.push({ livestreamId: w.livestreamId, channelId: w.channelId, by: w.by, at: w.at });
    await this.docs.write(watchKeys.team(w.teamId), team);
    const index = (await this.docs.read(watchKeys.index, indexDocSchema)) ?? { v: 1, livestreams: [] };
    if (!index.livestreams.includes(w.livestreamId)) {
      index.livestreams.push(w.livestreamId);
      await this.docs.write(watchKeys.index, index);
    }
    return true;
  }

  /**
   * Removes the watch; returns whether it existed and how many watchers the livestream has left
   * (0: its live document and index entry are gone too).
   */
  async remove(w: Omit<Watch, "by" | "at">): Promise<{ removed: boolean; left: number }> {
    checkWatchIds({ teamId: w.teamId, channelId: w.channelId, livestreamId: w.livestreamId });
    const team = await this.docs.read(watchKeys.team(w.teamId), teamDocSchema);
    const keep = (team?.watches ?? []).filter(
      (x) => !(x.livestreamId === w.livestreamId && x.channelId === w.channelId),
    );
    const removed = team !== undefined && keep.length !== team.watches.length;
    if (removed) {
      if (keep.length === 0) await this.docs.remove(watchKeys.team(w.teamId));
      else await this.docs.write(watchKeys.team(w.teamId), { v: 1, watches: keep });
    }
    const ls = await this.docs.read(watchKeys.livestream(w.livestreamId), lsDocSchema);
    const watchers = (ls?.watchers ?? []).filter(
      (x) => !(x.teamId === w.teamId && x.channelId === w.channelId),
    );
    if (ls !== undefined && watchers.length !== ls.watchers.length) {
      if (watchers.length > 0)
        await this.docs.write(watchKeys.livestream(w.livestreamId), { v: 1, watchers });
      else await this.docs.remove(watchKeys.livestream(w.livestreamId));
    }
    if (watchers.length === 0) {
      await this.docs.remove(watchKeys.live(w.livestreamId));
      const index = await this.docs.read(watchKeys.index, indexDocSchema);
      if (index?.livestreams.includes(w.livestreamId)) {
        await this.docs.write(watchKeys.index, {
          v: 1,
          livestreams: index.livestreams.filter((id) => id !== w.livestreamId),
        });
      }
    }
    return { removed, left: watchers.length };
  }

  /** The workspace's watches, oldest first (one read). */
  async listTeam(teamId: string): Promise<Watch[]> {
    const team = await this.docs.read(watchKeys.team(teamId), teamDocSchema);
    return (team?.watches ?? []).map((x) => ({ teamId, ...x }));
  }

  /** Every (team, channel) watching the livestream. */
  async watchers(livestreamId: string): Promise<Watch[]> {
    const ls = await this.docs.read(watchKeys.livestream(livestreamId), lsDocSchema);
    return (ls?.watchers ?? []).map((x) => ({ livestreamId, ...x }));
  }

  /** Every watched livestream (start-up: fills the schedule). */
  async watchedLivestreams(): Promise<string[]> {
    return (await this.docs.read(watchKeys.index, indexDocSchema))?.livestreams ?? [];
  }

  async readLive(livestreamId: string): Promise<LiveDoc> {
    const doc = await this.docs.read(watchKeys.live(livestreamId), liveDocSchema);
    return doc ?? { v: 1, broadcast: null, messages: {}, poll: null };
  }

  async writeLive(livestreamId: string, doc: LiveDoc): Promise<void> {
    await this.docs.write(watchKeys.live(livestreamId), doc);
  }
}
