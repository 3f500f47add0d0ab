/**
 * The platform API v2 client: the operations the bot uses, with the spec's webhook rules
 * (section 4.2 rules 1-5, state table 3.3) enforced before any request is sent.
 *
 * The PATCH response body is not shown in the spec, so every write is confirmed by reading the
 * webhook back (`GET /profiles/{id}?fields=webhook`); the read-back is what callers get. If the
 * read-back does not show the change yet, it is re-read twice more, 250 ms apart (the platform's
 * consistency is not shown either), then reported as `not_confirmed`.
 */
import type { Dispatcher } from "undici";
import type { PlatformTimeouts } from "../config.js";
import type { Logger } from "../log.js";
import { ApiTransport, type RequestObservation } from "./api.js";
import { TokenProvider } from "./auth.js";
import { PlatformError } from "./errors.js";
import { validateLivestreamFields } from "./fields.js";
import { createPlatformAgent } from "./http.js";
import {
  isWebhookEvent,
  type Livestream,
  LivestreamSchema,
  ProfileSchema,
  WEBHOOK_EVENTS,
  type WebhookEvent,
} from "./schemas.js";

export interface WebhookConfig {
  callback_url: string | null;
  events: string[] | null;
}

export type WebhookState = "none" | "configured" | "partial";

/** State of spec table 3.3. "partial" should not exist, but a robust client names it. */
export function webhookState(w: WebhookConfig): WebhookState {
  const hasUrl = w.callback_url !== null && w.callback_url !== "";
  const hasEvents = w.events !== null && w.events.length > 0;
  if (hasUrl && hasEvents) return "configured";
  if (!hasUrl && !hasEvents) return "none";
  return "partial";
}

export interface PlatformClientOptions {
  apiUrl: string;
  authUrl: string;
  clientId: string;
  clientSecret: string;
  scopes: readonly string[];
  timeouts: PlatformTimeouts;
  maxRetryAfterMs?: number;
  maxAttempts?: number;
  logger: Logger;
  /** Shared connection pool; by default one undici Agent owned (and closed) by this client. */
  dispatcher?: Dispatcher;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  onRequest?: (o: RequestObservation) => void;
  /** Pause between read-backs that do not show a write yet (default 250 ms). */
  confirmDelayMs?: number;
}

export interface RequestOptions {
  signal?: AbortSignal;
}

function invalid(code: string, message: string, details: Record<string, unknown>): PlatformError {
  return new PlatformError({ kind: "invalid_request", code, message, details });
}

/** Rule 1: an absolute HTTPS URL. */
export function checkCallbackUrl(url: string): string {
  let u: URL | undefined;
  try {
    u = new URL(url);
  } catch {
    u = undefined;
  }
  if (u?.protocol !== "https:" || u.hostname === "" || /\s/.test(url)) {
    throw invalid(
      "INVALID_FORMAT",
      u && u.protocol === "http:"
        ? "The callback URL must use HTTPS; the platform rejects HTTP"
        : "The callback URL must be an absolute https:// URL",
      { field: "webhook.callback_url", provided: url, requirement: "https" },
    );
  }
  return url;
}

/** Rule 2: at least one event, every one of the enumeration. Duplicates are dropped, order kept. */
export function checkEvents(events: readonly string[]): WebhookEvent[] {
  const unknown = events.filter((e) => !isWebhookEvent(e));
  if (unknown.length > 0) {
    throw invalid(
      "INVALID_ENUM_VALUE",
      `Unknown webhook event${unknown.length > 1 ? "s" : ""}: ${unknown.join(", ")}`,
      { field: "webhook.events", invalid_values: unknown, allowed_values: [...WEBHOOK_EVENTS] },
    );
  }
  const unique = [...new Set(events)] as WebhookEvent[];
  if (unique.length === 0) {
    throw invalid("MISSING_REQUIRED_VALUE", "Choose at least one webhook event", {
      field: "webhook.events",
      allowed_values: [...WEBHOOK_EVENTS],
    });
  }
  return unique;
}

function checkId(kind: "livestream" | "profile", id: string): string {
  const t = id.trim();
  if (t === "" || t.length > 128 || /[/?#\s]/.test(t)) {
    throw invalid("INVALID_FORMAT", `"${id}" is not a valid ${kind} id`, {
      param: kind === "livestream" ? "id" : "profile_id",
      provided: id,
    });
  }
  return encodeURIComponent(t);
}

function sameEvents(a: readonly string[] | null, b: readonly string[] | null): boolean {
  if (a === null || b === null) return a === b;
  const sa = new Set(a);
  const sb = new Set(b);
  return sa.size === sb.size && [...sa].every((x) => sb.has(x));
}

export class PlatformClient {
  readonly tokens: TokenProvider;
  private readonly api: ApiTransport;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly confirmDelayMs: number;
  private readonly logger: Logger;

  constructor(o: PlatformClientOptions) {
    this.ownsDispatcher = o.dispatcher === undefined;
    this.dispatcher = o.dispatcher ?? createPlatformAgent(o.timeouts);
    this.sleep = o.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.confirmDelayMs = o.confirmDelayMs ?? 250;
    this.logger = o.logger;
    this.tokens = new TokenProvider({
      authUrl: o.authUrl,
      clientId: o.clientId,
      clientSecret: o.clientSecret,
      scopes: o.scopes,
      dispatcher: this.dispatcher,
      timeouts: o.timeouts,
      logger: o.logger,
      now: o.now,
      sleep: o.sleep,
    });
    this.api = new ApiTransport({
      apiUrl: o.apiUrl,
      tokens: this.tokens,
      dispatcher: this.dispatcher,
      timeouts: o.timeouts,
      logger: o.logger,
      maxAttempts: o.maxAttempts,
      maxRetryAfterMs: o.maxRetryAfterMs,
      now: o.now,
      sleep: o.sleep,
      random: o.random,
      onRequest: o.onRequest,
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

  /** `GET /profiles/{id}?fields=webhook`: the webhook, both values null when there is none. */
  async getProfileWebhook(profileId: string, opts: RequestOptions = {}): Promise<WebhookConfig> {
    const path = `/profiles/${checkId("profile", profileId)}`;
    const profile = await this.api.call("GET", path, {
      operation: "getProfileWebhook",
      query: { fields: "webhook" },
      schema: ProfileSchema,
      resource: "profile",
      signal: opts.signal,
    });
    const w = profile?.webhook;
    return { callback_url: w?.callback_url ?? null, events: w?.events ?? null };
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
    await this.patchWebhook(profileId, { callback_url, events }, "setWebhook", opts);
    return this.confirm(
      profileId,
      (w) => w.callback_url === callback_url && sameEvents(w.events, events),
      opts,
    );
  }

  /** Changes only `events` (rule 4: a complete webhook must exist). */
  async updateWebhookEvents(profileId: string, events: readonly string[], opts: RequestOptions = {}) {
    const checked = checkEvents(events);
    await this.requireConfigured(profileId, "events", opts);
    await this.patchWebhook(profileId, { events: checked }, "updateWebhookEvents", opts);
    return this.confirm(profileId, (w) => sameEvents(w.events, checked), opts);
  }

  /** Changes only `callback_url` (rule 4: a complete webhook must exist). */
  async updateWebhookUrl(profileId: string, callbackUrl: string, opts: RequestOptions = {}) {
    const url = checkCallbackUrl(callbackUrl);
    await this.requireConfigured(profileId, "callback_url", opts);
    await this.patchWebhook(profileId, { callback_url: url }, "updateWebhookUrl", opts);
    return this.confirm(profileId, (w) => w.callback_url === url, opts);
  }

  /**
   * Removes the webhook (rule 5: both null). Removing a webhook that does not exist is not in the
   * state table; it is answered without a PATCH (the outcome, no webhook, already holds).
   */
  async removeWebhook(profileId: string, opts: RequestOptions = {}): Promise<WebhookConfig> {
    const current = await this.getProfileWebhook(profileId, opts);
    if (webhookState(current) === "none") return current;
    await this.patchWebhook(profileId, { callback_url: null, events: null }, "removeWebhook", opts);
    return this.confirm(profileId, (w) => webhookState(w) === "none", opts);
  }

  /** Obtains a token (from cache if valid): the health check of the platform connection. */
  async checkToken(): Promise<void> {
    await this.tokens.getToken();
  }

  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  private async requireConfigured(profileId: string, what: string, opts: RequestOptions) {
    const current = await this.getProfileWebhook(profileId, opts);
    if (webhookState(current) !== "configured") {
      throw invalid(
        "MISSING_REQUIRED_VALUE",
        `Profile ${profileId} has no complete webhook, so ${what} cannot be changed alone; set the callback URL and events together first`,
        {
          field: what === "events" ? "webhook.callback_url" : "webhook.events",
          state: webhookState(current),
        },
      );
    }
    return current;
  }

  private async patchWebhook(
    profileId: string,
    webhook: { callback_url?: string | null; events?: readonly string[] | null },
    operation: string,
    opts: RequestOptions,
  ): Promise<void> {
    const path = `/profiles/${checkId("profile", profileId)}`;
    // The response body is not shown: whatever comes back (200 with a body, 200 empty, 204) is
    // accepted and ignored; the read-back is the truth.
    await this.api.call("PATCH", path, { operation, body: { webhook }, schema: null, signal: opts.signal });
  }

  private async confirm(
    profileId: string,
    holds: (w: WebhookConfig) => boolean,
    opts: RequestOptions,
  ): Promise<WebhookConfig> {
    let last: WebhookConfig | undefined;
    for (let i = 0; i < 3; i++) {
      if (i > 0) await this.sleep(this.confirmDelayMs);
      last = await this.getProfileWebhook(profileId, opts);
      if (holds(last)) return last;
    }
    this.logger.warn({ profileId, readBack: last }, "webhook change not visible when read back");
    throw new PlatformError({
      kind: "not_confirmed",
      code: "WRITE_NOT_CONFIRMED",
      message: `The platform accepted the change, but reading profile ${profileId}'s webhook back does not show it`,
      details: { read_back: last ?? null },
    });
  }
}
