/**
 * What a poll does in Slack, for the replica holding the livestream's lease: the broadcast's
 * effects (broadcast.ts) turned into posts, updates, thread replies and the end, in the order the
 * service's module comment gives (mark, save, post, save the ts); and the one notice of a watch
 * ended because access was revoked.
 */
import type { WebClient } from "@slack/web-api";
import type { Logger } from "../log.js";
import {
  type Message,
  renderBroadcastMilestone,
  renderEnded,
  renderLive,
  renderRevoked,
  renderSummary,
} from "../messages/index.js";
import type { Broadcast, Effect } from "./broadcast.js";
import type { WatchEntry, WatchKey } from "./registry.js";
import type { WatchSchedule } from "./schedule.js";
import { type LiveDoc, type LiveDocs, type LiveMessage, messageKey } from "./store.js";

export interface AnnouncerOptions {
  slackFor: (teamId: string) => Promise<WebClient>;
  schedule: WatchSchedule;
  live: LiveDocs;
  owner: string;
  log: Logger;
  /** Least time between two updates of one message. */
  minUpdateMs: number;
}

const slackRefused = (err: unknown): boolean => {
  const code = (err as { code?: unknown } | null)?.code;
  return code === "slack_webapi_platform_error" || code === "slack_webapi_rate_limited_error";
};

function hashOf(m: Message): string {
  return JSON.stringify(m);
}

export class Announcer {
  constructor(private readonly o: AnnouncerOptions) {}

  /** Applies the effects of one poll to the watching channels; `doc` is saved as it changes. */
  async apply(
    id: string,
    b: Broadcast,
    effects: Effect[],
    watchers: WatchEntry[],
    doc: LiveDoc,
    now: number,
  ) {
    const { schedule, live, owner } = this.o;
    const save = async () => {
      if (await schedule.holds(owner, id)) await live.write(id, doc);
    };
    if (effects.some((e) => e.type === "sync") && b.phase !== "ended") {
      const content = renderLive(id, b, now);
      const hash = hashOf(content);
      const fresh = watchers.filter((w) => doc.messages[messageKey(w.teamId, w.channelId)] === undefined);
      if (fresh.length > 0) {
        // Marked before posting (see service.ts's module comment).
        for (const w of fresh) {
          doc.messages[messageKey(w.teamId, w.channelId)] = {
            ts: null,
            postedAt: now,
            hash,
            updatedAt: now,
            ended: false,
          };
        }
        if (!(await schedule.holds(owner, id))) return;
        await live.write(id, doc);
        await Promise.all(fresh.map((w) => this.post(w, content, doc)));
        await save();
      }
      const milestones = effects.flatMap((e) => (e.type === "milestone" ? [e.milestone] : []));
      await Promise.all(
        watchers.map(async (w) => {
          const key = messageKey(w.teamId, w.channelId);
          const m = doc.messages[key];
          if (m === undefined || m.ts === null || fresh.includes(w)) return;
          await this.slack(w, async (slack) => {
            for (const ms of milestones) {
              await slack.chat.postMessage({
                channel: w.channelId,
                thread_ts: m.ts ?? undefined,
                ...renderBroadcastMilestone(ms, now),
              });
            }
            if (m.hash !== hash && now - m.updatedAt >= this.o.minUpdateMs) {
              await slack.chat.update({ channel: w.channelId, ts: m.ts ?? "", ...content });
              doc.messages[key] = { ...m, hash, updatedAt: now };
            }
          });
        }),
      );
      await save();
    }
    if (effects.some((e) => e.type === "end")) {
      const ended = renderEnded(id, b);
      const summary = renderSummary(b);
      let complete = true;
      await Promise.all(
        Object.entries(doc.messages).map(async ([key, m]) => {
          const w = watchers.find((x) => messageKey(x.teamId, x.channelId) === key);
          if (m.ended || m.ts === null || w === undefined) return;
          const ok = await this.slack(w, async (slack) => {
            await slack.chat.update({ channel: w.channelId, ts: m.ts ?? "", ...ended });
            doc.messages[key] = { ...m, ended: true, hash: hashOf(ended), updatedAt: now };
            await slack.chat.postMessage({ channel: w.channelId, thread_ts: m.ts ?? undefined, ...summary });
          });
          if (!ok) complete = false;
        }),
      );
      if (complete && doc.broadcast) doc.broadcast = { ...doc.broadcast, finalized: true };
      await save();
    }
  }

  /** The one notice of a watch ended by revoked access (the livestream by its id only). */
  async revoked(w: WatchKey): Promise<void> {
    await this.slack(w, async (slack) => {
      await slack.chat.postMessage({
        channel: w.channelId,
        ...renderRevoked(w.livestreamId),
        unfurl_links: false,
      });
    });
  }

  /** First post of the broadcast in one channel: saves its ts, or clears the mark on a definite refusal. */
  private async post(w: WatchEntry, content: Message, doc: LiveDoc): Promise<void> {
    const key = messageKey(w.teamId, w.channelId);
    try {
      const slack = await this.o.slackFor(w.teamId);
      const res = await slack.chat.postMessage({ channel: w.channelId, ...content, unfurl_links: false });
      const m = doc.messages[key] as LiveMessage;
      doc.messages[key] = { ...m, ts: typeof res.ts === "string" ? res.ts : null };
    } catch (err) {
      this.o.log.warn({ err, channelId: w.channelId, teamId: w.teamId }, "live announcement not posted");
      if (slackRefused(err)) delete doc.messages[key];
    }
  }

  /** Runs Slack calls for one channel; false (logged) when one failed. */
  private async slack(w: WatchKey, fn: (c: WebClient) => Promise<void>): Promise<boolean> {
    try {
      await fn(await this.o.slackFor(w.teamId));
      return true;
    } catch (err) {
      this.o.log.warn({ err, channelId: w.channelId, teamId: w.teamId }, "live watch message not updated");
      return false;
    }
  }
}
