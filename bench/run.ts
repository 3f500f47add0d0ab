/**
 * `npm run bench`: the bot's performance, measured side by side in one run on this machine.
 *
 *   1. ingest     deliveries/s and p50/p99 latency of POST /hooks/platform/<token> for the bot with
 *                 each store, against a bare node:http server and a minimal fastify route.
 *   2. commands   slash-command ack latency with the platform answering in 5 s; token requests for
 *                 1,000 concurrent commands; platform requests per /live status.
 *   3. tokens     token requests over 30 simulated minutes (fake clock).
 *   4. lifecycle  Slack calls for one video lifecycle, against one post per event.
 *   5. burst      10,000 deliveries for 100 videos into one channel: drain time, nothing lost, RSS.
 *   6. watch      1,000 watched livestreams at a 30 s interval: GETs/s, token requests, CPU, RSS.
 *   8. outside    CPU per delivery at one fixed rate, read from /proc/<pid>/stat of each server
 *                 process: bare node:http and the bot on each store, side by side.
 *   7. scale      the burst into three replicas on one Redis, one killed and Redis restarted, vs one
 *                 replica: every video once, CPU per delivery per replica, total rate.
 *   9. flood      time to show another profile's video while one callback is flooded with 1,000
 *                 mixed bodies, against the same with no flood (rounds alternate, sqlite).
 *  10. notify     time to notify at low load: a delivery's 2xx to its first post, and to an update.
 *
 * Prints the machine, the tables, the targets (PASS/MISS) and any failed check; writes everything
 * as JSON to bench/results/latest.json and bench/results/<start time>.json (git-ignored). Exit
 * code 0 when every run passed its checks, 1 with the reasons otherwise (a missed target is
 * reported, not a failure). Everything listens on 127.0.0.1 and is closed (and cleaned) at the end.
 * BENCH_QUICK=1 makes a shorter run (smaller burst, shorter loads).
 *
 *   npm run bench -- --targets bare,memory --duration 10 --connections 50 --profile
 */
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { goals } from "./lib/goals.js";
import { type MachineInfo, machineInfo } from "./lib/machine.js";
import { perfAvailable } from "./lib/perf.js";
import {
  burstTable,
  commandsNotes,
  commandsTable,
  goalsTable,
  ingestText,
  lifecycleText,
  machineLine,
  outsideText,
  scaleText,
  sideBySideTable,
  slowTable,
  tokensTable,
} from "./lib/report.js";
import { type BurstResult, runBurst } from "./suites/burst.js";
import { type CommandsResult, runCommands } from "./suites/commands.js";
import { type FloodResult, runFlood } from "./suites/flood.js";
import {
  DEFAULT_INGEST_TARGETS,
  INGEST_TARGETS,
  type IngestResult,
  type IngestTargetName,
  runIngest,
} from "./suites/ingest.js";
import { type LifecycleResult, runLifecycle } from "./suites/lifecycle.js";
import { type NotifyBenchResult, runNotifyBench } from "./suites/notify.js";
import { FLOOR_OF, isBotStore, OUTSIDE_TARGETS, type OutsideResult, runOutside } from "./suites/outside.js";
import { runScale, type ScaleResult } from "./suites/scale.js";
import { runSlow, type SlowResult } from "./suites/slow.js";
import { runTokenSim, type TokenSimResult } from "./suites/tokens.js";
import { runWatchBench, type WatchBenchResult } from "./suites/watch.js";

const SUITES = [
  "ingest",
  "outside",
  "commands",
  "slow",
  "tokens",
  "lifecycle",
  "burst",
  "watch",
  "scale",
  "flood",
  "notify",
] as const;
const QUICK = process.env.BENCH_QUICK === "1";
type Suite = (typeof SUITES)[number];

const HELP = `npm run bench [-- options]

  --targets LIST      targets, comma-separated: ${INGEST_TARGETS.join(",")} (default ${DEFAULT_INGEST_TARGETS.join(",")}; the outside suite adds bare and each store's floor)
  --only LIST         suites to run: ${SUITES.join(",")} (default all)
  --connections N     autocannon connections (default 10)
  --duration S        measured seconds per target (default 5)
  --warmup S          warm-up seconds per target, not measured (default 1)
  --rounds N          measured runs per ingest target, one after the other (default 3; quick 1)
  --backlog N         videos waiting for Slack before each bot target's second run (default 10000; 0 = skip)
  --no-worker         ingest, outside: the bot's worker off (the route alone; default: on, as users
                      run it; the outside goals are then not run)
  --outside-rate N    outside: deliveries per second sent to each target (default 1000)
  --outside-duration S  outside: measured seconds per round and target (default 10; quick 4)
  --outside-rounds N  outside: measured rounds per target, the median taken (default 5; quick 3)
  --commands N        concurrent /live status commands sent at once (default 1000)
  --command-rate N    steady /live status commands per second (default 100)
  --command-duration S  steady command load, seconds (default 10; quick 5)
  --pairs N           bot / minimal-Bolt pairs for the side-by-side ack p99 (default 5; quick 3; 0 = skip)
  --platform-latency MS  platform answer time during the command suite (default 5000)
  --slow-rate N       /live status per second in the slow-platform suite (default 40)
  --slow-duration S   seconds of that load (default 10)
  --slow-burst N      commands sent at once in the slow-platform suite (default 200)
  --burst-videos N    videos in the burst, 100 deliveries each (default 100; quick 20)
  --scale-videos N    videos in the scale-out burst, 100 deliveries each (default 100; quick 20)
  --watch-livestreams N  watched livestreams in the watch suite (default 1000)
  --watch-interval MS    LIVE_WATCH_INTERVAL_MS of the watch suite (default 30000)
  --watch-duration S     measured seconds of the watch suite (default 90; quick 60)
  --flood-rounds N    flooded rounds of the flood suite, each beside a quiet one (default 3; quick 2)
  --notify-videos N   videos of the notify suite (default 30; quick 10)
  --redis-url URL     Redis for the redis target (default $BENCH_REDIS_URL or redis://127.0.0.1:6379)
  --profile           CPU-profile each bot target during its measured run (ingest; outside: one more
                      round, not counted); prints where the time goes and keeps the .cpuprofile files
                      (open them in Chrome DevTools)
  --perf              outside: one more round per target recorded by Linux perf (every thread and the
                      kernel, CPU time only, bench/lib/perf.ts); prints where the CPU goes
  --out FILE          JSON results (default bench/results/latest.json, plus a copy named by the start time)

  BENCH_QUICK=1       shorter run: 3 s loads, 5 s of steady commands, a burst of 20 videos
`;

const RESULTS_DIR = fileURLToPath(new URL("./results/", import.meta.url));

interface Options {
  targets: IngestTargetName[];
  suites: Suite[];
  connections: number;
  durationS: number;
  warmupS: number;
  rounds: number;
  backlog: number;
  worker: boolean;
  redisUrl: string;
  profile: boolean;
  perf: boolean;
  outsideRate: number;
  outsideDurationS: number;
  outsideRounds: number;
  commands: number;
  commandRate: number;
  commandDurationS: number;
  platformLatencyMs: number;
  pairs: number;
  burstVideos: number;
  scaleVideos: number;
  slowRate: number;
  slowDurationS: number;
  slowBurst: number;
  watchLivestreams: number;
  watchIntervalMs: number;
  watchDurationS: number;
  floodRounds: number;
  notifyVideos: number;
  out: string;
}

function listOf<T extends string>(raw: string, allowed: readonly T[], what: string): T[] {
  const items = raw
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (const item of items) {
    if (!(allowed as readonly string[]).includes(item))
      throw new Error(`unknown ${what} "${item}" (use ${allowed.join(", ")})`);
  }
  return items as T[];
}

function positive(raw: string, what: string, max: number): number {
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0 || n > max)
    throw new Error(`--${what} must be a number from >0 to ${max}`);
  return n;
}

function options(argv: string[]): Options | null {
  const { values } = parseArgs({
    args: argv,
    options: {
      targets: { type: "string" },
      only: { type: "string" },
      connections: { type: "string" },
      duration: { type: "string" },
      warmup: { type: "string" },
      rounds: { type: "string" },
      backlog: { type: "string" },
      "no-worker": { type: "boolean" },
      "redis-url": { type: "string" },
      profile: { type: "boolean" },
      perf: { type: "boolean" },
      "outside-rate": { type: "string" },
      "outside-duration": { type: "string" },
      "outside-rounds": { type: "string" },
      commands: { type: "string" },
      "command-rate": { type: "string" },
      "command-duration": { type: "string" },
      "platform-latency": { type: "string" },
      pairs: { type: "string" },
      "burst-videos": { type: "string" },
      "scale-videos": { type: "string" },
      "slow-rate": { type: "string" },
      "slow-duration": { type: "string" },
      "slow-burst": { type: "string" },
      "watch-livestreams": { type: "string" },
      "watch-interval": { type: "string" },
      "watch-duration": { type: "string" },
      "flood-rounds": { type: "string" },
      "notify-videos": { type: "string" },
      out: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return null;
  return {
    targets: listOf(values.targets ?? DEFAULT_INGEST_TARGETS.join(","), INGEST_TARGETS, "target"),
    suites: listOf(values.only ?? SUITES.join(","), SUITES, "suite"),
    connections: Math.round(positive(values.connections ?? "10", "connections", 1000)),
    durationS: positive(values.duration ?? (QUICK ? "3" : "5"), "duration", 600),
    warmupS: positive(values.warmup ?? "1", "warmup", 60),
    rounds: Math.round(positive(values.rounds ?? (QUICK ? "1" : "3"), "rounds", 20)),
    backlog: values.backlog === "0" ? 0 : Math.round(positive(values.backlog ?? "10000", "backlog", 100_000)),
    worker: !(values["no-worker"] ?? false),
    redisUrl: values["redis-url"] ?? process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379",
    profile: values.profile ?? false,
    perf: values.perf ?? false,
    outsideRate: Math.round(positive(values["outside-rate"] ?? "1000", "outside-rate", 100_000)),
    outsideDurationS: positive(values["outside-duration"] ?? (QUICK ? "4" : "10"), "outside-duration", 600),
    outsideRounds: Math.round(
      positive(values["outside-rounds"] ?? (QUICK ? "3" : "5"), "outside-rounds", 20),
    ),
    commands: Math.round(positive(values.commands ?? "1000", "commands", 5000)),
    commandRate: positive(values["command-rate"] ?? "100", "command-rate", 2000),
    commandDurationS: positive(values["command-duration"] ?? (QUICK ? "5" : "10"), "command-duration", 120),
    platformLatencyMs: Math.round(positive(values["platform-latency"] ?? "5000", "platform-latency", 60_000)),
    pairs: values.pairs === "0" ? 0 : Math.round(positive(values.pairs ?? (QUICK ? "3" : "5"), "pairs", 50)),
    burstVideos: Math.round(positive(values["burst-videos"] ?? (QUICK ? "20" : "100"), "burst-videos", 1000)),
    scaleVideos: Math.round(positive(values["scale-videos"] ?? (QUICK ? "20" : "100"), "scale-videos", 1000)),
    slowRate: positive(values["slow-rate"] ?? "40", "slow-rate", 1000),
    slowDurationS: positive(values["slow-duration"] ?? "10", "slow-duration", 120),
    slowBurst: Math.round(positive(values["slow-burst"] ?? "200", "slow-burst", 5000)),
    watchLivestreams: Math.round(
      positive(values["watch-livestreams"] ?? "1000", "watch-livestreams", 20_000),
    ),
    watchIntervalMs: Math.max(
      1000,
      Math.round(positive(values["watch-interval"] ?? "30000", "watch-interval", 600_000)),
    ),
    watchDurationS: positive(values["watch-duration"] ?? (QUICK ? "60" : "90"), "watch-duration", 1800),
    floodRounds: Math.round(positive(values["flood-rounds"] ?? (QUICK ? "2" : "3"), "flood-rounds", 20)),
    notifyVideos: Math.round(
      positive(values["notify-videos"] ?? (QUICK ? "10" : "30"), "notify-videos", 500),
    ),
    out: values.out ?? path.join(RESULTS_DIR, "latest.json"),
  };
}

interface Report {
  version: 2;
  quick: boolean;
  startedAt: string;
  finishedAt: string;
  elapsedS: number;
  machine: MachineInfo;
  options: Omit<Options, "out">;
  ingest: IngestResult | null;
  outside: OutsideResult | null;
  commands: CommandsResult | null;
  tokens: TokenSimResult | null;
  lifecycle: LifecycleResult | null;
  burst: BurstResult | null;
  slow: SlowResult | null;
  watch: WatchBenchResult | null;
  scale: ScaleResult | null;
  flood: FloodResult | null;
  notify: NotifyBenchResult | null;
  goals: ReturnType<typeof goals>;
  failures: string[];
  ok: boolean;
}

async function main(): Promise<number> {
  let opts: Options | null;
  try {
    opts = options(process.argv.slice(2));
  } catch (err) {
    console.error(`bench: ${err instanceof Error ? err.message : String(err)}\n\n${HELP}`);
    return 2;
  }
  if (!opts) {
    console.log(HELP);
    return 0;
  }
  const started = new Date();
  const machine = machineInfo();
  const log = (line: string) => console.log(line);
  log(`bench ${started.toISOString()}`);
  log(machineLine(machine));

  const failures: string[] = [];
  let ingest: IngestResult | null = null;
  let outside: OutsideResult | null = null;
  let lifecycle: LifecycleResult | null = null;
  let commands: CommandsResult | null = null;
  let tokens: TokenSimResult | null = null;
  let burst: BurstResult | null = null;
  let slow: SlowResult | null = null;
  let watch: WatchBenchResult | null = null;
  let scale: ScaleResult | null = null;
  let flood: FloodResult | null = null;
  let notify: NotifyBenchResult | null = null;
  const failed = (suite: string, err: unknown) =>
    failures.push(`${suite}: ${err instanceof Error ? err.message : String(err)}`);
  let profileDir: string | undefined;
  if (opts.profile) profileDir = await mkdtemp(path.join(os.tmpdir(), "bench-profile-"));
  let perfDir: string | undefined;
  if (opts.perf) {
    if (perfAvailable()) perfDir = profileDir ?? (await mkdtemp(path.join(os.tmpdir(), "bench-profile-")));
    else log("--perf: Linux perf is not installed or not allowed here (perf_event_paranoid); left out");
  }

  if (opts.suites.includes("ingest") && opts.targets.length > 0) {
    log(`\nwebhook ingest (${opts.targets.join(", ")})`);
    ingest = await runIngest({
      targets: opts.targets,
      connections: opts.connections,
      durationS: opts.durationS,
      warmupS: opts.warmupS,
      rounds: opts.rounds,
      backlog: opts.backlog,
      worker: opts.worker,
      redisUrl: opts.redisUrl,
      log,
      ...(profileDir ? { profileDir } : {}),
    });
    for (const t of ingest.targets) {
      if (t.error) failures.push(`ingest ${t.name}: ${t.error}`);
      for (const p of t.check?.problems ?? []) failures.push(`ingest ${t.name}: ${p}`);
    }
  }
  if (opts.suites.includes("outside")) {
    // Bare always; each store's floor beside it (sqlite's goal is a ratio to its floor; the
    // others' floors say how much of their goal against bare the least receiver takes).
    const wanted = new Set<string>([
      "bare",
      ...opts.targets,
      ...opts.targets.flatMap((t) => (isBotStore(t) ? [FLOOR_OF[t]] : [])),
    ]);
    const targets = OUTSIDE_TARGETS.filter((t) => wanted.has(t));
    log(`\nCPU per delivery from outside, ${opts.outsideRate}/s (${targets.join(", ")})`);
    try {
      outside = await runOutside({
        targets,
        rate: opts.outsideRate,
        connections: opts.connections,
        durationS: opts.outsideDurationS,
        warmupS: opts.warmupS,
        rounds: opts.outsideRounds,
        redisUrl: opts.redisUrl,
        worker: opts.worker,
        ...(profileDir ? { profileDir } : {}),
        ...(perfDir ? { perfDir } : {}),
        log,
      });
      for (const t of outside.targets) {
        if (t.error) failures.push(`outside ${t.name}: ${t.error}`);
        for (const p of t.check?.problems ?? []) failures.push(`outside ${t.name}: ${p}`);
      }
    } catch (err) {
      failed("outside", err);
    }
  }
  if (opts.suites.includes("commands")) {
    log("\nslash commands against a slow platform");
    try {
      commands = await runCommands({
        concurrent: opts.commands,
        rate: opts.commandRate,
        durationS: opts.commandDurationS,
        platformLatencyMs: opts.platformLatencyMs,
        pairs: opts.pairs,
        log,
      });
      for (const p of commands.problems) failures.push(`commands: ${p}`);
    } catch (err) {
      failed("commands", err);
    }
  }
  if (opts.suites.includes("slow")) {
    log("\nanswers while the platform is slow");
    try {
      slow = await runSlow({
        rate: opts.slowRate,
        durationS: opts.slowDurationS,
        burst: opts.slowBurst,
        platformLatencyMs: opts.platformLatencyMs,
        log,
      });
      for (const p of slow.problems) failures.push(`slow: ${p}`);
    } catch (err) {
      failed("slow", err);
    }
  }
  if (opts.suites.includes("tokens")) {
    log("\ntoken requests over simulated time");
    try {
      tokens = await runTokenSim(log);
      for (const p of tokens.problems) failures.push(`tokens: ${p}`);
    } catch (err) {
      failed("tokens", err);
    }
  }
  if (opts.suites.includes("lifecycle")) {
    log("\nSlack calls per lifecycle");
    try {
      lifecycle = await runLifecycle(log);
      for (const p of lifecycle.problems) failures.push(`lifecycle: ${p}`);
    } catch (err) {
      failed("lifecycle", err);
    }
  }
  if (opts.suites.includes("burst")) {
    log(
      `\nburst of ${opts.burstVideos * 100} deliveries into one channel (about ${Math.round(opts.burstVideos * 3.2)} s at one post per second)`,
    );
    try {
      burst = await runBurst({
        videos: opts.burstVideos,
        perVideo: 100,
        connections: 10,
        timeoutMs: 20 * 60_000,
        log,
      });
      for (const p of burst.problems) failures.push(`burst: ${p}`);
    } catch (err) {
      failed("burst", err);
    }
  }

  if (opts.suites.includes("watch")) {
    log(`\nlive watch: ${opts.watchLivestreams} livestreams at ${opts.watchIntervalMs / 1000} s`);
    try {
      watch = await runWatchBench({
        livestreams: opts.watchLivestreams,
        intervalMs: opts.watchIntervalMs,
        durationS: opts.watchDurationS,
        log,
      });
      for (const p of watch.problems) failures.push(`watch: ${p}`);
    } catch (err) {
      failed("watch", err);
    }
  }

  if (opts.suites.includes("scale")) {
    log(`\nscale-out: ${opts.scaleVideos * 100} deliveries into three replicas on one Redis, vs one`);
    try {
      scale = await runScale({
        videos: opts.scaleVideos,
        perVideo: 100,
        connections: 10,
        timeoutMs: 10 * 60_000,
        log,
      });
      for (const p of scale.problems) failures.push(`scale: ${p}`);
    } catch (err) {
      failed("scale", err);
    }
  }

  if (opts.suites.includes("flood")) {
    log("\nanother profile's video while one callback is flooded (1,000 bodies), vs no flood");
    try {
      flood = await runFlood({ rounds: opts.floodRounds, log });
      for (const p of flood.problems) failures.push(`flood: ${p}`);
    } catch (err) {
      failed("flood", err);
    }
  }

  if (opts.suites.includes("notify")) {
    log(`
time to notify at low load: ${opts.notifyVideos} videos, 2xx → first post and → update`);
    try {
      notify = await runNotifyBench({ videos: opts.notifyVideos, spacingMs: 1_200, log });
      for (const p of notify.problems) failures.push(`notify: ${p}`);
    } catch (err) {
      failed("notify", err);
    }
  }

  const finished = new Date();
  const { out, ...kept } = opts;
  const report: Report = {
    version: 2,
    quick: QUICK,
    startedAt: started.toISOString(),
    finishedAt: finished.toISOString(),
    elapsedS: Math.round((finished.getTime() - started.getTime()) / 100) / 10,
    machine,
    options: kept,
    ingest,
    outside,
    commands,
    tokens,
    lifecycle,
    burst,
    slow,
    watch,
    scale,
    flood,
    notify,
    goals: goals({
      ingest,
      outside,
      machine,
      commands,
      tokens,
      lifecycle,
      burst,
      slow,
      watch,
      scale,
      flood,
      notify,
    }),
    failures,
    ok: failures.length === 0,
  };

  const text: string[] = ["", `== bench ${report.startedAt} (${report.elapsedS} s)`, machineLine(machine)];
  if (ingest) text.push(...ingestText(ingest));
  if (outside) text.push(...outsideText(outside, machine));
  if (commands) {
    text.push(
      "",
      "Slash commands through the bot's receiver (bot in its own process; sandbox and Slack stand-in in the runner)",
      commandsTable(commands),
      ...commandsNotes(commands),
      ...(commands.sideBySide
        ? [
            "",
            "Side by side with a minimal Bolt app that only acks (bench/targets/bolt.ts, same Bolt, same signed requests); bot: last answer = from its first command to its last response_url answer",
            sideBySideTable(commands.sideBySide),
          ]
        : []),
    );
  }
  if (slow) {
    text.push(
      "",
      "Answers while the platform is slow (time from the command to its status answer on the response_url)",
      slowTable(slow),
      `livestream reads per command: ${slow.readsPerCommand.toFixed(2)} (identical reads share one GET for 10 s after it answered: below 1; above 1 = retries)`,
    );
  }
  if (tokens)
    text.push(
      "",
      "Token requests, simulated time (platform client and sandbox on a fake clock)",
      tokensTable(tokens),
    );
  if (lifecycle) text.push(...lifecycleText(lifecycle));
  if (burst) {
    text.push(
      "",
      "Burst into one channel: the bot in its own process, worker at the app's defaults (one new post per second per channel, 3 s coalescing)",
      burstTable(burst),
    );
  }
  if (watch) {
    text.push(
      "",
      "Live watch: the bot in its own process, sandbox and Slack stand-in in the runner",
      `  ${watch.watched}/${watch.livestreams} watched (${watch.setupS.toFixed(1)} s of /live watch), interval ${watch.intervalMs / 1000} s, measured ${watch.durationS} s`,
      `  livestream GETs: ${watch.gets} = ${watch.getsPerSecond.toFixed(1)}/s (ideal ${watch.idealPerSecond.toFixed(1)}/s); livestreams read unevenly: ${watch.unevenLivestreams}`,
      `  token requests: ${watch.tokenRequests} in ${watch.runS.toFixed(0)} s (token lifetime ${watch.tokenLifetimeS} s)`,
      `  bot CPU: ${(watch.cpuShare * 100).toFixed(1)} % of one core; RSS ${(watch.rssBytes / 1e6).toFixed(0)} MB (peak ${(watch.peakRssBytes / 1e6).toFixed(0)} MB); "is live" posts: ${watch.livePosts}`,
    );
  }
  if (scale) text.push(...scaleText(scale));
  if (notify) {
    const l = (x: NotifyBenchResult["firstPost"]) =>
      `p50 ${x.p50Ms ?? "–"} ms, p99 ${x.p99Ms ?? "–"} ms, max ${x.maxMs ?? "–"} ms (${x.count})`;
    text.push(
      "",
      `Time to notify at low load (bot compiled in its own process, worker at the app's settings; one delivery every ${notify.spacingMs} ms)`,
      `  2xx → first post: ${l(notify.firstPost)}`,
      `  2xx → update of the video's message: ${l(notify.update)}`,
    );
  }
  if (flood)
    text.push(
      "",
      "Another profile's video while one callback is flooded (sqlite, worker at the app's defaults; medians)",
      `  first message: ${flood.floodedFirstMs} ms flooded, ${flood.quietFirstMs} ms quiet (${flood.ratio.toFixed(2)}×); complete: ${flood.floodedCompleteMs} ms flooded, ${flood.quietCompleteMs} ms quiet`,
    );
  text.push("", "Targets", goalsTable(report.goals));
  text.push("");
  if (failures.length > 0) {
    text.push("FAILED:", ...failures.map((f) => `  - ${f}`));
  } else {
    text.push("all runs passed their checks");
  }
  const json = `${JSON.stringify(report, null, 2)}\n`;
  await mkdir(path.dirname(out), { recursive: true });
  await writeFile(out, json);
  const files = [out];
  if (out === path.join(RESULTS_DIR, "latest.json")) {
    const stamped = path.join(RESULTS_DIR, `${report.startedAt.replace(/[:.]/g, "-")}.json`);
    await writeFile(stamped, json);
    files.push(stamped);
  }
  text.push(`results: ${files.map((f) => path.relative(process.cwd(), f) || f).join(", ")}`);
  if (failures.length > 0) console.error(text.join("\n"));
  else console.log(text.join("\n"));
  return failures.length === 0 ? 0 : 1;
}

// A bench that hangs is a failed bench: give up (children close themselves when we go).
const WATCHDOG_MS = 40 * 60_000;
const watchdog = setTimeout(() => {
  console.error(`bench: still running after ${WATCHDOG_MS / 60_000} minutes; giving up`);
  process.exit(1);
}, WATCHDOG_MS);
watchdog.unref();

main().then(
  (code) => {
    process.exitCode = code;
    // Everything is closed by now; if a stray handle kept the process alive, do not hang on it.
    setTimeout(() => process.exit(code), 2_000).unref();
  },
  (err: unknown) => {
    console.error(`bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
    process.exit(1);
  },
);
