/**
 * Workspaces where Slack says the app is gone (uninstalled, token revoked, workspace closed): the
 * worker makes no Slack call there for a while and dead-letters what arrives meanwhile, instead
 * of retrying every queued video every minute for ever. Kept per process; a new token for the
 * workspace (a reinstall in multi-workspace mode, a restart with a new SLACK_BOT_TOKEN) or the end
 * of the pause lets the next delivery try Slack again.
 */
import type { WebClient } from "@slack/web-api";
import { sha256Hex } from "../video/hash.js";

export const GONE_PAUSE_MS = 30 * 60_000;
const MAX_TEAMS = 10_000;

interface Gone {
  code: string;
  until: number;
  /** A hash of the token Slack refused (never the token itself). */
  token: string;
}

const tokenId = (client: WebClient): string => sha256Hex(`slack-token:${client.token ?? ""}`).slice(0, 16);

export class GoneWorkspaces {
  private readonly teams = new Map<string, Gone>();

  constructor(
    private readonly now: () => number,
    private readonly pauseMs = GONE_PAUSE_MS,
  ) {}

  /** The code Slack answered, while the pause of this workspace and token lasts; else undefined. */
  check(teamId: string, client: WebClient): string | undefined {
    const g = this.teams.get(teamId);
    if (!g) return undefined;
    if (g.until <= this.now() || g.token !== tokenId(client)) {
      this.teams.delete(teamId);
      return undefined;
    }
    return g.code;
  }

  /** Starts (or renews) the pause; true when it was not paused already (log once then). */
  mark(teamId: string, client: WebClient, code: string): boolean {
    const fresh = this.check(teamId, client) === undefined;
    this.teams.delete(teamId);
    if (this.teams.size >= MAX_TEAMS) {
      const oldest = this.teams.keys().next().value;
      if (oldest !== undefined) this.teams.delete(oldest);
    }
    this.teams.set(teamId, { code, until: this.now() + this.pauseMs, token: tokenId(client) });
    return fresh;
  }
}
