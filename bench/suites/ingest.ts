/**
 * Webhook ingest: the same autocannon load (connections, warm-up, duration, a different valid
 * delivery per request) against each target in turn, each in its own process:
 *
 *   bare     node:http answering 200 (the baseline every ratio refers to)
 *   fastify  a minimal fastify 5 route answering 200 (a lean framework, for comparison)
 *   memory   the bot, memory store         redis   the bot, Redis (unique namespace, dropped after)
 *   sqlite   the bot, sqlite (a temporary file, removed after)
 *
 * The bot runs as users run it: its worker on, posting to the Slack stand-in at one new post per
 * second per channel, so the load's videos (36 deliveries each, one channel) pile up behind Slack.
 * Each store is measured twice, each time in a fresh process: with nothing waiting, and with
 * `backlog` videos already waiting for the channel (stored and folded before the load); the
 * figure that matters is the bot process's CPU per delivery (process CPU time / deliveries
 * answered), over `rounds` consecutive runs (the backlog grows from run to run).
 *
 * After each target's load the bench checks that what the target holds equals what it accepted:
 * every 200 stored (stored >= 2xx), nothing else stored (stored <= 2xx + requests cut off when the
 * load stopped), and no other answers (non-2xx, errors). A failed check fails the bench.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { botEnvForFakes } from "../../fakes/env.js";
import { startFakes } from "../../fakes/stack.js";
import { deliveryGenerator } from "../lib/deliveries.js";
import { type LoadResult, runLoad } from "../lib/load.js";
import { type ProfileSummary, summarizeProfile } from "../lib/profile.js";
import type { TargetSpec } from "../lib/protocol.js";
import { dropNamespace, pingRedis } from "../lib/redis.js";
import { BENCH_PUBLIC_URL, BENCH_SIGNING_SECRET } from "../lib/stack.js";
import { startTarget, type TargetHandle } from "../lib/target.js";
import { BENCH_OWNER, SEED_VIDEO_PREFIX } from "../targets/owner.js";

export const INGEST_TARGETS = [
  "bare",
  "fastify",
  "floor",
  "memory-floor",
  "redis-floor",
  "memory",
  "redis",
  "sqlite",
] as const;
export type IngestTargetName = (typeof INGEST_TARGETS)[number];
/** The ingest suite's targets unless --targets says otherwise (the floors of memory and Redis are the outside suite's). */
export const DEFAULT_INGEST_TARGETS: readonly IngestTargetName[] = INGEST_TARGETS.filter(
  (t) => t !== "memory-floor" && t !== "redis-floor",
);
/** The baselines: not the bot. */
const BASELINES = ["bare", "fastify", "floor", "memory-floor", "redis-floor"] as const;
type BaselineName = (typeof BASELINES)[number];
const isBaseline = (name: IngestTargetName): name is BaselineName =>
  (BASELINES as readonly string[]).includes(name);

export const TARGET_LABELS: Record<IngestTargetName, string> = {
  bare: "bare node:http (baseline)",
  fastify: "fastify 5 minimal route",
  floor: "durable floor (sqlite WAL, synced)",
  "memory-floor": "memory floor (kept in a Map)",
  "redis-floor": "Redis floor (SET NX, on the reply)",
  memory: "bot, memory store",
  redis: "bot, Redis store",
  sqlite: "bot, sqlite store",
};

export interface IngestOptions {
  targets: readonly IngestTargetName[];
  connections: number;
  durationS: number;
  warmupS: number;
  redisUrl: string;
  /** Videos waiting for Slack before the second run of each bot target (0: no such run). */
  backlog: number;
  /** Measured runs per target, one after the other (`durationS` each). */
  rounds: number;
  /** Run the bot's worker (the default, as users run it). */
  worker: boolean;
  /** CPU-profile each target during its measured run (written to profileDir). */
  profileDir?: string;
  log: (line: string) => void;
}

export interface IngestCheck {
  ok: boolean;
  /** 2xx answers over warm-up and run. */
  accepted: number;
  /** Items the target holds afterwards (outbox depth; answered requests for bare). */
  stored: number;
  /** Requests cut off without an answer when the load stopped (may or may not be stored). */
  cutOff: number;
  non2xx: number;
  errors: number;
  problems: string[];
}

export interface IngestRound {
  answered: number;
  cpuUs: number;
  /** CPU per answered delivery, µs. */
  usPerDelivery: number | null;
  /** Videos scheduled in the outbox at the end of the round. */
  scheduledAfter: number | null;
}

export interface IngestTargetResult {
  name: IngestTargetName;
  label: string;
  /** Bot targets: videos waiting before the load; null for the baselines. */
  backlog: number | null;
  worker: boolean;
  /** Every measured run; `run` is the first (rates and latencies). */
  rounds: IngestRound[];
  spec: TargetSpec | null;
  warmup: LoadResult | null;
  run: LoadResult | null;
  check: IngestCheck | null;
  /** okPerSecond / the bare server's; null without a bare run. */
  rateVsBare: number | null;
  /** p50 and p99 latency / the bare server's. */
  p50VsBare: number | null;
  p99VsBare: number | null;
  rssBytes: number | null;
  logLines: number | null;
  /** CPU the target used during the measured run, as a share of one core (Node's main thread is one). */
  serverCpu: number | null;
  /** Target CPU per answered request over the measured runs, microseconds. */
  serverUsPerRequest: number | null;
  profile: ProfileSummary | null;
  /** Set when the target could not be measured (start, load or clean-up failed). */
  error: string | null;
  cleanup: string | null;
}

export interface IngestResult {
  connections: number;
  durationS: number;
  warmupS: number;
  rounds: number;
  backlog: number;
  worker: boolean;
  body: string;
  targets: IngestTargetResult[];
}

/** Resources a target needs around its process: made before it starts, removed after it ends. */
export interface Prepared {
  spec: TargetSpec;
  cleanup: () => Promise<string | null>;
  /** The platform sandbox adds each video of the load before its first delivery (bot targets). */
  onVideo?: (videoId: string) => void;
}

export async function prepare(
  name: IngestTargetName,
  o: IngestOptions,
  runTag: string,
  backlog: number,
): Promise<Prepared> {
  if (isBaseline(name)) return prepareBaseline(name, o, runTag);
  // The platform sandbox and the Slack stand-in the bot talks to (its title reads, its posts) run
  // here, in the runner, as remote services do: the target process's CPU is then the bot's own.
  const fakes = await startFakes();
  try {
    const env = botEnvForFakes({
      sandbox: fakes.sandbox,
      slack: fakes.slack,
      publicUrl: BENCH_PUBLIC_URL,
      signingSecret: BENCH_SIGNING_SECRET,
    });
    // The backlog's videos (bench/targets/bot.ts, seed) are the platform's too.
    for (let i = 0; i < backlog; i++) {
      fakes.sandbox.putVideo({ video_id: `${SEED_VIDEO_PREFIX}${i.toString(36)}`, profile_id: BENCH_OWNER });
    }
    const bot = { env, worker: o.worker, ...(backlog > 0 ? { backlog } : {}) };
    const prepared = await prepareBot(name, o, runTag, backlog, bot);
    return {
      spec: prepared.spec,
      onVideo: (videoId) => {
        fakes.sandbox.putVideo({ video_id: videoId, profile_id: BENCH_OWNER });
      },
      cleanup: async () => {
        try {
          return await prepared.cleanup();
        } finally {
          await fakes.close();
        }
      },
    };
  } catch (err) {
    await fakes.close();
    throw err;
  }
}

async function prepareBaseline(name: BaselineName, o: IngestOptions, runTag: string): Promise<Prepared> {
  switch (name) {
    case "memory-floor":
      return { spec: { kind: "memory-floor" }, cleanup: async () => null };
    case "redis-floor": {
      await pingRedis(o.redisUrl);
      const namespace = `bench-${runTag}-floor`;
      return {
        spec: { kind: "redis-floor", redisUrl: o.redisUrl, namespace },
        cleanup: () => dropRedisNamespace(o.redisUrl, namespace),
      };
    }
    case "bare":
      return { spec: { kind: "bare" }, cleanup: async () => null };
    case "fastify":
      return { spec: { kind: "fastify" }, cleanup: async () => null };
    case "floor": {
      const dir = await mkdtemp(path.join(os.tmpdir(), "bench-floor-"));
      return {
        spec: { kind: "floor", sqlitePath: path.join(dir, "floor.sqlite") },
        cleanup: async () => {
          await rm(dir, { recursive: true, force: true });
          return `removed ${dir}`;
        },
      };
    }
  }
}

type BotPart = Pick<Extract<TargetSpec, { kind: "bot" }>, "env" | "worker" | "backlog">;

async function prepareBot(
  name: "memory" | "redis" | "sqlite",
  o: IngestOptions,
  runTag: string,
  backlog: number,
  bot: BotPart,
): Promise<Prepared> {
  switch (name) {
    case "memory":
      return { spec: { kind: "bot", store: "memory", ...bot }, cleanup: async () => null };
    case "sqlite": {
      const dir = await mkdtemp(path.join(os.tmpdir(), "bench-sqlite-"));
      return {
        spec: { kind: "bot", store: "sqlite", sqlitePath: path.join(dir, "bot.sqlite"), ...bot },
        cleanup: async () => {
          await rm(dir, { recursive: true, force: true });
          return `removed ${dir}`;
        },
      };
    }
    case "redis": {
      await pingRedis(o.redisUrl);
      const namespace = `bench-${runTag}-b${backlog}`;
      return {
        spec: { kind: "bot", store: "redis", redisUrl: o.redisUrl, namespace, ...bot },
        cleanup: () => dropRedisNamespace(o.redisUrl, namespace),
      };
    }
  }
}

/** Deletes a run's namespace from Redis, checked to be empty; what was done. */
async function dropRedisNamespace(url: string, namespace: string): Promise<string> {
  const { deleted, left } = await dropNamespace(url, namespace);
  if (left > 0) throw new Error(`${left} keys of namespace ${namespace} are left in Redis`);
  return `deleted ${deleted} keys of namespace ${namespace}`;
}

/** Polls until the target's stored count stops moving (writes in flight have landed). */
export async function settledCounts(t: TargetHandle) {
  let last = await t.counts();
  for (let i = 0; i < 50; i++) {
    await new Promise((r) => setTimeout(r, 100));
    const now = await t.counts();
    if (now.stored === last.stored) return now;
    last = now;
  }
  return last;
}

export function check(loads: LoadResult[], stored: number): IngestCheck {
  const sum = (f: (l: LoadResult) => number) => loads.reduce((n, l) => n + f(l), 0);
  const accepted = sum((l) => l.ok2xx);
  const cutOff = sum((l) => l.inFlightAtStop);
  const non2xx = sum((l) => l.non2xx);
  const errors = sum((l) => l.errors);
  const problems: string[] = [];
  if (accepted === 0) problems.push("no delivery was accepted");
  if (stored < accepted) problems.push(`${accepted - stored} deliveries answered 2xx are not stored`);
  if (stored > accepted + cutOff + errors)
    problems.push(
      `${stored - accepted - cutOff - errors} more items stored than deliveries sent and accepted`,
    );
  if (non2xx > 0) {
    const codes: Record<string, number> = {};
    for (const l of loads) for (const [k, v] of Object.entries(l.statusCodes)) codes[k] = (codes[k] ?? 0) + v;
    const other = Object.entries(codes)
      .filter(([k]) => !k.startsWith("2"))
      .map(([k, v]) => `${v}× ${k}`);
    problems.push(`${non2xx} answers were not 2xx (${other.join(", ")})`);
  }
  if (errors > 0) problems.push(`${errors} requests failed (connection errors or timeouts)`);
  return { ok: problems.length === 0, accepted, stored, cutOff, non2xx, errors, problems };
}

const isBot = (name: IngestTargetName) => !isBaseline(name);

async function measure(
  name: IngestTargetName,
  o: IngestOptions,
  runTag: string,
  backlog: number,
): Promise<Omit<IngestTargetResult, "rateVsBare" | "p50VsBare" | "p99VsBare">> {
  const bot = isBot(name);
  const result: Omit<IngestTargetResult, "rateVsBare" | "p50VsBare" | "p99VsBare"> = {
    name,
    label: bot
      ? `${TARGET_LABELS[name]}, worker ${o.worker ? "on" : "off"}, backlog ${backlog.toLocaleString("en")}`
      : TARGET_LABELS[name],
    backlog: bot ? backlog : null,
    worker: bot && o.worker,
    rounds: [],
    spec: null,
    warmup: null,
    run: null,
    check: null,
    rssBytes: null,
    logLines: null,
    serverCpu: null,
    serverUsPerRequest: null,
    profile: null,
    error: null,
    cleanup: null,
  };
  let prepared: Prepared | undefined;
  let target: TargetHandle | undefined;
  try {
    prepared = await prepare(name, o, runTag, backlog);
    result.spec = prepared.spec;
    if (backlog > 0) o.log(`  ${name}: storing ${backlog} waiting videos before the load…`);
    target = await startTarget(prepared.spec, { readyTimeoutMs: 330_000 });
    const gen = deliveryGenerator(
      target.ownerId,
      `${runTag}${name.slice(0, 1)}`,
      Date.now(),
      prepared.onVideo,
    );
    const common = { url: target.url, path: target.path, connections: o.connections, body: gen.body };
    o.log(`  ${name}: warm-up ${o.warmupS} s, then ${o.durationS} s with ${o.connections} connections…`);
    result.warmup = await runLoad({
      ...common,
      durationS: o.warmupS,
      startIndex: 0,
      title: `${name} warm-up`,
    });
    if (o.profileDir !== undefined) await target.startProfile();
    const loads: LoadResult[] = [result.warmup];
    let next = result.warmup.nextIndex;
    let cpuUs = 0;
    let answered = 0;
    let seconds = 0;
    for (let r = 0; r < Math.max(1, o.rounds); r++) {
      const before = await target.counts();
      const run = await runLoad({ ...common, durationS: o.durationS, startIndex: next, title: name });
      // Read at once: the CPU of writes still settling (a few ms) is noise; a profile's is not.
      const after = await target.counts();
      next = run.nextIndex;
      loads.push(run);
      result.run ??= run;
      const cpu = after.cpuUs - before.cpuUs;
      cpuUs += cpu;
      answered += run.answered;
      seconds += run.durationS;
      result.rounds.push({
        answered: run.answered,
        cpuUs: cpu,
        usPerDelivery: run.answered > 0 ? cpu / run.answered : null,
        scheduledAfter: after.scheduled ?? null,
      });
    }
    const run = result.run;
    if (!run) throw new Error("no measured run");
    result.serverCpu = cpuUs / 1e6 / seconds;
    result.serverUsPerRequest = answered > 0 ? cpuUs / answered : null;
    if (o.profileDir !== undefined) {
      const file = await target.stopProfile(path.join(o.profileDir, `ingest-${name}.cpuprofile`));
      result.profile = await summarizeProfile(file, answered);
    }
    const counts = await settledCounts(target);
    result.rssBytes = counts.rssBytes;
    result.logLines = counts.logLines;
    result.check = check(loads, counts.stored);
    o.log(
      `    ${Math.round(run.okPerSecond)} deliveries/s, p99 ${run.latencyMs.p99.toFixed(1)} ms, ` +
        `µs/delivery by round ${result.rounds.map((r) => Math.round(r.usPerDelivery ?? 0)).join(" → ")}, ` +
        `stored ${counts.stored} for ${result.check.accepted} accepted: ${result.check.ok ? "ok" : result.check.problems.join("; ")}`,
    );
  } catch (err) {
    result.error = err instanceof Error ? err.message : String(err);
  } finally {
    await target?.close();
    if (prepared) {
      try {
        result.cleanup = await prepared.cleanup();
      } catch (err) {
        const message = `clean-up failed: ${err instanceof Error ? err.message : String(err)}`;
        result.error = result.error ? `${result.error}; ${message}` : message;
      }
    }
  }
  return result;
}

export async function runIngest(o: IngestOptions): Promise<IngestResult> {
  const runTag = `${Date.now().toString(36)}${randomBytes(2).toString("hex")}`;
  const measured: Array<Omit<IngestTargetResult, "rateVsBare" | "p50VsBare" | "p99VsBare">> = [];
  for (const name of o.targets) {
    measured.push(await measure(name, o, runTag, 0));
    if (isBot(name) && o.backlog > 0) measured.push(await measure(name, o, runTag, o.backlog));
  }
  const bare = measured.find((m) => m.name === "bare" && m.run && !m.error)?.run ?? null;
  const ratio = (a: number | undefined, b: number | undefined) =>
    a !== undefined && b !== undefined && Number.isFinite(a) && Number.isFinite(b) && b > 0 ? a / b : null;
  return {
    connections: o.connections,
    durationS: o.durationS,
    warmupS: o.warmupS,
    rounds: Math.max(1, o.rounds),
    backlog: o.backlog,
    worker: o.worker,
    body: "a different valid delivery per request: the 36 events of a video lifecycle in turn, a new video every 36, unique timestamps",
    targets: measured.map((m) => ({
      ...m,
      rateVsBare: ratio(m.run?.okPerSecond, bare?.okPerSecond),
      p50VsBare: ratio(m.run?.latencyMs.p50, bare?.latencyMs.p50),
      p99VsBare: ratio(m.run?.latencyMs.p99, bare?.latencyMs.p99),
    })),
  };
}
