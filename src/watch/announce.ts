/**
 * What a poll does in Slack, for the replica holding the livestream's lease: the broadcast's
 * effects (broadcast.ts) turned into posts, updates, thread replies and the end, in the order the
 * service's module comment gives (mark, save, post, save the ts); and the one notice of a watch
 * ended because access was revoked.
 * More: README.md ("announce.ts").
 */
import type { WebClient } from "@slack/web-api";
import type { Logger } from "../log.js";
import {
  type Audience,
  type Message,
  renderBroadcastMilestone,
  renderEnded,
  renderLive,
  renderRevoked,
  renderRevokedDm,
  renderSummary,
  renderWatchChannelClosed,
} from "../messages/index.js";
import { type ChannelGate, classifySlackError, slackRefused } from "../posting/index.js";
import type { Broadcast, Effect, Milestone } from "./broadcast.js";
import type { DirectMessages } from "./dm.js";
import { type LiveDoc, type LiveDocs, type LiveMessage, messageKey } from "./live-docs.js";
import type { HeldChannels } from "./options.js";
import { dmKey, dmUserOf, type WatchEntry, type WatchKey } from "./registry.js";
import type { WatchSchedule } from "./schedule.js";

export interface AnnouncerOptions {
  slackFor: (teamId: string) => Promise<WebClient>;
  schedule: WatchSchedule;
  live: LiveDocs;
  owner: string;
  log: Logger;
  /** Least time between two updates of one message. */
  minUpdateMs: number;
  dms: DirectMessages;
  /** Digests and pauses: channels told nothing live, their broadcasts recorded instead. */
  held?: HeldChannels;
  /** The worker's and the digests' pace (src/posting); without it the watch's writes are not paced. */
  gate?: ChannelGate;
}

/** One watcher's Slack calls: where they go, and the call under way (for a 429's pause). */
interface Calls {
  slack: WebClient;
  channel: string;
  /** Whether `method` may be called now (not paused in the channel, nor the method in the workspace); noted as the call under way when it may. */
  may(method: string): boolean;
  /** Notes `method` as the call under way, sent whatever the pace (not tried again later). */
  sending(method: string): void;
}

/** Ads the platform allows per hour (the broadcast keeps what was left of them). */
const ADS_PER_HOUR = 24;

/** What became of one watcher's Slack calls (`slack()`). */
type Outcome = "done" | "paused" | "refused" | "failed";

const audienceOf = (w: WatchKey): Audience => (dmUserOf(w.channelId) === undefined ? "channel" : "dm");

function hashOf(m: Message): string {
  return JSON.stringify(m);
}

/** The live message for each audience, and its hash (what a posted message is compared with). */
interface Rendered {
  contents: Record<Audience, Message>;
  hashes: Record<Audience, string>;
}

/** The live message of the broadcast for channels and for DMs. */
function renderAll(id: string, b: Broadcast, now: number): Rendered {
  const contents: Record<Audience, Message> = {
    channel: renderLive(id, b, now, "channel"),
    dm: renderLive(id, b, now, "dm"),
  };
  return { contents, hashes: { channel: hashOf(contents.channel), dm: hashOf(contents.dm) } };
}

/** A channel that refuses the bot's messages for good, and Slack's word for it. */
export interface ClosedChannel {
  key: WatchKey;
  code: string;
}

export class Announcer {
  /**
   * By livestream: the channels whose Slack calls were refused for good during its poll's
   * `apply` (one poll of a livestream at a time: its lease), handed back by `apply`.
   */
  private readonly closed = new Map<string, ClosedChannel[]>();

  constructor(private readonly opts: AnnouncerOptions) {}

  /**
   * Applies the effects of one poll to the watchers; `doc` is saved as it changes. `held`: watchers
   * kept but not told this time (a person Slack could not confirm): the broadcast is not
   * finalized while one of them has a message not ended yet. Answers the channels that refused
   * the bot's messages for good meanwhile (the poller ends their watches).
   */
  async apply(
    id: string,
    b: Broadcast,
    effects: Effect[],
    watchers: WatchEntry[],
    doc: LiveDoc,
    now: number,
    held: readonly WatchEntry[] = [],
  ): Promise<ClosedChannel[]> {
    this.closed.delete(id);
    const { schedule, live, owner } = this.opts;
    const save = async () => {
      if (await schedule.holds(owner, id)) await live.write(id, doc);
    };
    // Channels whose messages of the profile are held back (a digest, a pause): nothing live;
    // the broadcast goes to their digest or catch-up when it ends.
    const heldBack = await this.heldBack(watchers);
    if (effects.some((e) => e.type === "end")) await this.recordHeld(id, b, heldBack);
    const told = watchers.filter((w) => !heldBack.includes(w));
    if (effects.some((e) => e.type === "sync") && b.phase !== "ended") {
      const rendered = renderAll(id, b, now);
      const fresh = told.filter((w) => doc.messages[messageKey(w.teamId, w.channelId)] === undefined);
      if (fresh.length > 0) {
        if (!(await this.postFresh(id, fresh, rendered, doc, now))) return this.takeClosed(id);
        await save();
      }
      const milestones = effects.flatMap((e) => (e.type === "milestone" ? [e.milestone] : []));
      await Promise.all(
        told.map((w) => (fresh.includes(w) ? undefined : this.update(w, milestones, rendered, doc, now))),
      );
      await save();
    }
    if (effects.some((e) => e.type === "end")) {
      const complete = await this.endAll(id, b, watchers, held, heldBack, doc, now);
      if (complete && doc.broadcast) doc.broadcast = { ...doc.broadcast, finalized: true };
      await save();
    }
    return this.takeClosed(id);
  }

  /** The channels of `id` that refused for good since its `apply` began. */
  private takeClosed(id: string): ClosedChannel[] {
    const closed = this.closed.get(id) ?? [];
    this.closed.delete(id);
    return closed;
  }

  /** First posts to the watchers with no message yet; false (nothing posted) when the lease is lost. */
  private async postFresh(
    id: string,
    fresh: WatchEntry[],
    { contents, hashes }: Rendered,
    doc: LiveDoc,
    now: number,
  ): Promise<boolean> {
    const { schedule, live, owner } = this.opts;
    // Marked before posting (see service.ts's module comment).
    for (const w of fresh) {
      doc.messages[messageKey(w.teamId, w.channelId)] = {
        ts: null,
        postedAt: now,
        hash: hashes[audienceOf(w)],
        updatedAt: now,
        ended: false,
      };
    }
    if (!(await schedule.holds(owner, id))) return false;
    await live.write(id, doc);
    await Promise.all(fresh.map((w) => this.post(w, contents[audienceOf(w)], doc)));
    return true;
  }

  /**
   * One posted message kept up to date: milestones as thread replies (channels only), and the
   * message updated when its content changed and `minUpdateMs` has passed since the last update.
   */
  private async update(
    w: WatchEntry,
    milestones: Milestone[],
    { contents, hashes }: Rendered,
    doc: LiveDoc,
    now: number,
  ): Promise<void> {
    const key = messageKey(w.teamId, w.channelId);
    const m = doc.messages[key];
    if (m === undefined || m.ts === null) return;
    const a = audienceOf(w);
    await this.slack(w, async ({ slack, channel, may, sending }) => {
      if (a === "channel") {
        for (const ms of milestones) {
          sending("chat.postMessage");
          await slack.chat.postMessage({
            channel,
            thread_ts: m.ts ?? undefined,
            ...renderBroadcastMilestone(ms, now),
          });
        }
      }
      if (m.hash !== hashes[a] && now - m.updatedAt >= this.opts.minUpdateMs && may("chat.update")) {
        await slack.chat.update({ channel, ts: m.ts ?? "", ...contents[a] });
        doc.messages[key] = { ...m, hash: hashes[a], updatedAt: now };
      }
      return true;
    });
  }

  /**
   * Ends every posted message in place (channels not held back also get the summary in the
   * thread); true when all are ended, false when one failed or belongs to a watcher held this time.
   */
  private async endAll(
    id: string,
    b: Broadcast,
    watchers: WatchEntry[],
    held: readonly WatchEntry[],
    heldBack: readonly WatchEntry[],
    doc: LiveDoc,
    now: number,
  ): Promise<boolean> {
    const ended = renderEnded(id, b);
    const summary = renderSummary(b);
    let complete = true;
    await Promise.all(
      Object.entries(doc.messages).map(async ([key, m]) => {
        const w = watchers.find((x) => messageKey(x.teamId, x.channelId) === key);
        if (m.ended || m.ts === null) return;
        if (w === undefined) {
          // Held this time: ended at a later poll.
          if (held.some((x) => messageKey(x.teamId, x.channelId) === key)) complete = false;
          return;
        }
        const ok = await this.slack(w, async ({ slack, channel, may, sending }) => {
          // Paused: ended at a later poll (the end comes back until the broadcast is finalized).
          if (!may("chat.update")) return false;
          await slack.chat.update({ channel, ts: m.ts ?? "", ...ended });
          doc.messages[key] = { ...m, ended: true, hash: hashOf(ended), updatedAt: now };
          // A channel held back since (a pause): its message ends in place, the summary waits.
          if (audienceOf(w) === "channel" && !heldBack.includes(w)) {
            sending("chat.postMessage"); // the message is ended: the end is not tried again
            await slack.chat.postMessage({ channel, thread_ts: m.ts ?? undefined, ...summary });
          }
          return true;
        });
        if (ok !== "done") complete = false;
      }),
    );
    return complete;
  }

  /** The channel watchers (not DMs) whose subscription to the livestream's profile holds them back. */
  private async heldBack(watchers: WatchEntry[]): Promise<WatchEntry[]> {
    const held = this.opts.held;
    if (!held) return [];
    const out: WatchEntry[] = [];
    for (const w of watchers) {
      if (audienceOf(w) !== "channel" || w.profileId === null) continue;
      try {
        if (await held.held(w.teamId, w.profileId, w.channelId)) out.push(w);
      } catch (err) {
        // The settings unreadable: told live as before rather than missing the broadcast.
        this.opts.log.warn(
          { err, channelId: w.channelId },
          "could not tell whether the channel is held back",
        );
      }
    }
    return out;
  }

  /** A broadcast that ended, for the digests or catch-ups of the channels held back. */
  private async recordHeld(id: string, b: Broadcast, heldBack: readonly WatchEntry[]): Promise<void> {
    const held = this.opts.held;
    if (!held) return;
    for (const w of heldBack) {
      if (w.profileId === null) continue;
      await held
        .recordBroadcast({
          teamId: w.teamId,
          channelId: w.channelId,
          profileId: w.profileId,
          livestreamId: id,
          title: b.title || null,
          startedAt: Math.round(b.startedAt),
          endedAt: Math.round(b.endedAt ?? b.lastOnAirAt),
          adsUsed: b.adsRemaining === null ? null : Math.max(0, ADS_PER_HOUR - b.adsRemaining),
        })
        .catch((err: unknown) =>
          this.opts.log.warn(
            { err, channelId: w.channelId },
            "the broadcast could not be recorded for the digest",
          ),
        );
    }
  }

  /** The one notice of a watch ended by revoked access (the livestream by its id only). */
  async revoked(w: WatchKey): Promise<void> {
    await this.slack(w, async ({ slack, channel, sending }) => {
      sending("chat.postMessage"); // the one notice: not tried again
      await slack.chat.postMessage({
        channel,
        ...(audienceOf(w) === "dm" ? renderRevokedDm(w.livestreamId) : renderRevoked(w.livestreamId)),
        unfurl_links: false,
      });
      return true;
    });
  }

  /**
   * The one DM to the person who set a channel's watch, ended because the channel refuses the
   * bot's messages for good (`closed`): not tried again.
   */
  async channelClosed(w: WatchEntry, code: string, title: string | null): Promise<void> {
    const dm = { teamId: w.teamId, channelId: dmKey(w.by), livestreamId: w.livestreamId };
    await this.slack(dm, async ({ slack, channel, sending }) => {
      sending("chat.postMessage");
      await slack.chat.postMessage({
        channel,
        ...renderWatchChannelClosed(w.livestreamId, w.channelId, title, code),
        unfurl_links: false,
      });
      return true;
    });
  }

  /** Where the watcher's messages go: its channel, or the person's IM channel with the bot. */
  private async target(w: WatchKey, slack: WebClient): Promise<string> {
    const user = dmUserOf(w.channelId);
    return user === undefined ? w.channelId : this.opts.dms.channel(w.teamId, user, slack);
  }

  /** First post of the broadcast in one channel: saves its ts, or clears the mark when it certainly was not posted. */
  private async post(w: WatchEntry, content: Message, doc: LiveDoc): Promise<void> {
    const key = messageKey(w.teamId, w.channelId);
    const done = await this.slack(
      w,
      async ({ slack, channel, may }) => {
        // Paused: nothing sent, the mark cleared; posted at a later poll.
        if (!may("chat.postMessage")) return false;
        const res = await slack.chat.postMessage({ channel, ...content, unfurl_links: false });
        const m = doc.messages[key] as LiveMessage;
        doc.messages[key] = { ...m, ts: typeof res.ts === "string" ? res.ts : null };
        return true;
      },
      "live announcement not posted",
    );
    if (done === "refused" || done === "paused") delete doc.messages[key];
  }

  /**
   * Runs Slack calls for one watcher (its channel or IM channel), paced (see the module comment):
   * "done"; "paused" when `fn` answered false (nothing sent); "refused" when Slack said no or the
   * call never got to Slack (the work was not done); "failed" otherwise (logged).
   */
  private async slack(
    w: WatchKey,
    fn: (calls: Calls) => Promise<boolean>,
    failure = "live watch message not updated",
  ): Promise<Outcome> {
    const { gate } = this.opts;
    let channel: string | undefined;
    let calling = "chat.postMessage";
    let sent = false;
    const sending = (method: string): void => {
      calling = method;
      sent = true;
    };
    try {
      const slack = await this.opts.slackFor(w.teamId);
      const target = await this.target(w, slack);
      channel = target;
      const may = (method: string): boolean => {
        if (gate && (gate.blockedUntil(target) || gate.methodBlockedUntil(w.teamId, method))) return false;
        sending(method);
        return true;
      };
      if (!(await fn({ slack, channel: target, may, sending }))) return "paused";
      if (sent) gate?.succeeded(target);
      return "done";
    } catch (err) {
      this.opts.log.warn({ err, channelId: w.channelId, teamId: w.teamId }, failure);
      // Only what Slack answered for the channel paces it (not a missing token, not the IM's opening).
      if (gate && channel !== undefined) gate.failedCall(channel, err, { teamId: w.teamId, method: calling });
      // A channel that will never take the bot's messages (not in it, archived): the poller ends its watch.
      const f = classifySlackError(err);
      if (f.kind === "permanent" && channel !== undefined && audienceOf(w) === "channel") {
        const list = this.closed.get(w.livestreamId) ?? [];
        list.push({ key: w, code: f.code });
        this.closed.set(w.livestreamId, list);
      }
      return slackRefused(err) ? "refused" : "failed";
    }
  }
}
