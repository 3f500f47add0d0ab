/**
 * A burst into one channel: `videos` videos × `perVideo` deliveries each (10,000 by default), sent
 * as fast as `connections` connections allow, in the order a busy platform would (event e of every
 * video, then event e+1: created, 96 progress steps of one preset, ready, published, complete).
 * The bot runs in its own process with its worker at the app's own settings: one new Slack post
 * per second per channel (the channel gate), 3 s coalescing. Slack is the stand-in (runner).
 *
 * Measured: time to send, time to drain (until every video's parent message shows it complete and
 * the bot's outbox is empty), Slack writes, and the bot process's peak RSS (sampled every 100 ms
 * in the bot process from the moment it is ready; resourceUsage maxRSS, which includes start-up, too).
 * Nothing may be lost: one parent message per video, each reflecting its last event (complete).
 */
import { Agent, request } from "undici";
import { lifecycleEvents } from "../../fakes/platform/deliver.js";
import { SEED } from "../../fakes/platform/server.js";
import { startStack } from "../lib/stack.js";

const CHANNEL = "C0NEWS";

export interface BurstOptions {
  videos: number;
  perVideo: number;
  connections: number;
  /** Give up draining after this long. */
  timeoutMs: number;
  log: (line: string) => void;
}

export interface BurstResult {
  videos: number;
  deliveries: number;
  connections: number;
  accepted: number;
  refused: number;
  sendMs: number;
  /** From the first delivery sent to the channel showing every video complete with nothing left. */
  drainMs: number | null;
  parents: number;
  complete: number;
  /** Videos with more than one parent message. */
  duplicated: number;
  posts: number;
  threadPosts: number;
  updates: number;
  failedWrites: number;
  /** The bot process's RSS when the burst started, its peak during the burst (sampled every 100 ms), at the end. */
  rssAtStartBytes: number;
  peakRssBytes: number;
  rssAtEndBytes: number;
  /** resourceUsage().maxRSS of the bot process: includes its start-up. */
  maxRssBytes: number;
  /** A minimal Bolt app's RSS, idle, measured after the burst (Stack.boltIdleRss). */
  boltIdleRssBytes: number;
  problems: string[];
}

export async function runBurst(o: BurstOptions): Promise<BurstResult> {
  const stack = await startStack({
    worker: { postIntervalMs: undefined, coalesceMs: undefined, pollMs: undefined },
  });
  const agent = new Agent({ connections: o.connections, keepAliveTimeout: 30_000 });
  const problems: string[] = [];
  try {
    const profile = SEED.profiles.newsroom;
    const path = await stack.setWebhook(profile, CHANNEL);
    const url = `${stack.bot.url}${path}`;
    const firstCall = stack.slack.calls.length;
    const atStart = await stack.bot.counts();
    const tag = Date.now().toString(36);
    const ids = Array.from({ length: o.videos }, (_, v) => `xburst${tag}v${String(v).padStart(4, "0")}`);
    const base = Date.now() - 60_000;
    const perVideo = ids.map((videoId, v) =>
      lifecycleEvents(
        profile,
        { videoId, presets: ["1080p"], progressSteps: Math.max(1, o.perVideo - 4) },
        base + v * 1_000,
      ),
    );
    const bodies: string[] = [];
    const longest = Math.max(...perVideo.map((e) => e.length));
    for (let e = 0; e < longest; e++) {
      for (const events of perVideo) {
        const ev = events[e];
        if (ev) bodies.push(JSON.stringify(ev));
      }
    }
    o.log(
      `  ${bodies.length} deliveries for ${o.videos} videos into ${CHANNEL}, ${o.connections} connections…`,
    );
    let next = 0;
    let accepted = 0;
    let refused = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: o.connections }, async () => {
        while (next < bodies.length) {
          const body = bodies[next++] as string;
          try {
            const res = await request(url, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body,
              dispatcher: agent,
            });
            await res.body.dump();
            if (res.statusCode === 200) accepted += 1;
            else refused += 1;
          } catch {
            refused += 1;
          }
        }
      }),
    );
    const sendMs = performance.now() - started;
    o.log(
      `    sent in ${(sendMs / 1000).toFixed(1)} s (${accepted} accepted); draining at the channel's pace…`,
    );

    const view = () => {
      const all = stack.slack.messages(CHANNEL);
      const parents = all.filter((m) => !m.thread_ts);
      let complete = 0;
      let duplicated = 0;
      let found = 0;
      for (const id of ids) {
        const mine = parents.filter((m) => JSON.stringify(m).includes(id));
        if (mine.length > 0) found += 1;
        if (mine.length > 1) duplicated += 1;
        if (mine.length === 1 && /complete/i.test(mine[0]?.text ?? "")) complete += 1;
      }
      return { parents: found, complete, duplicated };
    };
    let drainMs: number | null = null;
    let lastLog = performance.now();
    for (;;) {
      const v = view();
      if (v.complete === o.videos && (await stack.bot.counts()).stored === 0) {
        drainMs = performance.now() - started;
        break;
      }
      if (performance.now() - started > o.timeoutMs) {
        problems.push(
          `not drained after ${Math.round(o.timeoutMs / 1000)} s: ${v.complete} of ${o.videos} videos complete`,
        );
        break;
      }
      if (performance.now() - lastLog > 30_000) {
        lastLog = performance.now();
        o.log(
          `    ${Math.round((lastLog - started) / 1000)} s: ${v.parents} videos posted, ${v.complete} complete`,
        );
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    const counts = await stack.bot.counts();
    const final = view();
    const writes = stack.slack.calls
      .slice(firstCall)
      .filter(
        (c) => (c.method === "chat.postMessage" || c.method === "chat.update") && c.args.channel === CHANNEL,
      );
    if (refused > 0) problems.push(`${refused} deliveries were not accepted`);
    if (final.duplicated > 0) problems.push(`${final.duplicated} videos have more than one parent message`);
    if (final.complete < o.videos)
      problems.push(`${o.videos - final.complete} videos do not show their last event`);
    const failedWrites = writes.filter((c) => !c.ok).length;
    const boltIdleRssBytes = await stack.boltIdleRss();
    return {
      videos: o.videos,
      deliveries: bodies.length,
      connections: o.connections,
      accepted,
      refused,
      sendMs,
      drainMs,
      parents: final.parents,
      complete: final.complete,
      duplicated: final.duplicated,
      posts: writes.filter((c) => c.method === "chat.postMessage" && !c.args.thread_ts).length,
      threadPosts: writes.filter((c) => c.method === "chat.postMessage" && Boolean(c.args.thread_ts)).length,
      updates: writes.filter((c) => c.method === "chat.update").length,
      failedWrites,
      rssAtStartBytes: atStart.rssBytes,
      peakRssBytes: counts.peakRssBytes,
      rssAtEndBytes: counts.rssBytes,
      maxRssBytes: counts.maxRssBytes,
      boltIdleRssBytes,
      problems,
    };
  } finally {
    await agent.close().catch(() => undefined);
    await stack.close();
  }
}
