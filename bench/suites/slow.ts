/**
 * Answers while the platform is slow: how long a user waits for `/live status` when every
 * livestream read takes `platformLatencyMs` (the sandbox's latency fault, 5 s by default). The
 * bot runs in its own process (bench/lib/stack.ts) with its production settings; the commands are
 * sent from the client process (bench/lib/slash-client.ts), which notes when each was sent; the
 * Slack stand-in notes when each response_url answer arrived.
 *
 *   1. `steady`: `rate` commands per second for `durationS` seconds (open loop): the share of
 *      commands whose answer (the livestream's status, not an error) arrived within 6, 10 and 30 s
 *      of the command, and the acknowledgement p99.
 *   2. `burst`: `burst` commands at the same instant: how many were answered within 10 s.
 *
 * An answer that is an error message (timeout, "try again") does not count as answered.
 */
import { SEED } from "../../fakes/platform/server.js";
import { type LatencySummary, summarize } from "../lib/load.js";
import { type SentReply, sendFromClient } from "../lib/slash-client.js";
import { type PreparedSlash, type Stack, startStack } from "../lib/stack.js";

const LIVESTREAM = SEED.livestreams.onAirAdBreak;
/** Read once to warm the bot up (its token): another livestream, so no answer of the measured one is shared. */
const WARM = SEED.livestreams.offAir;
/** The seeded livestream's title: in the status answer, never in an error message. */
const TITLE = "Northwind Morning Live";

export interface SlowOptions {
  rate: number;
  durationS: number;
  burst: number;
  platformLatencyMs: number;
  log: (line: string) => void;
}

export interface AnswerRun {
  commands: number;
  acked: number;
  ackMs: LatencySummary;
  /** Commands whose status answer arrived, at all (within the wait). */
  answered: number;
  /** Commands answered with an error message instead of the status. */
  errorAnswers: number;
  within6s: number;
  within10s: number;
  within30s: number;
  /** From the command to its status answer. */
  answerMs: LatencySummary;
  /** When the livestream reads reached the platform, from the first command sent: first and last. */
  readsArrivedMs: { first: number; last: number };
}

export interface SlowResult {
  platformLatencyMs: number;
  steady: AnswerRun & { rate: number; durationS: number };
  burst: AnswerRun;
  /** Livestream reads the sandbox saw per command (identical reads are shared: below 1; above 1 = retries). */
  readsPerCommand: number;
  problems: string[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until every command has an answer, or `waitMs` after the last one was sent. */
async function collect(
  stack: Stack,
  prepared: PreparedSlash[],
  replies: SentReply[],
  waitMs: number,
): Promise<Omit<AnswerRun, "readsArrivedMs">> {
  const lastSent = Math.max(...replies.map((r) => r.sentAt));
  const firstAnswer = () => prepared.map((p) => stack.slack.responses(p.responseUrl).length > 0);
  while (Date.now() < lastSent + waitMs && !firstAnswer().every(Boolean)) await sleep(100);
  const answers = stack.slack.callsTo("response_url");
  const byUrl = new Map<string, { at: number; text: string }>();
  for (const c of answers) {
    const id = c.responseUrlId;
    if (id !== undefined && !byUrl.has(id)) byUrl.set(id, { at: c.at, text: JSON.stringify(c.args) });
  }
  const acks = new Float64Array(replies.length);
  const answerMs = new Float64Array(replies.length);
  let acked = 0;
  let answered = 0;
  let errorAnswers = 0;
  let within6s = 0;
  let within10s = 0;
  let within30s = 0;
  prepared.forEach((p, i) => {
    const reply = replies[i] as SentReply;
    if (reply.status === 200) acks[acked++] = reply.ms;
    const got = [...byUrl.entries()].find(([id]) => p.responseUrl.endsWith(`/${id}`))?.[1];
    if (!got) return;
    if (!got.text.includes(TITLE)) {
      errorAnswers += 1;
      return;
    }
    const ms = got.at - reply.sentAt;
    answerMs[answered++] = ms;
    if (ms <= 6_000) within6s += 1;
    if (ms <= 10_000) within10s += 1;
    if (ms <= 30_000) within30s += 1;
  });
  return {
    commands: prepared.length,
    acked,
    ackMs: summarize(acks, acked),
    answered,
    errorAnswers,
    within6s,
    within10s,
    within30s,
    answerMs: summarize(answerMs, answered),
  };
}

/**
 * A fresh bot with its token, then the platform made slow. The warm-up reads another livestream:
 * identical reads share one GET for 10 s, so warming up on the measured one would answer the
 * first 10 s from that read instead of the slow platform.
 */
async function slowStack(latencyMs: number): Promise<Stack> {
  const stack = await startStack({ worker: { manual: true } });
  try {
    const warm = stack.prepareSlash("/live", `status ${WARM}`);
    await stack.send(warm);
    await stack.answer(warm.responseUrl);
    stack.sandbox.addFault({ method: "GET", path: "/v2/livestreams/", latencyMs });
    return stack;
  } catch (err) {
    await stack.close();
    throw err;
  }
}

/** Sends `prepared` from the client process and collects the answers on a fresh slow-platform bot. */
async function measure(o: SlowOptions, count: number, rate: number): Promise<AnswerRun & { reads: number }> {
  const stack = await slowStack(o.platformLatencyMs);
  try {
    const reads = () => stack.sandbox.requests.filter((r) => r.path.startsWith("/v2/livestreams/")).length;
    const readsBefore = reads();
    const prepared = Array.from({ length: count }, () => stack.prepareSlash("/live", `status ${LIVESTREAM}`));
    const sent = await sendFromClient({
      url: stack.eventsUrl,
      requests: prepared.map((p) => ({ body: p.body, headers: p.headers })),
      rate,
    });
    const run = await collect(stack, prepared, sent.replies, 35_000);
    const firstSent = Math.min(...sent.replies.map((r) => r.sentAt));
    const arrived = stack.sandbox.requests
      .filter((r) => r.path.startsWith("/v2/livestreams/"))
      .slice(readsBefore)
      .map((r) => r.at - firstSent);
    return {
      ...run,
      readsArrivedMs: { first: Math.min(...arrived), last: Math.max(...arrived) },
      reads: reads() - readsBefore,
    };
  } finally {
    await stack.close();
  }
}

export async function runSlow(o: SlowOptions): Promise<SlowResult> {
  const problems: string[] = [];
  const total = Math.max(1, Math.round(o.rate * o.durationS));
  o.log(
    `  ${o.rate} /live status per second for ${o.durationS} s (${total}), platform answering in ${o.platformLatencyMs / 1000} s…`,
  );
  const steady = await measure(o, total, o.rate);
  o.log(`  ${o.burst} /live status at once (a fresh bot)…`);
  const burst = await measure(o, o.burst, 0);
  for (const [name, run] of [
    ["steady", steady],
    ["burst", burst],
  ] as const) {
    if (run.acked < run.commands)
      problems.push(`${name}: ${run.commands - run.acked} commands not acknowledged 200`);
  }
  return {
    platformLatencyMs: o.platformLatencyMs,
    steady: { ...steady, rate: o.rate, durationS: o.durationS },
    burst,
    readsPerCommand: (steady.reads + burst.reads) / (total + o.burst),
    problems,
  };
}
