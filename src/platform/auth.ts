/**
 * OAuth 2.0 client-credentials token provider (spec section 5).
 * More: README.md ("auth.ts").
 */
import type { Dispatcher } from "undici";
import type { Logger } from "../log.js";
import { PlatformError } from "./errors.js";
import { header, parseRetryAfter, sendRaw, type TransportTimeouts, tryJson } from "./http.js";
import {
  describeIssue,
  ErrorEnvelopeSchema,
  OAuthErrorSchema,
  type TokenResponse,
  TokenResponseSchema,
} from "./schemas.js";

export interface TokenProviderOptions {
  authUrl: string;
  clientId: string;
  clientSecret: string;
  scopes: readonly string[];
  dispatcher: Dispatcher;
  timeouts: TransportTimeouts;
  logger: Logger;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  /** Refresh this long before expiry at most (default 60 s; never more than 10% of the lifetime). */
  refreshMarginMs?: number;
  /** Longest Retry-After waited for before the one retry of a token request (default 5 s). */
  maxRetryAfterMs?: number;
  /**
   * Scopes the bot can do without (default `OPTIONAL_SCOPES`): refused with `invalid_scope`, they
   * are dropped and the token asked for again without them.
   */
  optionalScopes?: readonly string[];
}

/** The scopes the bot can do without: without `video.read`, videos are named by their id. */
export const OPTIONAL_SCOPES: readonly string[] = ["video.read"];

/** Why the bot works without an optional scope. */
export interface WithheldScope {
  scope: string;
  /**
   * "refused": the token service refused a request for it (invalid_scope); "not_granted": the
   * token came without it; "not_requested": PLATFORM_SCOPES does not ask for it.
   */
  reason: "refused" | "not_granted" | "not_requested";
}

/** How to give the bot a scope its key lacks (log lines, App Home). */
export function grantAdvice(scope: string, reason: WithheldScope["reason"]): string {
  return reason === "not_requested"
    ? `add ${scope} to PLATFORM_SCOPES and restart the bot`
    : `grant ${scope} to the bot's private API key (management console: Organization, API keys, the key's permissions), then restart the bot`;
}

/** Pause before the one retry of a failed token request when the service does not say. */
const TOKEN_RETRY_PAUSE_MS = 250;

export interface CachedToken {
  accessToken: string;
  expiresAt: number;
  grantedScopes: string[];
}

export interface TokenStats {
  /** Token requests sent (including failed ones). */
  requests: number;
  /** Tokens obtained. */
  issued: number;
}

const TOKEN_PATH = "/v2/token";

export class TokenProvider {
  private readonly opts: TokenProviderOptions;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private current: CachedToken | undefined;
  private inflight: Promise<CachedToken> | undefined;
  /** The scopes of the last token obtained (kept when that token is dropped after a 401). */
  private lastGranted: string[] | undefined;
  /** Optional scopes refused by the token service: no longer asked for. */
  private readonly refused = new Set<string>();
  private readonly said = new Set<string>();
  readonly stats: TokenStats = { requests: 0, issued: 0 };

  constructor(opts: TokenProviderOptions) {
    this.opts = opts;
    this.now = opts.now ?? Date.now;
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
  }

  /** The scopes granted to the last token obtained (may be a bundle); [] before the first one. */
  get grantedScopes(): string[] {
    return [...(this.lastGranted ?? [])];
  }

  /** The scopes asked for: the configured ones, less the optional ones the service refused. */
  get requestedScopes(): string[] {
    return this.opts.scopes.filter((s) => !this.refused.has(s));
  }

  /**
   * Whether the last token obtained carries `scope`. A bundle scope is taken to cover it (what a
   * bundle holds is not shown; a 403 then says otherwise). False before the first token.
   */
  has(scope: string): boolean {
    const granted = this.lastGranted ?? [];
    return granted.includes(scope) || granted.some((s) => s.startsWith("bundle."));
  }

  /** The optional scopes the bot works without, and why; [] before the first token. */
  withheld(): WithheldScope[] {
    if (this.lastGranted === undefined) return [];
    const out: WithheldScope[] = [];
    for (const scope of this.opts.optionalScopes ?? OPTIONAL_SCOPES) {
      if (this.refused.has(scope)) out.push({ scope, reason: "refused" });
      else if (this.has(scope)) continue;
      else if (!this.opts.scopes.includes(scope)) out.push({ scope, reason: "not_requested" });
      else out.push({ scope, reason: "not_granted" });
    }
    return out;
  }

  /** A valid access token, from cache or from one shared request. */
  async getToken(): Promise<string> {
    const cur = this.current;
    if (cur && this.now() < cur.expiresAt) return cur.accessToken;
    return (await this.refresh()).accessToken;
  }

  /** Forget `token` (after the API answered 401 for it). A newer token is kept. */
  invalidate(token: string): void {
    if (this.current?.accessToken === token) this.current = undefined;
  }

  private refresh(): Promise<CachedToken> {
    if (!this.inflight) {
      this.inflight = this.fetchWithRetry().finally(() => {
        this.inflight = undefined;
      });
    }
    return this.inflight;
  }

  private async fetchWithRetry(): Promise<CachedToken> {
    try {
      return await this.fetchWithScopes();
    } catch (err) {
      if (err instanceof PlatformError && err.transient) {
        const cap = this.opts.maxRetryAfterMs ?? 5_000;
        const waitMs =
          err.retryAfterSeconds === undefined
            ? TOKEN_RETRY_PAUSE_MS
            : Math.min(Math.max(err.retryAfterSeconds * 1000, TOKEN_RETRY_PAUSE_MS), cap);
        this.opts.logger.warn({ err, waitMs }, "token request failed; retrying once");
        await this.sleep(waitMs);
        return await this.fetchWithScopes();
      }
      throw err;
    }
  }

  /**
   * A token request; refused with invalid_scope, it is sent again without the optional scopes
   * (RFC 6749 5.2: a service may refuse rather than grant less). Said once, by sayWithheld.
   */
  private async fetchWithScopes(): Promise<CachedToken> {
    const asked = this.requestedScopes;
    const optional = (this.opts.optionalScopes ?? OPTIONAL_SCOPES).filter((s) => asked.includes(s));
    // Without anything left to ask for, the refusal stands.
    if (optional.length === asked.length) optional.length = 0;
    try {
      return await this.fetchToken(optional.length > 0);
    } catch (err) {
      if (!(err instanceof PlatformError && err.code === "invalid_scope" && optional.length > 0)) throw err;
      for (const s of optional) this.refused.add(s);
      return await this.fetchToken(false);
    }
  }

  /** One token request; `scopeRetry`: an invalid_scope will be retried, so it is not logged here. */
  private async fetchToken(scopeRetry = false): Promise<CachedToken> {
    const { clientId, clientSecret, logger } = this.opts;
    const scopes = this.requestedScopes;
    const body = new URLSearchParams({
      grant_type: "client_credentials",
      client_id: clientId,
      client_secret: clientSecret,
      scope: scopes.join(" "),
    }).toString();
    const started = this.now();
    this.stats.requests++;
    const res = await this.postToken(body);
    const json = tryJson(res.text);
    if (res.status < 200 || res.status >= 300) {
      const err = this.refusalError(res, json, scopes);
      if (!(scopeRetry && err.code === "invalid_scope")) {
        logger.error({ err, durationMs: this.now() - started }, "token request refused");
      }
      throw err;
    }
    return this.keepToken(tokenResponseOf(res.status, json), scopes, started);
  }

  /** POSTs the form `body` to the token endpoint; transport failures re-labelled as token-service ones. */
  private async postToken(body: string): Promise<TokenHttpResponse> {
    const { authUrl, dispatcher, timeouts } = this.opts;
    try {
      return await sendRaw(
        dispatcher,
        {
          url: `${authUrl}${TOKEN_PATH}`,
          method: "POST",
          path: TOKEN_PATH,
          headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
          body,
        },
        timeouts,
      );
    } catch (err) {
      // Re-label transport failures as token-service failures, keeping the phase.
      const e = err as PlatformError;
      throw new PlatformError({
        kind: e.kind === "timeout" ? "timeout" : "token",
        status: 0,
        code: e.kind === "timeout" ? "TOKEN_TIMEOUT" : "TOKEN_SERVICE_UNREACHABLE",
        message: `Could not get an access token: ${e.message}`,
        phase: e.phase,
        method: "POST",
        path: TOKEN_PATH,
        cause: err,
      });
    }
  }

  /** The error for a non-2xx token answer: its OAuth code, a readable cause and any Retry-After. */
  private refusalError(res: TokenHttpResponse, json: JsonResult, scopes: string[]): PlatformError {
    const oauth = json.ok ? OAuthErrorSchema.safeParse(json.value) : undefined;
    const code = oauth?.success ? oauth.data.error : `HTTP_${res.status}`;
    const envelope = json.ok ? ErrorEnvelopeSchema.safeParse(json.value) : undefined;
    const detailRetry = envelope?.success ? envelope.data.error.details?.retry_after_seconds : undefined;
    const retryAfterSeconds =
      parseRetryAfter(header(res.headers, "retry-after"), this.now()) ??
      (typeof detailRetry === "number" && Number.isFinite(detailRetry) && detailRetry >= 0
        ? detailRetry
        : undefined);
    const what =
      code === "invalid_client"
        ? "the client credentials were refused (check PLATFORM_CLIENT_ID and PLATFORM_CLIENT_SECRET)"
        : code === "invalid_scope"
          ? `the scopes were refused (check PLATFORM_SCOPES: ${scopes.join(" ")})`
          : res.status === 429
            ? "the token service is rate limiting the bot (429)"
            : res.status >= 500
              ? `the token service is unavailable (${res.status})`
              : `the token service answered ${res.status}`;
    return new PlatformError({
      kind: "token",
      status: res.status,
      code,
      message: `Could not get an access token: ${what}${oauth?.success && oauth.data.error_description ? ` (${oauth.data.error_description})` : ""}`,
      retryAfterSeconds,
      method: "POST",
      path: TOKEN_PATH,
    });
  }

  /** Caches a token just obtained (refreshed `refreshMarginMs` early) and says what scopes it has. */
  private keepToken(data: TokenResponse, scopes: string[], started: number): CachedToken {
    const { logger } = this.opts;
    const lifetimeMs = data.expires_in * 1000;
    const margin = Math.min(this.opts.refreshMarginMs ?? 60_000, lifetimeMs * 0.1);
    const granted = data.scope ? data.scope.split(/\s+/).filter(Boolean) : [...scopes];
    const token: CachedToken = {
      accessToken: data.access_token,
      expiresAt: started + lifetimeMs - margin,
      grantedScopes: granted,
    };
    this.current = token;
    this.lastGranted = granted;
    this.stats.issued++;
    this.sayWithheld();
    const requested = [...scopes].sort().join(" ");
    if ([...granted].sort().join(" ") !== requested) {
      logger.info({ requested: scopes, granted }, "token granted with a different scope than requested");
    }
    logger.debug({ expiresInS: data.expires_in, durationMs: this.now() - started }, "access token obtained");
    return token;
  }

  /** Once per scope and process: what the bot does without an optional scope, and how to grant it. */
  private sayWithheld(): void {
    for (const { scope, reason } of this.withheld()) {
      if (this.said.has(scope)) continue;
      this.said.add(scope);
      const why =
        reason === "refused"
          ? "the token service refused it, so the token was asked for again without it"
          : reason === "not_granted"
            ? "the token was granted without it"
            : "PLATFORM_SCOPES does not ask for it";
      this.opts.logger.warn(
        { scope, reason },
        `working without ${scope} (${why}): ${scope === "video.read" ? "videos are named by their id instead of their title" : "what needs it is skipped"}; to change that, ${grantAdvice(scope, reason)}`,
      );
    }
  }
}

type TokenHttpResponse = Awaited<ReturnType<typeof sendRaw>>;
type JsonResult = ReturnType<typeof tryJson>;

/** The 2xx token answer's body, checked against the spec; INVALID_TOKEN_RESPONSE when it is not. */
function tokenResponseOf(status: number, json: JsonResult): TokenResponse {
  const parsed = json.ok ? TokenResponseSchema.safeParse(json.value) : undefined;
  if (!parsed?.success) {
    throw new PlatformError({
      kind: "token",
      status,
      code: "INVALID_TOKEN_RESPONSE",
      message: `Could not get an access token: the token service's answer is not valid (${
        parsed ? describeIssue(parsed.error) : "not JSON"
      })`,
      method: "POST",
      path: TOKEN_PATH,
    });
  }
  return parsed.data;
}
