/**
 * Time to notify, at low load: from a delivery's 2xx to its Slack write, through the bot in its
 * own process (compiled, the worker at the app's settings) and the Slack stand-in in the runner.
 *
 *  1. first posts: `video.created` of a new video every `spacingMs` (more than the channel's one
 *     new post per second, so no post waits for the channel's pace): 2xx → its `chat.postMessage`;
 *  2. updates: once every parent is older than the coalescing window (3 s: a video's message is
 *     redrawn at most that often), one `video.format.processing` per video, every `spacingMs`:
 *     2xx → the `chat.update` of that video's message.
 *
 * Both clocks are the runner's: the 2xx is noted when its answer arrives here, the write when the
 * stand-in (in this process) receives it. The goal is the p99 under 100 ms plus the worker's
 * gather window (20 ms: a pass waits that long for the deliveries of one burst).
 */
import { request } from "undici";
import { lifecycleEvents } from "../../fakes/platform/deliver.js";
import { SEED } from "../../fakes/platform/server.js";
import { startStack } from "../lib/stack.js";

const CHANNEL = "C0NEWS";
/** The worker's gather window (src/notify/worker.ts, gatherMs) and coalescing window (coalesceMs). */
export const GATHER_MS = 20;
const COALESCE_MS = 3_000;

export interface NotifyBenchOptions {
  videos: number;
  spacingMs: number;
  log: (line: string) => void;
}

export interface Latencies {
  count: number;
  p50Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
}

export interface NotifyBenchResult {
  videos: number;
  spacingMs: number;
  gatherMs: number;
  firstPost: Latencies;
  update: Latencies;
  problems: string[];
}

function latencies(xs: number[]): Latencies {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) =>
    s.length === 0 ? null : (s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)] ?? null);
  return { count: s.length, p50Ms: at(0.5), p99Ms: at(0.99), maxMs: s.at(-1) ?? null };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runNotifyBench(o: NotifyBenchOptions): Promise<NotifyBenchResult> {
  const stack = await startStack({ worker: {} });
  const problems: string[] = [];
  try {
    const profile = SEED.profiles.newsroom;
    const url = `${stack.bot.url}${await stack.setWebhook(profile, CHANNEL)}`;
    const tag = Date.now().toString(36);
    const videos = Array.from({ length: o.videos }, (_, v) => {
      const videoId = `xnotify${tag}v${v}`;
      const [created, processing] = lifecycleEvents(
        profile,
        { videoId, presets: ["720p"], progressSteps: 3 },
        Date.now() + v,
      );
      return { videoId, created, processing };
    });
    /** POSTs one delivery; when its 2xx arrived (runner clock), or null. */
    const deliver = async (event: unknown): Promise<number | null> => {
      const res = await request(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(event),
      });
      await res.body.dump();
      return res.statusCode === 200 ? Date.now() : null;
    };
    /** The first call after `from` that `match` accepts: its arrival time, or null after 10 s. */
    const callAt = async (from: number, match: (c: (typeof stack.slack.calls)[number]) => boolean) => {
      const deadline = Date.now() + 10_000;
      for (;;) {
        const c = stack.slack.calls.slice(from).find(match);
        if (c) return c.at;
        if (Date.now() > deadline) return null;
        await sleep(2);
      }
    };

    o.log(`  ${o.videos} new videos, one every ${o.spacingMs} ms: 2xx → first post…`);
    const first: number[] = [];
    const parents = new Map<string, string>();
    for (const v of videos) {
      const from = stack.slack.calls.length;
      const ok = await deliver(v.created);
      if (ok === null) {
        problems.push(`${v.videoId}: video.created not answered 200`);
        continue;
      }
      const at = await callAt(
        from,
        (c) =>
          c.method === "chat.postMessage" &&
          c.args.channel === CHANNEL &&
          !c.args.thread_ts &&
          JSON.stringify(c.args).includes(v.videoId),
      );
      if (at === null) problems.push(`${v.videoId}: no first post within 10 s`);
      else first.push(at - ok);
      const ts = stack.slack
        .messages(CHANNEL)
        .find((m) => !m.thread_ts && JSON.stringify(m).includes(v.videoId))?.ts;
      if (ts) parents.set(v.videoId, ts);
      await sleep(o.spacingMs);
    }

    // Every parent older than the coalescing window: an update is not held back by it.
    await sleep(COALESCE_MS + 200);
    o.log(`  one progress event per video, one every ${o.spacingMs} ms: 2xx → chat.update…`);
    const updates: number[] = [];
    for (const v of videos) {
      const ts = parents.get(v.videoId);
      if (ts === undefined) continue;
      const from = stack.slack.calls.length;
      const ok = await deliver(v.processing);
      if (ok === null) {
        problems.push(`${v.videoId}: video.format.processing not answered 200`);
        continue;
      }
      const at = await callAt(from, (c) => c.method === "chat.update" && c.args.ts === ts);
      if (at === null) problems.push(`${v.videoId}: no update within 10 s`);
      else updates.push(at - ok);
      await sleep(o.spacingMs);
    }
    const result = {
      videos: o.videos,
      spacingMs: o.spacingMs,
      gatherMs: GATHER_MS,
      firstPost: latencies(first),
      update: latencies(updates),
      problems,
    };
    const fmt = (l: Latencies) =>
      `p50 ${l.p50Ms ?? "–"} ms, p99 ${l.p99Ms ?? "–"} ms, max ${l.maxMs ?? "–"} ms`;
    o.log(`    first post: ${fmt(result.firstPost)}; update: ${fmt(result.update)}`);
    return result;
  } finally {
    await stack.close();
  }
}
