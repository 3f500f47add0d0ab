/**
 * Token rotation (multi-workspace mode, manifest `token_rotation_enabled: true`): Slack then issues
 * bot tokens that expire (12 h) with a single-use refresh token. Before a token is used within
 * this process's refresh window of its expiry (`REFRESH_WINDOW_S` plus up to `REFRESH_JITTER_S`,
 * drawn once per process so that replicas do not all refresh at the same second), it is exchanged
 * (`oauth.v2.access`, grant_type=refresh_token, on SLACK_API_URL) and the installation stored with
 * the new pair. One refresh per workspace at a time in this process.
 * More: README.md ("rotation.ts").
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { Installation, InstallationQuery, InstallationStore } from "@slack/bolt";
import { WebClient } from "@slack/web-api";
import type { Logger } from "../log.js";
import { slackErrorText, slackFetch } from "../posting/index.js";
import { InstallationMissingError, type InstallationRepo, queryOf } from "../store/index.js";

/** Refresh at least this long before expiry (what Bolt uses: 2 hours). */
export const REFRESH_WINDOW_S = 2 * 60 * 60;
/** Each process refreshes up to this much earlier still (drawn once), spreading replicas. */
export const REFRESH_JITTER_S = 10 * 60;
/** After a failed refresh, try again at most this often (per workspace). */
const RETRY_AFTER_FAILURE_MS = 60_000;
/** After Slack refused a refresh token: how long to look for the pair another replica stores. */
const SETTLE_MS = 1000;
const SETTLE_STEP_MS = 200;

export interface TokenRefreshFailure {
  /** ISO time of the last failure. */
  at: string;
  /** Slack's error code (invalid_refresh_token, …) or a short reason. */
  error: string;
}

type Rotating = Installation & { tokenRefreshFailure?: TokenRefreshFailure };

/** What oauth.v2.access gave for a refresh token. */
interface Pair {
  token: string;
  refreshToken: string;
  /** seconds since the epoch */
  expiresAt: number;
}

type Query = ReturnType<typeof queryOf>;

export interface TokenRotationOptions {
  installations: InstallationRepo;
  apiUrl: string;
  clientId: string;
  clientSecret: string;
  logger: Logger;
  now?: () => number;
  /** Largest extra refresh window of this process, seconds (default REFRESH_JITTER_S). */
  jitterS?: number;
}

const missing = (team: string | undefined) => new InstallationMissingError(`workspace ${team}`);

/** The installation with the pair, and no failure notice. */
function withPair(i: Installation, pair: Pair): Installation {
  const { tokenRefreshFailure: _dropped, ...rest } = i as Rotating;
  return {
    ...rest,
    bot: i.bot && {
      ...i.bot,
      token: pair.token,
      refreshToken: pair.refreshToken,
      expiresAt: pair.expiresAt,
    },
  };
}

export class TokenRotation {
  /** This process's refresh window, seconds: REFRESH_WINDOW_S and its share of the jitter. */
  readonly windowS: number;
  private readonly inflight = new Map<string, Promise<Installation>>();
  private readonly failedAt = new Map<string, number>();
  /** Pairs Slack gave that could not be stored yet, by workspace, with the refresh token spent. */
  private readonly unsaved = new Map<string, { spent: string; pair: Pair }>();
  private readonly client: WebClient;
  private readonly logger: Logger;

  constructor(private readonly opts: TokenRotationOptions) {
    this.client = new WebClient(undefined, {
      slackApiUrl: opts.apiUrl,
      fetch: slackFetch,
      timeout: 10_000,
      retryConfig: { retries: 1 },
    });
    this.logger = opts.logger.child({ component: "token-rotation" });
    this.windowS = REFRESH_WINDOW_S + Math.floor(Math.random() * (opts.jitterS ?? REFRESH_JITTER_S));
  }

  private now(): number {
    return this.opts.now?.() ?? Date.now();
  }

  /** Whether the installation's bot token expires within the window (and can be refreshed). */
  expiring(i: Installation): boolean {
    const bot = i.bot;
    if (!bot?.refreshToken || bot.expiresAt === undefined) return false;
    return bot.expiresAt - Math.floor(this.now() / 1000) <= this.windowS;
  }

  /**
   * The installation with a token that is not about to expire (refreshed when needed). Throws
   * InstallationMissingError when the installation was removed meanwhile.
   */
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

  private async refresh(i: Installation, key: string): Promise<Installation> {
    const team = i.team?.id ?? i.enterprise?.id;
    const q = queryOf(i);
    let current: Installation | undefined;
    try {
      current = await this.opts.installations.read(q);
    } catch (err) {
      this.logger.warn(
        { err, team },
        "cannot read the installation: its token is not refreshed now (the current one goes on)",
      );
      return i;
    }
    if (current === undefined) throw missing(team);
    const spent = current.bot?.refreshToken;
    // Refreshed by another replica already (or not rotating): nothing to do.
    if (!spent || !this.expiring(current)) return current;
    const pending = this.unsaved.get(key);
    if (pending?.spent === spent) return this.store(q, key, team, spent, pending.pair, current);
    let pair: Pair;
    try {
      pair = await this.exchange(spent);
    } catch (err) {
      return this.failed(q, key, team, spent, current, err);
    }
    return this.store(q, key, team, spent, pair, current);
  }

  private async exchange(refreshToken: string): Promise<Pair> {
    const r = await this.client.oauth.v2.access({
      client_id: this.opts.clientId,
      client_secret: this.opts.clientSecret,
      grant_type: "refresh_token",
      refresh_token: refreshToken,
    });
    if (!r.access_token || !r.refresh_token || typeof r.expires_in !== "number")
      throw Object.assign(new Error("incomplete answer"), { code: "incomplete_answer" });
    return {
      token: r.access_token,
      refreshToken: r.refresh_token,
      expiresAt: Math.floor(this.now() / 1000) + r.expires_in,
    };
  }

  /** Stores the pair while the stored refresh token is still `spent` (compare-and-set). */
  private async store(
    q: Query,
    key: string,
    team: string | undefined,
    spent: string,
    pair: Pair,
    current: Installation,
  ): Promise<Installation> {
    let mine = false;
    let stored: Installation | undefined;
    try {
      stored = await this.opts.installations.updateInstallation(q, (now) => {
        mine = now.bot?.refreshToken === spent;
        // Another pair was stored meanwhile (a reinstall): it is the newer one.
        return mine ? withPair(now, pair) : undefined;
      });
    } catch (err) {
      // The pair is the only valid one now: kept here, stored at this workspace's next refresh.
      this.unsaved.set(key, { spent, pair });
      this.logger.error(
        { err, team },
        `Slack bot token refreshed for workspace ${team} but not stored; it is stored at the next attempt`,
      );
      return withPair(current, pair);
    }
    this.unsaved.delete(key);
    if (stored === undefined) {
      this.logger.info({ team }, "installation removed during a token refresh; it stays removed");
      throw missing(team);
    }
    if (mine) {
      this.failedAt.delete(key);
      this.logger.info({ team, expiresAt: pair.expiresAt }, "Slack bot token refreshed");
    }
    return stored;
  }

  private async failed(
    q: Query,
    key: string,
    team: string | undefined,
    spent: string,
    current: Installation,
    err: unknown,
  ): Promise<Installation> {
    const error = slackErrorText(err);
    if (error === "invalid_refresh_token") {
      // Most likely spent by another replica a moment ago: its pair is about to be stored.
      for (let waited = 0; waited < SETTLE_MS; waited += SETTLE_STEP_MS) {
        await sleep(SETTLE_STEP_MS);
        const now = await this.opts.installations.read(q).catch(() => null);
        if (now === null) break;
        if (now === undefined) throw missing(team);
        if (now.bot?.refreshToken !== spent) return now;
      }
    }
    this.failedAt.set(key, this.now());
    const failure: TokenRefreshFailure = { at: new Date(this.now()).toISOString(), error };
    let stored: Installation | undefined;
    try {
      stored = await this.opts.installations.updateInstallation(q, (now) =>
        now.bot?.refreshToken === spent ? { ...now, tokenRefreshFailure: failure } : undefined,
      );
    } catch (noteErr) {
      this.logger.warn({ err: noteErr, team }, "could not note the refresh failure on the installation");
      stored = current;
    }
    if (stored === undefined) throw missing(team);
    // Another replica's pair after all: no failure.
    if (stored.bot?.refreshToken !== spent) {
      this.failedAt.delete(key);
      return stored;
    }
    this.logger.error(
      { team, error },
      `Slack token refresh failed for workspace ${team} (${error}): its current bot token is used until it expires, then the bot stops working there; if this persists, reinstall the app in that workspace (/slack/install)`,
    );
    return stored;
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
