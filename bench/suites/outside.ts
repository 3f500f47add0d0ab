/**
 * CPU per delivery, measured from outside: the same fixed rate of deliveries (autocannon's
 * overallRate, from this runner process) against bare node:http and the bot on each store, all
 * started at once, each in its own process; the rounds go round the targets in turn, so drift in
 * the machine's load touches them alike. A server's CPU is read from /proc/<pid>/stat (utime +
 * stime, clock ticks) before and after each round, not asked of the process itself, and divided
 * by the deliveries it answered. The bot runs its worker, as users run it. Linux only.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import path from "node:path";
import { deliveryGenerator } from "../lib/deliveries.js";
import { type LoadResult, runLoad } from "../lib/load.js";
import { type PerfSummary, recordPerf, summarizePerf } from "../lib/perf.js";
import { type ProfileSummary, summarizeProfile } from "../lib/profile.js";
import { startTarget, type TargetHandle } from "../lib/target.js";
import {
  check,
  INGEST_TARGETS,
  type IngestCheck,
  type IngestOptions,
  type IngestTargetName,
  type Prepared,
  prepare,
  settledCounts,
  TARGET_LABELS,
} from "./ingest.js";

/** The ingest suite's targets but fastify (a framework's cost is the ingest suite's question). */
export type OutsideTargetName = Exclude<IngestTargetName, "fastify">;
export const OUTSIDE_TARGETS: readonly OutsideTargetName[] = INGEST_TARGETS.filter(
  (t): t is OutsideTargetName => t !== "fastify",
);
type BotStore = "memory" | "redis" | "sqlite";

/** Each store's floor (bench/targets/floor.ts): the least a receiver keeping what the bot keeps does. */
export const FLOOR_OF: Record<BotStore, "floor" | "memory-floor" | "redis-floor"> = {
  memory: "memory-floor",
  redis: "redis-floor",
  sqlite: "floor",
};
export const isBotStore = (name: string): name is BotStore => Object.hasOwn(FLOOR_OF, name);

export interface OutsideOptions {
  targets: readonly OutsideTargetName[];
  /** Deliveries per second, every target alike. */
  rate: number;
  connections: number;
  durationS: number;
  warmupS: number;
  rounds: number;
  redisUrl: string;
  /**
   * The bot's worker on, as users run it (the goals are about that); off (`--no-worker`), the
   * route alone: the difference is what the worker costs a delivery.
   */
  worker: boolean;
  /**
   * CPU-profile each target in one more round after the measured ones (a profile's sampling
   * costs CPU of its own, so that round is not counted), written to this folder.
   */
  profileDir?: string;
  /**
   * Records each target with Linux perf in one more round (not counted), written to this folder
   * (bench/lib/perf.ts): the targets start with --perf-basic-prof, so their JavaScript is named.
   */
  perfDir?: string;
  log: (line: string) => void;
}

export interface OutsideTargetResult {
  name: OutsideTargetName;
  label: string;
  /** CPU ticks (user + system, and the system part) of the server process per round, and deliveries answered. */
  rounds: Array<{ ticks: number; systemTicks: number; answered: number; usPerDelivery: number | null }>;
  /**
   * CPU µs per answered delivery: the median of the rounds' (one round caught by a burst of the
   * machine's own work, a disk flush or another process, moves a sum and not a median).
   */
  usPerDelivery: number | null;
  /** Of which in the kernel (stime: syscalls, the disk syncs), the median of the rounds. */
  systemUsPerDelivery: number | null;
  /** Deliveries answered per second over the rounds (should be the rate). */
  answeredPerSecond: number | null;
  p99Ms: number | null;
  /**
   * Its CPU per delivery over bare's: the median of the rounds' ratios, each round's two figures
   * taken a few seconds apart (the machine's drift touches both alike).
   */
  vsBare: number | null;
  /** A bot target's: the same over its store's floor's (FLOOR_OF); null for the baselines. */
  vsFloor: number | null;
  check: IngestCheck | null;
  /** Where its CPU went during the profiled round (with profileDir). */
  profile: ProfileSummary | null;
  /** Where its CPU went by perf, in one more round (with perfDir). */
  perf: PerfSummary | null;
  error: string | null;
}

export interface OutsideResult {
  /** Whether the servers ran on core 0 and the load on core 1 (taskset, 2 cores or more). */
  pinned: boolean;
  /** The bot targets' worker was on. */
  worker: boolean;
  rate: number;
  connections: number;
  durationS: number;
  rounds: number;
  clockTicksPerSecond: number;
  targets: OutsideTargetResult[];
}

function clockTicks(): number {
  try {
    const n = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());
    return Number.isFinite(n) && n > 0 ? n : 100;
  } catch {
    return 100;
  }
}

/** CPU lists for taskset: the servers', the load's, and all (to undo); null when it cannot pin. */
function pinning(): { server: string; load: string; all: string } | null {
  const cores = availableParallelism();
  if (process.platform !== "linux" || cores < 2) return null;
  try {
    execFileSync("taskset", ["-p", String(process.pid)], { stdio: "ignore" });
  } catch {
    return null;
  }
  return { server: "0", load: "1", all: `0-${cores - 1}` };
}

/** Every thread of `pid` on the cores of `list` (new threads inherit it). */
function pinTo(pid: number, list: string): void {
  execFileSync("taskset", ["-a", "-cp", list, String(pid)], { stdio: "ignore" });
}

/** utime and stime of a process, in clock ticks (fields 14 and 15 of /proc/<pid>/stat). */
export function processTicks(pid: number): { user: number; system: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // The command name (field 2) is in parentheses and may hold spaces: count from after it.
  const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { user: Number(rest[11]), system: Number(rest[12]) };
}

interface Running {
  name: OutsideTargetName;
  prepared: Prepared;
  target: TargetHandle;
  body: (i: number) => string;
  next: number;
  loads: LoadResult[];
  result: OutsideTargetResult;
}

export async function runOutside(o: OutsideOptions): Promise<OutsideResult> {
  const hz = clockTicks();
  const runTag = `${Date.now().toString(36)}${randomBytes(2).toString("hex")}o`;
  const ingestOpts: IngestOptions = {
    targets: [],
    connections: o.connections,
    durationS: o.durationS,
    warmupS: o.warmupS,
    redisUrl: o.redisUrl,
    backlog: 0,
    rounds: o.rounds,
    worker: o.worker,
    log: o.log,
  };
  const running: Running[] = [];
  const failed: OutsideTargetResult[] = [];
  // The servers on one core, this runner (the load) on another: as when deliveries come over the
  // network, the sender never runs on the server's core, and waking it never preempts the server
  // (unpinned, the bot's response writes cost up to 2× bare's in context switches alone).
  const pin = pinning();
  if (pin) pinTo(process.pid, pin.load);
  const blank = (name: OutsideTargetName): OutsideTargetResult => ({
    name,
    label: !isBotStore(name)
      ? TARGET_LABELS[name]
      : `${TARGET_LABELS[name]}, worker ${o.worker ? "on" : "off"}`,
    rounds: [],
    usPerDelivery: null,
    systemUsPerDelivery: null,
    answeredPerSecond: null,
    p99Ms: null,
    vsBare: null,
    vsFloor: null,
    check: null,
    profile: null,
    perf: null,
    error: null,
  });
  try {
    for (const name of o.targets) {
      const result = blank(name);
      let prepared: Prepared | undefined;
      try {
        prepared = await prepare(name, ingestOpts, runTag, 0);
        const target = await startTarget(prepared.spec, {
          readyTimeoutMs: 60_000,
          ...(o.perfDir !== undefined ? { execArgv: ["--perf-basic-prof"] } : {}),
        });
        const gen = deliveryGenerator(
          target.ownerId,
          `${runTag}${name.slice(0, 1)}`,
          Date.now(),
          prepared.onVideo,
        );
        if (pin) pinTo(target.pid, pin.server);
        running.push({ name, prepared, target, body: gen.body, next: 0, loads: [], result });
      } catch (err) {
        result.error = err instanceof Error ? err.message : String(err);
        failed.push(result);
        await prepared?.cleanup().catch(() => null);
      }
    }
    const load = async (r: Running, durationS: number) => {
      const run = await runLoad({
        url: r.target.url,
        path: r.target.path,
        connections: o.connections,
        durationS,
        overallRate: o.rate,
        body: r.body,
        startIndex: r.next,
        title: `${r.name} at ${o.rate}/s`,
      });
      r.next = run.nextIndex;
      r.loads.push(run);
      return run;
    };
    // At least 6 s each: at a fixed rate fewer requests leave the JIT, the heap's growth and the
    // page cache unsettled (with 3 s every target's first round cost 1.3–1.8× its later ones).
    const warmupS = Math.max(6, o.warmupS);
    o.log(`  warm-up ${warmupS} s each at ${o.rate}/s, then one round not counted…`);
    for (const r of running) await load(r, warmupS);
    // Then one round in turn, as the measured ones go, not counted: after the warm-ups the first
    // round still cost every target, bare included, 1.2–2.2× its third (bare 128 → 102 → 57 µs
    // with 20 s warm-ups), whatever the warm-up's length; the rounds after it agree.
    for (const r of running) await load(r, o.durationS);
    for (let round = 0; round < Math.max(1, o.rounds); round++) {
      // Each round starts with the next target: none always runs first.
      for (let k = 0; k < running.length; k++) {
        const r = running[(round + k) % running.length] as Running;
        try {
          const before = processTicks(r.target.pid);
          const run = await load(r, o.durationS);
          const after = processTicks(r.target.pid);
          const systemTicks = after.system - before.system;
          const ticks = after.user - before.user + systemTicks;
          r.result.rounds.push({
            ticks,
            systemTicks,
            answered: run.answered,
            usPerDelivery: run.answered > 0 ? (ticks / hz) * 1e6 * (1 / run.answered) : null,
          });
        } catch (err) {
          r.result.error ??= err instanceof Error ? err.message : String(err);
        }
      }
      o.log(
        `  round ${round + 1}: ${running.map((r) => `${r.name} ${fmt(r.result.rounds.at(-1))}`).join(", ")}`,
      );
    }
    if (o.profileDir !== undefined) {
      for (const r of running) {
        try {
          await r.target.startProfile();
          const run = await load(r, o.durationS);
          const file = await r.target.stopProfile(path.join(o.profileDir, `outside-${r.name}.cpuprofile`));
          r.result.profile = await summarizeProfile(file, run.answered);
        } catch (err) {
          r.result.error ??= err instanceof Error ? err.message : String(err);
        }
      }
    }
    if (o.perfDir !== undefined) {
      for (const r of running) {
        try {
          const file = path.join(o.perfDir, `outside-${r.name}.perf.data`);
          const recording = await recordPerf(r.target.pid, file);
          const run = await load(r, o.durationS);
          await recording.stop();
          r.result.perf = await summarizePerf(file, run.answered);
        } catch (err) {
          r.result.error ??= err instanceof Error ? err.message : String(err);
        }
      }
    }
    for (const r of running) {
      try {
        const counts = await settledCounts(r.target);
        r.result.check = check(r.loads, counts.stored);
      } catch (err) {
        r.result.error ??= err instanceof Error ? err.message : String(err);
      }
      const answered = r.result.rounds.reduce((n, x) => n + x.answered, 0);
      // The measured rounds' loads: after the warm-up and the round not counted, before the
      // profiled round.
      const measured = r.loads.slice(2, 2 + r.result.rounds.length);
      const seconds = measured.reduce((n, l) => n + l.durationS, 0);
      r.result.usPerDelivery = median(
        r.result.rounds.flatMap((x) => (x.usPerDelivery === null ? [] : [x.usPerDelivery])),
      );
      r.result.systemUsPerDelivery = median(
        r.result.rounds.flatMap((x) => (x.answered > 0 ? [((x.systemTicks / hz) * 1e6) / x.answered] : [])),
      );
      r.result.answeredPerSecond = seconds > 0 ? answered / seconds : null;
      r.result.p99Ms = measured.length > 0 ? Math.max(...measured.map((l) => l.latencyMs.p99)) : null;
    }
  } finally {
    if (pin) pinTo(process.pid, pin.all);
    for (const r of running) {
      await r.target.close();
      try {
        await r.prepared.cleanup();
      } catch (err) {
        const message = `clean-up failed: ${err instanceof Error ? err.message : String(err)}`;
        r.result.error = r.result.error ? `${r.result.error}; ${message}` : message;
      }
    }
  }
  const all = [...running.map((r) => r.result), ...failed];
  const bare = all.find((t) => t.name === "bare");
  for (const t of all) {
    t.vsBare = bare ? pairedRatio(t, bare) : null;
    const floor = isBotStore(t.name) ? all.find((f) => f.name === FLOOR_OF[t.name as BotStore]) : undefined;
    t.vsFloor = floor ? pairedRatio(t, floor) : null;
  }
  return {
    pinned: pin !== null,
    worker: o.worker,
    rate: o.rate,
    connections: o.connections,
    durationS: o.durationS,
    rounds: Math.max(1, o.rounds),
    clockTicksPerSecond: hz,
    targets: o.targets.flatMap((name) => all.filter((t) => t.name === name)),
  };
}

/** The median over rounds of `t`'s CPU per delivery over `base`'s in the same round. */
export function pairedRatio(t: OutsideTargetResult, base: OutsideTargetResult): number | null {
  const ratios: number[] = [];
  for (const [i, r] of t.rounds.entries()) {
    const b = base.rounds[i]?.usPerDelivery;
    if (r.usPerDelivery !== null && b) ratios.push(r.usPerDelivery / b);
  }
  return median(ratios);
}

/** The median of `xs` (the mean of the middle two for an even count); null when empty. */
export function median(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  const sorted = [...xs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

function fmt(r: { usPerDelivery: number | null } | undefined): string {
  return r?.usPerDelivery == null ? "–" : `${Math.round(r.usPerDelivery)} µs`;
}

/**
 * The goal per store, at the same fixed rate: CPU per delivery vs what keeps as much (`vs`). The
 * memory and Redis stores against bare node:http (nothing is as cheap as keeping nothing); sqlite
 * against the durable floor, which keeps the same on the same disk. Each store's floor is measured
 * beside it in the same run (FLOOR_OF), and its own figure vs bare says how much of a goal against
 * bare the least receiver already takes.
 */
export const OUTSIDE_GOALS: Record<BotStore, { vs: "bare" | "floor"; limit: number }> = {
  memory: { vs: "bare", limit: 1.5 },
  redis: { vs: "bare", limit: 2 },
  sqlite: { vs: "floor", limit: 1.3 },
};
