/**
 * Live watch in the bot's store: the registry of watches (registry.ts: atomic per backend) and the
 * broadcast state of each watched livestream (a typed, zod-validated, versioned Keyv document):
 *
 *   watch:live:<livestreamId>   { v: 1, broadcast, messages: { "<team>:<channel>": Msg }, poll }
 * More: README.md ("live-docs.ts").
 */
import { z } from "zod";
import type { Logger } from "../log.js";
import { Documents, type Store } from "../store/index.js";
import type { Broadcast } from "./broadcast.js";
import { dmUserOf, type WatchEntry } from "./registry.js";
import { stepOf, type WaitKind } from "./steps.js";

/** Slack and platform ids become parts of keys: no separators, no blanks. */
const ID_RE = /^(?!__proto__$)[^\s:]{1,100}$/;
export const watchIdSchema = z.string().regex(ID_RE);

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

/** The longest livestream title kept with its state. */
export const TITLE_MAX = 1_000;

const liveDocSchema = z.strictObject({
  v: z.literal(1),
  broadcast: broadcastSchema.nullable(),
  messages: z.record(z.string(), messageSchema),
  poll: pollSchema.nullable(),
  /** The livestream's title as its last read said, on air or not (documents before it: none). */
  title: z.string().max(TITLE_MAX).optional(),
});
export interface LiveDoc {
  v: 1;
  broadcast: Broadcast | null;
  /** By `messageKey(teamId, channelId)`, for the current broadcast. */
  messages: Record<string, LiveMessage>;
  poll: PollOutcome | null;
  /** The livestream's title as its last read said, on air or not: what `/live watching` names it by. */
  title?: string | undefined;
}

export const liveKey = (id: string) => `watch:live:${id}`;

export const messageKey = (teamId: string, channelId: string) => `${teamId}:${channelId}`;

/** Which cap refused a watch: the person's DM watches (10), the workspace's (100) or the one in all (LIVE_WATCH_MAX). */
export type WatchLimitScope = "user" | "workspace" | "all";

export class WatchLimitError extends Error {
  readonly code = "WATCH_LIMIT";
  constructor(
    readonly limit: number,
    readonly scope: WatchLimitScope,
  ) {
    super(
      scope === "user"
        ? `a person can have at most ${limit} DM watches`
        : scope === "workspace"
          ? `a workspace can watch at most ${limit} livestream channels`
          : `at most ${limit} livestreams can be watched in all`,
    );
    this.name = "WatchLimitError";
  }
}

export function checkWatchIds(w: { teamId: string; channelId: string; livestreamId: string }): void {
  for (const [k, v] of Object.entries(w)) {
    if (!ID_RE.test(v)) throw new TypeError(`${k} must be 1-100 characters without blanks or ":"`);
  }
}

/** The broadcast state of each watched livestream (the watches themselves: registry.ts). */
export class LiveDocs {
  private readonly docs: Documents;

  constructor(store: Store, logger: Logger) {
    this.docs = new Documents(store, logger.child({ component: "watch-store" }));
  }

  async read(livestreamId: string): Promise<LiveDoc> {
    const doc = await this.docs.read(liveKey(livestreamId), liveDocSchema);
    return doc ?? { v: 1, broadcast: null, messages: {}, poll: null };
  }

  async write(livestreamId: string, doc: LiveDoc): Promise<void> {
    await this.docs.write(liveKey(livestreamId), doc);
  }

  async remove(livestreamId: string): Promise<void> {
    await this.docs.remove(liveKey(livestreamId));
  }
}

/** A watch as `/live watching` and the App Home show it: with its livestream's current state. */
export interface WatchView extends WatchEntry {
  /** A personal watch, told by DM (its `channelId` is `@<user>`). */
  dm: boolean;
  /** A waiting workflow step (its `channelId` is the step's key, steps.ts). */
  step: { kind: WaitKind; executionId: string } | undefined;
  state: "live" | "reconnecting" | "off_air" | "not_polled_yet";
  title: string | null;
  /** On air since (live), or ended at (off air), ms. */
  since: number | null;
  lastPoll: PollOutcome | null;
}

export function watchView(w: WatchEntry, doc: LiveDoc | undefined): WatchView {
  const b = doc?.broadcast ?? null;
  const state: WatchView["state"] =
    doc?.poll === null || doc === undefined
      ? "not_polled_yet"
      : b?.phase === "live"
        ? "live"
        : b?.phase === "grace"
          ? "reconnecting"
          : "off_air";
  const since = b === null ? null : b.phase === "ended" ? b.endedAt : b.startedAt;
  return {
    ...w,
    dm: dmUserOf(w.channelId) !== undefined,
    step: stepOf(w.channelId),
    state,
    // The broadcast's while one runs; else what the last read said (a show watched before it airs).
    title: b?.title ?? doc?.title ?? null,
    since,
    lastPoll: doc?.poll ?? null,
  };
}
