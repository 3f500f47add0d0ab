/**
 * Posts the digests and catch-ups when they are due: claims due logs (digest log, types.ts) with a
 * lease, decides what is owed, posts it, and settles it.
 * More: README.md ("runner.ts").
 */

import { randomUUID } from "node:crypto";
import type { WebClient } from "@slack/web-api";
import type { RevokedCheck } from "../domain/index.js";
import { type DigestKey, partsOfDigestKey } from "../domain/index.js";
import type { Logger } from "../log.js";
import type { Outbox } from "../outbox/index.js";
import type { ChannelGate } from "../posting/index.js";
import { lastDigestAt, nextDigestAt, pausedAt, type SettingsRepo } from "../store/index.js";
import { DigestPoster, LeaseLost, type ProfileNames } from "./post.js";
import { readEntries, stateOf } from "./read.js";
import type { DigestLog, Posting } from "./types.js";

export interface DigestRunnerOptions {
  log: DigestLog;
  settings: SettingsRepo;
  slackFor: (teamId: string) => Promise<WebClient>;
  /** Access asked again before each digest is built. */
  revoked?: RevokedCheck;
  gate: ChannelGate;
  logger: Logger;
  /**
   * The profile's name in the heading, through the platform door (src/access `PlatformDoor`): a
   * read it makes is charged to the digest's workspace; refused or without it, the id.
   */
  names?: ProfileNames;
  /** Video states, for a title that came after its entry was recorded. */
  outbox: Pick<Outbox, "getState">;
  /** DIGEST_PERIOD, ms. */
  periodMs: number;
  videoUrlTemplate?: string | undefined;
  owner?: string | undefined;
  now?: () => number;
  pollMs?: number | undefined;
  leaseMs?: number | undefined;
  onPosted?: (kind: Posting["kind"], channel: string) => void;
}

export class DigestRunner {
  private readonly options: Required<
    Omit<DigestRunnerOptions, "revoked" | "names" | "videoUrlTemplate" | "onPosted">
  > &
    Pick<DigestRunnerOptions, "revoked" | "names" | "videoUrlTemplate" | "onPosted">;
  private running = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  /** The posting step of a claimed log (post.ts). */
  private readonly poster: DigestPoster;

  constructor(opts: DigestRunnerOptions) {
    this.options = {
      owner: `digests-${randomUUID()}`,
      now: Date.now,
      pollMs: 500,
      leaseMs: 30_000,
      ...Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)),
    } as DigestRunner["options"];
    this.poster = new DigestPoster(this.options, (key, why) => this.dropped(key, why));
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    while (this.running) {
      let n = 0;
      try {
        n = await this.claimAndProcess();
      } catch (err) {
        this.options.logger.warn({ err }, "digests: could not claim due digests; retrying");
      }
      if (!this.running) break;
      if (n === 0)
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, this.options.pollMs);
          this.wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
    }
  }

  private async claimAndProcess(): Promise<number> {
    const keys = await this.options.log.claimDue(
      this.options.owner,
      this.options.now(),
      4,
      this.options.leaseMs,
    );
    await Promise.all(keys.map((k) => this.processSafely(k)));
    return keys.length;
  }

  private async processSafely(key: DigestKey): Promise<void> {
    let dueAt: number | null = this.options.now() + 5_000;
    try {
      dueAt = await this.process(key);
    } catch (err) {
      if (err instanceof LeaseLost) {
        this.options.logger.warn({ digest: key }, "lease on a digest lost; another replica continues it");
        return;
      }
      this.options.logger.warn({ err, digest: key }, "digest not posted; it will be tried again");
    }
    if (dueAt === DROPPED) return;
    await this.options.log.release(this.options.owner, key, dueAt).catch((err: unknown) => {
      this.options.logger.warn(
        { err, digest: key },
        "could not release a digest's lease; it expires by itself",
      );
    });
  }

  /** When the log is due next (null: when something is recorded), or DROPPED. */
  private async process(key: DigestKey): Promise<number | null> {
    const parts = partsOfDigestKey(key);
    if (!parts) return this.dropped(key, "not a digest key");
    const { teamId, profileId, channelId } = parts;
    // Access first: a revoked workspace gets no digest, and what was recorded goes.
    const why = await this.options.revoked?.(teamId, profileId);
    if (why !== undefined) return this.dropped(key, `access revoked: ${why}`);
    const p = await this.options.settings.getProfile(teamId, profileId);
    const sub = p?.foreignUrl === null ? p.subscriptions.find((s) => s.channelId === channelId) : undefined;
    if (!sub) return this.dropped(key, "the channel no longer subscribes to the profile");
    let state = stateOf(this.options.logger, key, await this.options.log.getState(key));
    // A digest taken up again (an earlier pass, maybe another replica): it may be in Slack already.
    if (state.posting) return this.poster.post(key, sub, state, true);
    const now = this.options.now();
    if (sub.pause && pausedAt(sub, now)) return Date.parse(sub.pause.until);
    const { entries, leftOut } = await readEntries(this.options, key, state);
    const last = entries.at(-1)?.seq ?? state.settledUpTo;
    const base = { upTo: last, leftOut, id: randomUUID(), at: now, ts: null, replies: 0 };
    let posting: Posting;
    if (sub.pause && state.caughtUp !== sub.pause.at) {
      posting = {
        ...base,
        kind: "catch-up",
        from: Date.parse(sub.pause.at),
        end: now,
        pauseAt: sub.pause.at,
      };
    } else if (entries.length === 0 && leftOut === 0) {
      return null;
    } else if (!sub.digest) {
      const first = entries[0]?.entry.at ?? now;
      posting = { ...base, kind: "since", from: state.lastEnd ?? first, end: now, pauseAt: null };
    } else {
      const end = lastDigestAt(sub.digest, this.options.periodMs, now);
      const due = end === null ? [] : entries.filter((e) => e.entry.at < end);
      const first = due[0];
      if (end === null || first === undefined) return nextDigestAt(sub.digest, this.options.periodMs, now);
      const start =
        lastDigestAt(sub.digest, this.options.periodMs, first.entry.at) ?? Date.parse(sub.digest.since);
      posting = {
        ...base,
        kind: "digest",
        from: Math.max(state.lastEnd ?? start, start),
        end,
        upTo: due.at(-1)?.seq ?? last,
        pauseAt: null,
      };
    }
    state = { ...state, posting };
    if (!(await this.options.log.setState(this.options.owner, key, JSON.stringify(state))))
      throw new LeaseLost();
    return this.poster.post(key, sub, state, false);
  }

  private async dropped(key: DigestKey, why: string): Promise<typeof DROPPED> {
    this.options.logger.warn(
      { digest: key, why },
      "what was recorded for a digest is dropped; nothing is posted",
    );
    await this.options.log.drop(key);
    return DROPPED;
  }
}

/** A log dropped: nothing to release. */
const DROPPED = -1;
