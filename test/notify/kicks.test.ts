/**
 * Worker wake-ups (src/notify/worker.ts, `kick`): kicks within `gatherMs` are one claim, a delivery
 * is still picked up at once (the idle poll here is a minute, so only kicks can explain it), and
 * a channel's waiting videos come back one per post interval, each at its own turn (gate.ts),
 * not all of them every interval. Claims are counted once they have settled (polled for, with a
 * generous ceiling: every claim begun has finished), not after a fixed wait; and once, after a
 * quiet pause, to see that no kick set off a claim for later.
 */
import { afterEach, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import type { Outbox } from "../../src/outbox/types.js";
import { ChannelGate } from "../../src/posting/pacing.js";
import { type Harness, startHarness, waitFor } from "../support/harness.js";

const CHANNEL = "C0NEWS";
/** 50 gatherings (gatherMs 20): long enough for a claim a kick set off for later to begin. */
const QUIET_MS = 1_000;
let h: Harness | undefined;

afterEach(async () => {
  await h?.close();
  h = undefined;
});

interface Claims {
  /** Claims begun. */
  n: number;
  /** Claims begun and not finished yet. */
  inFlight: number;
}

/** Counts the claims the app's worker makes (it holds this very outbox object). */
function countClaims(outbox: Outbox): Claims {
  const counter = { n: 0, inFlight: 0 };
  const claim = outbox.claimDue.bind(outbox);
  outbox.claimDue = async (...args) => {
    counter.n++;
    counter.inFlight++;
    try {
      return await claim(...args);
    } finally {
      counter.inFlight--;
    }
  };
  return counter;
}

/** Every claim begun finished, and at least `atLeast` of them; the count then (20 s ceiling). */
async function settled(claims: Claims, atLeast: number): Promise<number> {
  await waitFor(() => claims.n >= atLeast && claims.inFlight === 0, 20_000, `${atLeast} claims settled`);
  // Two more looks: a claim a finished one set off (a wake-up during it) would have begun.
  await new Promise((r) => setImmediate(r));
  await waitFor(() => claims.inFlight === 0, 20_000, "no claim in flight");
  return claims.n;
}

/** Nothing pending: the settings claim (if any) done, no kick gathering. */
const idle = async (claims: Claims) => waitFor(() => claims.inFlight === 0, 20_000, "the worker idle");

describe("worker kicks", () => {
  it("kicks within the gathering make one claim; a delivery is picked up without waiting for the poll", async () => {
    const harness = await startHarness({ worker: { pollMs: 60_000, postIntervalMs: 20, coalesceMs: 100 } });
    h = harness;
    const res = await harness.slash("/webhook", `set ${SEED.profiles.newsroom}`, {
      user: "U0ADMIN",
      channel: CHANNEL,
    });
    await harness.answer(res.responseUrl);
    const claims = countClaims(harness.outbox);
    await idle(claims);
    claims.n = 0;
    for (let i = 0; i < 100; i++) harness.built.worker.kick();
    expect(await settled(claims, 1)).toBe(1);
    // A burst spread over separate ticks (a video's deliveries arriving one request each) is
    // gathered too: one claim, so its deliveries are folded in one pass.
    for (let i = 0; i < 10; i++) {
      harness.built.worker.kick();
      await new Promise((r) => setImmediate(r));
    }
    expect(await settled(claims, 2)).toBe(2);
    // Kicks further apart than the gathering are separate claims (nothing is due: each finds
    // nothing): each kick after the previous one's claim has settled.
    for (let i = 0; i < 3; i++) {
      harness.built.worker.kick();
      expect(await settled(claims, 3 + i)).toBe(3 + i);
    }
    // And none later: a kick claims once, not once now and again after a while (a "look again"
    // timer would). A quiet pause of 50 gatherings (the idle poll is a minute), then the same count.
    await new Promise((r) => setTimeout(r, QUIET_MS));
    expect(await settled(claims, 5), "claims after a quiet pause").toBe(5);

    await harness.sandbox.deliverLifecycle(SEED.profiles.newsroom, {
      videoId: "x7kick1",
      presets: ["240p"],
      progressSteps: 2,
      deliverTo: harness.url,
      force: true,
    });
    // Its parent message: posted at once (what comes later, paced by the channel, waits for a
    // due time the poll finds; not what kicks are for).
    await waitFor(
      () => harness.slack.messages(CHANNEL).some((m) => !m.thread_ts && /x7kick1/.test(JSON.stringify(m))),
      5_000,
      "the video's parent message",
    );
  });
});

describe("post turns", () => {
  it("waiting videos get one turn each, an interval apart, and take the slot at their turn before newcomers", () => {
    let t = 1_000_000;
    const g = new ChannelGate({ postIntervalMs: 1000, now: () => t });
    expect(g.takePostSlot("C", "v0")).toBe(0);
    const turns = ["v1", "v2", "v3"].map((v) => g.takePostSlot("C", v));
    expect(turns).toEqual([t + 1000, t + 2000, t + 3000]);
    // Asking again before its turn: the same turn, no new one.
    expect(g.takePostSlot("C", "v2")).toBe(t + 2000);
    t += 1000;
    // A newcomer while turns are out queues behind them; v1's turn has come.
    expect(g.takePostSlot("C", "late")).toBe(t + 3000);
    expect(g.takePostSlot("C", "v1")).toBe(0);
    expect(g.takePostSlot("C", "v3")).toBe(t + 2000);
    t += 1000;
    expect(g.takePostSlot("C", "v2")).toBe(0);
    t += 1000;
    expect(g.takePostSlot("C", "v3")).toBe(0);
    t += 1000;
    expect(g.takePostSlot("C", "late")).toBe(0);
    // The queue is empty: the next post after the interval takes the slot at once.
    t += 1000;
    expect(g.takePostSlot("C", "v9")).toBe(0);
  });

  it("a turn not taken is dropped after a while and stops holding newcomers back", () => {
    let t = 1_000_000;
    const g = new ChannelGate({ postIntervalMs: 1000, now: () => t });
    expect(g.takePostSlot("C", "v0")).toBe(0);
    expect(g.takePostSlot("C", "gone")).toBe(t + 1000);
    t += 60_000;
    expect(g.takePostSlot("C", "new")).toBe(0);
  });
});
