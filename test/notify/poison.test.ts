/**
 * Hostile or poisoned deliveries do not block a video, and an uninstalled workspace is not
 * retried for ever. Over the real path: the sandbox-shaped deliveries through the bot's route, the
 * outbox on memory / sqlite / Redis, the worker, and the Slack stand-in.
 *
 * - An item stored directly in the outbox (as an older version or a route without a depth cap
 *   stored it) whose data nests 3,600 levels deep is a dead letter exactly once; the video's
 *   normal deliveries are posted. Before, every later delivery of that video threw "Maximum call
 *   stack size exceeded" and the video was retried every 2 s for ever.
 * - A batch that keeps failing (not in the reducer) is counted in the stored state, across
 *   restarts of the worker, and its first item is a dead letter at the third failure.
 * - After Slack answers `account_inactive`, the workspace's items are dead letters and no further
 *   Slack call is made for it (one warn line for the workspace).
 */

import { randomUUID } from "node:crypto";
import { WebClient } from "@slack/web-api";
import { afterAll, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { videoKeyOf } from "../../src/domain/index.js";
import { workerClientOptions } from "../../src/install/oauth.js";
import { NotifyWorker } from "../../src/notify/worker.js";
import type { Outbox } from "../../src/outbox/types.js";
import { ChannelGate } from "../../src/posting/pacing.js";
import { eventually, type Harness, startHarness } from "../support/harness.js";
import { RECENT } from "../support/recent.js";
import { drainedByHand, settled } from "../support/settle.js";
import { type StoreKind as Kind, scratchStores } from "../support/stores.js";

const CHANNEL = "C0NEWS";
const PROFILE = SEED.profiles.newsroom;
const WORKER = { manual: true, coalesceMs: 50, pollMs: 10, postIntervalMs: 20 };

const { storeFor, cleanup } = scratchStores("poison");
afterAll(cleanup);

/** `{ a: { a: ... } }` nested `depth` levels. */
function deep(depth: number): Record<string, unknown> {
  let v: Record<string, unknown> = { leaf: true };
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

const T = RECENT;

function sender(hook: string) {
  return async (type: string, timestamp: number, videoId: string, extra: Record<string, unknown> = {}) => {
    const res = await fetch(hook, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ type, timestamp, data: { owner_id: PROFILE, video_id: videoId, ...extra } }),
    });
    expect(res.status).toBe(200);
  };
}

/** Stores an item as a route without caps (or an older version) would, bypassing today's route. */
async function storeDirectly(h: Harness, videoId: string, delivery: unknown): Promise<void> {
  const teamId = h.slack.teamId;
  const stored = await h.outbox.enqueue(
    {
      teamId,
      profileId: PROFILE,
      channelId: CHANNEL,
      videoKey: videoKeyOf(teamId, PROFILE, videoId),
      delivery: delivery as never,
      receivedAt: Date.now(),
    },
    `poison-${randomUUID()}`,
    Date.now(),
  );
  expect(stored).toBe("stored");
}

function parentsOf(h: Harness, videoId: string) {
  return h.slack.messages(CHANNEL).filter((m) => !m.thread_ts && JSON.stringify(m).includes(videoId));
}

function slackWrites(h: Harness) {
  return h.slack.calls.filter((c) => c.method === "chat.postMessage" || c.method === "chat.update");
}

describe.each<Kind>(["memory", "sqlite", "redis"])("a poisoned item (%s)", (kind) => {
  it("is a dead letter exactly once and the video is posted with its normal deliveries", async () => {
    const h = await startHarness({ ...storeFor(kind), worker: WORKER });
    try {
      const send = sender(await h.configureProfile());
      const video = `x9poi${kind.slice(0, 3)}`;
      await send("video.created", T, video);
      await storeDirectly(h, video, {
        type: "video.format.error",
        timestamp: T + 50,
        known: true,
        data: { owner_id: PROFILE, video_id: video, preset_name: "720p", details: deep(3600) },
      });
      await send("video.format.processing", T + 100, video, {
        preset_name: "240p",
        status: "processing",
        progress: 40,
      });
      await send("video.published", T + 200, video);
      h.built.worker.start();
      await eventually(async () => (await h.outbox.stats()).depth === 0, 10_000, "the outbox to drain");
      const parent = await eventually(
        async () => {
          const p = parentsOf(h, video);
          const thread = h.slack.messages(CHANNEL).filter((m) => m.thread_ts && m.thread_ts === p[0]?.ts);
          return p.length === 1 && /published/i.test(p[0]?.text ?? "") && thread.length >= 1 ? p : undefined;
        },
        10_000,
        "the video to be posted",
      );
      expect(parent[0]?.text).not.toMatch(/720p/);
      // A few more polls: nothing is retried, nothing dead-lettered twice.
      await settled(h.outbox);
      const dead = await h.outbox.listDead(h.slack.teamId, 10);
      expect(dead).toHaveLength(1);
      expect(dead[0]?.reason).toMatch(/nests deeper than \d+ levels/);
      expect(dead[0]?.item.delivery.type).toBe("video.format.error");
      expect(h.logs.filter((l) => l.includes("Maximum call stack"))).toEqual([]);
      expect(h.logs.filter((l) => l.includes("cannot apply were set aside"))).toHaveLength(1);
      expect((await h.outbox.stats()).scheduled).toBe(0);
    } finally {
      await h.close();
    }
  });
});

/**
 * The outbox, with the state write failing (not as a store outage) for any state holding `marker`:
 * `setState`, and `settle` (the state written with the acknowledgement in one step).
 */
function failingOn(outbox: Outbox, marker: string): Outbox {
  const refused = (state: unknown) => JSON.stringify(state ?? null).includes(marker);
  return new Proxy(outbox, {
    get(target, prop, receiver) {
      if (prop === "setState") {
        return (owner: string, key: string, state: unknown, opts?: { final?: boolean }) => {
          if (refused(state)) return Promise.reject(new Error("write refused"));
          return target.setState(owner, key, state, opts);
        };
      }
      if (prop === "settle") {
        return (...args: Parameters<Outbox["settle"]>) => {
          if (refused(args[2])) return Promise.reject(new Error("write refused"));
          return target.settle(...args);
        };
      }
      const v = Reflect.get(target, prop, receiver);
      return typeof v === "function" ? v.bind(target) : v;
    },
  });
}

describe("a batch that keeps failing (sqlite)", () => {
  it("counts its attempts in the state across restarts; its first item is a dead letter at the third", async () => {
    const h = await startHarness({ ...storeFor("sqlite"), worker: WORKER });
    try {
      const send = sender(await h.configureProfile());
      const video = "x9again";
      await send("video.created", T, video);
      await send("video.format.error", T + 10, video, { preset_name: "720p", why: "x9boom" });
      await send("video.published", T + 20, video);
      // One channel, the route's own: the video is shown in place on its profile key
      // (src/notify/fanout.ts, directFilter), where the worker keeps its state.
      const key = videoKeyOf(h.slack.teamId, PROFILE, video);
      const client = new WebClient(h.slack.botToken, workerClientOptions(h.slack.apiUrl));
      // Each round is a new worker (a restart): only the stored state carries the count.
      const counts: number[] = [];
      let rounds = 0;
      while ((await h.outbox.listDead(h.slack.teamId, 10)).length === 0 && rounds < 8) {
        rounds++;
        const worker = new NotifyWorker({
          outbox: failingOn(h.outbox, "x9boom"),
          slackFor: async () => client,
          settings: h.built.deps.settings,
          gate: new ChannelGate({ postIntervalMs: 20 }),
          logger: h.logger,
          managersOf: async () => [],
          // Ahead of the outbox clock by just enough for the +2 s retry to be due next round,
          // within the outbox's PULL_FORWARD_MS (a far release with items left would be "now").
          now: () => Date.now() + rounds * 2_000,
        });
        await worker.drain(5);
        const state = (await h.outbox.getState(key)) as { attempt?: { n: number } } | undefined;
        if (state?.attempt) counts.push(state.attempt.n);
      }
      // The first failure blames the batch's first item (created); alone it passes, so the next
      // first item (the error) is tried alone until its third failure.
      expect(counts).toEqual([1, 1, 2]);
      expect(rounds).toBe(4);
      const dead = await h.outbox.listDead(h.slack.teamId, 10);
      expect(dead).toHaveLength(1);
      expect(dead[0]?.item.delivery.type).toBe("video.format.error");
      expect(dead[0]?.reason).toMatch(/failed 3 times: Error: write refused/);
      // The app's own worker goes on with the video's other deliveries.
      await h.built.worker.drain();
      await eventually(
        async () => (/published/i.test(parentsOf(h, video)[0]?.text ?? "") ? true : undefined),
        10_000,
        "the video to be posted",
      );
      expect((await h.outbox.stats()).depth).toBe(0);
    } finally {
      await h.close();
    }
  });
});

describe.each<Kind>(["memory", "sqlite"])("an uninstalled workspace (%s)", (kind) => {
  it("after account_inactive: items dead-lettered once, no further Slack call, one warn line", async () => {
    const h = await startHarness({ ...storeFor(kind), worker: { ...WORKER, concurrency: 1 } });
    try {
      const send = sender(await h.configureProfile());
      h.slack.addFault({ method: "*", error: "account_inactive", times: 1000 });
      const before = h.slack.calls.length;
      await send("video.created", T, "x9gone1");
      await send("video.published", T + 10, "x9gone1");
      await h.built.worker.drain();
      expect(h.slack.calls.length - before).toBe(1);
      expect(await h.outbox.listDead(h.slack.teamId, 10)).toHaveLength(2);
      // More deliveries, for this video and others; worker rounds until every item is handled
      // (due once its gathering is over), then three more.
      await send("video.complete", T + 20, "x9gone1");
      await send("video.created", T + 30, "x9gone2");
      // A poisoned item in the same batch is a dead letter once, for its own reason.
      await storeDirectly(h, "x9gone2", {
        type: "video.published",
        timestamp: T + 35,
        known: true,
        data: { owner_id: PROFILE, video_id: "x9gone2", x: deep(100) },
      });
      await send("video.created", T + 40, "x9gone3");
      await drainedByHand(h.built.worker, h.outbox);
      for (let poll = 0; poll < 3; poll++) await h.built.worker.drain();
      expect(h.slack.calls.length - before).toBe(1);
      expect(slackWrites(h).filter((c) => c.ok && JSON.stringify(c.args).includes("x9gone"))).toEqual([]);
      const dead = await h.outbox.listDead(h.slack.teamId, 10);
      expect(dead).toHaveLength(6);
      expect(new Set(dead.map((d) => d.item.id)).size).toBe(6);
      expect(dead.filter((d) => d.reason === "account_inactive")).toHaveLength(5);
      expect(dead.filter((d) => /nests deeper/.test(d.reason))).toHaveLength(1);
      const stats = await h.outbox.stats();
      expect(stats.depth).toBe(0);
      expect(stats.scheduled).toBe(0);
      expect(h.logs.filter((l) => l.includes("gone from the workspace"))).toHaveLength(1);
    } finally {
      await h.close();
    }
  });
});
