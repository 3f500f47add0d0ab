/**
 * `npm run bench`: the bot's performance, measured side by side in one run on this machine.
 *
 *   1. Webhook ingest: deliveries/s and p50/p99 latency of POST /hooks/platform/<token> for the bot
 *      with each store, against a bare node:http server (autocannon, same load for all).
 *   2. Slack calls for one video lifecycle, against one post per event.
 *
 * Prints the machine, the tables and any failed check; writes everything as JSON to
 * bench/results/latest.json (git-ignored). Exit code 0 when every run passed its checks, 1 with
 * the reasons otherwise. Everything listens on 127.0.0.1 and is closed (and cleaned) at the end.
 *
 *   npm run bench -- --targets bare,memory --duration 10 --connections 50 --profile
 */
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { type MachineInfo, machineInfo } from "./lib/machine.js";
import type { ProfileSummary } from "./lib/profile.js";
import { int, mib, ms, pct, table, times } from "./lib/table.js";
import { INGEST_TARGETS, type IngestResult, type IngestTargetName, runIngest } from "./suites/ingest.js";
import { type LifecycleResult, runLifecycle } from "./suites/lifecycle.js";

const SUITES = ["ingest", "lifecycle"] as const;
type Suite = (typeof SUITES)[number];

const HELP = `npm run bench [-- options]

  --targets LIST      ingest targets, comma-separated (default ${INGEST_TARGETS.join(",")})
  --only LIST         suites to run: ${SUITES.join(",")} (default both)
  --connections N     autocannon connections (default 10)
  --duration S        measured seconds per target (default 5)
  --warmup S          warm-up seconds per target, not measured (default 1)
  --redis-url URL     Redis for the redis target (default $BENCH_REDIS_URL or redis://127.0.0.1:6379)
  --profile           CPU-profile each bot target during its measured run; prints where the time goes
                      and keeps the .cpuprofile files (open them in Chrome DevTools)
  --out FILE          JSON results (default bench/results/latest.json)
`;

const RESULTS_DIR = fileURLToPath(new URL("./results/", import.meta.url));

interface Options {
  targets: IngestTargetName[];
  suites: Suite[];
  connections: number;
  durationS: number;
  warmupS: number;
  redisUrl: string;
  profile: boolean;
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
      "redis-url": { type: "string" },
      profile: { type: "boolean" },
      out: { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) return null;
  return {
    targets: listOf(values.targets ?? INGEST_TARGETS.join(","), INGEST_TARGETS, "target"),
    suites: listOf(values.only ?? SUITES.join(","), SUITES, "suite"),
    connections: Math.round(positive(values.connections ?? "10", "connections", 1000)),
    durationS: positive(values.duration ?? "5", "duration", 600),
    warmupS: positive(values.warmup ?? "1", "warmup", 60),
    redisUrl: values["redis-url"] ?? process.env.BENCH_REDIS_URL ?? "redis://127.0.0.1:6379",
    profile: values.profile ?? false,
    out: values.out ?? path.join(RESULTS_DIR, "latest.json"),
  };
}

interface Report {
  version: 1;
  startedAt: string;
  finishedAt: string;
  elapsedS: number;
  machine: MachineInfo;
  options: Omit<Options, "out">;
  ingest: IngestResult | null;
  lifecycle: LifecycleResult | null;
  failures: string[];
  ok: boolean;
}

function ingestTable(r: IngestResult): string {
  const rows = r.targets.map((t) => {
    if (t.error || !t.run) return [t.label, "failed", ...Array.from({ length: 12 }, () => "")];
    const c = t.check;
    return [
      t.label,
      int(t.run.okPerSecond),
      pct(t.rateVsBare),
      ms(t.run.latencyMs.p50),
      ms(t.run.latencyMs.p99),
      times(t.p99VsBare),
      int(c?.accepted),
      int(c?.stored),
      int((c?.non2xx ?? 0) + (c?.errors ?? 0)),
      pct(t.serverCpu),
      int(t.serverUsPerRequest),
      pct(t.run.clientCpu),
      mib(t.rssBytes),
      c?.ok ? "ok" : "FAILED",
    ];
  });
  return table(
    [
      { header: "target" },
      { header: "deliveries/s", align: "right" },
      { header: "vs bare", align: "right" },
      { header: "p50 ms", align: "right" },
      { header: "p99 ms", align: "right" },
      { header: "p99 vs bare", align: "right" },
      { header: "2xx", align: "right" },
      { header: "stored", align: "right" },
      { header: "non-2xx/err", align: "right" },
      { header: "server CPU", align: "right" },
      { header: "µs/req", align: "right" },
      { header: "client CPU", align: "right" },
      { header: "RSS MiB", align: "right" },
      { header: "check" },
    ],
    rows,
  );
}

function lifecycleTable(l: LifecycleResult): string {
  const saved = 1 - l.slackWrites / l.naiveCalls;
  return table(
    [{ header: "Slack calls for one lifecycle" }, { header: "count", align: "right" }],
    [
      ["chat.postMessage, parent", String(l.parentPosts)],
      ["chat.postMessage, thread (milestones)", String(l.threadPosts)],
      ["chat.update (parent in place)", String(l.updates)],
      ["total writes", String(l.slackWrites)],
      [`naive: one post per event`, String(l.naiveCalls)],
      ["writes saved", pct(saved)],
    ],
  );
}

function profileText(name: string, p: ProfileSummary): string {
  const perReq =
    p.busyUsPerRequest === null ? "" : `, ${p.busyUsPerRequest.toFixed(0)} µs of CPU per request`;
  const lines = [
    `Profile of ${name} during its measured run: busy ${Math.round(p.busyMs)} ms of ${Math.round(p.wallMs)} ms${perReq}`,
    table(
      [{ header: "self time by origin" }, { header: "share", align: "right" }],
      p.byOrigin.map((s) => [s.name, pct(s.share)]),
    ),
    table(
      [{ header: "self time by function" }, { header: "share", align: "right" }],
      p.byFunction.slice(0, 10).map((s) => [s.name, pct(s.share)]),
    ),
    table(
      [
        { header: "including callees: own code, and the response write" },
        { header: "share", align: "right" },
      ],
      p.inclusive.slice(0, 12).map((s) => [s.name, pct(s.share)]),
    ),
    `(${p.file})`,
  ];
  return lines.join("\n");
}

function machineLine(m: MachineInfo): string {
  return `machine: ${m.cpuModel}, ${m.cores} cores, ${m.memoryGiB} GiB, node ${m.node}, ${m.platform}, load ${m.loadAverage1m}`;
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
  let lifecycle: LifecycleResult | null = null;
  let profileDir: string | undefined;
  if (opts.profile) profileDir = await mkdtemp(path.join(os.tmpdir(), "bench-profile-"));

  if (opts.suites.includes("ingest") && opts.targets.length > 0) {
    log(`\nwebhook ingest (${opts.targets.join(", ")})`);
    ingest = await runIngest({
      targets: opts.targets,
      connections: opts.connections,
      durationS: opts.durationS,
      warmupS: opts.warmupS,
      redisUrl: opts.redisUrl,
      log,
      ...(profileDir ? { profileDir } : {}),
    });
    for (const t of ingest.targets) {
      if (t.error) failures.push(`ingest ${t.name}: ${t.error}`);
      for (const p of t.check?.problems ?? []) failures.push(`ingest ${t.name}: ${p}`);
    }
  }
  if (opts.suites.includes("lifecycle")) {
    log("\nSlack calls per lifecycle");
    try {
      lifecycle = await runLifecycle(log);
      for (const p of lifecycle.problems) failures.push(`lifecycle: ${p}`);
    } catch (err) {
      failures.push(`lifecycle: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  const finished = new Date();
  const { out, ...kept } = opts;
  const report: Report = {
    version: 1,
    startedAt: started.toISOString(),
    finishedAt: finished.toISOString(),
    elapsedS: Math.round((finished.getTime() - started.getTime()) / 100) / 10,
    machine,
    options: kept,
    ingest,
    lifecycle,
    failures,
    ok: failures.length === 0,
  };

  const text: string[] = ["", `== bench ${report.startedAt} (${report.elapsedS} s)`, machineLine(machine)];
  if (ingest) {
    text.push(
      "",
      `Webhook ingest: POST /hooks/platform/<token>, ${ingest.connections} connections, ${ingest.warmupS} s warm-up + ${ingest.durationS} s per target`,
      `(${ingest.body}; the bot's worker is not running, so only the route is measured)`,
      ingestTable(ingest),
    );
    const cut = ingest.targets.filter((t) => (t.check?.cutOff ?? 0) > 0);
    if (cut.length > 0) {
      text.push(
        `stored may exceed 2xx by the requests cut off when the load stopped: ${cut
          .map((t) => `${t.name} ${t.check?.cutOff}`)
          .join(", ")}`,
      );
    }
    text.push(
      "server CPU: the target process during the run (100% = one core, all a Node event loop gets); " +
        "µs/req: its CPU per answered request; client CPU: autocannon's.",
    );
    const clientBound = ingest.targets.filter((t) => (t.run?.clientCpu ?? 0) >= 0.9);
    if (clientBound.length > 0) {
      text.push(
        `the load generator used ≥90% of a core for ${clientBound.map((t) => t.name).join(", ")}: ` +
          "those rates are a floor, set by the client as much as by the target.",
      );
    }
    for (const t of ingest.targets) if (t.profile) text.push("", profileText(t.label, t.profile));
  }
  if (lifecycle) {
    text.push(
      "",
      `Slack calls for one video lifecycle: ${lifecycle.deliveries} deliveries (${Object.entries(
        lifecycle.byType,
      )
        .map(([k, v]) => `${v} ${k.replace(/^video\./, "")}`)
        .join(", ")}), worker at ${lifecycle.worker}`,
      lifecycleTable(lifecycle),
      `delivered in ${(lifecycle.msToDeliver / 1000).toFixed(1)} s; channel showed it complete after ${(lifecycle.msToComplete / 1000).toFixed(1)} s` +
        (Object.keys(lifecycle.otherCalls).length > 0
          ? `; other Web API calls: ${Object.entries(lifecycle.otherCalls)
              .map(([k, v]) => `${k} ${v}`)
              .join(", ")}`
          : ""),
    );
  }
  text.push("");
  if (failures.length > 0) {
    text.push("FAILED:", ...failures.map((f) => `  - ${f}`));
  } else {
    text.push("all runs passed their checks");
  }
  await mkdir(path.dirname(out), { recursive: true });
  await writeFile(out, `${JSON.stringify(report, null, 2)}\n`);
  text.push(`results: ${path.relative(process.cwd(), out) || out}`);
  if (failures.length > 0) console.error(text.join("\n"));
  else console.log(text.join("\n"));
  return failures.length === 0 ? 0 : 1;
}

// A bench that hangs is a failed bench: give up (children close themselves when we go).
const WATCHDOG_MS = 10 * 60_000;
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
