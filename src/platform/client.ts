/**
 * The platform API v2 client: the operations the bot uses, with the spec's webhook rules
 * (section 4.2 rules 1-5, state table 3.3) enforced before a request is sent.
 *
 * The PATCH response body is not shown in the spec, so every write is confirmed by reading the
 * webhook back (`GET /profiles/{id}?fields=webhook`); the read-back is what callers get. If the
 * read-back does not show the change yet, it is re-read twice more, 250 ms apart (the platform's
 * consistency is not shown either), then reported as `not_confirmed`.
 * More: README.md ("client.ts").
 */

import type { Dispatcher } from "undici";
import { hasEvents, hasUrl, type WebhookConfig, webhookState } from "../domain/index.js";
import { type Logger, originOnly } from "../log.js";
import { ApiTransport, type RequestObservation } from "./api.js";
import { OPTIONAL_SCOPES, TokenProvider, type WithheldScope } from "./auth.js";
import { isPlatformError, PlatformError } from "./errors.js";
import { validateLivestreamFields } from "./fields.js";
import { createPlatformAgent, type TransportTimeouts } from "./http.js";
import { checkId } from "./ids.js";
import type { Me, Video } from "./read-schemas.js";
import { readMe, readProfile, readVideo } from "./reads.js";
import { type Livestream, LivestreamSchema, type Profile, ProfileWebhookResponseSchema } from "./schemas.js";
import { checkCallbackUrl, checkEvents, invalid, sameEvents, sameUrl } from "./webhook-rules.js";

export interface PlatformClientOptions {
  apiUrl: string;
  authUrl: string;
  clientId: string;
  clientSecret: string;
  scopes: readonly string[];
  /** Connect, headers and body-idle timeouts, and optionally `totalMs` per attempt (see http.ts). */
  timeouts: TransportTimeouts;
  maxRetryAfterMs?: number;
  maxAttempts?: number;
  logger: Logger;
  /** Shared connection pool; by default one undici Agent owned (and closed) by this client. */
  dispatcher?: Dispatcher;
  /** Connections of the default pool (ignored with `dispatcher`); default 256. */
  maxConnections?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  onRequest?: (opts: RequestObservation) => void;
  /** Pause between read-backs that do not show a write yet (default 250 ms). */
  confirmDelayMs?: number;
  /** Scopes the bot can do without (default `video.read`): see TokenProvider. */
  optionalScopes?: readonly string[];
}

export interface RequestOptions {
  signal?: AbortSignal;
  /** Attempts for a GET, the first included (default: the client's `maxAttempts`). */
  attempts?: number;
}

/** Connection failures: the request never left, so the platform cannot have applied it. */
const NOT_SENT = new Set(["ECONNREFUSED", "ENOTFOUND", "EAI_AGAIN", "EHOSTUNREACH", "ENETUNREACH"]);

export class PlatformClient {
  readonly tokens: TokenProvider;
  private readonly api: ApiTransport;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly confirmDelayMs: number;
  private readonly logger: Logger;

  constructor(opts: PlatformClientOptions) {
    this.ownsDispatcher = opts.dispatcher === undefined;
    this.dispatcher = opts.dispatcher ?? createPlatformAgent(opts.timeouts, opts.maxConnections);
    this.sleep = opts.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.confirmDelayMs = opts.confirmDelayMs ?? 250;
    this.logger = opts.logger;
    this.tokens = new TokenProvider({
      authUrl: opts.authUrl,
      clientId: opts.clientId,
      clientSecret: opts.clientSecret,
      scopes: opts.scopes,
      dispatcher: this.dispatcher,
      timeouts: opts.timeouts,
      logger: opts.logger,
      now: opts.now,
      sleep: opts.sleep,
      optionalScopes: opts.optionalScopes ?? OPTIONAL_SCOPES,
    });
    this.api = new ApiTransport({
      apiUrl: opts.apiUrl,
      tokens: this.tokens,
      dispatcher: this.dispatcher,
      timeouts: opts.timeouts,
      logger: opts.logger,
      maxAttempts: opts.maxAttempts,
      maxRetryAfterMs: opts.maxRetryAfterMs,
      now: opts.now,
      sleep: opts.sleep,
      random: opts.random,
      onRequest: opts.onRequest,
    });
  }

  /**
   * `GET /livestreams/{id}`. Pass `fields` to get a sparse livestream (recommended: which fields
   * come back without it is not shown in the spec).
   */
  async getLivestream(
    id: string,
    fields?: readonly string[],
    opts: RequestOptions = {},
  ): Promise<Livestream> {
    const path = `/livestreams/${checkId("livestream", id)}`;
    const query = fields ? { fields: validateLivestreamFields(fields).join(",") } : undefined;
    const ls = await this.api.call("GET", path, {
      operation: "getLivestream",
      query,
      schema: LivestreamSchema,
      resource: "livestream",
      signal: opts.signal,
    });
    return ls ?? {};
  }

  /**
   * `GET /videos/{id}?fields=…` (the platform's "Get a video", scope `video.read`). Each field is
   * kept when it has the expected type and left out otherwise: a `title` that is not a string
   * reads as absent.
   */
  getVideo(id: string, fields?: readonly string[], opts: RequestOptions = {}): Promise<Video> {
    return readVideo(this.api, id, fields, opts);
  }

  /** `GET /me`: the profiles the key manages (entries without a usable id are left out). */
  getMe(opts: RequestOptions = {}): Promise<Me> {
    return readMe(this.api, this.logger, opts);
  }

  /** `GET /profiles/{id}?fields=…`, e.g. `["name", "display_name"]`. */
  getProfile(id: string, fields?: readonly string[], opts: RequestOptions = {}): Promise<Profile> {
    return readProfile(this.api, id, fields, opts);
  }

  /**
   * Whether the service token carries `scope` (a bundle is taken to cover it): obtains the token
   * first (from cache when valid), so it answers for the token the next request uses. Rejects
   * like `checkToken` when no token can be had.
   */
  async can(scope: string): Promise<boolean> {
    await this.tokens.getToken();
    return this.tokens.has(scope);
  }

  /** The scopes granted to the last token ([] before the first one). */
  grantedScopes(): string[] {
    return this.tokens.grantedScopes;
  }

  /** The optional scopes the bot works without, and why (for the App Home and the log). */
  withheldScopes(): WithheldScope[] {
    return this.tokens.withheld();
  }

  /**
   * `GET /profiles/{id}?fields=webhook`: the webhook, both values null when there is none. The
   * answer must hold the `webhook` object (spec 4.3), otherwise it is an `invalid_response` naming
   * `profile.webhook`: "no webhook" must never be guessed from a missing key. Inside the object a
   * missing key reads as null (lenient: both may be null anyway).
   */
  async getProfileWebhook(profileId: string, opts: RequestOptions = {}): Promise<WebhookConfig> {
    const path = `/profiles/${checkId("profile", profileId)}`;
    const profile = await this.api.call("GET", path, {
      operation: "getProfileWebhook",
      query: { fields: "webhook" },
      schema: ProfileWebhookResponseSchema,
      resource: "profile",
      signal: opts.signal,
    });
    if (profile === undefined) {
      // Only a `schema: null` call answers undefined; kept as a guard, not expected.
      throw new PlatformError({
        kind: "invalid_response",
        status: 200,
        code: "INVALID_RESPONSE",
        message: "The platform's answer for the profile has no webhook object (profile.webhook)",
        details: { field: "profile.webhook" },
        method: "GET",
        path,
      });
    }
    const w = profile.webhook;
    return { callback_url: w.callback_url ?? null, events: w.events ?? null };
  }

  /** Creates or replaces the whole webhook (rules 1-3): both values required. */
  async setWebhook(
    profileId: string,
    webhook: { callback_url: string; events: readonly string[] },
    opts: RequestOptions = {},
  ): Promise<WebhookConfig> {
    if (webhook.callback_url == null || webhook.events == null) {
      throw invalid("MISSING_REQUIRED_VALUE", "A new webhook needs both a callback URL and events", {
        field: webhook.callback_url == null ? "webhook.callback_url" : "webhook.events",
      });
    }
    const callback_url = checkCallbackUrl(webhook.callback_url);
    const events = checkEvents(webhook.events);
    return this.write(
      profileId,
      { callback_url, events },
      "setWebhook",
      (w) => sameUrl(w.callback_url, callback_url) && sameEvents(w.events, events),
      opts,
    );
  }

  /** Changes only `events` (table 3.3 / rule 4: the callback URL must already be there). */
  async updateWebhookEvents(profileId: string, events: readonly string[], opts: RequestOptions = {}) {
    const checked = checkEvents(events);
    await this.requireOther(profileId, "events", opts);
    return this.write(
      profileId,
      { events: checked },
      "updateWebhookEvents",
      (w) => sameEvents(w.events, checked),
      opts,
    );
  }

  /** Changes only `callback_url` (table 3.3 / rule 4: the events must already be there). */
  async updateWebhookUrl(profileId: string, callbackUrl: string, opts: RequestOptions = {}) {
    const url = checkCallbackUrl(callbackUrl);
    await this.requireOther(profileId, "callback_url", opts);
    return this.write(
      profileId,
      { callback_url: url },
      "updateWebhookUrl",
      (w) => sameUrl(w.callback_url, url),
      opts,
    );
  }

  /**
   * Removes the webhook (rule 5: both null). Removing a webhook that does not exist is not in the
   * state table; it is answered without a PATCH (the outcome, no webhook, already holds).
   */
  async removeWebhook(profileId: string, opts: RequestOptions = {}): Promise<WebhookConfig> {
    const current = await this.getProfileWebhook(profileId, opts);
    if (webhookState(current) === "none") return current;
    return this.write(
      profileId,
      { callback_url: null, events: null },
      "removeWebhook",
      (w) => webhookState(w) === "none",
      opts,
    );
  }

  /** Obtains a token (from cache if valid): the health check of the platform connection. */
  async checkToken(): Promise<void> {
    await this.tokens.getToken();
  }

  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  /**
   * Table 3.3, row 2: changing one value alone needs the other one already present. The state as
   * a whole may be "partial" (one value missing); only the value that is not sent matters.
   */
  private async requireOther(profileId: string, changing: "events" | "callback_url", opts: RequestOptions) {
    const current = await this.getProfileWebhook(profileId, opts);
    const otherPresent = changing === "events" ? hasUrl(current) : hasEvents(current);
    if (!otherPresent) {
      const other = changing === "events" ? "callback URL" : "events";
      throw invalid(
        "MISSING_REQUIRED_VALUE",
        `Profile ${profileId}'s webhook has no ${other}, so its ${changing === "events" ? "events" : "callback URL"} cannot be changed alone; set the callback URL and events together first`,
        {
          field: changing === "events" ? "webhook.callback_url" : "webhook.events",
          state: webhookState(current),
        },
      );
    }
    return current;
  }

  /** PATCH, then confirm by reading back (also after a PATCH that timed out or lost its connection). */
  private async write(
    profileId: string,
    webhook: { callback_url?: string | null; events?: readonly string[] | null },
    operation: string,
    holds: (w: WebhookConfig) => boolean,
    opts: RequestOptions,
  ): Promise<WebhookConfig> {
    const path = `/profiles/${checkId("profile", profileId)}`;
    // A callback URL may carry a secret in its path or query: its origin only, never the URL.
    this.logger.debug(
      {
        profileId,
        operation,
        callbackOrigin: webhook.callback_url === undefined ? undefined : originOnly(webhook.callback_url),
        events: webhook.events,
      },
      "webhook change",
    );
    let patchError: PlatformError | undefined;
    try {
      // The response body is not shown: whatever comes back (200 with a body, 200 empty, 204) is
      // accepted and ignored; the read-back is the truth.
      await this.api.call("PATCH", path, { operation, body: { webhook }, schema: null, signal: opts.signal });
    } catch (err) {
      // No clean answer (timeout, network): the PATCH may have been applied. A clean HTTP answer,
      // a refusal of ours, a cancellation by the caller, or a failure before the request left (no
      // connection: refused, unknown host, connect timeout) is reported as it is.
      const unknownOutcome =
        isPlatformError(err) &&
        (err.kind === "timeout"
          ? err.code !== "ABORTED" && err.phase !== "connect"
          : err.kind === "network" && !NOT_SENT.has(err.code));
      if (!unknownOutcome) throw err;
      patchError = err;
      this.logger.warn({ err, profileId, operation }, "webhook PATCH got no answer; reading back");
    }
    return this.confirm(profileId, holds, opts, patchError);
  }

  private async confirm(
    profileId: string,
    holds: (w: WebhookConfig) => boolean,
    opts: RequestOptions,
    patchError: PlatformError | undefined,
  ): Promise<WebhookConfig> {
    let last: WebhookConfig | undefined;
    let readError: unknown;
    for (let i = 0; i < 3; i++) {
      if (i > 0) await this.sleep(this.confirmDelayMs);
      try {
        last = await this.getProfileWebhook(profileId, opts);
      } catch (err) {
        readError = err;
        break;
      }
      if (holds(last)) {
        if (patchError) {
          this.logger.info({ profileId }, "webhook PATCH got no answer, but the read-back shows the change");
        }
        return last;
      }
    }
    this.logger.warn(
      {
        profileId,
        readBack: last && { callback_origin: originOnly(last.callback_url), events: last.events },
        patchError,
        readError,
      },
      "webhook change not visible when read back",
    );
    const message = patchError
      ? `The change to profile ${profileId}'s webhook may or may not have been applied: the platform did not answer the write (${patchError.message}) and ${readError === undefined ? "reading the webhook back does not show the change" : "reading the webhook back failed"}`
      : readError === undefined
        ? `The platform accepted the change, but reading profile ${profileId}'s webhook back does not show it`
        : `The platform accepted the change, but reading profile ${profileId}'s webhook back failed, so it is not confirmed`;
    throw new PlatformError({
      kind: "not_confirmed",
      code: "WRITE_NOT_CONFIRMED",
      message,
      details: {
        read_back: last ?? null,
        ...(patchError ? { write_error: patchError.code } : {}),
        ...(isPlatformError(readError) ? { read_error: readError.code } : {}),
      },
      cause: patchError ?? readError,
    });
  }
}

export { checkCallbackUrl, checkEvents } from "./webhook-rules.js";
