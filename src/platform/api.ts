/**
 * Authorized requests to the API with the retry rules of the bot:
 * More: README.md ("api.ts").
 */
import type { Dispatcher } from "undici";
import type { z } from "zod";
import type { Logger } from "../log.js";
import type { TokenProvider } from "./auth.js";
import { errorFromEnvelope, PlatformError } from "./errors.js";
import { abortedError, header, parseRetryAfter, sendRaw, type TransportTimeouts, tryJson } from "./http.js";
import { describeIssue, ErrorEnvelopeSchema } from "./schemas.js";

export interface RequestObservation {
  operation: string;
  method: string;
  status: number;
  durationMs: number;
  attempt: number;
  code?: string;
}

export interface ApiOptions {
  apiUrl: string;
  tokens: TokenProvider;
  dispatcher: Dispatcher;
  timeouts: TransportTimeouts;
  logger: Logger;
  /** Attempts for a GET, the first included (default 3). */
  maxAttempts?: number;
  /** Longest Retry-After honoured, ms (default 10 s); does not limit the backoff. */
  maxRetryAfterMs?: number;
  /** First backoff step, ms (default 200; doubles each attempt, with jitter). */
  baseBackoffMs?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** Called once per HTTP exchange, for metrics. */
  onRequest?: (opts: RequestObservation) => void;
}

export interface CallOptions<T> {
  operation: string;
  query?: Record<string, string>;
  body?: unknown;
  /** Schema of a 2xx body; `null` ignores the body (its shape is not shown). */
  schema: z.ZodType<T> | null;
  /** Label for schema errors, e.g. "livestream". */
  resource?: string;
  signal?: AbortSignal;
  /** Attempts for this GET, the first included (default: the transport's `maxAttempts`). */
  attempts?: number;
}

type RawResponse = Awaited<ReturnType<typeof sendRaw>>;

export class ApiTransport {
  private readonly options: Required<Omit<ApiOptions, "onRequest">> & Pick<ApiOptions, "onRequest">;

  constructor(options: ApiOptions) {
    this.options = {
      maxAttempts: 3,
      maxRetryAfterMs: 10_000,
      baseBackoffMs: 200,
      now: Date.now,
      sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
      random: Math.random,
      ...(Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) as ApiOptions),
    };
  }

  async call<T>(method: "GET" | "PATCH", path: string, opts: CallOptions<T>): Promise<T | undefined> {
    const { tokens, logger, dispatcher, timeouts } = this.options;
    const qs = opts.query && Object.keys(opts.query).length > 0 ? `?${new URLSearchParams(opts.query)}` : "";
    const url = `${this.options.apiUrl}${path}${qs}`;
    const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
    const retryable = method === "GET";
    const maxAttempts = Math.max(1, opts.attempts ?? this.options.maxAttempts);
    let refreshed = false;
    let attempt = 0;

    for (;;) {
      attempt++;
      if (opts.signal?.aborted) throw abortedError({ method, path }, opts.signal.reason);
      const token = await tokens.getToken();
      const started = this.options.now();
      const headers: Record<string, string> = {
        authorization: `Bearer ${token}`,
        accept: "application/json",
      };
      if (body !== undefined) headers["content-type"] = "application/json";

      let res: RawResponse;
      try {
        res = await sendRaw(dispatcher, { url, method, headers, body, path, signal: opts.signal }, timeouts);
      } catch (err) {
        const e = err as PlatformError;
        this.observe(opts.operation, method, 0, started, attempt, e.code);
        // Transient covers timeouts and network errors; not a cancellation (ABORTED) nor an
        // oversized body (invalid_response).
        if (retryable && e.transient && attempt < maxAttempts) {
          await this.waitAfterTransportError(e, opts.operation, attempt);
          continue;
        }
        throw e;
      }

      if (res.status === 401 && !refreshed) {
        this.observe(opts.operation, method, 401, started, attempt, "UNAUTHORIZED");
        tokens.invalidate(token);
        refreshed = true;
        attempt--; // the refresh retry does not use up a GET attempt
        logger.info(
          { operation: opts.operation },
          "platform answered 401; refreshing the token and retrying once",
        );
        continue;
      }

      if (res.status >= 200 && res.status < 300) {
        return this.succeeded(res, method, path, opts, started, attempt);
      }

      const err = this.refusal(res, method, path);
      this.observe(opts.operation, method, res.status, started, attempt, err.code);
      if (retryable && (res.status === 429 || res.status >= 500) && attempt < maxAttempts) {
        if (await this.waitAfterRefusal(res, err, opts.operation, attempt)) continue;
      }
      logger.warn({ err, operation: opts.operation }, "platform request failed");
      throw err;
    }
  }

  /** Logs a transient transport failure and waits the backoff before the next attempt. */
  private async waitAfterTransportError(e: PlatformError, operation: string, attempt: number): Promise<void> {
    const wait = this.backoff(attempt);
    this.options.logger.warn(
      { err: e, operation, attempt, waitMs: wait },
      "platform request failed; retrying",
    );
    await this.options.sleep(wait);
  }

  /** A 2xx answer: observed and logged, then its body parsed (undefined when `schema` is null). */
  private succeeded<T>(
    res: RawResponse,
    method: string,
    path: string,
    opts: CallOptions<T>,
    started: number,
    attempt: number,
  ): T | undefined {
    this.observe(opts.operation, method, res.status, started, attempt);
    this.options.logger.debug(
      {
        operation: opts.operation,
        method,
        path,
        status: res.status,
        durationMs: this.options.now() - started,
        attempt,
      },
      "platform request",
    );
    if (opts.schema === null) return undefined;
    return this.parse(res.text, opts.schema, method, path, opts.resource ?? "response");
  }

  /** The error for a non-2xx answer, from its error envelope and Retry-After. */
  private refusal(res: RawResponse, method: string, path: string): PlatformError {
    const json = tryJson(res.text);
    const env = json.ok ? ErrorEnvelopeSchema.safeParse(json.value) : undefined;
    const retryAfter = parseRetryAfter(header(res.headers, "retry-after"), this.options.now());
    return errorFromEnvelope(res.status, env?.success ? env.data : undefined, {
      method,
      path,
      retryAfterSeconds: retryAfter,
    });
  }

  /**
   * Before retrying a 429 or 5xx: waits the longer of Retry-After and the backoff, and says true;
   * false (no wait) when the Retry-After asked for is over `maxRetryAfterMs`.
   */
  private async waitAfterRefusal(
    res: RawResponse,
    err: PlatformError,
    operation: string,
    attempt: number,
  ): Promise<boolean> {
    const retryAfterMs = err.retryAfterSeconds === undefined ? undefined : err.retryAfterSeconds * 1000;
    // The cap is for a Retry-After the platform asks for, never for our own backoff.
    if (retryAfterMs !== undefined && retryAfterMs > this.options.maxRetryAfterMs) return false;
    const waitMs = Math.max(retryAfterMs ?? 0, this.backoff(attempt));
    this.options.logger.warn(
      {
        operation,
        status: res.status,
        code: err.code,
        correlation_id: err.correlationId,
        attempt,
        waitMs,
      },
      "platform request failed; retrying",
    );
    await this.options.sleep(waitMs);
    return true;
  }

  private parse<T>(text: string, schema: z.ZodType<T>, method: string, path: string, resource: string): T {
    const json = tryJson(text);
    if (!json.ok) {
      throw new PlatformError({
        kind: "invalid_response",
        status: 200,
        code: "INVALID_RESPONSE",
        message: `The platform's answer for the ${resource} is not JSON`,
        method,
        path,
      });
    }
    const parsed = schema.safeParse(json.value);
    if (!parsed.success) {
      const issue = describeIssue(parsed.error, resource);
      throw new PlatformError({
        kind: "invalid_response",
        status: 200,
        code: "INVALID_RESPONSE",
        message: `The platform's answer does not match the API v2 specification: ${issue}`,
        details: { field: issue.split(":")[0], issue },
        method,
        path,
      });
    }
    return parsed.data;
  }

  private backoff(attempt: number): number {
    const d = this.options.baseBackoffMs * 2 ** (attempt - 1);
    return Math.round(d / 2 + this.options.random() * (d / 2));
  }

  private observe(
    operation: string,
    method: string,
    status: number,
    started: number,
    attempt: number,
    code?: string,
  ) {
    this.options.onRequest?.({
      operation,
      method,
      status,
      durationMs: this.options.now() - started,
      attempt,
      code,
    });
  }
}
