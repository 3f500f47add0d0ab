/**
 * The Slack steps of a video (src/notify/worker.ts claims it and folds its deliveries): the parent
 * message, posted once and then updated in place (coalesced), and the milestones as thread
 * replies, each within the channel's pace, each recorded in the state right after Slack's answer.
 * A Slack failure is decided by `outcomeOf` (outcome.ts) and carried out here.
 */

import type { WebClient } from "@slack/web-api";
import type { VideoKey } from "../domain/index.js";
import { parentMetadata, renderMilestone, renderParent, type VideoLinks } from "../messages/index.js";
import type { OutboxItem } from "../outbox/index.js";
import { classifySlackError, PER_CHANNEL_METHOD } from "../posting/index.js";
import { InstallationMissingError } from "../store/index.js";
import { parentHash } from "../video/hash.js";
import type { Milestone, PostIntent, VideoState } from "../video/state.js";
import { reportRefused } from "./dead-letters.js";
import { isFinal } from "./fold.js";
import type { GoneWorkspaces } from "./gone.js";
import { mentionFor } from "./mentions.js";
import { droppedState, outcomeOf } from "./outcome.js";
import { type LostPosts, PARENT, replyMetadata, withMarker } from "./posted.js";
import type { Tally } from "./tally.js";
import type { VideoTitles } from "./title.js";
import type { UnsavedSlackFacts } from "./unsaved.js";
import { LeaseLost, type Outcome, type WorkerConfig } from "./worker-options.js";

/** What the Slack steps read of the pass (src/notify/pass.ts): its video, what it did, the worker's parts. */
export interface ShowPass {
  readonly opts: WorkerConfig;
  readonly key: VideoKey;
  readonly tally: Tally;
  readonly unsaved: UnsavedSlackFacts;
  readonly posts: LostPosts;
  readonly gone: GoneWorkspaces;
  readonly titles: VideoTitles | undefined;
}

/**
 * Brings Slack up to date with the state, within the channel's pace; one pass per channel at a
 * time in this process (the others come back shortly), so a channel whose Slack calls hang holds
 * one of the worker's loops, never the others.
 */
export async function show(pass: ShowPass, initial: VideoState, items: OutboxItem[]): Promise<Outcome> {
  const { gate } = pass.opts;
  const channel = initial.channelId;
  const blocked = gate.blockedUntil(channel);
  if (blocked) return { dueAt: blocked };
  if (!gate.enter(channel)) return { dueAt: gate.retryAt() };
  try {
    return await new SlackSteps(pass, initial, items).run();
  } finally {
    gate.leave(channel);
  }
}

/** Stop here and come back at `dueAt` (a turn, a pause, a coalescing window). */
class Wait {
  constructor(readonly outcome: Outcome) {}
}

/** One video's Slack steps in one pass: what it posts, updates and records, and its failures. */
class SlackSteps {
  private readonly opts: WorkerConfig;
  private readonly key: VideoKey;
  private readonly tally: Tally;
  private readonly channel: string;
  /** The Web API method being called: a 429 pauses the channel or, for chat.update, the workspace. */
  private calling = PER_CHANNEL_METHOD;
  /** When a paused chat.update may be sent (null: not paused). */
  private updateAt: number | null = null;

  constructor(
    private readonly pass: ShowPass,
    private state: VideoState,
    private readonly items: OutboxItem[],
  ) {
    this.opts = pass.opts;
    this.key = pass.key;
    this.tally = pass.tally;
    this.channel = state.channelId;
  }

  async run(): Promise<Outcome> {
    const client = await this.client();
    if (!("chat" in client)) return client;
    try {
      // 1. The parent message: posted once, then updated in place (coalesced).
      if (this.state.videoId !== null) await this.parent(client);
      // 2. Milestones: thread replies under the parent (standalone for events without a video).
      await this.milestones(client);
      // Back at the pause's end, or sooner to post the replies that arrive meanwhile.
      const paused = this.updateAt;
      return { dueAt: paused === null ? null : Math.min(paused, this.opts.now() + this.opts.coalesceMs) };
    } catch (err) {
      if (err instanceof Wait) return err.outcome;
      if (err instanceof LeaseLost) throw err;
      return this.failed(err, client);
    }
  }

  /** The workspace's client; the outcome instead when the app is not (or no longer) installed. */
  private async client(): Promise<WebClient | Outcome> {
    const { opts, state } = this;
    let client: WebClient;
    try {
      client = await opts.slackFor(state.teamId);
    } catch (err) {
      // A store failure is tried again (thrown); a workspace without an installation is not.
      if (!(err instanceof InstallationMissingError)) throw err;
      opts.logger.error(
        { team: state.teamId, profile: state.profileId, deliveries: this.items.length },
        "the app is not installed in the workspace; its notifications are dead-lettered",
      );
      return this.drop("not_installed");
    }
    // Slack said the app is gone from the workspace (per process, for a while): no call.
    const goneCode = this.pass.gone.check(state.teamId, client);
    return goneCode === undefined ? client : this.drop(goneCode);
  }

  private posted(): void {
    this.tally.posted = (this.tally.posted ?? 0) + 1;
  }

  private async save(next: VideoState): Promise<void> {
    this.state = next;
    const { unsaved } = this.pass;
    if (!(await unsaved.writeState(this.opts.outbox, this.opts.owner, this.key, next, isFinal(next))))
      throw new LeaseLost();
  }

  /** Before each Slack call: the lease must still be ours, for long enough to record the result. */
  private async hold(): Promise<void> {
    const { opts } = this;
    if (!(await opts.outbox.renew(opts.owner, this.key, opts.now() + opts.leaseMs))) throw new LeaseLost();
  }

  /** No app in the workspace: the items are dead letters, nothing is posted or retried. */
  private async drop(code: string): Promise<Outcome> {
    const { opts, items, tally } = this;
    tally.failed = (tally.failed ?? 0) + items.length;
    opts.onFailed?.(code);
    for (const item of items) await opts.outbox.deadLetter(item, code, opts.now());
    await this.save(droppedState(this.state));
    return { dueAt: null };
  }

  /** Records what is about to be posted (unless stored already): see src/notify/posted.ts. */
  private async intend(what: string): Promise<PostIntent> {
    const { intent, stored } = this.pass.posts.intentFor(this.state, what, this.opts.now());
    if (!stored) await this.save({ ...this.state, posting: intent });
    return intent;
  }

  /** The parent message: posted once (or found, when its record was lost), then updated. */
  private async parent(client: WebClient): Promise<void> {
    const { opts, pass, channel } = this;
    // A video waiting for its turn to post is not rendered (most passes under a burst).
    const wait =
      this.state.parentTs === null
        ? pass.titles?.holdUntil(this.state) || opts.gate.takePostSlot(channel, this.key)
        : 0;
    if (wait) throw new Wait({ dueAt: wait });
    const links = { videoUrlTemplate: opts.videoUrlTemplate };
    const msg = renderParent(this.state, new Date(opts.now()), links);
    // Metadata (video_status: id, profile, stage) lets the map be rebuilt from Slack.
    const metadata = parentMetadata(this.state);
    const hash = parentHash(msg);
    if (this.state.parentTs === null) await this.postParent(client, msg, metadata, hash);
    if (this.state.parentTs !== null && hash !== this.state.renderedHash)
      await this.updateParent(client, msg, metadata, hash, links);
  }

  private async postParent(
    client: WebClient,
    msg: ReturnType<typeof renderParent>,
    metadata: ReturnType<typeof parentMetadata>,
    hash: string,
  ): Promise<void> {
    const { opts, pass, channel } = this;
    // Posted before without a record: that message becomes the parent (updated below).
    const found = await pass.posts.find(client, this.state, PARENT);
    if (found) {
      await this.save({
        ...this.state,
        parentTs: found,
        renderedHash: null,
        lastRenderAt: null,
        posting: undefined,
      });
      return;
    }
    const intent = await this.intend(PARENT);
    await this.hold();
    const res = await pass.posts.post(
      client,
      {
        channel,
        text: msg.text,
        blocks: msg.blocks,
        ...(metadata ? { metadata: withMarker(metadata, intent) } : {}),
        unfurl_links: false,
      },
      intent,
    );
    opts.gate.succeeded(channel);
    opts.onPosted?.("post", channel);
    this.posted();
    await this.save({
      ...this.state,
      parentTs: res.ts ?? null,
      renderedHash: hash,
      lastRenderAt: opts.now(),
      posting: undefined,
    });
  }

  private async updateParent(
    client: WebClient,
    msg: ReturnType<typeof renderParent>,
    metadata: ReturnType<typeof parentMetadata>,
    hash: string,
    links: VideoLinks,
  ): Promise<void> {
    const { opts, channel, state } = this;
    const since = opts.now() - (state.lastRenderAt ?? 0);
    const urgent = state.milestones.some((m) => !m.posted);
    if (since < opts.coalesceMs && !urgent)
      throw new Wait({ dueAt: (state.lastRenderAt ?? 0) + opts.coalesceMs });
    // The title alone rides on the video's next write when more is coming (title.ts).
    const ride = this.pass.titles?.updateAt(state, new Date(opts.now()), links);
    if (ride) throw new Wait({ dueAt: ride });
    // chat.update paused in the workspace (a 429 elsewhere): replies go on, the update waits.
    this.updateAt = opts.gate.methodBlockedUntil(state.teamId, "chat.update") || null;
    if (this.updateAt !== null || state.parentTs === null) return;
    await this.hold();
    this.calling = "chat.update";
    await client.chat.update({
      channel,
      ts: state.parentTs,
      text: msg.text,
      blocks: msg.blocks,
      ...(metadata ? { metadata } : {}),
    });
    this.calling = PER_CHANNEL_METHOD;
    opts.gate.succeeded(channel);
    opts.onPosted?.("update", channel);
    this.posted();
    await this.save({ ...this.state, renderedHash: hash, lastRenderAt: opts.now() });
  }

  /** The milestones not posted yet, oldest first, each within the channel's pace. */
  private async milestones(client: WebClient): Promise<void> {
    for (const m of [...this.state.milestones].sort((a, b) => a.timestamp - b.timestamp)) {
      if (m.posted) continue;
      const wait = this.opts.gate.takePostSlot(this.channel, this.key);
      if (wait) throw new Wait({ dueAt: wait });
      await this.reply(client, m);
    }
  }

  private async reply(client: WebClient, m: Milestone): Promise<void> {
    const { opts, pass, channel } = this;
    const markPosted = (s: VideoState): VideoState => ({
      ...s,
      milestones: s.milestones.map((x) => (x.key === m.key ? { ...x, posted: true } : x)),
      posting: undefined,
    });
    // Posted before without a record: nothing to post again.
    if (await pass.posts.find(client, this.state, m.key, this.state.parentTs ?? undefined)) {
      await this.save(markPosted(this.state));
      return;
    }
    // The subscription's mention on format errors, at most a few per channel per hour.
    const ping = m.key.startsWith("error:") ? await mentionFor(opts, this.state, !!pass.titles) : null;
    if (ping?.waitUntil) throw new Wait({ dueAt: ping.waitUntil }); // for the title read (mentions.ts)
    const links = { videoUrlTemplate: opts.videoUrlTemplate };
    const msg = renderMilestone(m, this.state, links, ping?.mention ?? null, ping?.heldBack);
    const intent = await this.intend(m.key);
    await this.hold();
    await pass.posts.post(
      client,
      {
        channel,
        text: msg.text,
        blocks: msg.blocks,
        thread_ts: this.state.parentTs ?? undefined,
        metadata: replyMetadata(this.state, intent),
        unfurl_links: false,
      },
      intent,
    );
    opts.gate.succeeded(channel);
    opts.onPosted?.("thread", channel);
    this.posted();
    await this.save(markPosted(this.state));
  }

  /** A Slack failure, as `outcomeOf` decides it. */
  private async failed(err: unknown, client: WebClient): Promise<Outcome> {
    const { opts, state, channel } = this;
    const f = outcomeOf(classifySlackError(err), state);
    switch (f.kind) {
      case "drop":
        // One line per workspace (per pause), not per video or item.
        if (this.pass.gone.mark(state.teamId, client, f.code))
          opts.logger.warn(
            { team: state.teamId, code: f.code },
            "Slack says the app is gone from the workspace; its notifications are dead-lettered and not retried",
          );
        return this.drop(f.code);
      case "wait":
        // The token is not usable: nothing is dropped; everything waits until it is fixed.
        opts.logger.error(
          { team: state.teamId, code: f.code },
          "Slack refused the bot's token; notifications wait",
        );
        // A pause of the channel: the video's new deliveries are folded meanwhile (enqueue
        // brings a video waiting this long forward), not sent to Slack with the refused token.
        return { dueAt: opts.gate.rateLimited(channel, f.pauseSeconds) };
      case "rate_limited":
        return this.rateLimited(f.retryAfterSeconds);
      case "repost":
        await this.save(f.state);
        return { dueAt: opts.now() };
      case "retry": {
        const at = opts.gate.failed(channel);
        opts.logger.warn({ err, channel, until: at }, "Slack call failed; backing off the channel");
        return { dueAt: at };
      }
      case "refused":
        this.tally.failed = (this.tally.failed ?? 0) + this.items.length;
        await reportRefused(this.pass, state, this.items, f.code);
        // What Slack refused is recorded; nothing is retried until new deliveries arrive.
        await this.save(f.state);
        return { dueAt: null };
    }
  }

  private rateLimited(retryAfterSeconds: number): Outcome {
    const { opts, state, channel, calling } = this;
    opts.onRateLimited?.(channel, retryAfterSeconds);
    opts.logger.warn(
      { channel, team: state.teamId, method: calling, retryAfter: retryAfterSeconds },
      calling === PER_CHANNEL_METHOD
        ? "Slack rate-limited the channel; pausing it"
        : "Slack rate-limited the method in the workspace; pausing it there",
    );
    const until = opts.gate.rateLimited(channel, retryAfterSeconds, {
      teamId: state.teamId,
      method: calling,
    });
    // A paused method (not the channel): replies may go on before the pause ends.
    return { dueAt: calling === PER_CHANNEL_METHOD ? until : Math.min(until, opts.now() + opts.coalesceMs) };
  }
}
