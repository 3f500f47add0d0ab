/**
 * The Slack steps of a video (src/notify/worker.ts claims it and folds its deliveries): the parent
 * message, posted once and then updated in place (coalesced), and the milestones as thread
 * replies, each within the channel's pace, each recorded in the state right after Slack's answer.
 * A Slack failure is decided by `outcomeOf` (outcome.ts) and carried out here.
 */
import type { WebClient } from "@slack/web-api";
import { parentMetadata, renderMilestone, renderParent } from "../messages/index.js";
import { InstallationMissingError } from "../store/index.js";
import { reportRefused } from "./dead-letters.js";
import { isFinal } from "./fold.js";
import type { GoneWorkspaces } from "./gone.js";
import { mentionFor } from "./mentions.js";
import { droppedState, outcomeOf } from "./outcome.js";
import { PER_CHANNEL_METHOD } from "./pacing.js";
import { type LostPosts, PARENT, replyMetadata, withMarker } from "./posted.js";
import { classifySlackError } from "./slack-errors.js";
import type { Tally } from "./tally.js";
import type { VideoTitles } from "./title.js";
import type { OutboxItem, VideoKey } from "./types.js";
import type { UnsavedSlackFacts } from "./unsaved.js";
import { parentHash } from "./video/hash.js";
import type { VideoState } from "./video/state.js";
import { LeaseLost, type Outcome, type WorkerConfig } from "./worker-options.js";

/** What the Slack steps use of the worker. */
export interface ShowDeps {
  opts: WorkerConfig;
  unsaved: UnsavedSlackFacts;
  posts: LostPosts;
  gone: GoneWorkspaces;
  titles: VideoTitles | undefined;
}

/**
 * Brings Slack up to date with the state, within the channel's pace; one pass per channel at a
 * time in this process (the others come back shortly), so a channel whose Slack calls hang holds
 * one of the worker's loops, never the others.
 */
export async function show(
  deps: ShowDeps,
  key: VideoKey,
  initial: VideoState,
  items: OutboxItem[],
  tally: Tally,
): Promise<Outcome> {
  const { gate } = deps.opts;
  const channel = initial.channelId;
  const blocked = gate.blockedUntil(channel);
  if (blocked) return { dueAt: blocked };
  if (!gate.enter(channel)) return { dueAt: gate.retryAt() };
  try {
    return await showInChannel(deps, key, initial, items, tally);
  } finally {
    gate.leave(channel);
  }
}

async function showInChannel(
  deps: ShowDeps,
  key: VideoKey,
  initial: VideoState,
  items: OutboxItem[],
  tally: Tally,
): Promise<Outcome> {
  const { opts, unsaved, posts, gone, titles } = deps;
  let state = initial;
  const { gate } = opts;
  const channel = state.channelId;
  const posted = () => {
    tally.posted = (tally.posted ?? 0) + 1;
  };
  const save = async (next: VideoState) => {
    state = next;
    if (!(await unsaved.writeState(opts.outbox, opts.owner, key, next, isFinal(next)))) throw new LeaseLost();
  };
  /** Before each Slack call: the lease must still be ours, for long enough to record the result. */
  const hold = async () => {
    if (!(await opts.outbox.renew(opts.owner, key, opts.now() + opts.leaseMs))) throw new LeaseLost();
  };
  /** No app in the workspace: the items are dead letters, nothing is posted or retried. */
  const drop = async (code: string): Promise<Outcome> => {
    tally.failed = (tally.failed ?? 0) + items.length;
    opts.onFailed?.(code);
    for (const item of items) await opts.outbox.deadLetter(item, code, opts.now());
    await save(droppedState(state));
    return { dueAt: null };
  };
  /** Records what is about to be posted (unless stored already): see src/notify/posted.ts. */
  const intend = async (what: string) => {
    const { intent, stored } = posts.intentFor(state, what, opts.now());
    if (!stored) await save({ ...state, posting: intent });
    return intent;
  };
  let client: WebClient;
  try {
    client = await opts.slackFor(state.teamId);
  } catch (err) {
    // A store failure is tried again (thrown); a workspace without an installation is not.
    if (!(err instanceof InstallationMissingError)) throw err;
    opts.logger.error(
      { team: state.teamId, profile: state.profileId, deliveries: items.length },
      "the app is not installed in the workspace; its notifications are dead-lettered",
    );
    return drop("not_installed");
  }
  // Slack said the app is gone from the workspace (per process, for a while): no call.
  const goneCode = gone.check(state.teamId, client);
  if (goneCode !== undefined) return drop(goneCode);

  /** The Web API method being called: a 429 pauses the channel or, for chat.update, the workspace. */
  let calling = PER_CHANNEL_METHOD;
  let updateAt: number | null = null;
  try {
    // 1. The parent message: posted once, then updated in place (coalesced).
    if (state.videoId !== null) {
      // A video waiting for its turn to post is not rendered (most passes under a burst).
      const wait = state.parentTs === null ? titles?.holdUntil(state) || gate.takePostSlot(channel, key) : 0;
      if (wait) return { dueAt: wait };
      const links = { videoUrlTemplate: opts.videoUrlTemplate };
      const msg = renderParent(state, new Date(opts.now()), links);
      // Metadata (video_status: id, profile, stage) lets the map be rebuilt from Slack.
      const metadata = parentMetadata(state);
      const hash = parentHash(msg);
      if (state.parentTs === null) {
        // Posted before without a record: that message becomes the parent (updated below).
        const found = await posts.find(client, state, PARENT);
        if (found) {
          await save({
            ...state,
            parentTs: found,
            renderedHash: null,
            lastRenderAt: null,
            posting: undefined,
          });
        } else {
          const intent = await intend(PARENT);
          await hold();
          const res = await posts.post(
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
          gate.succeeded(channel);
          opts.onPosted?.("post", channel);
          posted();
          await save({
            ...state,
            parentTs: res.ts ?? null,
            renderedHash: hash,
            lastRenderAt: opts.now(),
            posting: undefined,
          });
        }
      }
      if (state.parentTs !== null && hash !== state.renderedHash) {
        const since = opts.now() - (state.lastRenderAt ?? 0);
        const urgent = state.milestones.some((m) => !m.posted);
        if (since < opts.coalesceMs && !urgent) return { dueAt: (state.lastRenderAt ?? 0) + opts.coalesceMs };
        // The title alone rides on the video's next write when more is coming (title.ts).
        const ride = titles?.updateAt(state, new Date(opts.now()), links);
        if (ride) return { dueAt: ride };
        // chat.update paused in the workspace (a 429 elsewhere): replies go on, the update waits.
        updateAt = gate.methodBlockedUntil(state.teamId, "chat.update") || null;
        if (updateAt === null) {
          await hold();
          calling = "chat.update";
          await client.chat.update({
            channel,
            ts: state.parentTs,
            text: msg.text,
            blocks: msg.blocks,
            ...(metadata ? { metadata } : {}),
          });
          calling = PER_CHANNEL_METHOD;
          gate.succeeded(channel);
          opts.onPosted?.("update", channel);
          posted();
          await save({ ...state, renderedHash: hash, lastRenderAt: opts.now() });
        }
      }
    }
    // 2. Milestones: thread replies under the parent (standalone for events without a video).
    for (const m of [...state.milestones].sort((a, b) => a.timestamp - b.timestamp)) {
      if (m.posted) continue;
      const wait = gate.takePostSlot(channel, key);
      if (wait) return { dueAt: wait };
      const markPosted = (s: VideoState): VideoState => ({
        ...s,
        milestones: s.milestones.map((x) => (x.key === m.key ? { ...x, posted: true } : x)),
        posting: undefined,
      });
      // Posted before without a record: nothing to post again.
      if (await posts.find(client, state, m.key, state.parentTs ?? undefined)) {
        await save(markPosted(state));
        continue;
      }
      // The subscription's mention on format errors, at most a few per channel per hour.
      const ping = m.key.startsWith("error:") ? await mentionFor(opts, state, !!titles) : null;
      if (ping?.waitUntil) return { dueAt: ping.waitUntil }; // for the title read (mentions.ts)
      const msg = renderMilestone(
        m,
        state,
        { videoUrlTemplate: opts.videoUrlTemplate },
        ping?.mention ?? null,
        ping?.heldBack,
      );
      const intent = await intend(m.key);
      await hold();
      await posts.post(
        client,
        {
          channel,
          text: msg.text,
          blocks: msg.blocks,
          thread_ts: state.parentTs ?? undefined,
          metadata: replyMetadata(state, intent),
          unfurl_links: false,
        },
        intent,
      );
      gate.succeeded(channel);
      opts.onPosted?.("thread", channel);
      posted();
      await save(markPosted(state));
    }
    // Back at the pause's end, or sooner to post the replies that arrive meanwhile.
    return { dueAt: updateAt === null ? null : Math.min(updateAt, opts.now() + opts.coalesceMs) };
  } catch (err) {
    if (err instanceof LeaseLost) throw err;
    const f = outcomeOf(classifySlackError(err), state);
    switch (f.kind) {
      case "drop":
        // One line per workspace (per pause), not per video or item.
        if (gone.mark(state.teamId, client, f.code))
          opts.logger.warn(
            { team: state.teamId, code: f.code },
            "Slack says the app is gone from the workspace; its notifications are dead-lettered and not retried",
          );
        return drop(f.code);
      case "wait":
        // The token is not usable: nothing is dropped; everything waits until it is fixed.
        opts.logger.error(
          { team: state.teamId, code: f.code },
          "Slack refused the bot's token; notifications wait",
        );
        // A pause of the channel: the video's new deliveries are folded meanwhile (enqueue
        // brings a video waiting this long forward), not sent to Slack with the refused token.
        return { dueAt: gate.rateLimited(channel, f.pauseSeconds) };
      case "rate_limited": {
        opts.onRateLimited?.(channel, f.retryAfterSeconds);
        opts.logger.warn(
          { channel, team: state.teamId, method: calling, retryAfter: f.retryAfterSeconds },
          calling === PER_CHANNEL_METHOD
            ? "Slack rate-limited the channel; pausing it"
            : "Slack rate-limited the method in the workspace; pausing it there",
        );
        const until = gate.rateLimited(channel, f.retryAfterSeconds, {
          teamId: state.teamId,
          method: calling,
        });
        // A paused method (not the channel): replies may go on before the pause ends.
        return {
          dueAt: calling === PER_CHANNEL_METHOD ? until : Math.min(until, opts.now() + opts.coalesceMs),
        };
      }
      case "repost":
        await save(f.state);
        return { dueAt: opts.now() };
      case "retry": {
        const at = gate.failed(channel);
        opts.logger.warn({ err, channel, until: at }, "Slack call failed; backing off the channel");
        return { dueAt: at };
      }
      case "refused":
        tally.failed = (tally.failed ?? 0) + items.length;
        await reportRefused(opts, state, items, f.code);
        // What Slack refused is recorded; nothing is retried until new deliveries arrive.
        await save(f.state);
        return { dueAt: null };
    }
  }
}
