/**
 * Live watch at scale: `livestreams` watched livestreams (1,000 by default) at the production
 * interval (LIVE_WATCH_INTERVAL_MS, 30 s by default). The bot runs in its own process
 * (bench/lib/stack.ts) with the app's own watch settings; the platform sandbox (seeded with the
 * livestreams, a tenth of them on air) and the Slack stand-in run here.
 *
 * The watches are made as people make them: signed `/live watch <id>` commands (one authorizing
 * GET each), spread over 10 channels. Then one interval passes (the first reads, the posts of the
 * livestreams on air), then the measured window (`durationS`, default 90 s = 3 intervals):
 *
 *  - livestream GETs per second (ideal: livestreams / interval, e.g. 1,000 / 30 s ≈ 33/s: one read
 *    per watched livestream per interval, jitter ±10 %);
 *  - token requests over the whole run (ideal: 1 per token lifetime; the sandbox's is 1,800 s);
 *  - the bot process's CPU (share of one core) and RSS (at the end, and peak sampled every 100 ms).
 */
import { SEED } from "../../fakes/platform/server.js";
import { startStack } from "../lib/stack.js";

export interface WatchBenchOptions {
  livestreams: number;
  intervalMs: number;
  durationS: number;
  log: (line: string) => void;
}

export interface WatchBenchResult {
  livestreams: number;
  intervalMs: number;
  durationS: number;
  /** Seconds taken by the `/live watch` commands. */
  setupS: number;
  watched: number;
  gets: number;
  getsPerSecond: number;
  idealPerSecond: number;
  /** Livestreams read fewer or more times than the window allows (0 or > ceil + 1). */
  unevenLivestreams: number;
  tokenRequests: number;
  runS: number;
  tokenLifetimeS: number;
  /** CPU time of the bot process during the window / wall time (1 = one core). */
  cpuShare: number;
  rssBytes: number;
  peakRssBytes: number;
  /** A minimal Bolt app's RSS, idle (Stack.boltIdleRss). */
  boltIdleRssBytes: number;
  livePosts: number;
  problems: string[];
}

const CHANNELS = Array.from({ length: 10 }, (_, i) => `C0WATCH${i}`);
const TOKEN_LIFETIME_S = 1800;

export async function runWatchBench(o: WatchBenchOptions): Promise<WatchBenchResult> {
  const problems: string[] = [];
  const runStarted = Date.now();
  const stack = await startStack({
    sandbox: { tokenLifetimeSeconds: TOKEN_LIFETIME_S },
    worker: { manual: true },
    env: {
      LIVE_WATCH_INTERVAL_MS: String(o.intervalMs),
      LIVE_WATCH_MAX: String(Math.max(1000, o.livestreams)),
    },
    maxWatchesPerTeam: o.livestreams + 10,
  });
  try {
    const template = stack.sandbox.state.livestreams.get(SEED.livestreams.offAir);
    if (!template) throw new Error("the sandbox has no seeded off-air livestream");
    const ids = Array.from({ length: o.livestreams }, (_, i) => `xwatch${String(i).padStart(5, "0")}`);
    for (const [i, id] of ids.entries()) {
      const copy = structuredClone(template);
      copy.livestream_id = id;
      copy.title = `Bench show ${i}`;
      stack.sandbox.state.livestreams.set(id, copy);
      if (i % 10 === 0) stack.sandbox.live(id, { action: "on_air" });
    }
    for (const c of CHANNELS) {
      stack.slack.channels.public.add(c);
      stack.slack.channels.member.add(c);
    }

    o.log(`  ${o.livestreams} × /live watch, then one interval (${o.intervalMs / 1000} s) before measuring…`);
    const setupStarted = Date.now();
    let next = 0;
    let failed = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (next < ids.length) {
          const i = next++;
          const p = stack.prepareSlash("/live", `watch ${ids[i]}`, {
            channel: CHANNELS[i % CHANNELS.length],
          });
          const r = await stack.send(p);
          const answer = JSON.stringify(await stack.answer(p.responseUrl, 1, 30_000));
          if (r.status !== 200 || !answer.includes("When it goes on air")) failed += 1;
        }
      }),
    );
    const setupS = (Date.now() - setupStarted) / 1000;
    if (failed > 0) problems.push(`${failed} /live watch commands were not confirmed`);
    const afterSetup = await stack.bot.counts();
    o.log(
      `    watched in ${setupS.toFixed(1)} s (bot RSS ${(afterSetup.rssBytes / 1e6).toFixed(0)} MB, peak so far ${(afterSetup.peakRssBytes / 1e6).toFixed(0)} MB); waiting one interval…`,
    );
    await new Promise((r) => setTimeout(r, o.intervalMs));

    const isRead = (path: string) => path.startsWith("/v2/livestreams/xwatch");
    const from = stack.sandbox.requests.length;
    const before = await stack.bot.counts();
    const t0 = performance.now();
    o.log(`    measuring for ${o.durationS} s…`);
    await new Promise((r) => setTimeout(r, o.durationS * 1000));
    const after = await stack.bot.counts();
    const wallS = (performance.now() - t0) / 1000;
    const window = stack.sandbox.requests.slice(from).filter((r) => r.method === "GET" && isRead(r.path));
    const perId = new Map<string, number>();
    for (const r of window) perId.set(r.path, (perId.get(r.path) ?? 0) + 1);
    const most = Math.ceil((o.durationS * 1000) / (o.intervalMs * 0.9)) + 1;
    const least = Math.max(0, Math.floor((o.durationS * 1000) / (o.intervalMs * 1.1)) - 1);
    let uneven = o.livestreams - perId.size;
    for (const n of perId.values()) if (n < least || n > most) uneven += 1;
    const livePosts = stack.slack
      .callsTo("chat.postMessage")
      .filter((c) => String(c.args.text ?? "").includes(" is live since ")).length;
    const expectedPosts = Math.ceil(o.livestreams / 10);
    if (livePosts !== expectedPosts)
      problems.push(`${livePosts} "is live" posts for ${expectedPosts} livestreams on air`);
    const gets = window.length;
    const boltIdleRssBytes = await stack.boltIdleRss();
    const result: WatchBenchResult = {
      livestreams: o.livestreams,
      intervalMs: o.intervalMs,
      durationS: o.durationS,
      setupS,
      watched: o.livestreams - failed,
      gets,
      getsPerSecond: gets / wallS,
      idealPerSecond: o.livestreams / (o.intervalMs / 1000),
      unevenLivestreams: uneven,
      tokenRequests: stack.sandbox.stats().tokenRequests,
      runS: (Date.now() - runStarted) / 1000,
      tokenLifetimeS: TOKEN_LIFETIME_S,
      cpuShare: (after.cpuUs - before.cpuUs) / 1e6 / wallS,
      rssBytes: after.rssBytes,
      peakRssBytes: after.peakRssBytes,
      boltIdleRssBytes,
      livePosts,
      problems,
    };
    o.log(
      `    ${gets} GETs in ${wallS.toFixed(1)} s = ${result.getsPerSecond.toFixed(1)}/s (ideal ${result.idealPerSecond.toFixed(1)}/s), ${result.tokenRequests} token request(s), CPU ${(result.cpuShare * 100).toFixed(1)} % of a core, RSS ${(result.rssBytes / 1e6).toFixed(0)} MB`,
    );
    return result;
  } finally {
    await stack.close();
  }
}
