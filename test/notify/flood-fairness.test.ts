/**
 * One flood never holds back anyone else (issue 26), over the real path: 1,000 mixed bodies (valid
 * deliveries for made-up video ids, bodies that are not deliveries, hostile strings) are posted to
 * one profile's callback, then another profile's whole lifecycle is delivered to its own callback
 * and channel in the same workspace. That video's first message must come within 2 s of its first
 * delivery and its complete message within 15 s, however the platform answers the flood's title
 * reads (at once with 404, in 5 s, 500) and while Slack rate-limits the flooded channel; the
 * flood's title reads cost at most the workspace's read budget, and an id the platform said does
 * not exist is never read again. On memory, sqlite and Redis.
 */
import { request } from "undici";
import { afterAll, describe, expect, it } from "vitest";
import { floodCallback } from "../../fakes/platform/flood.js";
import { SEED } from "../../fakes/platform/server.js";
import { type Harness, startHarness, waitFor } from "../support/harness.js";
import { scratchStores } from "../support/stores.js";

const FLOODED = SEED.profiles.newsroom;
const OTHER = SEED.profiles.studio;
const FLOODED_CHANNEL = "C0NEWS";
const OTHER_CHANNEL = "C0GENERAL";
/** The contract's default WORKSPACE_READS_PER_MINUTE: what the flood's title reads may cost. */
const WORKSPACE_BUDGET = 200;
/** Production pacing: one new post per second per channel, updates coalesced over 3 s. */
const WORKER = { postIntervalMs: 1_000, coalesceMs: 3_000, pollMs: 250 };

const { storeFor, cleanup } = scratchStores("flood");
afterAll(cleanup);

/** One valid delivery of the flooded profile for `videoId`, answered 200. */
async function deliver(url: string, type: string, videoId: string | undefined): Promise<void> {
  const body = JSON.stringify({
    type,
    timestamp: Date.now(),
    data: { owner_id: FLOODED, video_id: videoId },
  });
  const res = await request(url, { method: "POST", headers: { "content-type": "application/json" }, body });
  await res.body.dump();
  expect(res.statusCode).toBe(200);
}

const floodReads = (h: Harness) =>
  h.sandbox.requests.filter((r) => r.method === "GET" && r.path.startsWith("/v2/videos/xfl"));

function otherVideo(h: Harness, videoId: string) {
  const all = h.slack.messages(OTHER_CHANNEL);
  const parents = all.filter((m) => !m.thread_ts && JSON.stringify(m).includes(videoId));
  const ts = parents[0]?.ts;
  return { parents, thread: ts ? all.filter((m) => m.thread_ts === ts) : [] };
}

type Case = "404" | "slow" | "500" | "slack-429";

const CASES: Array<[Case, string]> = [
  ["404", "the platform answers the flood's title reads at once with 404"],
  ["slow", "the platform answers every title read in 5 s"],
  ["500", "the platform answers every title read with 500"],
  ["slack-429", "Slack rate-limits the flooded channel"],
];

describe.each(["memory", "sqlite", "redis"] as const)("a flood on one callback (%s store)", (kind) => {
  it.each(CASES)(
    "%s: %s; another profile's video is shown at once, complete, once",
    async (c) => {
      const h = await startHarness({ ...storeFor(kind), worker: WORKER });
      try {
        const floodUrl = await h.configureProfile({ channel: FLOODED_CHANNEL, profileId: FLOODED });
        await h.configureProfile({ channel: OTHER_CHANNEL, profileId: OTHER });
        if (c === "slow") h.sandbox.addFault({ method: "GET", path: "/v2/videos/", latencyMs: 5_000 });
        if (c === "500") h.sandbox.addFault({ method: "GET", path: "/v2/videos/", status: 500 });
        if (c === "slack-429")
          h.slack.addFault({
            method: "chat.postMessage",
            channel: FLOODED_CHANNEL,
            status: 429,
            retryAfter: 30,
            times: 1_000,
          });

        const floodStarted = Date.now();
        const statuses = await floodCallback(floodUrl, FLOODED);
        expect(statuses).toHaveLength(1_000);
        expect(statuses.filter((s) => s >= 500)).toEqual([]);
        const stored = statuses.filter((s) => s === 200).length;
        expect(stored).toBeGreaterThan(300);

        const videoId = `xoth${kind.slice(0, 3)}${c.replace(/\W/g, "")}`.slice(0, 20);
        const started = Date.now();
        const results = await h.sandbox.deliverLifecycle(OTHER, { videoId, deliverTo: h.url, force: true });
        expect(results.every((r) => r.status === 200)).toBe(true);
        const firstAt = await waitFor(
          () => (otherVideo(h, videoId).parents.length > 0 ? Date.now() : undefined),
          10_000,
          "the other profile's first message",
        );
        expect(firstAt - started).toBeLessThan(2_000);
        await waitFor(
          () => {
            const v = otherVideo(h, videoId);
            return (
              /complete/i.test(v.parents[0]?.text ?? "") && v.thread.some((m) => /complete/i.test(m.text))
            );
          },
          15_000 - (Date.now() - started),
          "the other profile's video complete",
        );
        // Nothing doubled: one parent message for the video.
        expect(otherVideo(h, videoId).parents).toHaveLength(1);

        // The flood's title reads: charged to the workspace's budget, each id at most once.
        const reads = floodReads(h);
        // A budget holds a minute's worth and refills continuously: what it held, plus the refill.
        const refill = Math.ceil(((Date.now() - floodStarted) / 60_000) * WORKSPACE_BUDGET);
        expect(reads.length).toBeLessThanOrEqual(WORKSPACE_BUDGET + refill);
        expect(new Set(reads.map((r) => r.path)).size).toBe(reads.length);
      } finally {
        await h.close();
      }
    },
    60_000,
  );
});

describe("a made-up id the platform said does not exist", () => {
  it("is never read again, whatever is delivered for it later (sqlite)", async () => {
    const h = await startHarness({
      ...storeFor("sqlite"),
      worker: { coalesceMs: 100, postIntervalMs: 10, pollMs: 10 },
    });
    try {
      const url = await h.configureProfile({ channel: FLOODED_CHANNEL, profileId: FLOODED });
      const send = (type: string) => deliver(url, type, "xflghost");
      await send("video.created");
      await waitFor(() => floodReads(h).length === 1 || undefined, 8_000, "the title read");
      await waitFor(
        () => h.slack.messages(FLOODED_CHANNEL).some((m) => JSON.stringify(m).includes("xflghost")),
        8_000,
        "the message by id",
      );
      for (const type of ["video.published", "video.complete", "video.deleted"]) await send(type);
      await waitFor(
        () => h.slack.messages(FLOODED_CHANNEL).some((m) => !m.thread_ts && /deleted/i.test(m.text)),
        8_000,
        "the deletion shown",
      );
      expect(floodReads(h)).toHaveLength(1);
    } finally {
      await h.close();
    }
  }, 30_000);
});

describe("title reads charged to the callback's workspace", () => {
  it("200 made-up ids with WORKSPACE_READS_PER_MINUTE=20: at most 20 reads, every video shown (by id past the budget)", async () => {
    const h = await startHarness({
      ...storeFor("sqlite"),
      env: { WORKSPACE_READS_PER_MINUTE: "20" },
      worker: { coalesceMs: 100, postIntervalMs: 5, pollMs: 10 },
    });
    try {
      const url = await h.configureProfile({ channel: FLOODED_CHANNEL, profileId: FLOODED });
      const started = Date.now();
      const ids = Array.from({ length: 200 }, (_, i) => `xfl2${i.toString(36).padStart(3, "0")}`);
      let next = 0;
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (next < ids.length) {
            const videoId = ids[next++];
            await deliver(url, "video.created", videoId);
          }
        }),
      );
      const shown = () => {
        const text = JSON.stringify(h.slack.messages(FLOODED_CHANNEL));
        return ids.filter((id) => text.includes(id)).length;
      };
      await waitFor(() => shown() === ids.length || undefined, 30_000, "every video shown");
      const refill = Math.ceil(((Date.now() - started) / 60_000) * 20);
      expect(floodReads(h).length).toBeLessThanOrEqual(20 + refill);
      expect(h.logs.filter((l) => l.includes("read budget is spent"))).toHaveLength(1);
    } finally {
      await h.close();
    }
  }, 60_000);
});
