/**
 * Who may change webhooks: the workspace's admins and owners (Slack `users.info`), the users in
 * MANAGER_USER_IDS, and the users a manager added for that workspace.
 *
 * `users.info` answers are cached per (team, user) for a few minutes so that a burst of button
 * presses costs one Web API call; a failed lookup is not cached and counts as "not a manager"
 * (fail closed), with the reason given to the person.
 */
import type { WebClient } from "@slack/web-api";
import type { Logger } from "../log.js";
import type { SettingsRepo } from "../store/index.js";

export type ManagerReason = "configured" | "added" | "admin" | "owner";
export type ManagerDecision =
  | { manager: true; reason: ManagerReason }
  | { manager: false; reason: "member" | "unverified" };

export interface ManagerPolicyOptions {
  managerUserIds: readonly string[];
  settings: SettingsRepo;
  logger: Logger;
  cacheTtlMs?: number;
  now?: () => number;
}

export class ManagerPolicy {
  private readonly configured: Set<string>;
  private readonly cache = new Map<string, { at: number; role: "admin" | "owner" | "member" }>();
  private readonly ttl: number;
  private readonly now: () => number;

  constructor(private readonly opts: ManagerPolicyOptions) {
    this.configured = new Set(opts.managerUserIds);
    this.ttl = opts.cacheTtlMs ?? 5 * 60_000;
    this.now = opts.now ?? Date.now;
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
    const key = `${teamId}:${userId}`;
    const hit = this.cache.get(key);
    if (hit && this.now() - hit.at < this.ttl) return hit.role;
    try {
      const res = await client.users.info({ user: userId });
      const u = res.user;
      // Only the workspace's own admins and owners: not a Slack Connect user whose own
      // organisation made them an admin, not a deactivated account.
      const ours =
        u !== undefined && (u.team_id === undefined || u.team_id === teamId) && !u.is_stranger && !u.deleted;
      const role = !ours
        ? "member"
        : u.is_owner || u.is_primary_owner
          ? "owner"
          : u.is_admin
            ? "admin"
            : "member";
      if (this.cache.size > 10_000) this.cache.clear();
      this.cache.set(key, { at: this.now(), role });
      return role;
    } catch (err) {
      this.opts.logger.warn({ err, teamId, userId }, "users.info failed; treating the user as not a manager");
      return undefined;
    }
  }
}
