/**
 * Slash commands against a slow platform, through the bot's real receiver (bot in its own process,
 * sandbox and Slack stand-in in the runner; bench/lib/stack.ts). The sandbox answers every
 * livestream read after `platformLatencyMs` (its latency fault, 5 s by default).
 *
 *   1. `concurrent` (1,000) `/live status` commands sent at once to a fresh bot: how fast each is
 *      acknowledged, and how many token requests the bot makes for them (one is the goal: the
 *      token provider is single flight). Then the latency fault is lifted and every command must
 *      get its answer on its response_url.
 *   2. One `/live status` on its own (another livestream: the burst's read is shared for 10 s):
 *      the platform requests it makes (one, with sparse `fields`).
 *   3. Steady load: `rate` commands per second for `durationS` seconds, open loop (sent on a
 *      schedule, not one after the other), the platform slow again: the acknowledgement latency
 *      while hundreds of commands wait on the platform inside the bot.
 *   4. Side by side with a minimal Bolt app that only acknowledges (bench/targets/bolt.ts, its own
 *      process, same Bolt, same signed requests): `concurrent` commands at once to each, `pairs`
 *      times, alternating which goes first, the platform answering at its normal speed (the bot's
 *      answers are awaited before the next send). The ratio of the two ack p99s per pair, and its
 *      median: what the bot adds over Bolt itself.
 *
 * The commands are sent from a client process of their own (bench/lib/slash-client.ts), so the
 * sandbox and stand-in in the runner never delay the client's clock.
 */
import { SEED } from "../../fakes/platform/server.js";
import { type LatencySummary, summarize } from "../lib/load.js";
import { type SentReply, sendFromClient } from "../lib/slash-client.js";
import { BENCH_SIGNING_SECRET, type PreparedSlash, type Stack, startStack } from "../lib/stack.js";
import { startTarget } from "../lib/target.js";

const LIVESTREAM = SEED.livestreams.onAirAdBreak;
const ALONE = SEED.livestreams.offAir;

export interface CommandsOptions {
  concurrent: number;
  rate: number;
  durationS: number;
  platformLatencyMs: number;
  /** Bot / minimal-Bolt pairs for the side-by-side ack p99 (0 = skip). */
  pairs: number;
  log: (line: string) => void;
}

export interface PairRun {
  first: "bot" | "bolt";
  botP99: number;
  boltP99: number;
  ratio: number;
  /** From the bot's first command sent to its last response_url answer: the work after the acks, done. */
  botAnsweredMs: number;
}

export interface SideBySide {
  commands: number;
  runs: PairRun[];
  medianRatio: number;
  medianBotP99: number;
  medianBoltP99: number;
}

export interface AckRun {
  commands: number;
  acked: number;
  non200: number;
  errors: number;
  ackMs: LatencySummary;
  /** From the first send to the last acknowledgement. */
  wallMs: number;
}

export interface CommandsResult {
  platformLatencyMs: number;
  concurrent: AckRun & { tokenRequests: number; answered: number };
  single: {
    apiRequests: number;
    tokenRequests: number;
    requests: Array<{ method: string; path: string; fields: string | null }>;
    sparse: boolean;
  };
  steady: AckRun & { rate: number; durationS: number; pendingInBotAtEnd: number };
  sideBySide: SideBySide | null;
  problems: string[];
}

function ackRun(replies: SentReply[], wallMs: number): AckRun {
  const ms = new Float64Array(replies.length);
  let n = 0;
  let non200 = 0;
  let errors = 0;
  for (const r of replies) {
    if (r.status === 0) errors += 1;
    else if (r.status !== 200) non200 += 1;
    else ms[n++] = r.ms;
  }
  return { commands: replies.length, acked: n, non200, errors, ackMs: summarize(ms, n), wallMs };
}

const settle = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Sends from the client process: all at once (rate 0) or `rate` per second, open loop. */
async function sendPrepared(stack: Stack, prepared: PreparedSlash[], rate: number): Promise<AckRun> {
  const { replies, wallMs } = await sendFromClient({
    url: stack.eventsUrl,
    requests: prepared.map((p) => ({ body: p.body, headers: p.headers })),
    rate,
  });
  return ackRun(replies, wallMs);
}

export async function runCommands(o: CommandsOptions): Promise<CommandsResult> {
  const stack = await startStack({ worker: { manual: true } });
  const problems: string[] = [];
  const slow = { method: "GET", path: "/v2/livestreams/", latencyMs: o.platformLatencyMs };
  try {
    const { sandbox } = stack;
    // 1. Many at once, on a bot that has no token yet.
    sandbox.addFault(slow);
    const tokensBefore = sandbox.stats().tokenRequests;
    const burst = Array.from({ length: o.concurrent }, () =>
      stack.prepareSlash("/live", `status ${LIVESTREAM}`),
    );
    o.log(
      `  ${o.concurrent} concurrent /live status, platform answering in ${o.platformLatencyMs / 1000} s…`,
    );
    const concurrent = await sendPrepared(stack, burst, 0);
    await settle(1_000);
    const tokenRequests = sandbox.stats().tokenRequests - tokensBefore;
    sandbox.clearFaults();
    let answered = 0;
    for (const p of burst) {
      try {
        await stack.answer(p.responseUrl, 1, 60_000);
        answered += 1;
      } catch {
        break;
      }
    }
    if (answered < burst.length)
      problems.push(`${burst.length - answered} of ${burst.length} commands got no answer`);

    // 2. One on its own, of a livestream the burst did not read (identical reads within 10 s share
    // one GET, which would leave nothing to count).
    const logFrom = sandbox.requests.length;
    const one = stack.prepareSlash("/live", `status ${ALONE}`);
    const r = await stack.send(one);
    if (r.status !== 200) problems.push(`a single /live status answered HTTP ${r.status}`);
    await stack.answer(one.responseUrl);
    const seen = sandbox.requests.slice(logFrom).map((e) => ({
      method: e.method,
      path: e.path,
      fields: typeof e.query.fields === "string" ? e.query.fields : null,
    }));
    const api = seen.filter((e) => e.path.startsWith("/v2/") && e.path !== "/v2/token");
    const single = {
      apiRequests: api.length,
      tokenRequests: seen.length - api.length,
      requests: seen,
      sparse: api.length > 0 && api.every((e) => e.fields !== null && e.fields.length > 0),
    };

    // 3. Steady load.
    sandbox.addFault(slow);
    const total = Math.max(1, Math.round(o.rate * o.durationS));
    const steadyPrepared = Array.from({ length: total }, () =>
      stack.prepareSlash("/live", `status ${LIVESTREAM}`),
    );
    o.log(
      `  ${o.rate} /live status per second for ${o.durationS} s (${total}), platform answering in ${o.platformLatencyMs / 1000} s…`,
    );
    const steadyRun = await sendPrepared(stack, steadyPrepared, o.rate);
    const answeredSteady = steadyPrepared.filter(
      (p) => stack.slack.responses(p.responseUrl).length > 0,
    ).length;
    const steady = {
      ...steadyRun,
      rate: o.rate,
      durationS: o.durationS,
      pendingInBotAtEnd: steadyRun.acked - answeredSteady,
    };
    for (const [name, run] of [
      ["concurrent", concurrent],
      ["steady", steady],
    ] as const) {
      if (run.non200 + run.errors > 0)
        problems.push(`${name}: ${run.non200} answers were not 200 and ${run.errors} requests failed`);
    }
    let sideBySide: SideBySide | null = null;
    if (o.pairs > 0) {
      // The steady load's commands get their answers first: the platform at its normal speed.
      sandbox.clearFaults();
      for (const p of steadyPrepared) await stack.answer(p.responseUrl, 1, 60_000).catch(() => undefined);
      sideBySide = await pairs(stack, o, problems);
    }
    return {
      platformLatencyMs: o.platformLatencyMs,
      concurrent: { ...concurrent, tokenRequests, answered },
      single,
      steady,
      sideBySide,
      problems,
    };
  } finally {
    await stack.close();
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? (s[mid] ?? Number.NaN) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2;
};

/** `o.pairs` rounds of `o.concurrent` commands at once to the bot and to the minimal Bolt app. */
async function pairs(stack: Stack, o: CommandsOptions, problems: string[]): Promise<SideBySide> {
  // Compiled, like the bot it is compared with.
  const bolt = await startTarget(
    {
      kind: "bolt",
      signingSecret: BENCH_SIGNING_SECRET,
      botToken: stack.slack.botToken,
      slackApiUrl: stack.slack.apiUrl,
    },
    { compiled: true },
  );
  const boltUrl = `${bolt.url}/slack/events`;
  const runs: PairRun[] = [];
  try {
    o.log(
      `  ${o.pairs} pairs of ${o.concurrent} /live status at once: the bot, and a minimal Bolt app that only acks…`,
    );
    const once = async (who: "bot" | "bolt"): Promise<{ p99: number; answeredMs: number }> => {
      const prepared = Array.from({ length: o.concurrent }, () =>
        stack.prepareSlash("/live", `status ${LIVESTREAM}`),
      );
      const { replies, wallMs } = await sendFromClient({
        url: who === "bot" ? stack.eventsUrl : boltUrl,
        requests: prepared.map((p) => ({ body: p.body, headers: p.headers })),
        rate: 0,
      });
      const run = ackRun(replies, wallMs);
      if (run.non200 + run.errors > 0)
        problems.push(`side by side (${who}): ${run.non200} answers were not 200 and ${run.errors} failed`);
      // The bot's work after the ack is part of its cost, but must not spill into the next send.
      let answeredMs = 0;
      if (who === "bot") {
        for (const p of prepared) await stack.answer(p.responseUrl, 1, 60_000);
        const firstSent = Math.min(...replies.map((r) => r.sentAt));
        const ids = new Set(prepared.map((p) => p.responseUrl.slice(p.responseUrl.lastIndexOf("/") + 1)));
        for (const c of stack.slack.callsTo("response_url"))
          if (ids.has(c.responseUrlId ?? "")) answeredMs = Math.max(answeredMs, c.at - firstSent);
      }
      await settle(500);
      return { p99: run.ackMs.p99, answeredMs };
    };
    // Both warmed up alike: the bot has served the phases above; the Bolt app gets a first round.
    await once("bolt");
    for (let i = 0; i < o.pairs; i++) {
      const first = i % 2 === 0 ? "bot" : "bolt";
      let bot: { p99: number; answeredMs: number };
      let minimal: { p99: number };
      if (first === "bot") {
        bot = await once("bot");
        minimal = await once("bolt");
      } else {
        minimal = await once("bolt");
        bot = await once("bot");
      }
      runs.push({
        first,
        botP99: bot.p99,
        boltP99: minimal.p99,
        ratio: bot.p99 / minimal.p99,
        botAnsweredMs: bot.answeredMs,
      });
      o.log(`    pair ${i + 1}: bot ${bot.p99.toFixed(0)} ms, Bolt ${minimal.p99.toFixed(0)} ms`);
    }
  } finally {
    await bolt.close();
  }
  return {
    commands: o.concurrent,
    runs,
    medianRatio: median(runs.map((r) => r.ratio)),
    medianBotP99: median(runs.map((r) => r.botP99)),
    medianBoltP99: median(runs.map((r) => r.boltP99)),
  };
}
