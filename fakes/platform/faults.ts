/**
 * Fault injection: latency, gateway statuses, broken bodies, slow bodies and dropped connections,
 * applied before normal handling. Choice: the first matching fault (in insertion order) applies
 * alone; fault answers use the section 7 envelope by default, on the token endpoint too (they come
 * from "gateways"), or a gateway's bare empty body or HTML page (`envelope: false | "html"`).
 */
import type { ServerResponse } from "node:http";
import { FAULT_CODES } from "./errors.js";
import { type PendingTimers, send, sendEnvelope, slowBodyFor } from "./http.js";
import type { Fault } from "./types.js";

export class FaultList {
  private entries: Array<{ fault: Fault; remaining: number }> = [];

  add(fault: Fault): void {
    this.entries.push({ fault, remaining: fault.times ?? Number.POSITIVE_INFINITY });
  }

  clear(): void {
    this.entries = [];
  }

  get size(): number {
    return this.entries.length;
  }

  /** The first fault matching the request, counted as used (removed once its `times` are spent). */
  take(method: string, path: string): Fault | undefined {
    const index = this.entries.findIndex(({ fault }) => matches(fault, method, path));
    const entry = this.entries[index];
    if (entry === undefined) return undefined;
    entry.remaining -= 1;
    if (entry.remaining <= 0) this.entries.splice(index, 1);
    return entry.fault;
  }
}

function matches(fault: Fault, method: string, path: string): boolean {
  if (fault.method !== undefined && fault.method.toUpperCase() !== method.toUpperCase()) return false;
  if (fault.path === undefined) return true;
  if (typeof fault.path === "string") return path.startsWith(fault.path);
  fault.path.lastIndex = 0;
  return fault.path.test(path);
}

/** A 200 body that a strict client must reject, shaped after the route. */
function brokenBody(kind: NonNullable<Fault["body"]>, path: string): { body: string; type: string } {
  if (kind === "html") {
    return {
      type: "text/html; charset=utf-8",
      body: "<!DOCTYPE html><html><head><title>Maintenance</title></head><body><h1>We'll be right back</h1></body></html>",
    };
  }
  const json = "application/json; charset=utf-8";
  if (kind === "invalid-json") return { type: json, body: '{"livestream_id": "x9b2k4m", "title": "Trunc' };
  const id = decodeURIComponent(path.split("/").pop() ?? "");
  let value: unknown = { unexpected: true };
  if (path.startsWith("/v2/token")) value = { access_token: 42, token_type: "Bearer", expires_in: "soon" };
  else if (path.startsWith("/v2/livestreams/")) {
    value = {
      livestream_id: id,
      title: 42,
      livestream_url: null,
      created_at: "yesterday",
      status: { onair: "yes" },
      advertising: { remaining: "many", end_at: 17 },
    };
  } else if (path.startsWith("/v2/videos/")) {
    value = { video_id: id, title: 42, status: 7, created_at: "yesterday" };
  } else if (path === "/v2/me") {
    value = { user_id: 42, profiles: "x2vq8nw" };
  } else if (path.startsWith("/v2/profiles/")) {
    value = { profile_id: 42, webhook: { callback_url: 42, events: "video.created" } };
  }
  return { type: json, body: JSON.stringify(value) };
}

const GATEWAY_HTML = (status: number, message: string) =>
  `<!DOCTYPE html><html><head><title>${status} ${message}</title></head><body><center><h1>${status} ${message}</h1></center><hr><center>gateway</center></body></html>`;

/** Applies `fault`; returns true when it answered (or dropped) the request itself. */
export async function applyFault(
  fault: Fault,
  res: ServerResponse,
  path: string,
  timers: PendingTimers,
): Promise<boolean> {
  if (fault.latencyMs !== undefined && fault.latencyMs > 0) await timers.sleep(fault.latencyMs);
  if (fault.dropConnection) {
    res.socket?.destroy();
    return true;
  }
  // Whatever answers next (this fault or the normal route) trickles its body.
  if (fault.slowBody !== undefined) slowBodyFor(res, fault.slowBody, timers);
  if (fault.status !== undefined) {
    const { code, message } = FAULT_CODES[fault.status] ?? { code: "ERROR", message: "Error" };
    const headers: Record<string, string> = {};
    const seconds = fault.retryAfterSeconds ?? (fault.status === 429 ? 1 : undefined);
    const retryHeader =
      fault.retryAfterHeader !== undefined
        ? fault.retryAfterHeader
        : seconds === undefined
          ? null
          : String(seconds);
    if (retryHeader !== null) headers["Retry-After"] = retryHeader;
    const detailsRetry =
      fault.detailsRetryAfter !== undefined
        ? fault.detailsRetryAfter
        : fault.status === 429
          ? (seconds ?? null)
          : null;
    const details: Record<string, unknown> | null =
      detailsRetry === null ? null : { retry_after_seconds: detailsRetry };
    const envelope = fault.envelope ?? true;
    if (envelope === true) sendEnvelope(res, fault.status, code, message, details, headers);
    else if (envelope === "html") {
      send(res, fault.status, GATEWAY_HTML(fault.status, message), {
        ...headers,
        "Content-Type": "text/html; charset=utf-8",
      });
    } else send(res, fault.status, "", headers);
    return true;
  }
  if (fault.body !== undefined) {
    const { body, type } = brokenBody(fault.body, path);
    send(res, 200, body, { "Content-Type": type });
    return true;
  }
  return false;
}
