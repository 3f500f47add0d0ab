/**
 * The platform's delivery route, `POST /hooks/platform/<token>`.
 * More: README.md ("receive.ts").
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { CustomRoute } from "@slack/bolt";
import { DELIVERY_ROUTE } from "../http/paths.js";
import type { Logger } from "../log.js";
import { outboxItemOf } from "../notify/item.js";
import type { Outbox } from "../outbox/index.js";
import { parseDelivery } from "../platform/index.js";
import { type Callback, type CallbackRepo, StoreUnavailableError } from "../store/index.js";
import { MAX_DEPTH, type RefusalReason, timestampProblem, tooDeep, valueProblem } from "./body-limits.js";
import { allowList, clientAddress } from "./source.js";

export const MAX_DELIVERY_BYTES = 64 * 1024;

export interface ReceiveOptions {
  callbacks: CallbackRepo;
  outbox: Outbox;
  logger: Logger;
  allowedIps: readonly string[];
  trustProxy: boolean;
  now?: () => number;
  /** Observes each answer of the HTTP route (metrics). */
  onResult?: (r: IngestResult) => void;
  /** Called once each delivery is answered, over HTTP or by ingest() (wakes the worker). */
  onDelivered?: () => void;
}

export interface IngestResult {
  status: 200 | 400 | 403 | 404 | 413 | 429 | 503;
  body: Record<string, unknown>;
  /**
   * Why a delivery was refused: a 400 of src/deliveries/body-limits.ts, 429 "over_quota", or 400
   * "incomplete_body" (the sender closed the connection, or was closed by the time limits, before
   * its body ended: nobody is left to read the answer).
   */
  reason?: RefusalReason | "over_quota" | "incomplete_body";
}

/** The sender went away before its body ended (closed, reset, or cut by the server's time limits). */
class SenderGoneError extends Error {
  constructor(cause?: unknown) {
    super("the request was closed before its body ended", cause === undefined ? undefined : { cause });
    this.name = "SenderGoneError";
  }
}

const result = (status: IngestResult["status"], body: Record<string, unknown>): IngestResult => ({
  status,
  body,
});

const refused = (status: 400 | 429, reason: IngestResult["reason"], error: string): IngestResult => ({
  status,
  body: { error },
  reason,
});

/** A body the sender stopped sending: counted, never answered (the connection is gone). */
const INCOMPLETE: IngestResult = {
  status: 400,
  body: { error: "the request ended before its body did" },
  reason: "incomplete_body",
};

/** Seconds a profile over its quota is told to wait (the worker drains a profile far faster). */
export const OVER_QUOTA_RETRY_AFTER_S = 30;

/** Body reading state, kept on the request so the listeners are shared functions, not closures. */
const READING = Symbol("reading");

interface Reading {
  chunks: Buffer[];
  size: number;
  limit: number;
  resolve: (body: Buffer | null) => void;
  reject: (err: Error) => void;
}

type ReadingRequest = IncomingMessage & { [READING]?: Reading };

function stopReading(req: ReadingRequest): Reading | undefined {
  const r = req[READING];
  if (!r) return undefined;
  req[READING] = undefined;
  req.off("data", onBodyData);
  req.off("end", onBodyEnd);
  req.off("error", onBodyError);
  req.off("close", onBodyClose);
  return r;
}

function onBodyData(this: ReadingRequest, chunk: Buffer): void {
  const r = this[READING];
  if (!r) return;
  r.size += chunk.length;
  if (r.size > r.limit) {
    stopReading(this);
    this.pause();
    r.resolve(null);
    return;
  }
  r.chunks.push(chunk);
}

function onBodyEnd(this: ReadingRequest): void {
  // The whole body is in: nothing more will come, so the listeners can stay (they find no
  // reading and return); removing four listeners costs more than the rest of the read.
  const r = this[READING];
  if (!r) return;
  this[READING] = undefined;
  r.resolve(r.chunks.length === 1 ? (r.chunks[0] as Buffer) : Buffer.concat(r.chunks));
}

function onBodyError(this: ReadingRequest, err: Error): void {
  // An incoming request's stream fails only when its connection does ("aborted", a reset).
  stopReading(this)?.reject(new SenderGoneError(err));
}

function onBodyClose(this: ReadingRequest): void {
  // Closed before the end: the sender is gone.
  stopReading(this)?.reject(new SenderGoneError());
}

/**
 * The first Content-Length header's value, like `req.headers["content-length"]` (which keeps the
 * first one too), from the raw list: Node builds `req.headers` on first use, for every header, and
 * the delivery route needs no other.
 */
function declaredLength(raw: readonly string[]): string | undefined {
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i] as string;
    if (name.length === 14 && name.toLowerCase() === "content-length") return raw[i + 1];
  }
  return undefined;
}

/**
 * Reads at most `limit` bytes; null when the body is larger (reading stops there). Plain stream
 * events with shared listeners rather than `for await`: the async iterator, or closures made per
 * request, cost more than the rest of a small request.
 */
function readLimited(req: IncomingMessage, limit: number): Promise<Buffer | null> {
  const declared = Number(declaredLength(req.rawHeaders));
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve(null);
  return new Promise<Buffer | null>((resolve, reject) => {
    const r: ReadingRequest = req;
    r[READING] = { chunks: [], size: 0, limit, resolve, reject };
    r.on("data", onBodyData);
    r.on("end", onBodyEnd);
    r.on("error", onBodyError);
    r.on("close", onBodyClose);
  });
}

export interface Ingestor {
  /**
   * Validates, routes and stores one delivery body for a callback token (looked up like the HTTP
   * path does), or for a callback already resolved (`/webhook test`: settings keep its callback id,
   * never its token).
   */
  ingest(target: string | Callback, body: Buffer | string): Promise<IngestResult>;
  /**
   * Answers one delivery request for `token` (the path segment after /hooks/platform/); resolves
   * once the answer is written. Used by the front listener (src/deliveries/front.ts).
   */
  handle(req: IncomingMessage, res: ServerResponse, token: string): Promise<void>;
  /** The same as a Bolt custom route (Socket Mode's HTTP server, and odd paths the front defers). */
  route: CustomRoute;
}

/** The two 200 answers, body and headers built once (the headers as a flat list, see write()). */
const ANSWERS = {
  stored: answerOf(JSON.stringify({ status: "stored" })),
  duplicate: answerOf(JSON.stringify({ status: "duplicate" })),
} as const;

function answerOf(body: string): { body: string; headers: readonly string[] } {
  return { body, headers: headersOf(body) };
}

function headersOf(body: string): string[] {
  return ["content-type", "application/json", "content-length", String(Buffer.byteLength(body))];
}

/** Answers `status` with a JSON `body`; `extra`: more headers, as name, value, name, value... */
function write(res: ServerResponse, status: number, body: string, extra?: readonly string[]): void {
  // A length, not chunked encoding, and a string body: the head and body go out in one write. The
  // headers as a flat list, which Node writes as they are (an object is walked and copied).
  const headers = headersOf(body);
  if (extra) headers.push(...extra);
  res.writeHead(status, headers);
  res.end(body);
}

/** Checks one body (depth, JSON, sizes, shape, timestamp) and stores it in the outbox for `callback`. */
async function storeDelivery(
  outbox: Outbox,
  now: () => number,
  callback: Callback,
  body: Buffer | string,
): Promise<IngestResult> {
  const text = typeof body === "string" ? body : body.toString("utf8");
  if (tooDeep(text)) return refused(400, "too_deep", `not a delivery: nested deeper than ${MAX_DEPTH}`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return result(400, { error: "the body is not JSON" });
  }
  const tooBig = valueProblem(json);
  if (tooBig) return refused(400, tooBig.reason, `not a delivery: ${tooBig.error}`);
  const parsed = parseDelivery(json);
  if (!parsed.ok) return result(400, { error: `not a delivery: ${parsed.error}` });
  const d = parsed.value;
  const at = now();
  const late = timestampProblem(d.timestamp, at);
  if (late) return refused(400, late.reason, `not a delivery: ${late.error}`);
  const { item, dedupeKey } = outboxItemOf(callback, d, at);
  const outcome = await outbox.enqueue(item, dedupeKey, at);
  if (outcome === "full") {
    return refused(429, "over_quota", "too many deliveries of this callback are waiting to be processed");
  }
  return result(200, { status: outcome });
}

/**
 * Writes `r` as the HTTP answer: the 200s from ANSWERS when they match, refusals logged with their
 * retry-after; `hangUp` closes the connection once answered (the body was not read).
 */
function sendResult(
  req: IncomingMessage,
  res: ServerResponse,
  r: IngestResult,
  hangUp: boolean,
  log: Logger,
): void {
  if (r.status === 200) {
    const known = r.body.status === "stored" || r.body.status === "duplicate" ? ANSWERS[r.body.status] : null;
    if (known) {
      res.writeHead(200, known.headers as string[]);
      res.end(known.body);
    } else write(res, 200, JSON.stringify(r.body));
    return;
  }
  log.info({ status: r.status, reason: r.body.error }, "delivery refused");
  const headers: string[] = [];
  if (r.status === 503) headers.push("retry-after", "5");
  if (r.status === 429) headers.push("retry-after", String(OVER_QUOTA_RETRY_AFTER_S));
  if (hangUp) headers.push("connection", "close");
  write(res, r.status, JSON.stringify(r.body), headers);
  if (hangUp) res.on("finish", () => req.destroy());
}

/** What a delivery that threw is counted as, logged once: the sender gone, or a 503. */
function failureOf(err: unknown, log: Logger): IngestResult {
  if (err instanceof SenderGoneError) {
    // Not the bot's failure, nor the store's: a 503 here would read as a store outage.
    log.info(
      { reason: err.cause instanceof Error ? err.cause.message : "closed" },
      "delivery abandoned by its sender",
    );
    return INCOMPLETE;
  }
  if (err instanceof StoreUnavailableError)
    log.error({ err }, "delivery not stored: the store is unavailable");
  else log.error({ err }, "delivery failed");
  return result(503, { error: "temporarily unable to store the delivery; try again" });
}

export function createIngestor(opts: ReceiveOptions): Ingestor {
  const allowed = allowList(opts.allowedIps);
  const now = opts.now ?? Date.now;
  const log = opts.logger.child({ component: "webhooks" });

  async function ingest(target: string | Callback, body: Buffer | string): Promise<IngestResult> {
    // One async frame for both (no extra call on the hot path): a token is looked up (CallbackRepo
    // answers a malformed one undefined without asking the store), a callback is used as is.
    const callback = typeof target !== "string" ? target : await opts.callbacks.get(target);
    const r = callback ? await store(callback, body) : result(404, { error: "unknown delivery token" });
    opts.onDelivered?.();
    return r;
  }

  /** Checks and stores one body for a known callback. */
  function store(callback: Callback, body: Buffer | string): Promise<IngestResult> {
    return storeDelivery(opts.outbox, now, callback, body);
  }

  async function handle(req: IncomingMessage, res: ServerResponse, token: string): Promise<void> {
    await answer(req, res, token);
    opts.onDelivered?.();
  }

  async function answer(req: IncomingMessage, res: ServerResponse, token: string): Promise<void> {
    let r: IngestResult;
    // Answered before the body was read (or while it still comes): close the connection after.
    let hangUp = true;
    try {
      if (allowed && !allowed(clientAddress(req, opts.trustProxy))) {
        r = result(403, { error: "source address not allowed" });
      } else {
        const callback = await opts.callbacks.get(token);
        if (!callback) {
          r = result(404, { error: "unknown delivery token" });
        } else {
          const body = await readLimited(req, MAX_DELIVERY_BYTES);
          if (body === null) {
            r = result(413, { error: `the body is larger than ${MAX_DELIVERY_BYTES} bytes` });
          } else {
            hangUp = false;
            r = await store(callback, body);
          }
        }
      }
    } catch (err) {
      r = failureOf(err, log);
    }
    opts.onResult?.(r);
    // The sender is gone: nobody to answer.
    if (r === INCOMPLETE) req.destroy();
    else sendResult(req, res, r, hangUp, log);
  }

  return {
    ingest,
    handle,
    route: {
      path: DELIVERY_ROUTE,
      method: ["POST"],
      handler: (req, res) =>
        void handle(
          req,
          res,
          (req as IncomingMessage & { params?: Record<string, string> }).params?.token ?? "",
        ),
    },
  };
}
