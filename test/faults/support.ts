/**
 * Shared by the fault tests: a TCP relay that can refuse connections (a peer that is down), the
 * delivery URL of a configured profile, deliveries posted like the platform (retrying 503s), and a
 * snapshot of what a memory store holds.
 */
import { connect, createServer, type Server, type Socket } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { request } from "undici";
import { SEED } from "../../fakes/platform/server.js";
import { type Harness, PUBLIC_URL } from "../support/harness.js";

/**
 * A relay on a fixed 127.0.0.1 port to `target` (set later). down(): stops listening and cuts
 * every connection, so callers get ECONNREFUSED; up(): listens on the same port again.
 */
export class Relay {
  target = 0;
  port = 0;
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async up(): Promise<void> {
    if (this.server) return;
    const server = createServer((client) => {
      const upstream = connect(this.target, "127.0.0.1");
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on("close", () => this.sockets.delete(s));
        s.on("error", () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.port, "127.0.0.1", () => resolve());
    });
    this.server = server;
    const address = server.address();
    if (address !== null && typeof address === "object") this.port = address.port;
  }

  async down(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const s of this.sockets) s.destroy();
    await closed;
  }
}

/** `/webhook set` for the newsroom profile in `channel`; returns the bot-local delivery URL. */
export function configureProfile(h: Harness, channel: string): Promise<string> {
  return h.configureProfile({ channel });
}

/** The platform's current callback URL for the newsroom profile, pointed at the local bot. */
export function localHookUrl(h: Harness, botUrl = h.url): string {
  const url = h.sandbox.state.profiles.get(SEED.profiles.newsroom)?.webhook.callback_url ?? "";
  if (!url.startsWith(PUBLIC_URL)) throw new Error("the newsroom profile does not point at the bot");
  return `${botUrl}${url.slice(PUBLIC_URL.length)}`;
}

export interface Delivery {
  type: string;
  timestamp: number;
  data: Record<string, unknown>;
}

/** created → published → complete for one video, timestamps in order. */
export function shortLifecycle(videoId: string, t0: number): Delivery[] {
  const data = { owner_id: SEED.profiles.newsroom, video_id: videoId };
  return ["video.created", "video.published", "video.complete"].map((type, i) => ({
    type,
    timestamp: t0 + i,
    data,
  }));
}

export async function post(url: string, body: Delivery): Promise<{ status: number; retryAfter?: string }> {
  try {
    const res = await request(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      headersTimeout: 10_000,
      bodyTimeout: 10_000,
    });
    await res.body.text();
    const retryAfter = res.headers["retry-after"];
    return typeof retryAfter === "string"
      ? { status: res.statusCode, retryAfter }
      : { status: res.statusCode };
  } catch {
    return { status: 0 };
  }
}

/**
 * Posts like a platform that retries: a 503 (or no answer) is sent again after `retryMs` until it
 * is answered 200 or `deadlineMs` passes. Returns every status seen, in order.
 */
export async function postRetrying(
  url: () => string,
  body: Delivery,
  retryMs: number,
  deadlineMs: number,
  onStatus?: (status: number) => void,
): Promise<number[]> {
  const seen: number[] = [];
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const { status } = await post(url(), body);
    seen.push(status);
    onStatus?.(status);
    if (status !== 503 && status !== 0) return seen;
    if (Date.now() > deadline) return seen;
    await sleep(retryMs);
  }
}

/** Every key and value of a memory store, as JSON strings (to compare before and after). */
export function memorySnapshot(h: Harness): Map<string, string> {
  const map: unknown = h.store.keyv.store;
  if (!(map instanceof Map)) throw new Error("not a memory store");
  return new Map([...map.entries()].map(([k, v]) => [String(k), JSON.stringify(v)]));
}

/** Keys added, removed or changed between two snapshots. */
export function changedKeys(before: Map<string, string>, after: Map<string, string>): string[] {
  const keys = new Set([...before.keys(), ...after.keys()]);
  return [...keys].filter((k) => before.get(k) !== after.get(k)).sort();
}

/** Each video's messages in a channel: parents (not in a thread) and their thread replies. */
export function videoMessages(h: Harness, channel: string, videoId: string) {
  const all = h.slack.messages(channel);
  const parents = all.filter((m) => !m.thread_ts && m.text.includes(videoId));
  const thread = all.filter((m) => parents.some((p) => m.thread_ts === p.ts)).map((m) => m.text);
  return { parents, thread };
}

/** Exactly one parent, complete, with "published" and "complete" once each in its thread. */
export function shownOnce(h: Harness, channel: string, videoId: string): boolean {
  const { parents, thread } = videoMessages(h, channel, videoId);
  return (
    parents.length === 1 &&
    /complete/i.test(parents[0]?.text ?? "") &&
    thread.filter((t) => /published/i.test(t)).length === 1 &&
    thread.filter((t) => /complete/i.test(t)).length === 1
  );
}
