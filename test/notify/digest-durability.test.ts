/**
 * Digests exactly once per period, across restarts and replicas (DIGEST_PERIOD=2s, real path):
 *  - the bot down when a digest was due (sqlite file, Redis): the next bot posts it late, once;
 *    a further restart posts nothing again; each video in exactly one digest; each digest names
 *    the whole periods it covers, and every period that had entries is in exactly one of them;
 *  - a digest taken up again after a crash: with its ts recorded it is settled, not posted again;
 *    posted but its ts lost, it is found in Slack by its marker and not posted again; not in
 *    Slack, it is posted once; when Slack refuses the lookup, it is posted again (at least once);
 *  - two bots on one Redis: as many digests as periods that had entries (two at least), each
 *    naming its own period, whichever bot took the deliveries.
 * The periods run on the wall clock (the digest log and runner read Date.now; no clock a test can
 * inject), so the waits for "a digest time passed" wait for the clock to pass a period's end, not
 * a fixed time; "nothing more is posted" is judged once the digest runner, after that, has looked
 * for due digests several times and found none (test/support/settle.ts). The two-bot test's half
 * periods between deliveries are its input (entries spread over periods) and stay.
 */

import { randomUUID } from "node:crypto";
import { WebClient } from "@slack/web-api";
import { afterAll, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { digestKeyOf } from "../../src/domain/index.js";
import { type Bot, eventually, type Harness, startBot, startHarness, waitFor } from "../support/harness.js";
import { idlePolls } from "../support/settle.js";
import { scratchStores } from "../support/stores.js";
import { digestLists, digestsIn, listedComplete, videoPosts } from "./digest-helpers.js";
import { entryTimes, expectOnePerPeriod, expectPeriodsCovered, periodsOf } from "./digest-periods.js";

const PROFILE = SEED.profiles.newsroom;
const LIVE = "C0NEWS";
const DIGEST = "C0GENERAL";
const PERIOD_MS = 2000;
const WORKER = { coalesceMs: 200, postIntervalMs: 10, pollMs: 10 };
const ENV = { DIGEST_PERIOD: "2s" };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The end of the last period (from `since`) that had entries recorded at `times`. */
function lastPeriodEnd(times: readonly number[], since: number): number {
  return since + (Math.max(...periodsOf(times, since, PERIOD_MS)) + 1) * PERIOD_MS;
}

/** Until the wall clock is at `at` or later (the periods' clock). */
const clockPast = (at: number) => waitFor(() => Date.now() >= at, 20_000, `the clock past ${at}`);

/** The end of the `n`-th period boundary (from `since`) after now. */
const boundaryAfter = (since: number, n: number) =>
  since + (Math.floor((Date.now() - since) / PERIOD_MS) + n) * PERIOD_MS;

const { storeFor, cleanup } = scratchStores("digest-durable");
afterAll(cleanup);

/** Subscribes DIGEST to a daily digest; resolves with the subscription time (its periods' origin). */
async function setUp(h: Harness): Promise<number> {
  await h.configureProfile({ channel: LIVE });
  const res = await h.slash("/webhook", `subscribe ${PROFILE} digest=daily`, {
    user: "U0ADMIN",
    channel: DIGEST,
  });
  expect((await h.answer(res.responseUrl)).response_type).toBe("in_channel");
  const p = await h.built.deps.settings.getProfile(h.slack.teamId, PROFILE);
  const since = Date.parse(p?.subscriptions.find((s) => s.channelId === DIGEST)?.digest?.since ?? "");
  expect(Number.isFinite(since)).toBe(true);
  return since;
}

async function deliver(h: Harness, to: { url: string }, videoId: string) {
  const results = await h.sandbox.deliverLifecycle(PROFILE, {
    videoId,
    presets: ["240p", "480p"],
    progressSteps: 2,
    deliverTo: to.url,
  });
  for (const r of results) expect(r.status).toBe(200);
}

/** Each video once in Published across the digests; no per-video message. */
function checkOnce(h: Harness, ids: readonly string[]) {
  const digests = digestsIn(h, DIGEST);
  const published = digestLists(digests)["✅ Published"] ?? [];
  for (const id of ids) {
    expect(
      published.filter((l) => l.includes(id)),
      `published ${id}`,
    ).toHaveLength(1);
    expect(videoPosts(h, DIGEST, id)).toEqual([]);
  }
}

/** Every video in the digests, published and complete (nothing of them left to come). */
const covered = (h: Harness, ids: readonly string[]) => listedComplete(h, DIGEST, ids);

describe.each(["sqlite", "redis"] as const)("the bot down when a digest is due (%s store)", (kind) => {
  it("posts it late, once; a later restart posts nothing twice", async () => {
    const s = storeFor(kind);
    // The first bot records but never posts (its worker and runner are driven by hand).
    const h = await startHarness({ ...s, env: ENV, worker: { ...WORKER, manual: true } });
    let second: Bot | undefined;
    let third: Bot | undefined;
    const times = entryTimes(h.built.digests.log, DIGEST);
    try {
      const since = await setUp(h);
      const first = [`x7dd${kind}1`, `x7dd${kind}2`];
      for (const id of first) await deliver(h, h, id);
      const key = digestKeyOf(h.slack.teamId, PROFILE, DIGEST);
      await eventually(
        async () => {
          await h.built.worker.drain();
          return (await h.built.digests.log.read(key)).entries.length >= 4;
        },
        15_000,
        "the entries recorded",
      );
      await h.built.stop();
      expect(digestsIn(h, DIGEST)).toEqual([]);
      // Down over a digest time: the clock past the end of the period the entries fall in.
      await clockPast(lastPeriodEnd(times, since));

      second = await startBot(h.config, h.logger, { ...s, worker: WORKER });
      entryTimes(second.built.digests.log, DIGEST, times);
      await waitFor(() => covered(h, first), 15_000, "the missed digest");
      const more = [`x7dd${kind}3`];
      for (const id of more) await deliver(h, second, id);
      await waitFor(() => covered(h, [...first, ...more]), 15_000, "the next digest");
      await second.close();
      second = undefined;

      third = await startBot(h.config, h.logger, { ...s, worker: WORKER });
      const count = digestsIn(h, DIGEST).length;
      // Two digest times pass with this bot up, and its runner then finds nothing due.
      await clockPast(boundaryAfter(since, 2));
      await idlePolls(third.built.digests.log);
      expect(digestsIn(h, DIGEST)).toHaveLength(count);
      checkOnce(h, [...first, ...more]);
      // The late digest names every period it covers; the periods with entries (two at least:
      // the missed one, and the one after it) each in exactly one digest.
      expectPeriodsCovered(digestsIn(h, DIGEST), times, since, PERIOD_MS);
      expect(count).toBeGreaterThanOrEqual(2);
    } finally {
      await second?.close();
      await third?.close();
      await h.close();
    }
  }, 60_000);
});

/**
 * What a replica that stopped in the middle of posting left: the per-period marker (id `marker`),
 * with Slack's ts or not, over the entries recorded by a first bot that never posts. Then the
 * next bot takes the log up. Resolves with the harness (closed by the caller) and the next bot.
 */
async function crashedWhilePosting(o: {
  ts: string | null;
  /** The crashed replica's digest is in Slack (posted, its ts never recorded). */
  inSlack: boolean;
  /** conversations.history is refused (the app lacks channels:history). */
  historyRefused?: boolean;
}): Promise<{ h: Harness; next: Bot }> {
  const s = storeFor("sqlite");
  const h = await startHarness({ ...s, env: ENV, worker: { ...WORKER, manual: true } });
  await setUp(h);
  const key = digestKeyOf(h.slack.teamId, PROFILE, DIGEST);
  const log = h.built.digests.log;
  await deliver(h, h, "x7crash");
  await eventually(
    async () => {
      await h.built.worker.drain();
      return (await log.read(key)).entries.length >= 2;
    },
    15_000,
    "the entries recorded",
  );
  const upTo = (await log.read(key)).entries.at(-1)?.seq ?? 0;
  await log.wake(key, Date.now() - 1);
  expect(await log.claimDue("crashed", Date.now(), 10, 100)).toEqual([key]);
  const marker = { id: randomUUID(), at: Date.now() };
  const posting = {
    kind: "digest",
    from: Date.now() - 4000,
    end: Date.now() - 2000,
    upTo,
    leftOut: 0,
    pauseAt: null,
  };
  const state = {
    v: 1,
    settledUpTo: 0,
    lastEnd: null,
    caughtUp: null,
    posting: { ...posting, ...marker, ts: o.ts, replies: 0 },
  };
  expect(await log.setState("crashed", key, JSON.stringify(state))).toBe(true);
  if (o.inSlack) {
    // The crashed replica's post, as Slack holds it: the marker in its metadata.
    const client = new WebClient(h.config.slack.botToken, { slackApiUrl: h.config.slack.apiUrl });
    await client.chat.postMessage({
      channel: DIGEST,
      text: "Daily digest of Northwind News (x2vq8nw): 1 published · 1 complete",
      metadata: { event_type: "video_digest", event_payload: { profile_id: PROFILE, post_id: marker.id } },
    });
  }
  if (o.historyRefused)
    h.slack.addFault({ method: "conversations.history", error: "missing_scope", times: 5 });
  await h.built.stop();
  // Its lease (100 ms) expires: the next bot takes the log up.
  const next = await startBot(h.config, h.logger, { ...s, worker: WORKER });
  await eventually(
    async () => (await next.built.digests.log.read(key)).entries.length === 0,
    10_000,
    "settled",
  );
  // Anything more it would post is posted before its runner finds nothing due, several times over.
  await idlePolls(next.built.digests.log);
  return { h, next };
}

describe("a digest taken up again after a crash (sqlite store)", () => {
  it("its ts recorded: settled, not posted again", async () => {
    const { h, next } = await crashedWhilePosting({ ts: "1790000000.000100", inSlack: false });
    try {
      expect(digestsIn(h, DIGEST)).toEqual([]);
      expect(h.slack.callsTo("conversations.history")).toEqual([]);
    } finally {
      await next.close();
      await h.close();
    }
  }, 60_000);

  it("posted but its ts lost: found in Slack by its marker, not posted again", async () => {
    const { h, next } = await crashedWhilePosting({ ts: null, inSlack: true });
    try {
      expect(h.slack.callsTo("conversations.history").length).toBeGreaterThan(0);
      expect(digestsIn(h, DIGEST)).toHaveLength(1);
    } finally {
      await next.close();
      await h.close();
    }
  }, 60_000);

  it("marked but not in Slack: posted once", async () => {
    const { h, next } = await crashedWhilePosting({ ts: null, inSlack: false });
    try {
      expect(digestsIn(h, DIGEST)).toHaveLength(1);
      checkOnce(h, ["x7crash"]);
    } finally {
      await next.close();
      await h.close();
    }
  }, 60_000);

  it("the lookup refused (no channels:history): posted again, at least once, with one warning", async () => {
    const { h, next } = await crashedWhilePosting({ ts: null, inSlack: true, historyRefused: true });
    try {
      expect(digestsIn(h, DIGEST)).toHaveLength(2);
      expect(h.logs.filter((l) => l.includes("cannot look in Slack for a digest"))).toHaveLength(1);
    } finally {
      await next.close();
      await h.close();
    }
  }, 60_000);
});

describe("two bots on one Redis", () => {
  it("one digest per period, each video in one digest, whichever bot took the deliveries", async () => {
    const s = storeFor("redis");
    const h = await startHarness({ ...s, env: ENV, worker: { ...WORKER, owner: "bot-a" } });
    const b = await startBot(h.config, h.logger, { ...s, worker: { ...WORKER, owner: "bot-b" } });
    const times = entryTimes(h.built.digests.log, DIGEST);
    entryTimes(b.built.digests.log, DIGEST, times);
    try {
      const since = await setUp(h);
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) {
        const id = `x7two${i}`;
        ids.push(id);
        await deliver(h, i % 2 === 0 ? h : b, id);
        await sleep(PERIOD_MS / 2);
      }
      await waitFor(() => covered(h, ids), 20_000, "every video in a digest");
      // The last period with entries over, then both runners find nothing due.
      await clockPast(lastPeriodEnd(times, since));
      await Promise.all([idlePolls(h.built.digests.log), idlePolls(b.built.digests.log)]);
      // As many digests as periods that had entries, each naming its own period.
      expect(expectOnePerPeriod(digestsIn(h, DIGEST), times, since, PERIOD_MS).length).toBeGreaterThanOrEqual(
        2,
      );
      checkOnce(h, ids);
    } finally {
      await b.close();
      await h.close();
    }
  }, 60_000);
});
