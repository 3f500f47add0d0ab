/**
 * The one place that performs HTTP requests to the platform (API and token service), on undici.
 * It turns transport failures into `PlatformError`s (timeout with its phase, network) and reads
 * bodies with a size cap, so a misbehaving server can neither hang nor flood the bot.
 *
 * Every timer runs from the moment a request is sent on a connection, never while it waits in the
 * bot's own queue for a free connection: waiting for our own pool is not a platform failure, so it
 * is neither timed out nor retried as one (a retry would only go to the back of the same queue).
 */
import { Agent, Dispatcher, request } from "undici";
import type { PlatformTimeouts } from "../config.js";
import { PlatformError } from "./errors.js";

/** Largest response body the client reads; the biggest resource (a livestream) is a few KiB. */
export const MAX_RESPONSE_BYTES = 1024 * 1024;

export interface RawResponse {
  status: number;
  statusText: string;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export interface RawRequest {
  url: string;
  method: "GET" | "POST" | "PATCH";
  headers: Record<string, string>;
  body?: string;
  /** For error messages and logs: the path without query or credentials. */
  path: string;
  /** The caller's cancellation; an abort is reported as code ABORTED (not transient). */
  signal?: AbortSignal;
}

/**
 * The configured timeouts plus an optional deadline for one whole attempt. undici's headers and
 * body timeouts are idle timers: a server that trickles a byte now and then keeps a call alive
 * forever. `totalMs` bounds the attempt (headers and the whole body) from the moment the request
 * is sent on a connection; by default it is `connectMs + headersMs + bodyMs`, so it never fires
 * before a phase timer would have for an answer that stalls only once. Time spent waiting for a
 * free connection of the pool is not counted (see `sendRaw`).
 */
export interface TransportTimeouts extends PlatformTimeouts {
  totalMs?: number;
}

export function totalDeadlineMs(timeouts: TransportTimeouts): number {
  return timeouts.totalMs ?? timeouts.connectMs + timeouts.headersMs + timeouts.bodyMs;
}

/**
 * Connections to the platform (per origin) by default. Sized for latency, not CPU: each waits
 * for the platform's answer, so with answers taking L seconds the pool serves at most
 * `connections / L` requests per second (256 at 5 s: about 51/s) before requests queue.
 */
export const DEFAULT_MAX_CONNECTIONS = 256;

/** One shared keep-alive connection pool for every platform request of the process. */
export function createPlatformAgent(
  timeouts: PlatformTimeouts,
  maxConnections: number = DEFAULT_MAX_CONNECTIONS,
): Agent {
  return new Agent({
    connect: { timeout: timeouts.connectMs },
    headersTimeout: timeouts.headersMs,
    bodyTimeout: timeouts.bodyMs,
    keepAliveTimeout: 10_000,
    connections: maxConnections,
  });
}

/**
 * Calls `onSent` once, when undici sends the request on a connection (its handler's `onConnect`,
 * or `onRequestStart` for a new-style handler): the moment the request leaves the pool's queue.
 * Everything else is the caller's handler, untouched.
 */
function watchSent(handler: Dispatcher.DispatchHandler, onSent: () => void): Dispatcher.DispatchHandler {
  let sent = false;
  return new Proxy(handler, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== "function") return value;
      if (key === "onConnect" || key === "onRequestStart") {
        return (...args: unknown[]) => {
          if (!sent) {
            sent = true;
            onSent();
          }
          return Reflect.apply(value, target, args);
        };
      }
      return value.bind(target);
    },
  });
}

/** A dispatcher for one request that says when it was sent on a connection. */
class SentWatch extends Dispatcher {
  constructor(
    private readonly inner: Dispatcher,
    private readonly onSent: () => void,
  ) {
    super();
  }

  override dispatch(opts: Dispatcher.DispatchOptions, handler: Dispatcher.DispatchHandler): boolean {
    return this.inner.dispatch(opts, watchSent(handler, this.onSent));
  }
}

const TIMEOUT_CODES: Record<string, "connect" | "headers" | "body"> = {
  UND_ERR_CONNECT_TIMEOUT: "connect",
  UND_ERR_HEADERS_TIMEOUT: "headers",
  UND_ERR_BODY_TIMEOUT: "body",
};

/** The error for a request the caller cancelled (its signal aborted): never retried. */
export function abortedError(req: Pick<RawRequest, "method" | "path">, cause?: unknown): PlatformError {
  const timedOut = cause instanceof Error && cause.name === "TimeoutError";
  return new PlatformError({
    kind: "timeout",
    code: "ABORTED",
    message: timedOut
      ? "The request to the platform was cancelled: the caller's time limit ran out"
      : "The request to the platform was cancelled before it finished",
    method: req.method,
    path: req.path,
    cause,
  });
}

function transportError(
  err: unknown,
  req: RawRequest,
  timeouts: TransportTimeouts,
  deadlineFired: boolean,
): PlatformError {
  // The caller's own cancellation first: whatever undici made of it (AbortError, the signal's
  // reason such as a TimeoutError with numeric code 23, ...), it is an abort, not a platform fault.
  if (req.signal?.aborted) return abortedError(req, req.signal.reason ?? err);
  if (deadlineFired) {
    return new PlatformError({
      kind: "timeout",
      code: "TIMEOUT",
      phase: "total",
      message: `The platform did not finish its answer within ${totalDeadlineMs(timeouts)} ms of the request being sent (the limit for one attempt)`,
      method: req.method,
      path: req.path,
      cause: err,
    });
  }
  const e = (typeof err === "object" && err !== null ? err : {}) as {
    code?: unknown;
    name?: unknown;
    message?: unknown;
    cause?: { code?: unknown };
  };
  // Codes are strings for Node and undici errors, but DOMExceptions carry numeric ones.
  const rawCode = e.code ?? e.cause?.code;
  const code = rawCode === undefined || rawCode === null ? "" : String(rawCode);
  const phase = TIMEOUT_CODES[code];
  if (phase) {
    const ms =
      phase === "connect" ? timeouts.connectMs : phase === "headers" ? timeouts.headersMs : timeouts.bodyMs;
    return new PlatformError({
      kind: "timeout",
      code: "TIMEOUT",
      phase,
      message: `The platform did not ${phase === "connect" ? "accept the connection" : phase === "headers" ? "answer" : "finish its answer"} within ${ms} ms`,
      method: req.method,
      path: req.path,
      cause: err,
    });
  }
  if (e.name === "AbortError" || code === "UND_ERR_ABORTED" || code === "ABORT_ERR") {
    return abortedError(req, err);
  }
  const message = typeof e.message === "string" ? e.message : "";
  return new PlatformError({
    kind: "network",
    code: code || "NETWORK_ERROR",
    message: `Could not reach the platform (${code || message || "connection failed"})`,
    method: req.method,
    path: req.path,
    cause: err,
  });
}

export async function sendRaw(
  dispatcher: Dispatcher,
  req: RawRequest,
  timeouts: TransportTimeouts,
): Promise<RawResponse> {
  if (req.signal?.aborted) throw abortedError(req, req.signal.reason);
  const deadline = new AbortController();
  // The per-attempt deadline starts when the request is sent on a connection, not while it waits
  // for one (undici's headers timer starts there too).
  let timer: NodeJS.Timeout | undefined;
  const startDeadline = () => {
    timer = setTimeout(
      () => deadline.abort(new Error("per-attempt deadline reached")),
      totalDeadlineMs(timeouts),
    );
    timer.unref();
  };
  const signal = req.signal ? AbortSignal.any([req.signal, deadline.signal]) : deadline.signal;
  try {
    let res: Dispatcher.ResponseData;
    try {
      res = await request(req.url, {
        dispatcher: new SentWatch(dispatcher, startDeadline),
        method: req.method,
        headers: req.headers,
        body: req.body,
        signal,
        headersTimeout: timeouts.headersMs,
        bodyTimeout: timeouts.bodyMs,
      });
    } catch (err) {
      throw transportError(err, req, timeouts, deadline.signal.aborted);
    }
    try {
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of res.body) {
        const buf = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
        size += buf.length;
        if (size > MAX_RESPONSE_BYTES) {
          res.body.destroy();
          throw new PlatformError({
            kind: "invalid_response",
            status: res.statusCode,
            code: "RESPONSE_TOO_LARGE",
            message: `The platform's answer is larger than ${MAX_RESPONSE_BYTES} bytes`,
            method: req.method,
            path: req.path,
          });
        }
        chunks.push(buf);
      }
      return {
        status: res.statusCode,
        statusText: "",
        headers: res.headers,
        text: Buffer.concat(chunks).toString("utf8"),
      };
    } catch (err) {
      if (err instanceof PlatformError) throw err;
      throw transportError(err, req, timeouts, deadline.signal.aborted);
    }
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

export function header(headers: RawResponse["headers"], name: string): string | undefined {
  const v = headers[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
}

/** Retry-After as seconds: either delta-seconds or an HTTP date (RFC 9110 10.2.3). */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v);
  const date = Date.parse(v);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

/** JSON.parse that answers undefined instead of throwing. */
export function tryJson(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text.trim() === "") return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}
