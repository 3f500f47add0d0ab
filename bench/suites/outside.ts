/**
 * CPU per delivery measured from outside: each target in its own fresh process (bare node:http,
 * then the bot with the memory, Redis and sqlite stores, worker on, nothing waiting) takes the SAME
 * fixed rate of deliveries from a load client in another process (bench/lib/rate-client.ts), and
 * its CPU is read from the kernel (/proc/<pid>/stat: user + system time of every thread), not
 * from the process's own counters. µs per delivery = that CPU / deliveries answered 2xx, per
 * round; ratios are to the bare server at the same rate. At a fixed rate below saturation the bare
 * server pays its full per-request cost too, which is what a deployment sees.
 */
import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { type RateResult, sendAtRate } from "../lib/rate-client.js";
import { startTarget, type TargetHandle } from "../lib/target.js";
import { type IngestTargetName, type Prepared, prepare, settledCounts, TARGET_LABELS } from "./ingest.js";

export const OUTSIDE_TARGETS = ["bare", "memory", "redis", "sqlite"] as const;

export interface OutsideOptions {
  targets: readonly IngestTargetName[];
  /** Deliveries per second, the same for every target. */
  rate: number;
  durationS: number;
  warmupS: number;
  rounds: number;
  connections: number;
  redisUrl: string;
  log: (line: string) => void;
}

export interface OutsideRound {
  ok2xx: number;
  other: number;
  cpuUs: number;
  usPerDelivery: number | null;
  p99Ms: number;
}

export interface OutsideTarget {
  name: IngestTargetName;
  label: string;
  rounds: OutsideRound[];
  /** CPU over all rounds / deliveries answered 2xx over all rounds. */
  usPerDelivery: number | null;
  /** usPerDelivery / the bare server's. */
  vsBare: number | null;
  /** Items the target holds afterwards vs deliveries it answered 2xx (bot targets). */
  stored: number | null;
  accepted: number;
  problems: string[];
  error: string | null;
}

export interface OutsideResult {
  rate: number;
  durationS: number;
  rounds: number;
  clockTicksPerSecond: number;
  targets: OutsideTarget[];
}

function clockTicks(): number {
  try {
    const n = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());
    return Number.isFinite(n) && n > 0 ? n : 100;
  } catch {
    return 100;
  }
}

/** User + system CPU of a process and all its threads, from the kernel, in µs. */
export function processCpuUs(pid: number, ticksPerSecond: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name (which may hold spaces) start at its closing parenthesis.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return ((utime + stime) * 1e6) / ticksPerSecond;
}

async function measure(
  name: IngestTargetName,
  opts: OutsideOptions,
  runTag: string,
  ticks: number,
): Promise<OutsideTarget> {
  const result: OutsideTarget = {
    name,
    label: name === "bare" ? TARGET_LABELS[name] : `${TARGET_LABELS[name]}, worker on`,
    rounds: [],
    usPerDelivery: null,
    vsBare: null,
    stored: null,
    accepted: 0,
    problems: [],
    error: null,
  };
  let prepared: Prepared | undefined;
  let target: TargetHandle | undefined;
  try {
    prepared = await prepare(name, { worker: true, redisUrl: opts.redisUrl }, runTag, 0);
    target = await startTarget(prepared.spec, { readyTimeoutMs: 60_000 });
    const job = {
      url: target.url,
      path: target.path,
      ownerId: target.ownerId,
      runTag: `${runTag}${name.slice(0, 1)}o`,
      baseTimestamp: Date.now(),
      rate: opts.rate,
      connections: opts.connections,
    };
    opts.log(
      `  ${name}: ${opts.rate}/s, warm-up ${opts.warmupS} s, then ${opts.rounds} × ${opts.durationS} s…`,
    );
    const runs: RateResult[] = [await sendAtRate({ ...job, durationS: opts.warmupS, startIndex: 0 })];
    let next = runs[0]?.nextIndex ?? 0;
    for (let r = 0; r < Math.max(1, opts.rounds); r++) {
      const before = processCpuUs(target.pid, ticks);
      const run = await sendAtRate({ ...job, durationS: opts.durationS, startIndex: next });
      const cpuUs = processCpuUs(target.pid, ticks) - before;
      next = run.nextIndex;
      runs.push(run);
      result.rounds.push({
        ok2xx: run.ok2xx,
        other: run.other,
        cpuUs,
        usPerDelivery: run.ok2xx > 0 ? cpuUs / run.ok2xx : null,
        p99Ms: run.latencyMs.p99,
      });
    }
    const cpu = result.rounds.reduce((n, r) => n + r.cpuUs, 0);
    const ok = result.rounds.reduce((n, r) => n + r.ok2xx, 0);
    result.usPerDelivery = ok > 0 ? cpu / ok : null;
    result.accepted = runs.reduce((n, r) => n + r.ok2xx, 0);
    const other = runs.reduce((n, r) => n + r.other, 0);
    if (other > 0) result.problems.push(`${other} deliveries not answered 2xx`);
    const counts = await settledCounts(target);
    if (name !== "bare") {
      result.stored = counts.stored;
      if (counts.stored !== result.accepted)
        result.problems.push(`${result.accepted} answered 2xx, ${counts.stored} stored`);
    }
    opts.log(
      `    µs/delivery by round ${result.rounds.map((r) => Math.round(r.usPerDelivery ?? 0)).join(" → ")}` +
        `${result.problems.length ? `; ${result.problems.join("; ")}` : ""}`,
    );
  } catch (err) {
    result.error = err instanceof Error ? err.message : String(err);
  } finally {
    await target?.close();
    if (prepared) await prepared.cleanup().catch(() => null);
  }
  return result;
}

export async function runOutside(opts: OutsideOptions): Promise<OutsideResult> {
  const runTag = `${Date.now().toString(36)}${randomBytes(2).toString("hex")}`;
  const ticks = clockTicks();
  const targets: OutsideTarget[] = [];
  for (const name of opts.targets) targets.push(await measure(name, opts, runTag, ticks));
  const bare = targets.find((t) => t.name === "bare" && !t.error)?.usPerDelivery ?? null;
  for (const t of targets)
    t.vsBare = bare !== null && bare > 0 && t.usPerDelivery !== null ? t.usPerDelivery / bare : null;
  return {
    rate: opts.rate,
    durationS: opts.durationS,
    rounds: Math.max(1, opts.rounds),
    clockTicksPerSecond: ticks,
    targets,
  };
}
