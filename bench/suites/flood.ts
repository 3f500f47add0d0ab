/**
 * Time to show another profile's video while one callback is flooded, against the same with no
 * flood, in the same run: the whole bot as the tests run it (platform sandbox, Slack stand-in, a
 * sqlite file, the worker at its production settings), two profiles of one workspace each with
 * its own callback and channel. Each round: (flooded rounds only) 1,000 mixed bodies are posted to
 * the first profile's callback as fast as the bot answers (fakes/platform/flood.ts); then one
 * lifecycle (36 deliveries) of the second profile is delivered, and the time from its first
 * delivery to its first message and to its complete message is taken. Rounds alternate (quiet,
 * flooded, quiet, …), each on a fresh bot. Also measured in the flooded rounds: the process's RSS
 * and the sqlite file before and after, and the flood's title reads.
 */
import { mkdtemp, rm, stat } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { floodCallback } from "../../fakes/platform/flood.js";
import { SEED } from "../../fakes/platform/server.js";
import { type Harness, startHarness, waitFor } from "../../test/support/harness.js";

const FLOODED = SEED.profiles.newsroom;
const OTHER = SEED.profiles.studio;
const OTHER_CHANNEL = "C0GENERAL";

export interface FloodRound {
  flooded: boolean;
  /** From the other profile's first delivery to its first message. */
  firstMs: number;
  /** …and to its message showing the video complete. */
  completeMs: number;
  /** Flooded rounds: the flood's answers. */
  stored?: number;
  refused?: number;
  floodMs?: number;
  /** Title reads the flood caused (made-up ids). */
  titleReads?: number;
  rssBeforeMb?: number;
  rssAfterMb?: number;
  sqliteBeforeKb?: number;
  sqliteAfterKb?: number;
}

export interface FloodResult {
  rounds: FloodRound[];
  quietFirstMs: number;
  floodedFirstMs: number;
  quietCompleteMs: number;
  floodedCompleteMs: number;
  /** Median first message, flooded / quiet. */
  ratio: number;
  problems: string[];
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? 0 : (s[Math.floor((s.length - 1) / 2)] ?? 0);
};

const fileKb = async (file: string) => {
  let total = 0;
  for (const f of [file, `${file}-wal`])
    total += await stat(f).then(
      (s) => s.size,
      () => 0,
    );
  return Math.round(total / 1024);
};

async function round(flooded: boolean, n: number, dir: string): Promise<FloodRound> {
  const file = path.join(dir, `flood-${n}.sqlite`);
  const h: Harness = await startHarness({
    store: { kind: "sqlite", path: file, url: `sqlite://${file}` },
    // The app's own pacing (one new post per second per channel, updates coalesced over 3 s).
    worker: { coalesceMs: undefined, postIntervalMs: undefined, pollMs: undefined },
  });
  try {
    const floodUrl = await h.configureProfile({ channel: "C0NEWS", profileId: FLOODED });
    await h.configureProfile({ channel: OTHER_CHANNEL, profileId: OTHER });
    const out: Partial<FloodRound> = {};
    if (flooded) {
      out.rssBeforeMb = Math.round(process.memoryUsage().rss / 1e6);
      out.sqliteBeforeKb = await fileKb(file);
      const started = Date.now();
      const statuses = await floodCallback(floodUrl, FLOODED);
      out.floodMs = Date.now() - started;
      out.stored = statuses.filter((s) => s === 200).length;
      out.refused = statuses.length - out.stored;
    }
    const videoId = `xbfl${n}${Date.now().toString(36)}`.slice(0, 20);
    const started = Date.now();
    const results = await h.sandbox.deliverLifecycle(OTHER, { videoId, deliverTo: h.url, force: true });
    if (results.some((r) => r.status !== 200)) throw new Error("a delivery of the other profile was refused");
    const shown = () =>
      h.slack.messages(OTHER_CHANNEL).filter((m) => !m.thread_ts && JSON.stringify(m).includes(videoId));
    const firstAt = await waitFor(
      () => (shown().length > 0 ? Date.now() : undefined),
      60_000,
      "first message",
    );
    const completeAt = await waitFor(
      () => (/complete/i.test(shown()[0]?.text ?? "") ? Date.now() : undefined),
      60_000,
      "complete message",
    );
    if (flooded) {
      out.titleReads = h.sandbox.requests.filter((r) => r.path.startsWith("/v2/videos/xfl")).length;
      out.rssAfterMb = Math.round(process.memoryUsage().rss / 1e6);
      out.sqliteAfterKb = await fileKb(file);
    }
    return { flooded, firstMs: firstAt - started, completeMs: completeAt - started, ...out };
  } finally {
    await h.close();
  }
}

export async function runFlood(opts: { rounds: number; log: (line: string) => void }): Promise<FloodResult> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "bench-flood-"));
  const rounds: FloodRound[] = [];
  try {
    for (let i = 0; i < opts.rounds * 2; i++) {
      const r = await round(i % 2 === 1, i, dir);
      rounds.push(r);
      opts.log(
        `  ${r.flooded ? "flooded" : "quiet  "}: first message ${r.firstMs} ms, complete ${r.completeMs} ms` +
          (r.flooded
            ? ` (flood of ${(r.stored ?? 0) + (r.refused ?? 0)} bodies in ${r.floodMs} ms, ${r.stored} stored; ${r.titleReads} title reads; RSS ${r.rssBeforeMb} → ${r.rssAfterMb} MB; sqlite ${r.sqliteBeforeKb} → ${r.sqliteAfterKb} KB)`
            : ""),
      );
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const pick = (flooded: boolean, f: (r: FloodRound) => number) =>
    median(rounds.filter((r) => r.flooded === flooded).map(f));
  const quietFirstMs = pick(false, (r) => r.firstMs);
  const floodedFirstMs = pick(true, (r) => r.firstMs);
  const problems: string[] = [];
  for (const r of rounds.filter((x) => x.flooded))
    if ((r.stored ?? 0) < 300) problems.push(`only ${r.stored} of the flood's deliveries were stored`);
  return {
    rounds,
    quietFirstMs,
    floodedFirstMs,
    quietCompleteMs: pick(false, (r) => r.completeMs),
    floodedCompleteMs: pick(true, (r) => r.completeMs),
    ratio: quietFirstMs > 0 ? floodedFirstMs / quietFirstMs : 0,
    problems,
  };
}
