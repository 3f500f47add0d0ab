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
  res.writeHead(status, all);
  res.end(body ?? undefined);
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

export function sleep(ms: number, timers: Set<NodeJS.Timeout>): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(() => {
      timers.delete(t);
      resolve();
    }, ms);
    timers.add(t);
  });
}
