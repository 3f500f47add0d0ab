/**
 * Slack's `users.info` answers, kept per (workspace, person) for a while: the one cache of them in
 * the process, shared by the manager check (access/managers.ts: admins and owners) and the DM
 * watches (watch/dm.ts: is the person still in the workspace). Each caller says how old an answer
 * it accepts (its own lifetime); an answer is shared, the decision taken from it is the caller's.
 * More: README.md ("users.ts").
 */
import type { UsersInfoResponse, WebClient } from "@slack/web-api";
import { slackErrorCode } from "./slack-errors.js";

type User = NonNullable<UsersInfoResponse["user"]>;

/** What the bot reads of a person (Slack's field names). */
export type SlackUser = Readonly<
  Pick<User, "team_id" | "deleted" | "is_stranger" | "is_owner" | "is_primary_owner" | "is_admin">
>;

export interface SlackUsersOptions {
  /** How old an answer may be when the caller does not say (default 5 minutes). */
  ttlMs?: number;
  /** Answers kept at most (default 10 000). */
  maxEntries?: number;
  now?: () => number;
}

export const DEFAULT_USERS_TTL_MS = 5 * 60_000;
const DEFAULT_MAX_ENTRIES = 10_000;

/** The client to ask with, or how to get it (only built when Slack is asked). */
export type ClientOf = WebClient | (() => Promise<WebClient>);

function keep(u: User | undefined): SlackUser | null {
  if (u === undefined) return null;
  return {
    team_id: u.team_id,
    deleted: u.deleted,
    is_stranger: u.is_stranger,
    is_owner: u.is_owner,
    is_primary_owner: u.is_primary_owner,
    is_admin: u.is_admin,
  };
}

export class SlackUsers {
  private readonly answers = new Map<string, { at: number; user: SlackUser | null }>();
  private readonly asking = new Map<string, Promise<SlackUser | null>>();
  private readonly ttlMs: number;
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(opts: SlackUsersOptions = {}) {
    this.ttlMs = opts.ttlMs ?? DEFAULT_USERS_TTL_MS;
    this.maxEntries = Math.max(1, opts.maxEntries ?? DEFAULT_MAX_ENTRIES);
    this.now = opts.now ?? Date.now;
  }

  /**
   * The person as Slack answered at most `maxAgeMs` ago (asked now otherwise), or null when Slack
   * does not know them (`user_not_found`). Throws Slack's or the network's failure otherwise.
   */
  async info(
    client: ClientOf,
    teamId: string,
    userId: string,
    maxAgeMs = this.ttlMs,
  ): Promise<SlackUser | null> {
    const key = `${teamId}:${userId}`;
    const hit = this.answers.get(key);
    if (hit !== undefined && this.now() - hit.at < maxAgeMs) return hit.user;
    const running = this.asking.get(key);
    if (running) return running;
    const p = this.ask(client, key, userId).finally(() => this.asking.delete(key));
    this.asking.set(key, p);
    return p;
  }

  /** How many answers are kept (tests, metrics). */
  get size(): number {
    return this.answers.size;
  }

  private async ask(client: ClientOf, key: string, userId: string): Promise<SlackUser | null> {
    let user: SlackUser | null;
    try {
      const slack = typeof client === "function" ? await client() : client;
      user = keep((await slack.users.info({ user: userId })).user);
    } catch (err) {
      if (slackErrorCode(err) !== "user_not_found") throw err;
      user = null;
    }
    this.answers.delete(key);
    if (this.answers.size >= this.maxEntries) {
      const oldest = this.answers.keys().next().value;
      if (oldest !== undefined) this.answers.delete(oldest);
    }
    this.answers.set(key, { at: this.now(), user });
    return user;
  }
}
