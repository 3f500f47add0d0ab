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
import { renderDigest } from "../messages/index.js";
import type { Outbox } from "../outbox/index.js";
import type { ProfileLabel } from "../platform/index.js";
import type { ChannelGate } from "../posting/index.js";
import { classifySlackError } from "../posting/index.js";
import {
  InstallationMissingError,
  lastDigestAt,
  nextDigestAt,
  pausedAt,
  type SettingsRepo,
  type Subscription,
} from "../store/index.js";
import { DIGEST_EVENT, DigestLookup } from "./lookup.js";
import { readEntries, stateOf, withTitles } from "./read.js";
import type { DigestLog, DigestParts, DigestPass, DigestState, Posting } from "./types.js";

/** A digest as rendered (its message and thread replies). */
type DigestView = ReturnType<typeof renderDigest>;

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
  names?: {
    profile(
      cause: { workspace: string },
      profileId: string,
      opts: { signal?: AbortSignal },
    ): Promise<ProfileLabel>;
  };
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

/** The lease on the log ended (expired and maybe taken): stop touching it. */
class LeaseLost extends Error {}

const PROFILE_NAME_WAIT_MS = 1_000;
export class DigestRunner {
  private readonly options: Required<
    Omit<DigestRunnerOptions, "revoked" | "names" | "videoUrlTemplate" | "onPosted">
  > &
    Pick<DigestRunnerOptions, "revoked" | "names" | "videoUrlTemplate" | "onPosted">;
  private running = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  /** Slack answers whose write failed (the store, not a crash): key → ts of the marker's period. */
  private readonly unsaved = new Map<DigestKey, { end: number; ts: string }>();
  private readonly lookup: DigestLookup;

  constructor(opts: DigestRunnerOptions) {
    this.options = {
      owner: `digests-${randomUUID()}`,
      now: Date.now,
      pollMs: 500,
      leaseMs: 30_000,
      ...Object.fromEntries(Object.entries(opts).filter(([, v]) => v !== undefined)),
    } as DigestRunner["options"];
    this.lookup = new DigestLookup(this.options.logger);
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
    if (state.posting) return this.post(key, sub, state, true);
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
    return this.post(key, sub, state, false);
  }

  /**
   * Posts (or goes on posting) the state's marked digest, then settles it. `takenUp`: the marker
   * was there before this pass, so its digest may be in Slack already.
   */
  private async post(
    key: DigestKey,
    sub: Subscription,
    start: DigestState,
    takenUp: boolean,
  ): Promise<number | null> {
    const marked = start.posting;
    if (!marked) return this.options.now();
    const parts = partsOfDigestKey(key) ?? { teamId: "", profileId: "", channelId: "" };
    const pass: DigestPass = { key, parts, state: start, marked };
    // A Slack answer this process could not write (the store failed): written now, not posted again.
    const kept = this.unsaved.get(key);
    if (kept && kept.end === marked.end && marked.ts === null) {
      await this.save(pass, { ...pass.state, posting: { ...marked, ts: kept.ts } });
      this.unsaved.delete(key);
    }
    const view = await this.render(pass, sub);
    let client: WebClient;
    try {
      client = await this.options.slackFor(parts.teamId);
    } catch (err) {
      if (!(err instanceof InstallationMissingError)) throw err;
      return this.dropped(key, "the app is not installed in the workspace");
    }
    try {
      const wait =
        (await this.sendParent(pass, client, view, takenUp)) || (await this.sendReplies(pass, client, view));
      if (wait) return wait;
    } catch (err) {
      if (err instanceof LeaseLost) throw err;
      const retryAt = this.slackFailed(err, parts);
      if (retryAt !== undefined) return retryAt;
    }
    await this.settleMarked(pass);
    // Looked at again at once: what is owed next (often nothing) is decided with the new state.
    return this.options.now();
  }

  private async save(pass: DigestPass, next: DigestState): Promise<void> {
    pass.state = next;
    if (!(await this.options.log.setState(this.options.owner, pass.key, JSON.stringify(next))))
      throw new LeaseLost();
  }

  /** Before each Slack call: the lease must still be ours, for long enough to record the result. */
  private async hold(key: DigestKey): Promise<void> {
    if (!(await this.options.log.renew(this.options.owner, key, this.options.now() + this.options.leaseMs)))
      throw new LeaseLost();
  }

  /** The marked digest's entries, titled, rendered with the profile's name. */
  private async render(pass: DigestPass, sub: Subscription): Promise<DigestView> {
    const { marked, parts } = pass;
    const entries = (await readEntries(this.options, pass.key, pass.state)).entries.filter(
      (e) => e.seq <= marked.upTo,
    );
    const label = await this.options.names
      ?.profile({ workspace: parts.teamId }, parts.profileId, {
        signal: AbortSignal.timeout(PROFILE_NAME_WAIT_MS),
      })
      .catch(() => undefined);
    return renderDigest({
      kind: marked.kind,
      every: sub.digest?.every ?? null,
      profileId: parts.profileId,
      profileName: label?.known ? label.label : undefined,
      from: marked.from,
      end: marked.end,
      entries: await withTitles(
        this.options.outbox,
        entries.map((e) => e.entry),
      ),
      leftOut: marked.leftOut,
      links: { videoUrlTemplate: this.options.videoUrlTemplate },
      pausedBy: marked.kind === "catch-up" ? sub.pause?.by : undefined,
    });
  }

  /** The digest's message: found in Slack (a pass taken up again) or posted once. 0, or when to come back. */
  private async sendParent(
    pass: DigestPass,
    client: WebClient,
    view: DigestView,
    takenUp: boolean,
  ): Promise<number> {
    const { gate } = this.options;
    const { key, marked } = pass;
    const { teamId, profileId, channelId } = pass.parts;
    let posting = pass.state.posting ?? marked;
    const found =
      posting.ts === null && takenUp
        ? await this.lookup.find(client, { teamId, channelId }, posting)
        : undefined;
    if (found !== undefined) {
      await this.save(pass, { ...pass.state, posting: { ...posting, ts: found } });
      return 0;
    }
    if (posting.ts !== null) return 0;
    const wait = gate.blockedUntil(channelId) || gate.takePostSlot(channelId, key);
    if (wait) return wait;
    await this.hold(key);
    const res = await this.lookup.post(
      client,
      {
        channel: channelId,
        text: view.parent.text,
        blocks: view.parent.blocks,
        unfurl_links: false,
        metadata: {
          event_type: DIGEST_EVENT,
          event_payload: {
            profile_id: profileId,
            kind: marked.kind,
            period_end: Math.floor(marked.end / 1000),
            post_id: posting.id,
          },
        },
      },
      posting.id,
    );
    gate.succeeded(channelId);
    this.options.onPosted?.(marked.kind, channelId);
    posting = { ...posting, ts: res.ts ?? "" };
    try {
      await this.save(pass, { ...pass.state, posting });
    } catch (err) {
      if (!(err instanceof LeaseLost)) this.unsaved.set(key, { end: marked.end, ts: posting.ts ?? "" });
      throw err;
    }
    return 0;
  }

  /** The digest's thread replies not posted yet, within the channel's pace. 0, or when to come back. */
  private async sendReplies(pass: DigestPass, client: WebClient, view: DigestView): Promise<number> {
    const { gate } = this.options;
    const { channelId } = pass.parts;
    let posting = pass.state.posting ?? pass.marked;
    for (let i = posting.replies; i < view.replies.length && posting.ts; i++) {
      const reply = view.replies[i];
      if (!reply) break;
      const wait = gate.blockedUntil(channelId) || gate.takePostSlot(channelId, pass.key);
      if (wait) return wait;
      await this.hold(pass.key);
      await client.chat.postMessage({
        channel: channelId,
        thread_ts: posting.ts,
        text: reply.text,
        blocks: reply.blocks,
        unfurl_links: false,
      });
      gate.succeeded(channelId);
      posting = { ...posting, replies: i + 1 };
      await this.save(pass, { ...pass.state, posting });
    }
    return 0;
  }

  /** A Slack failure: when to try again, or undefined when the digest is given up (then settled). */
  private slackFailed(err: unknown, parts: DigestParts): number | undefined {
    const { gate, logger } = this.options;
    const { teamId, profileId, channelId } = parts;
    const f = classifySlackError(err);
    switch (f.kind) {
      case "rate_limited":
        return gate.rateLimited(channelId, f.retryAfterSeconds, { teamId, method: "chat.postMessage" });
      case "transient":
        return gate.failed(channelId);
      case "auth":
        logger.error({ team: teamId, code: f.code }, "Slack refused the bot's token; digests wait");
        return gate.rateLimited(channelId, 60);
      default:
        // The channel is gone, the bot not in it, the app uninstalled: this digest is given up.
        logger.warn(
          { team: teamId, channel: channelId, profile: profileId, code: f.code },
          "Slack refused a digest for good; it is dropped",
        );
        return undefined;
    }
  }

  /** The entries posted go and the marker is cleared, in one step fenced on the lease. */
  private async settleMarked(pass: DigestPass): Promise<void> {
    const { marked, state } = pass;
    const done: DigestState = {
      v: 1,
      settledUpTo: Math.max(state.settledUpTo, marked.upTo),
      lastEnd: marked.end,
      caughtUp: marked.pauseAt ?? state.caughtUp,
      posting: null,
    };
    const { log, owner } = this.options;
    if (!(await log.settle(owner, pass.key, JSON.stringify(done), marked.upTo, marked.leftOut)))
      throw new LeaseLost();
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
