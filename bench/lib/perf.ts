/**
 * Where a target's CPU goes, read by Linux perf: `perf record -g` on the running process, sampled
 * on its CPU clock (a thread is sampled only while it runs), its JavaScript named through V8's
 * `--perf-basic-prof` map. Unlike a V8 CPU profile (profile.ts), which samples wall time on the
 * main thread, this counts every thread (GC helpers, the thread pool's disk syncs) and the kernel
 * (syscalls, waking the sender, context switches), and nothing while the process waits for a CPU:
 * the same time the /proc figures count. Linux only, with perf installed and allowed.
 */
import { execFile, execFileSync, spawn } from "node:child_process";
import { stat } from "node:fs/promises";
import { promisify } from "node:util";

const run = promisify(execFile);

/** Samples per second of CPU time. */
const FREQUENCY = 1999;

export interface PerfShare {
  name: string;
  share: number;
}

export interface PerfSummary {
  file: string;
  samples: number;
  /** CPU µs per answered request (samples / frequency / answered). */
  usPerRequest: number | null;
  /** Self time by where the code is: the kernel, V8 and Node's C++, JIT-compiled JavaScript, libc… */
  byWhere: PerfShare[];
  /** The project's functions and a few landmarks of Node, each with what it calls (inclusive). */
  inclusive: PerfShare[];
}

/** Whether `perf record` can run here (installed, and allowed on this user's processes). */
export function perfAvailable(): boolean {
  if (process.platform !== "linux") return false;
  try {
    execFileSync("perf", ["record", "-q", "-o", "/dev/null", "--", "true"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

/**
 * Records `pid` into `file` until the returned stop() (SIGINT, as perf expects); resolves once perf
 * has attached (it has written its file's header), so that the load that follows is all recorded.
 */
export async function recordPerf(pid: number, file: string): Promise<{ stop(): Promise<void> }> {
  const child = spawn(
    "perf",
    ["record", "-q", "-F", String(FREQUENCY), "-g", "-p", String(pid), "-o", file],
    {
      stdio: "ignore",
    },
  );
  const exited = new Promise<void>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", () => resolve());
  });
  const deadline = Date.now() + 10_000;
  while (((await stat(file).catch(() => null))?.size ?? 0) === 0) {
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`perf record did not attach to ${pid} within 10 s`);
    }
    await Promise.race([exited, new Promise((r) => setTimeout(r, 50))]);
    if (child.exitCode !== null) throw new Error(`perf record exited (${child.exitCode}) before attaching`);
  }
  // Attached: its header is written before the first sample.
  await new Promise((r) => setTimeout(r, 200));
  return {
    async stop() {
      child.kill("SIGINT");
      await exited;
    },
  };
}

/** Landmarks of Node shown beside the project's own functions. */
const LANDMARKS: Array<[RegExp, string]> = [
  [/^JS:\S* ?end node:_http_outgoing/, "the response write (node:http end)"],
  [/^JS:\S*parserOnHeadersComplete /, "a request's start (node:http, up to the route)"],
  [/^uv__run_timers$/, "timers (the worker's passes, timeouts)"],
];
const OWN = /file:\/\/\/.*?\/((?:src|bench\/targets)\/[^:]+)/;

function whereOf(sym: string, dso: string): string {
  if (dso === "[kernel.kallsyms]") return "kernel";
  if (dso.startsWith("[JIT]") || /\/perf-\d+\.map$/.test(dso)) return "JavaScript (JIT)";
  if (/\/node$/.test(dso) || dso.endsWith("/node]")) {
    if (/Scaveng|Marking|Sweep|Evacuat|Compact|MarkCompact|GCTracer|Heap::|MemoryAllocator/.test(sym))
      return "V8: garbage collection";
    if (sym.startsWith("Builtins_")) return "V8: builtins (property access, calls, promises, strings)";
    return "V8 and Node: C++ (the HTTP parser, streams, crypto, JSON…)";
  }
  if (/better_sqlite3\.node$/.test(dso)) return "sqlite (better-sqlite3's library)";
  if (/libc\.so|libc-/.test(dso)) return "libc";
  return "other libraries";
}

function frameName(sym: string): string | null {
  const own = OWN.exec(sym);
  if (own) {
    const fn = /^JS:[*^~]?(\S*)/.exec(sym)?.[1] || "(anonymous)";
    return `${fn}  ${own[1]}`;
  }
  for (const [pattern, label] of LANDMARKS) if (pattern.test(sym)) return label;
  return null;
}

/** Reads `file` (perf script) into the summary; `answered`: requests answered while recording. */
export async function summarizePerf(file: string, answered: number): Promise<PerfSummary> {
  const { stdout } = await run("perf", ["script", "-i", file, "-F", "ip,sym,dso"], {
    maxBuffer: 1 << 30,
  });
  const where = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let samples = 0;
  let leaf = true;
  const onStack = new Set<string>();
  const endSample = () => {
    for (const name of onStack) inclusive.set(name, (inclusive.get(name) ?? 0) + 1);
    onStack.clear();
    leaf = true;
  };
  for (const line of stdout.split("\n")) {
    const m = /^\s*[0-9a-f]+\s+(.*?)\s+\(([^)]*)\)\s*$/.exec(line);
    if (!m) {
      if (!leaf) endSample();
      continue;
    }
    const [, rawSym = "", dso = ""] = m;
    const sym = rawSym.replace(/\+0x[0-9a-f]+$/, "");
    if (leaf) {
      samples++;
      const w = whereOf(sym, dso);
      where.set(w, (where.get(w) ?? 0) + 1);
      leaf = false;
    }
    const name = frameName(sym);
    if (name) onStack.add(name);
  }
  if (!leaf) endSample();
  const shares = (m: Map<string, number>) =>
    [...m.entries()]
      .map(([name, n]) => ({ name, share: samples > 0 ? n / samples : 0 }))
      .sort((a, b) => b.share - a.share);
  return {
    file,
    samples,
    usPerRequest: answered > 0 ? ((samples / FREQUENCY) * 1e6) / answered : null,
    byWhere: shares(where),
    inclusive: shares(inclusive),
  };
}
