/**
 * Token rotation (multi-workspace mode, manifest `token_rotation_enabled: true`): Slack then issues
 * bot tokens that expire (12 h) with a single-use refresh token. Before a token is used within
 * `REFRESH_WINDOW_S` of its expiry, it is exchanged (`oauth.v2.access`, grant_type=refresh_token,
 * on SLACK_API_URL) and the installation stored with the new pair. One refresh per workspace at a
 * time in this process; a refresh lost to another replica (the refresh token already used) is
 * recovered by reading back the installation that replica stored.
 *
 * A failure is never silent: an error log line naming the workspace and Slack's error, and a
 * notice kept on the installation (`tokenRefreshFailure`) that the App Home shows until a refresh
 * succeeds or the app is reinstalled. The current token goes on being used until it expires.
 *
 * Both users of tokens go through here: Bolt (the installation store given to the receiver) and
 * the notification worker (workspaceClients). Bolt is handed installations without the refresh
 * token, so its own (silent on failure) refresh never runs.
 */
import type { Installation, InstallationQuery, InstallationStore } from "@slack/bolt";
import { WebClient } from "@slack/web-api";
import type { Logger } from "../log.js";
import type { InstallationRepo } from "../store/index.js";

/** Refresh this long before expiry (what Bolt uses: 2 hours). */
export const REFRESH_WINDOW_S = 2 * 60 * 60;
/** After a failed refresh, try again at most this often (per workspace). */
const RETRY_AFTER_FAILURE_MS = 60_000;

export interface TokenRefreshFailure {
  /** ISO time of the last failure. */
  at: string;
  /** Slack's error code (invalid_refresh_token, …) or a short reason. */
  error: string;
}

type Rotating = Installation & { tokenRefreshFailure?: TokenRefreshFailure };

export interface TokenRotationOptions {
  installations: InstallationRepo;
  apiUrl: string;
  clientId: string;
  clientSecret: string;
  logger: Logger;
  now?: () => number;
}

function slackError(err: unknown): string {
  const data = (err as { data?: { error?: unknown } } | undefined)?.data;
  if (typeof data?.error === "string") return data.error.slice(0, 100);
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? code.slice(0, 100) : "request_failed";
}

export class TokenRotation {
  private readonly inflight = new Map<string, Promise<Installation>>();
  private readonly failedAt = new Map<string, number>();
  private readonly client: WebClient;
  private readonly logger: Logger;

  constructor(private readonly o: TokenRotationOptions) {
    this.client = new WebClient(undefined, {
      slackApiUrl: o.apiUrl,
      timeout: 10_000,
      retryConfig: { retries: 1 },
    });
    this.logger = o.logger.child({ component: "token-rotation" });
  }

  private now(): number {
    return this.o.now?.() ?? Date.now();
  }

  /** Whether the installation's bot token expires within the window (and can be refreshed). */
  expiring(i: Installation): boolean {
    const bot = i.bot;
    if (!bot?.refreshToken || bot.expiresAt === undefined) return false;
    return bot.expiresAt - Math.floor(this.now() / 1000) <= REFRESH_WINDOW_S;
  }

  /** The installation with a token that is not about to expire (refreshed when needed). */
  async fresh(i: Installation): Promise<Installation> {
    if (!this.expiring(i)) return i;
    const key = i.isEnterpriseInstall ? `E:${i.enterprise?.id}` : `T:${i.team?.id}`;
    const last = this.failedAt.get(key);
    if (last !== undefined && this.now() - last < RETRY_AFTER_FAILURE_MS) return i;
    const running = this.inflight.get(key);
    if (running) return running;
    const p = this.refresh(i, key).finally(() => this.inflight.delete(key));
    this.inflight.set(key, p);
    return p;
  }

  private async refresh(i: Rotating, key: string): Promise<Installation> {
    const team = i.team?.id ?? i.enterprise?.id;
    const bot = i.bot;
    if (!bot?.refreshToken) return i;
    try {
      const r = await this.client.oauth.v2.access({
        client_id: this.o.clientId,
        client_secret: this.o.clientSecret,
        grant_type: "refresh_token",
        refresh_token: bot.refreshToken,
      });
      if (!r.access_token || !r.refresh_token || typeof r.expires_in !== "number")
        throw Object.assign(new Error("incomplete answer"), { code: "incomplete_answer" });
      const { tokenRefreshFailure: _dropped, ...rest } = i;
      const next: Installation = {
        ...rest,
        bot: {
          ...bot,
          token: r.access_token,
          refreshToken: r.refresh_token,
          expiresAt: Math.floor(this.now() / 1000) + r.expires_in,
        },
      };
      await this.o.installations.storeInstallation(next);
      this.failedAt.delete(key);
      this.logger.info({ team, expiresIn: r.expires_in }, "Slack bot token refreshed");
      return next;
    } catch (err) {
      // Another replica may have used the refresh token first: its stored token is the answer.
      const stored = await this.o.installations
        .find({
          teamId: i.team?.id,
          enterpriseId: i.enterprise?.id,
          isEnterpriseInstall: i.isEnterpriseInstall === true,
        })
        .catch(() => undefined);
      if (stored?.bot?.token && stored.bot.token !== bot.token && !this.expiring(stored)) return stored;
      const error = slackError(err);
      this.failedAt.set(key, this.now());
      this.logger.error(
        { team, error },
        `Slack token refresh failed for workspace ${team} (${error}): its current bot token is used until it expires, then the bot stops working there; if this persists, reinstall the app in that workspace (/slack/install)`,
      );
      const failure: TokenRefreshFailure = { at: new Date(this.now()).toISOString(), error };
      const noted: Rotating = { ...(stored ?? i), tokenRefreshFailure: failure };
      await this.o.installations.storeInstallation(noted).catch(() => undefined);
      return stored ?? i;
    }
  }
}

/** The refresh failure noted on a workspace's installation, if any. */
export function refreshFailureOf(i: Installation | undefined): TokenRefreshFailure | undefined {
  const f = (i as Rotating | undefined)?.tokenRefreshFailure;
  return f && typeof f.at === "string" && typeof f.error === "string" ? f : undefined;
}

/** An installation as Bolt gets it: a fresh token, and no refresh token (Bolt must not refresh). */
function forBolt(i: Installation): Installation {
  if (!i.bot?.refreshToken) return i;
  const { refreshToken: _r, expiresAt: _e, ...bot } = i.bot;
  return { ...i, bot };
}

/** Bolt's installation store with rotation: fetching refreshes an expiring token first. */
export function rotatingInstallationStore(
  installations: InstallationRepo,
  rotation: TokenRotation | undefined,
): InstallationStore {
  return {
    storeInstallation: (i) => installations.storeInstallation(i),
    deleteInstallation: (q) => installations.deleteInstallation(q),
    fetchInstallation: async (q: InstallationQuery<boolean>) => {
      const found = await installations.fetchInstallation(q);
      return forBolt(rotation ? await rotation.fresh(found) : found);
    },
  };
}
