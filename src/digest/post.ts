/**
 * The posting step of the digest runner (runner.ts claims the due logs and decides what is owed):
 * a log's marked digest posted (or found in Slack when its answer was lost), its thread replies
 * within the channel's pace, then settled.
 * More: README.md ("runner.ts").
 */

import type { WebClient } from "@slack/web-api";
import { type DigestKey, partsOfDigestKey } from "../domain/index.js";
import type { Logger } from "../log.js";
import { renderDigest } from "../messages/index.js";
import type { Outbox } from "../outbox/index.js";
import type { ProfileLabel } from "../platform/index.js";
import type { ChannelGate } from "../posting/index.js";
import { classifySlackError } from "../posting/index.js";
import { InstallationMissingError, type Subscription } from "../store/index.js";
import { DIGEST_EVENT, DigestLookup } from "./lookup.js";
import { readEntries, withTitles } from "./read.js";
import type { DigestLog, DigestParts, DigestPass, DigestState, Posting } from "./types.js";

/** A digest as rendered (its message and thread replies). */
type DigestView = ReturnType<typeof renderDigest>;

/**
 * The profile's name in the heading, through the platform door (src/access `PlatformDoor`): a
 * read it makes is charged to the digest's workspace; refused or without it, the id.
 */
export interface ProfileNames {
  profile(
    cause: { workspace: string },
    profileId: string,
    opts: { signal?: AbortSignal },
  ): Promise<ProfileLabel>;
}

/** What posting reads of the runner's options (runner.ts, its defaults applied). */
export interface PostOptions {
  log: DigestLog;
  slackFor: (teamId: string) => Promise<WebClient>;
  gate: ChannelGate;
  logger: Logger;
  names?: ProfileNames | undefined;
  outbox: Pick<Outbox, "getState">;
  videoUrlTemplate?: string | undefined;
  owner: string;
  now: () => number;
  leaseMs: number;
  onPosted?: ((kind: Posting["kind"], channel: string) => void) | undefined;
}

/** The lease on the log ended (expired and maybe taken): stop touching it. */
export class LeaseLost extends Error {}

const PROFILE_NAME_WAIT_MS = 1_000;

/** Posts a claimed log's marked digest and settles it; one per runner. */
export class DigestPoster {
  /** Slack answers whose write failed (the store, not a crash): key → ts of the marker's period. */
  private readonly unsaved = new Map<DigestKey, { end: number; ts: string }>();
  private readonly lookup: DigestLookup;

  constructor(
    private readonly options: PostOptions,
    /** The runner's drop: what was recorded goes, nothing is posted (the runner's DROPPED). */
    private readonly dropped: (key: DigestKey, why: string) => Promise<number>,
  ) {
    this.lookup = new DigestLookup(options.logger);
  }

  /**
   * Posts (or goes on posting) the state's marked digest, then settles it. `takenUp`: the marker
   * was there before this pass, so its digest may be in Slack already.
   */
  async post(
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
}
