/**
 * Nothing lost, nothing doubled: a bot restarted in the middle of a burst (sqlite file and Redis),
 * and two bots side by side on one Redis, each delivery posted once.
 */
import { afterAll, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { type Bot, type Harness, startBot, startHarness, waitFor } from "../support/harness.js";
import { scratchStores } from "../support/stores.js";

const CHANNEL = "C0NEWS";
const WORKER = { coalesceMs: 300, postIntervalMs: 40, pollMs: 10 };

const { storeFor, cleanup } = scratchStores("durable");
afterAll(cleanup);

async function configure(h: Harness) {
  const res = await h.slash("/webhook", `set ${SEED.profiles.newsroom}`, {
    user: "U0ADMIN",
    channel: CHANNEL,
  });
  await h.answer(res.responseUrl);
}

/** Every video shows exactly one parent, complete, with published and complete once in its thread. */
function checkVideos(h: Harness, ids: string[]) {
  const all = h.slack.messages(CHANNEL);
  for (const id of ids) {
    const parents = all.filter((m) => !m.thread_ts && JSON.stringify(m).includes(id));
    expect(parents, `parents of ${id}`).toHaveLength(1);
    expect(parents[0]?.text ?? "").toMatch(/complete/i);
    const thread = all.filter((m) => m.thread_ts === parents[0]?.ts).map((m) => m.text);
    expect(
      thread.filter((t) => /published/i.test(t)),
      `published of ${id}`,
    ).toHaveLength(1);
    expect(
      thread.filter((t) => /complete/i.test(t)),
      `complete of ${id}`,
    ).toHaveLength(1);
  }
}

/** Every video's parent says complete and its thread has the complete milestone. */
function allComplete(h: Harness, ids: string[]): boolean {
  const all = h.slack.messages(CHANNEL);
  return ids.every((id) => {
    const parent = all.find((m) => !m.thread_ts && m.text.includes(id) && /complete/i.test(m.text));
    return parent !== undefined && all.some((m) => m.thread_ts === parent.ts && /complete/i.test(m.text));
  });
}

describe.each(["sqlite", "redis"] as const)("restart in the middle of a burst (%s store)", (kind) => {
  it("resumes what was stored and not yet posted; posts nothing twice", async () => {
    const s = storeFor(kind);
    const h = await startHarness({ ...s, worker: WORKER });
    let second: Bot | undefined;
    try {
      await configure(h);
      const first = ["x7rs01", "x7rs02", "x7rs03", "x7rs04", "x7rs05"];
      for (const videoId of first) {
        const r = await h.sandbox.deliverLifecycle(SEED.profiles.newsroom, {
          videoId,
          deliverTo: h.url,
          force: true,
        });
        expect(r.every((x) => x.status === 200)).toBe(true);
      }
      // Stop the first bot while its worker is still posting, as a SIGTERM does.
      const postedBefore = h.slack.calls.length;
      await h.built.stop();
      expect(allComplete(h, first)).toBe(false);

      second = await startBot(h.config, h.logger, { ...s, worker: WORKER });
      const more = ["x7rs06", "x7rs07"];
      for (const videoId of more) {
        const r = await h.sandbox.deliverLifecycle(SEED.profiles.newsroom, {
          videoId,
          deliverTo: second.url,
          force: true,
        });
        expect(r.every((x) => x.status === 200)).toBe(true);
      }
      await waitFor(() => allComplete(h, [...first, ...more]), 30_000, "every video to complete");
      expect(h.slack.calls.length).toBeGreaterThan(postedBefore);
      checkVideos(h, [...first, ...more]);
    } finally {
      await second?.close();
      await h.close();
    }
  }, 60_000);
});

describe("two bots on one Redis", () => {
  it("each delivery is posted once whichever bot received it", async () => {
    const s = storeFor("redis");
    const h = await startHarness({ ...s, worker: { ...WORKER, owner: "bot-a" } });
    const b = await startBot(h.config, h.logger, { ...s, worker: { ...WORKER, owner: "bot-b" } });
    try {
      await configure(h);
      const ids = ["x7two1", "x7two2", "x7two3", "x7two4", "x7two5", "x7two6"];
      await Promise.all(
        ids.map((videoId, i) =>
          h.sandbox.deliverLifecycle(SEED.profiles.newsroom, {
            videoId,
            deliverTo: i % 2 === 0 ? h.url : b.url,
            force: true,
            shuffle: i % 3 === 0,
          }),
        ),
      );
      await waitFor(() => allComplete(h, ids), 30_000, "every video to complete");
      checkVideos(h, ids);
    } finally {
      await b.close();
      await h.close();
    }
  }, 60_000);
});
