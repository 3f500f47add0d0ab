/**
 * Personal (DM) watches in Slack: the person's IM channel with the bot, and whether the person is
 * still in the workspace.
 * More: README.md ("dm.ts").
 */
import type { WebClient } from "@slack/web-api";
import type { Logger } from "../log.js";
import { SlackUsers } from "../posting/index.js";

export type Membership = "member" | "gone" | "unknown";

export const DEFAULT_MEMBER_CACHE_MS = 5 * 60_000;
const MAX_CACHED = 10_000;

export interface DirectMessagesOptions {
  slackFor: (teamId: string) => Promise<WebClient>;
  log: Logger;
  now: () => number;
  /** How old a `users.info` answer may be (default 5 minutes). */
  cacheMs?: number;
  /** The process's one `users.info` cache (src/posting), shared with the manager check; default: one of its own. */
  users?: SlackUsers;
}

export class DirectMessages {
  private readonly ims = new Map<string, string>();
  private readonly users: SlackUsers;

  constructor(private readonly opts: DirectMessagesOptions) {
    this.users = opts.users ?? new SlackUsers({ now: opts.now });
  }

  /**
   * The IM channel (D…) of the bot with `userId`, opened with `client` (default: the workspace's).
   * Throws Slack's error (`missing_scope` without `im:write`, `user_disabled`, …).
   */
  async channel(teamId: string, userId: string, client?: WebClient): Promise<string> {
    const key = `${teamId}:${userId}`;
    const hit = this.ims.get(key);
    if (hit !== undefined) return hit;
    const slack = client ?? (await this.opts.slackFor(teamId));
    const res = await slack.conversations.open({ users: userId });
    const id = res.channel?.id;
    if (typeof id !== "string" || id === "") throw new Error("conversations.open answered no channel");
    if (this.ims.size >= MAX_CACHED) this.ims.clear();
    this.ims.set(key, id);
    return id;
  }

  /** Whether the person may still be told (see the module comment). */
  async membership(teamId: string, userId: string): Promise<Membership> {
    const key = `${teamId}:${userId}`;
    const ttl = this.opts.cacheMs ?? DEFAULT_MEMBER_CACHE_MS;
    let v: "member" | "gone";
    try {
      const u = await this.users.info(() => this.opts.slackFor(teamId), teamId, userId, ttl);
      // Unknown to Slack, deactivated, or answered as another workspace's member (not this
      // one's): gone from the watch's workspace.
      const elsewhere = typeof u?.team_id === "string" && u.team_id !== teamId;
      v = u === null || u.deleted === true || elsewhere ? "gone" : "member";
    } catch (err) {
      this.opts.log.warn({ err, teamId, userId }, "users.info failed; the DM watch waits for Slack");
      return "unknown";
    }
    if (v === "gone") this.ims.delete(key);
    return v;
  }
}
