/**
 * What a digest or a catch-up will summarise, kept in the store as it happens (the "digest log"),
 * and when it is due. One log per (workspace, profile, channel) subscription: its key is
 * `team:profile:channel` (ids carry no ':').
 * More: README.md ("types.ts").
 */

import { z } from "zod";
import type { DigestKey } from "../domain/index.js";

/** Entries kept per subscription; further ones are counted as left out. */
export const DIGEST_LOG_BOUND = 500;

export const ENTRY_KINDS = [
  "published",
  "complete",
  "format_error",
  "deleted",
  "broadcast",
  "other",
] as const;
export type EntryKind = (typeof ENTRY_KINDS)[number];

const text = (max: number) => z.string().max(max);

/** A broadcast of a livestream the channel watches, as the live watch reports it when it ended. */
export const broadcastSchema = z
  .object({
    livestreamId: text(64).min(1),
    title: text(300).nullable(),
    /** ms since the epoch. */
    startedAt: z.number().int().nonnegative(),
    endedAt: z.number().int().nonnegative(),
    /** Ads used of the 24 per hour the platform allows, over the broadcast; null when not known. */
    adsUsed: z.number().int().nonnegative().max(100_000).nullable(),
  })
  .strict();
export type BroadcastSummary = z.infer<typeof broadcastSchema>;

export const entrySchema = z
  .object({
    /** Unique within the log: a second entry with the same id is a duplicate. */
    id: text(500).min(1),
    /** Wall-clock ms when it was recorded: decides its digest period. */
    at: z.number().int().nonnegative(),
    kind: z.enum(ENTRY_KINDS),
    videoId: text(200).optional(),
    /** Where the video's state is (its title can be found there when it came after). */
    videoKey: text(400).optional(),
    /** The video's title; null: it has none the bot may show; absent: not known when recorded. */
    title: text(300).nullable().optional(),
    /** The platform answered 404 for the video. */
    notConfirmed: z.literal(true).optional(),
    /** Format errors: the format. */
    preset: text(200).optional(),
    /** Other events: their type. */
    type: text(200).optional(),
    /** The event's timestamp, ms. */
    eventAt: z.number().optional(),
    broadcast: broadcastSchema.optional(),
  })
  .strict();
export type DigestEntry = z.infer<typeof entrySchema>;

/** An entry as stored: its sequence number (increasing within a log) and its JSON. */
export interface StoredEntry {
  seq: number;
  json: string;
}

export type RecordOutcome = "stored" | "duplicate" | "left_out";

/** What the runner keeps per log (src/digest/runner.ts), as JSON. */
export const postingSchema = z
  .object({
    /** digest: a period's digest; catch-up: the end of a pause; since: leftovers after `digest=off`. */
    kind: z.enum(["digest", "catch-up", "since"]),
    /** The period it covers, ms. */
    from: z.number(),
    end: z.number(),
    /** Entries up to this seq are in it. */
    upTo: z.number().int(),
    /** Entries left out (past the bound) that it reports. */
    leftOut: z.number().int().nonnegative(),
    /** The pause it closes (its `at`), for a catch-up. */
    pauseAt: z.string().nullable(),
    /** The marker: its random id (in the digest's metadata, `post_id`) and when it was taken (ms). */
    id: z.string().min(1).max(64),
    at: z.number(),
    /** The message's ts once Slack answered; null before. */
    ts: z.string().nullable(),
    /** Thread replies posted so far. */
    replies: z.number().int().nonnegative(),
  })
  .strict();
export type Posting = z.infer<typeof postingSchema>;

export const digestStateSchema = z
  .object({
    v: z.literal(1),
    /** Entries up to this seq were posted: ignored if still there. */
    settledUpTo: z.number().int(),
    /** End of the last digest or catch-up posted, ms. */
    lastEnd: z.number().nullable(),
    /** The pause (its `at`) whose catch-up was posted. */
    caughtUp: z.string().nullable(),
    /** The digest being posted (the per-period marker), null between two. */
    posting: postingSchema.nullable(),
  })
  .strict();
export type DigestState = z.infer<typeof digestStateSchema>;

export const initialDigestState = (): DigestState => ({
  v: 1,
  settledUpTo: 0,
  lastEnd: null,
  caughtUp: null,
  posting: null,
});

/**
 * The digest logs. Every method is safe to call from several processes sharing one backend
 * (Redis) and from concurrent tasks of one process; the fenced ones do nothing (false) once
 * `owner`'s lease on the key has ended.
 */
export interface DigestLog {
  readonly kind: "memory" | "sqlite" | "redis";
  /**
   * Appends the entry (its JSON) unless an entry with its id is in the log ("duplicate") or the
   * log holds DIGEST_LOG_BOUND entries ("left_out": counted, not kept); then `wake`s the key.
   */
  record(key: DigestKey, entryId: string, json: string, dueAt: number): Promise<RecordOutcome>;
  /**
   * The key comes due at `dueAt` at the latest: an earlier due time is kept. While the key is
   * leased, `dueAt` is remembered and applied when the lease is released.
   */
  wake(key: DigestKey, dueAt: number): Promise<void>;
  /** Leases up to `max` keys due by `now` (their lease free or expired) to `owner` until `now + leaseMs`. */
  claimDue(owner: string, now: number, max: number, leaseMs: number): Promise<DigestKey[]>;
  /** Extends `owner`'s lease to `until`; false when it is no longer theirs. */
  renew(owner: string, key: DigestKey, until: number): Promise<boolean>;
  /** The entries (oldest first) and how many were left out. */
  read(key: DigestKey): Promise<{ entries: StoredEntry[]; leftOut: number }>;
  /** The runner's state (JSON), undefined when none. */
  getState(key: DigestKey): Promise<string | undefined>;
  /** Fenced. */
  setState(owner: string, key: DigestKey, state: string): Promise<boolean>;
  /**
   * Fenced, one step: writes the state, removes the entries up to `upTo` and lowers the left-out
   * count by `leftOut` (at least 0).
   */
  settle(owner: string, key: DigestKey, state: string, upTo: number, leftOut: number): Promise<boolean>;
  /**
   * Ends `owner`'s lease: the key comes due at `dueAt` (or at what `wake` asked meanwhile, if
   * sooner); null and nothing asked: no longer scheduled.
   */
  release(owner: string, key: DigestKey, dueAt: number | null): Promise<void>;
  /** Forgets the log, its state and its schedule (the subscription is gone or revoked). */
  drop(key: DigestKey): Promise<void>;
  /** Keys scheduled. */
  scheduled(): Promise<number>;
  close(): Promise<void>;
}

/** The parts of a digest's key. */
export type DigestParts = { teamId: string; profileId: string; channelId: string };

/** One pass over a marked digest: its key, parts, the state as last written, and the marker. */
export interface DigestPass {
  key: DigestKey;
  parts: DigestParts;
  state: DigestState;
  marked: Posting;
}
