/** Small node:http helpers shared by the sandbox routes. */
import type { IncomingMessage, ServerResponse } from "node:http";
import { ApiError, type Details, envelope } from "./errors.js";

export const MAX_BODY_BYTES = 1024 * 1024;

/** Called with the status of every response right before its head is written. */
const statusHooks = new WeakMap<ServerResponse, (status: number) => void>();

export function onStatus(res: ServerResponse, hook: (status: number) => void): void {
  statusHooks.set(res, hook);
}

export function send(
  res: ServerResponse,
  status: number,
  body: string | Buffer | null,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  statusHooks.get(res)?.(status);
  const all: Record<string, string | number> = { ...headers };
  if (body !== null) all["Content-Length"] = Buffer.byteLength(body);
  const slow = slowBodies.get(res);
  if (slow !== undefined && body !== null && Buffer.byteLength(body) > 0) {
    slow.timers.track(trickle(res, status, all, Buffer.from(body), slow));
    return;
  }
  res.writeHead(status, all);
  res.end(body ?? undefined);
}

export interface SlowBody {
  /** Pieces the body is cut into (fewer when the body has fewer bytes). */
  chunks: number;
  /** Pause before each piece, after the headers went out. */
  intervalMs: number;
}

const slowBodies = new WeakMap<ServerResponse, SlowBody & { timers: PendingTimers }>();

/** The next answer on `res` sends its headers at once and its body in slow pieces. */
export function slowBodyFor(res: ServerResponse, slow: SlowBody, timers: PendingTimers): void {
  slowBodies.set(res, { ...slow, timers });
}

async function trickle(
  res: ServerResponse,
  status: number,
  headers: Record<string, string | number>,
  body: Buffer,
  slow: SlowBody & { timers: PendingTimers },
): Promise<void> {
  res.writeHead(status, headers);
  res.flushHeaders();
  const pieces = Math.max(1, Math.min(Math.floor(slow.chunks), body.length));
  const size = Math.ceil(body.length / pieces);
  try {
    for (let offset = 0; offset < body.length; offset += size) {
      await slow.timers.sleep(slow.intervalMs);
      if (res.destroyed) return;
      res.write(body.subarray(offset, offset + size));
    }
    res.end();
  } catch {
    // The sandbox is closing: drop the answer.
    res.destroy();
  }
}
export function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  send(res, status, JSON.stringify(value), { "Content-Type": "application/json; charset=utf-8", ...headers });
}

export function sendError(res: ServerResponse, err: ApiError): void {
  sendJson(res, err.status, envelope(err.code, err.message, err.details), err.headers);
}

export function sendEnvelope(
  res: ServerResponse,
  status: number,
  code: string,
  message: string,
  details: Details,
  headers: Record<string, string> = {},
): void {
  sendError(res, new ApiError(status, code, message, details, headers));
}

/** Reads the whole request body; 413 envelope when it exceeds MAX_BODY_BYTES. */
export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    size += buf.length;
    if (size > MAX_BODY_BYTES) {
      throw new ApiError(413, "PAYLOAD_TOO_LARGE", `Request body exceeds ${MAX_BODY_BYTES} bytes`, {
        param: "body",
      });
    }
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

/** The media type of the request without parameters, lower-cased ("" when absent). */
export function mediaType(req: IncomingMessage): string {
  return (req.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

/** Rejects the pending sleeps of a sandbox that is closing. */
export class SandboxClosedError extends Error {
  constructor() {
    super("The sandbox is closing");
    this.name = "SandboxClosedError";
  }
}

/**
 * The sandbox's own timers (fault latency, slow bodies) and the work waiting on them (request
 * handlers, slow bodies being sent). `cancelAll()` clears the timers and rejects their sleeps with
 * SandboxClosedError, so no handler is left waiting on a promise that never settles (sleeps
 * started after it reject at once); `drain()` then waits until every tracked task has finished.
 */
export class PendingTimers {
  private readonly pending = new Map<NodeJS.Timeout, (err: Error) => void>();
  private readonly tasks = new Set<Promise<void>>();
  private closed = false;

  /** Tracks `task` until it settles (it must handle its own errors). */
  track(task: Promise<void>): void {
    this.tasks.add(task);
    const done = () => {
      this.tasks.delete(task);
    };
    task.then(done, done);
  }

  /** Tracked tasks still running. */
  get running(): number {
    return this.tasks.size;
  }

  async drain(): Promise<void> {
    while (this.tasks.size > 0) await Promise.allSettled([...this.tasks]);
  }

  sleep(ms: number): Promise<void> {
    return new Promise((resolve, reject) => {
      if (this.closed) {
        reject(new SandboxClosedError());
        return;
      }
      const t = setTimeout(() => {
        this.pending.delete(t);
        resolve();
      }, ms);
      this.pending.set(t, reject);
    });
  }

  get size(): number {
    return this.pending.size;
  }

  cancelAll(): void {
    this.closed = true;
    for (const [t, reject] of this.pending) {
      clearTimeout(t);
      reject(new SandboxClosedError());
    }
    this.pending.clear();
  }
}
