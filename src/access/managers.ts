/**
 * Who may change webhooks: the workspace's admins and owners (Slack `users.info`), the users in
 * MANAGER_USER_IDS, and the users a manager added for that workspace.
 *
 * `users.info` answers are kept per (team, user) for a few minutes so that a burst of button
 * presses costs one Web API call: in the process's one cache of them (src/posting's `SlackUsers`,
 * given by the composition as `users`; src/access may not import src/posting, so the shape it reads
 * is declared here). A failed lookup is not cached and counts as "not a manager" (fail closed),
 * with the reason given to the person.
 */
import type { WebClient } from "@slack/web-api";
import type { Logger } from "../log.js";
import type { SettingsRepo } from "../store/index.js";

export type ManagerReason = "configured" | "added" | "admin" | "owner";
export type ManagerDecision =
  | { manager: true; reason: ManagerReason }
  | { manager: false; reason: "member" | "unverified" };

/** What the manager check reads of a person in Slack's `users.info` answer (Slack's field names). */
export interface SlackPerson {
  team_id?: string | undefined;
  deleted?: boolean | undefined;
  is_stranger?: boolean | undefined;
  is_owner?: boolean | undefined;
  is_primary_owner?: boolean | undefined;
  is_admin?: boolean | undefined;
}

/**
 * Slack's `users.info`, answered at most `maxAgeMs` ago: the person, or null when Slack does not
 * know them; throws when Slack cannot answer. src/posting's `SlackUsers` is one.
 */
export interface UsersInfo {
  info(client: WebClient, teamId: string, userId: string, maxAgeMs: number): Promise<SlackPerson | null>;
}

/** Without the process's cache (unit tests): Slack asked each time, every failure thrown. */
const askEachTime: UsersInfo = {
  info: async (client, _teamId, userId) => (await client.users.info({ user: userId })).user ?? null,
};

export interface ManagerPolicyOptions {
  managerUserIds: readonly string[];
  settings: SettingsRepo;
  logger: Logger;
  /** How old a `users.info` answer may be (default 5 minutes). */
  cacheTtlMs?: number | undefined;
  /** The process's one `users.info` cache (src/posting's `SlackUsers`); default: none. */
  users?: UsersInfo;
}

export class ManagerPolicy {
  private readonly configured: Set<string>;
  private readonly users: UsersInfo;
  private readonly ttl: number;

  constructor(private readonly opts: ManagerPolicyOptions) {
    this.configured = new Set(opts.managerUserIds);
    this.users = opts.users ?? askEachTime;
    this.ttl = opts.cacheTtlMs ?? 5 * 60_000;
  }

  /**
   * The managers the bot can name for a workspace without asking Slack: MANAGER_USER_IDS and the
   * users added for it (admins and owners are known only when they ask). Who is told when the
   * bot cannot post (src/notify/dead-letters.ts). When the added ones cannot be read, the
   * configured ones alone (logged).
   */
  async named(teamId: string): Promise<string[]> {
    try {
      const added = await this.opts.settings.listManagers(teamId);
      return [...new Set([...this.configured, ...added.map((m) => m.userId)])];
    } catch (err) {
      this.opts.logger.warn(
        { err, teamId },
        "the workspace's managers could not be read; telling the configured ones",
      );
      return [...this.configured];
    }
  }

  /** Throws StoreUnavailableError when the workspace's managers cannot be read. */
  async decide(client: WebClient, teamId: string, userId: string): Promise<ManagerDecision> {
    if (this.configured.has(userId)) return { manager: true, reason: "configured" };
    const added = await this.opts.settings.listManagers(teamId);
    if (added.some((m) => m.userId === userId)) return { manager: true, reason: "added" };
    const role = await this.role(client, teamId, userId);
    if (role === "admin" || role === "owner") return { manager: true, reason: role };
    return { manager: false, reason: role === undefined ? "unverified" : "member" };
  }

  private async role(client: WebClient, teamId: string, userId: string) {
    let u: SlackPerson | null;
    try {
      u = await this.users.info(client, teamId, userId, this.ttl);
    } catch (err) {
      this.opts.logger.warn({ err, teamId, userId }, "users.info failed; treating the user as not a manager");
      return undefined;
    }
    // Only the workspace's own admins and owners: not one Slack does not know, not a Slack Connect
    // user whose own organisation made them an admin, not a deactivated account.
    if (u === null) return "member";
    const ours = (u.team_id === undefined || u.team_id === teamId) && !u.is_stranger && !u.deleted;
    return !ours ? "member" : u.is_owner || u.is_primary_owner ? "owner" : u.is_admin ? "admin" : "member";
  }
}
