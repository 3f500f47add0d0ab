/**
 * The worker gives the event loop a turn between claims (src/notify/worker.ts `run`).
 *
 * On the memory store, a pass can await nothing but settled promises: a video whose channel has
 * another pass in Slack right now is turned away by the channel gate (src/notify/show.ts
 * `gate.enter`) after loading, validating and settling its state in memory, and comes back
 * `gate.retryAt()` later, 50 ms with the tests' postIntervalMs. With thousands of such videos,
 * one round over them takes longer than those 50 ms, so every claim finds a video due again. A
 * worker that claimed again at once while claims found work then never returned to the event
 * loop: the Slack answer of the pass in Slack was never read (so the gate never opened again and
 * the spin never ended), and no HTTP request was answered (health, Slack, deliveries).
 *
 * The backlog is put in the outbox directly, already due: over HTTP the outbox spaces a route's
 * new videos 10 ms apart (outbox/common.ts `fairDue`), so 4,000 deliveries would take 40 s to come
 * due; this is the state a flood reaches once the worker lags behind it. The read budget of one a
 * minute settles every title at once (`unknown: budget`), as after a flood that spent it.
 *
 * The probes (GET /healthz and a delivery, over HTTP) must be answered while the worker is still
 * being handed work. A worker that never yields would hold this process, its timers and this
 * test's timeout for good, so the test's claimDue stops handing out work after STARVED_MS: what
 * is only answered after that was held back by the worker.
 */
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { outboxItemOf } from "../../src/notify/item.js";
import { parseDelivery } from "../../src/platform/index.js";
import { type Harness, startHarness, waitFor } from "../support/harness.js";

/** Many more than the worker gets through in one retry interval (50 ms), even on a fast machine. */
const VIDEOS = 4_000;
/** How long the worker is handed work at most; with the fix the probes are answered in ms. */
const STARVED_MS = 7_000;
const PROFILE = SEED.profiles.newsroom;
const CHANNEL = "C0NEWS";

let h: Harness;
let deliveryUrl: string;

beforeAll(async () => {
  h = await startHarness({ env: { WORKSPACE_READS_PER_MINUTE: "1" } });
  deliveryUrl = await h.configureProfile({ channel: CHANNEL, profileId: PROFILE });
});
afterAll(async () => {
  await h?.close();
});

/** The outbox's claims as the worker sees them: counted, and none after the cut-off. */
function watchClaims(h: Harness) {
  const seen = { found: 0, cutOff: false, cutAt: 0 };
  const claimDue = h.outbox.claimDue.bind(h.outbox);
  h.outbox.claimDue = async (...args) => {
    if (!seen.cutOff && seen.cutAt > 0 && Date.now() > seen.cutAt) seen.cutOff = true;
    if (seen.cutOff) return [];
    const keys = await claimDue(...args);
    if (keys.length > 0) seen.found++;
    return keys;
  };
  return seen;
}

/** New-video parents posted in the channel so far. */
const parents = () => h.slack.messages(CHANNEL).filter((m) => JSON.stringify(m).includes("xloop")).length;

describe("the worker and the event loop (memory store)", () => {
  it("a backlog of videos waiting for a busy channel does not hold back /healthz or a delivery", async () => {
    const route = { teamId: h.slack.teamId, profileId: PROFILE, channelId: CHANNEL };
    const now = Date.now();
    for (let i = 0; i < VIDEOS; i++) {
      const d = parseDelivery({
        type: "video.created",
        timestamp: now + i,
        data: { owner_id: PROFILE, video_id: `xloop${i.toString(36)}` },
      });
      if (!d.ok) throw new Error(d.error);
      const { item, dedupeKey } = outboxItemOf(route, d.value, now);
      // Due an hour ago: the whole backlog is due at once.
      expect(await h.outbox.enqueue(item, dedupeKey, now - 3_600_000)).toBe("stored");
    }
    const claims = watchClaims(h);
    claims.cutAt = Date.now() + STARVED_MS;
    try {
      h.built.worker.kick();
      // The worker is into the backlog (a worker that never yields answers this only at the cut-off).
      await waitFor(() => claims.found >= 100, STARVED_MS + 5_000, "the worker into the backlog");

      /** Sends a request; what the worker was doing when its answer came. */
      const probe = async (send: () => Promise<number>) => {
        const status = await send();
        return { status, cutOff: claims.cutOff, found: claims.found, parents: parents() };
      };
      const [health, delivery] = await Promise.all([
        probe(async () => (await fetch(`${h.url}/healthz`)).status),
        probe(async () => {
          const res = await request(deliveryUrl, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({
              type: "video.created",
              timestamp: Date.now(),
              data: { owner_id: PROFILE, video_id: "xloopprobe" },
            }),
          });
          await res.body.dump();
          return res.statusCode;
        }),
      ]);

      // Both answered while the worker was still being handed work (not after the cut-off)...
      expect(health, "/healthz answered only once the worker ran out of work").toMatchObject({
        status: 200,
        cutOff: false,
      });
      expect(delivery, "the delivery answered only once the worker ran out of work").toMatchObject({
        status: 200,
        cutOff: false,
      });
      // ...with the backlog far from shown...
      expect(Math.max(health.parents, delivery.parents)).toBeLessThan(VIDEOS / 2);
      // ...and the worker went on claiming it afterwards.
      const after = Math.max(health.found, delivery.found);
      await waitFor(() => claims.found > after + 10 || claims.cutOff, STARVED_MS, "more claims");
      expect(claims.cutOff, "the worker stopped finding work").toBe(false);
    } finally {
      // The worker goes idle (it finds nothing), whatever happened above.
      claims.cutOff = true;
    }
  });
});
