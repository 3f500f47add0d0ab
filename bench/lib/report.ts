/** The bench's text report: one table per suite, and the targets. */
import type { BurstResult } from "../suites/burst.js";
import type { CommandsResult } from "../suites/commands.js";
import type { IngestResult } from "../suites/ingest.js";
import type { LifecycleResult } from "../suites/lifecycle.js";
import type { OutsideResult } from "../suites/outside.js";
import type { ScaleResult, ScaleRun } from "../suites/scale.js";
import type { SlowResult } from "../suites/slow.js";
import type { TokenSimResult } from "../suites/tokens.js";
import type { Goal } from "./goals.js";
import type { MachineInfo } from "./machine.js";
import type { PerfSummary } from "./perf.js";
import type { ProfileSummary } from "./profile.js";
import { int, mib, ms, pct, table, times } from "./table.js";

export function ingestTable(r: IngestResult): string {
  const rows = r.targets.map((t) => {
    if (t.error || !t.run) return [t.label, "failed", ...Array.from({ length: 14 }, () => "")];
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
      t.rounds.map((r) => int(r.usPerDelivery)).join(" → "),
      t.backlog === null ? "" : int(t.rounds[t.rounds.length - 1]?.scheduledAfter),
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
      { header: "µs/req by round", align: "right" },
      { header: "videos waiting after", align: "right" },
      { header: "client CPU", align: "right" },
      { header: "RSS MiB", align: "right" },
      { header: "check" },
    ],
    rows,
  );
}

export function lifecycleTable(l: LifecycleResult): string {
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

export function profileText(name: string, p: ProfileSummary): string {
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

export function perfText(name: string, p: PerfSummary): string {
  const perReq = p.usPerRequest === null ? "" : `, ${p.usPerRequest.toFixed(0)} µs of CPU per request`;
  return [
    `perf of ${name} (one more round, not counted): ${p.samples} samples${perReq}`,
    table(
      [{ header: "CPU by where the code is" }, { header: "share", align: "right" }],
      p.byWhere.map((s) => [s.name, pct(s.share)]),
    ),
    table(
      [{ header: "including callees: own code and landmarks" }, { header: "share", align: "right" }],
      p.inclusive.slice(0, 14).map((s) => [s.name, pct(s.share)]),
    ),
    `(${p.file}; perf report -i FILE)`,
  ].join("\n");
}

export function machineLine(m: MachineInfo): string {
  return `machine: ${m.cpuModel}, ${m.cores} cores, ${m.memoryGiB} GiB, node ${m.node}, ${m.platform}, load ${m.loadAverage1m}`;
}

export function commandsTable(c: CommandsResult): string {
  const row = (name: string, r: CommandsResult["steady"] | CommandsResult["concurrent"]) => [
    name,
    int(r.commands),
    int(r.acked),
    ms(r.ackMs.p50),
    ms(r.ackMs.p99),
    ms(r.ackMs.max),
    int(r.non200 + r.errors),
  ];
  return table(
    [
      { header: `/live status, platform answering in ${c.platformLatencyMs / 1000} s` },
      { header: "commands", align: "right" },
      { header: "acked", align: "right" },
      { header: "ack p50 ms", align: "right" },
      { header: "ack p99 ms", align: "right" },
      { header: "max ms", align: "right" },
      { header: "non-200/err", align: "right" },
    ],
    [
      row(`${c.concurrent.commands} sent at once (fresh bot)`, c.concurrent),
      row(`steady: ${c.steady.rate}/s for ${c.steady.durationS} s (open loop)`, c.steady),
    ],
  );
}

export function commandsNotes(c: CommandsResult): string[] {
  const api = c.single.requests.filter((r) => r.path !== "/v2/token");
  return [
    `token requests for the ${c.concurrent.commands} concurrent commands: ${c.concurrent.tokenRequests}; ` +
      `all ${c.concurrent.answered} answered on their response_url once the platform was fast again`,
    `one /live status alone: ${c.single.apiRequests} platform request(s)${api
      .map((r) => `: ${r.method} ${r.path}?fields=${r.fields ?? "(none)"}`)
      .join("")}`,
    `steady load: ${c.steady.pendingInBotAtEnd} commands were still waiting on the platform inside the bot when the last was acknowledged`,
  ];
}

/** Each pair of the side-by-side run: the bot and the minimal Bolt app, 1,000 at once each. */
export function sideBySideTable(s: NonNullable<CommandsResult["sideBySide"]>): string {
  return table(
    [
      { header: `${s.commands} /live status at once, platform at normal speed` },
      { header: "sent first", align: "right" },
      { header: "bot ack p99 ms", align: "right" },
      { header: "minimal Bolt ack p99 ms", align: "right" },
      { header: "bot / Bolt", align: "right" },
      { header: "bot: last answer, ms", align: "right" },
    ],
    [
      ...s.runs.map((r, i) => [
        `pair ${i + 1}`,
        r.first,
        ms(r.botP99),
        ms(r.boltP99),
        `${r.ratio.toFixed(2)}×`,
        ms(r.botAnsweredMs),
      ]),
      ["median", "", ms(s.medianBotP99), ms(s.medianBoltP99), `${s.medianRatio.toFixed(2)}×`, ""],
    ],
  );
}

export function tokensTable(t: TokenSimResult): string {
  return table(
    [
      { header: "simulated steady use (fake clock)" },
      { header: "reads", align: "right" },
      { header: "expires_in s", align: "right" },
      { header: "margin s", align: "right" },
      { header: "token requests", align: "right" },
      { header: "expected", align: "right" },
    ],
    t.runs.map((r) => [
      `${r.minutes} min, one /live status read every ${r.everyS} s`,
      int(r.reads),
      int(r.lifetimeS),
      int(r.marginS),
      int(r.tokenRequests),
      int(r.expected),
    ]),
  );
}

export function burstTable(b: BurstResult): string {
  const s = (v: number | null) => (v === null ? "not drained" : `${(v / 1000).toFixed(1)} s`);
  return table(
    [
      { header: `burst: ${b.deliveries} deliveries, ${b.videos} videos, one channel` },
      { header: "value", align: "right" },
    ],
    [
      ["sent (all accepted 200)", `${s(b.sendMs)}, ${int(b.accepted)} accepted`],
      ["drained (every video complete, outbox empty)", s(b.drainMs)],
      ["videos showing their last event", `${b.complete}/${b.videos}`],
      ["parent posts / thread posts / updates", `${b.posts} / ${b.threadPosts} / ${b.updates}`],
      ["Slack writes failed", String(b.failedWrites)],
      [
        "bot RSS at start / peak during burst / at end, MiB",
        `${mib(b.rssAtStartBytes)} / ${mib(b.peakRssBytes)} / ${mib(b.rssAtEndBytes)}`,
      ],
      ["bot maxRSS incl. start-up (compiled), MiB", mib(b.maxRssBytes)],
      ["a minimal Bolt app's RSS, idle (compiled), MiB", mib(b.boltIdleRssBytes)],
    ],
  );
}

export function goalsTable(g: Goal[]): string {
  return table(
    [{ header: "target" }, { header: "goal" }, { header: "measured" }, { header: "result" }],
    g.map((x) => [x.name, x.target, x.measured, x.pass === null ? "not run" : x.pass ? "PASS" : "MISS"]),
  );
}

export function ingestText(ingest: IngestResult): string[] {
  const text: string[] = [];
  text.push(
    "",
    `Webhook ingest: POST /hooks/platform/<token>, ${ingest.connections} connections, ${ingest.warmupS} s warm-up + ${ingest.rounds} × ${ingest.durationS} s per target`,
    `(${ingest.body}; ${
      ingest.worker
        ? "the bot's worker is on at the app's settings, posting to the Slack stand-in at one new post per second per channel, so the videos pile up behind Slack as they do for a user; each store once with nothing waiting, once with the backlog stored and folded before the load"
        : "the bot's worker is not running, so only the route is measured"
    })`,
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
      "µs/req: its CPU (process CPU time, worker included) per answered delivery, over all rounds and by round; " +
      "videos waiting after: scheduled in the outbox after the last round; client CPU: autocannon's.",
  );
  const clientBound = ingest.targets.filter((t) => (t.run?.clientCpu ?? 0) >= 0.9);
  if (clientBound.length > 0) {
    text.push(
      `the load generator used ≥90% of a core for ${clientBound.map((t) => t.name).join(", ")}: ` +
        "those rates are a floor, set by the client as much as by the target.",
    );
  }
  for (const t of ingest.targets) if (t.profile) text.push("", profileText(t.label, t.profile));
  return text;
}

export function outsideText(outside: OutsideResult, machine: MachineInfo): string[] {
  const rows = outside.targets.map((t) => [
    t.label,
    t.usPerDelivery === null ? "–" : String(Math.round(t.usPerDelivery)),
    t.systemUsPerDelivery === null ? "–" : String(Math.round(t.systemUsPerDelivery)),
    t.rounds.map((r) => (r.usPerDelivery === null ? "–" : Math.round(r.usPerDelivery))).join(" → "),
    t.vsBare === null ? "" : `${t.vsBare.toFixed(2)}×`,
    t.vsFloor === null ? "" : `${t.vsFloor.toFixed(2)}×`,
    t.answeredPerSecond === null ? "–" : String(Math.round(t.answeredPerSecond)),
    t.p99Ms === null ? "–" : t.p99Ms.toFixed(1),
    t.error ?? (t.check?.ok ? "ok" : (t.check?.problems.join("; ") ?? "–")),
  ]);
  return [
    "",
    `CPU per delivery, measured from outside: ${outside.rate} deliveries/s from the runner (autocannon, ${outside.connections} connections) to each target in turn${outside.pinned ? " (the servers on core 0, the load on core 1)" : ""}, ${outside.rounds} × ${outside.durationS} s each; CPU = utime + stime from /proc/<pid>/stat of the server process (${outside.clockTicksPerSecond} ticks/s) / deliveries answered, the median of the rounds (of which system: stime alone); ratios: the median of each round's ratio (a bot target's floor: its store's, bench/targets/floor.ts); ${machine.cpuModel}, ${machine.cores} cores, load ${machine.loadAverage1m} at the start`,
    table(
      [
        { header: "target" },
        { header: "µs/delivery", align: "right" },
        { header: "system", align: "right" },
        { header: "by round", align: "right" },
        { header: "vs bare", align: "right" },
        { header: "vs its floor", align: "right" },
        { header: "answered/s", align: "right" },
        { header: "p99 ms", align: "right" },
        { header: "check" },
      ],
      rows,
    ),
    ...outside.targets.flatMap((t) =>
      t.profile ? ["", profileText(`${t.label} (one more round, not counted)`, t.profile)] : [],
    ),
    ...outside.targets.flatMap((t) => (t.perf ? ["", perfText(t.label, t.perf)] : [])),
  ];
}

export function lifecycleText(lifecycle: LifecycleResult): string[] {
  const text: string[] = [];
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
  return text;
}

export function slowTable(s: SlowResult): string {
  const share = (n: number, of: number) => (of > 0 ? pct(n / of) : "–");
  const row = (name: string, r: SlowResult["burst"]) => [
    name,
    int(r.commands),
    ms(r.ackMs.p99),
    share(r.within6s, r.commands),
    share(r.within10s, r.commands),
    share(r.within30s, r.commands),
    ms(r.answerMs.p50),
    ms(r.answerMs.max),
    `${ms(r.readsArrivedMs.first)}–${ms(r.readsArrivedMs.last)}`,
    int(r.errorAnswers),
  ];
  return table(
    [
      { header: `/live status, platform answering in ${s.platformLatencyMs / 1000} s` },
      { header: "commands", align: "right" },
      { header: "ack p99 ms", align: "right" },
      { header: "≤ 6 s", align: "right" },
      { header: "≤ 10 s", align: "right" },
      { header: "≤ 30 s", align: "right" },
      { header: "answer p50 ms", align: "right" },
      { header: "max ms", align: "right" },
      { header: "reads reached the platform, ms", align: "right" },
      { header: "error answers", align: "right" },
    ],
    [
      row(`steady: ${s.steady.rate}/s for ${s.steady.durationS} s`, s.steady),
      row(`${s.burst.commands} at once`, s.burst),
    ],
  );
}

/** The scale-out suite: the baseline and the three-replica run side by side, then each replica. */
export function scaleText(r: ScaleResult): string[] {
  const runs = [r.baseline, r.scaled].filter((x): x is ScaleRun => x !== null);
  if (runs.length === 0) return [];
  const sec = (v: number | null) => (v === null ? "not drained" : `${(v / 1000).toFixed(1)} s`);
  const rate = (v: number | null) => (v === null ? "–" : `${int(v)}/s`);
  const name = (x: ScaleRun) =>
    x.replicas === 1 ? "one replica" : `${x.replicas} replicas, one killed, Redis restarted`;
  const text = [
    "",
    `Scale-out: ${int(r.deliveries)} deliveries, ${r.videos} videos, one channel, through a round-robin proxy; Redis with appendfsync always; worker pace 50 ms per channel per replica`,
    table(
      [
        { header: "run" },
        { header: "sent", align: "right" },
        { header: "send rate", align: "right" },
        { header: "all shown", align: "right" },
        { header: "total rate", align: "right" },
        { header: "sent again", align: "right" },
        { header: "shown once", align: "right" },
        { header: "CPU µs/delivery", align: "right" },
        { header: "Redis commands/delivery", align: "right" },
      ],
      runs.map((x) => [
        name(x),
        sec(x.sendMs),
        rate(x.sendRate),
        sec(x.drainMs),
        rate(x.totalRate),
        int(x.retries),
        `${x.complete}/${r.videos}${x.duplicated ? `, ${x.duplicated} twice` : ""}`,
        int(x.usPerDelivery),
        x.redisCommandsPerDelivery.toFixed(1),
      ]),
    ),
    table(
      [
        { header: "replica" },
        { header: "answered 200", align: "right" },
        { header: "CPU", align: "right" },
        { header: "CPU µs per delivery it answered", align: "right" },
      ],
      runs.flatMap((x) =>
        x.perReplica.map((p) => [
          `${name(x)}: ${p.name}${p.killed ? " (killed; until then)" : ""}`,
          int(p.answered),
          `${(p.cpuMs / 1000).toFixed(1)} s`,
          int(p.usPerDelivery),
        ]),
      ),
    ),
  ];
  return text;
}
