/**
 * Video lifecycles from the sandbox, over real HTTP, to the running bot and into the Slack
 * stand-in's channel: one parent per video kept up to date, milestones in its thread, coalesced
 * progress, duplicates shown once, out-of-order never backwards, Slack storms lose nothing.
 * "Once" and "not again" are judged once the outbox is empty and the worker idle
 * (test/support/settle.ts), not after a fixed pause.
 */

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { sampleLifecycle } from "../../src/notify/sample.js";
import { eventually, type Harness, PUBLIC_URL, startHarness, waitFor } from "../support/harness.js";
import { RECENT } from "../support/recent.js";
import { settled } from "../support/settle.js";

const CHANNEL = "C0NEWS";
let h: Harness;

async function configure(channel = CHANNEL): Promise<void> {
  const res = await h.slash("/webhook", `set ${SEED.profiles.newsroom}`, { user: "U0ADMIN", channel });
  await h.answer(res.responseUrl);
}

/** Messages of the channel that belong to a video (its parent and thread). */
function videoMessages(videoId: string, channel = CHANNEL) {
  const all = h.slack.messages(channel);
  // The bot's answer to `/webhook test` names the video too; it is not the video's message.
  const parent = all.filter(
    (m) => !m.thread_ts && JSON.stringify(m).includes(videoId) && !/^Test lifecycle sent/.test(m.text ?? ""),
  );
  const ts = parent[0]?.ts;
  const thread = ts ? all.filter((m) => m.thread_ts === ts) : [];
  return { parent, thread };
}

function slackWrites(channel = CHANNEL) {
  return h.slack.calls.filter(
    (c) =>
      (c.method === "chat.postMessage" || c.method === "chat.update") && c.args.channel === channel && c.ok,
  );
}

beforeEach(async () => {
  h = await startHarness({ worker: { coalesceMs: 300, postIntervalMs: 20, pollMs: 10 } });
  await configure();
});
afterEach(async () => {
  await h.close();
});

describe("one video, one tidy message", () => {
  it("a full lifecycle is one parent updated in place, with milestones in its thread", async () => {
    const results = await h.sandbox.deliverLifecycle(SEED.profiles.newsroom, {
      videoId: "x7life1",
      presets: ["240p", "480p", "720p"],
      progressSteps: 10,
      deliverTo: h.url,
      force: true,
    });
    expect(results.every((r) => r.status === 200)).toBe(true);
    const done = await waitFor(
      () => {
        const v = videoMessages("x7life1");
        return v.parent.length === 1 && /complete/i.test(v.parent[0]?.text ?? "") && v.thread.length >= 2
          ? v
          : undefined;
      },
      15_000,
      "the video to be complete",
    );
    expect(done.parent).toHaveLength(1);
    expect(done.thread.map((m) => m.text).join("\n")).toMatch(/published/i);
    expect(done.thread.map((m) => m.text).join("\n")).toMatch(/complete/i);
    const writes = slackWrites();
    console.info(`Slack calls for one lifecycle of ${results.length} deliveries: ${writes.length}`);
    expect(writes.length).toBeLessThanOrEqual(8);
    expect(
      h.slack.calls.filter(
        (c) => c.method === "chat.postMessage" && !c.args.thread_ts && c.args.channel === CHANNEL,
      ),
    ).toHaveLength(1);
  });

  it("duplicates are shown once and shuffled deliveries end in the same state", async () => {
    const events = sampleLifecycle(SEED.profiles.newsroom, RECENT, "x7shuf");
    // Every delivery twice (the platform may retry), in a shuffled order (ordering is not shown).
    const order = [...events, ...events]
      .map((e, i) => ({ e, k: (i * 7919) % 97 }))
      .sort((a, b) => a.k - b.k)
      .map((x) => x.e);
    const statuses: string[] = [];
    for (const e of order) {
      const r = await h.sandbox.deliver(SEED.profiles.newsroom, e, { deliverTo: h.url, force: true });
      statuses.push((JSON.parse(r.body) as { status: string }).status);
    }
    expect(statuses.filter((s) => s === "duplicate")).toHaveLength(events.length);
    const v = await waitFor(
      () => {
        const m = videoMessages("x7shuf");
        return m.parent.length === 1 && /complete/i.test(m.parent[0]?.text ?? "") && m.thread.length >= 2
          ? m
          : undefined;
      },
      15_000,
      "complete",
    );
    await settled(h.outbox);
    const milestones = videoMessages("x7shuf").thread.map((m) => m.text);
    expect(milestones.filter((t) => /published/i.test(t))).toHaveLength(1);
    expect(milestones.filter((t) => /complete/i.test(t))).toHaveLength(1);
    expect(v.parent[0]?.text).toMatch(/complete/i);
  });

  it("progress events are coalesced: far fewer updates than events", async () => {
    await h.sandbox.deliverLifecycle(SEED.profiles.newsroom, {
      videoId: "x7coal",
      progressSteps: 20,
      deliverTo: h.url,
      force: true,
      concurrency: 4,
    });
    await waitFor(() => /complete/i.test(videoMessages("x7coal").parent[0]?.text ?? ""), 15_000, "complete");
    const updates = h.slack.callsTo("chat.update").filter((c) => c.ok);
    expect(updates.length).toBeLessThan(10);
  });

  it("/webhook test sends a sample lifecycle through the whole path into the channel", async () => {
    const res = await h.slash("/webhook", "test", { user: "U0ADMIN", channel: CHANNEL });
    const answer = await h.answer(res.responseUrl);
    const videoId = /`(xtest[0-9a-f]+)`/.exec(JSON.stringify(answer))?.[1] ?? "";
    expect(videoId).not.toBe("");
    await waitFor(
      () => /complete/i.test(videoMessages(videoId).parent[0]?.text ?? ""),
      15_000,
      "the sample to complete",
    );
  });
});

describe("Slack trouble", () => {
  it("429 storms and 5xx are retried for that channel only; nothing is lost", async () => {
    h.slack.addFault({ method: "chat.postMessage", status: 429, retryAfter: 1, times: 3 });
    h.slack.addFault({ method: "chat.update", status: 503, times: 3 });
    await h.sandbox.deliverLifecycle(SEED.profiles.newsroom, {
      videoId: "x7storm",
      deliverTo: h.url,
      force: true,
    });
    const v = await waitFor(
      () => {
        const m = videoMessages("x7storm");
        return m.parent.length === 1 && /complete/i.test(m.parent[0]?.text ?? "") && m.thread.length >= 2
          ? m
          : undefined;
      },
      20_000,
      "complete after the storm",
    );
    expect(v.parent).toHaveLength(1);
    expect(h.slack.calls.some((c) => c.status === 429)).toBe(true);
  });

  it("a channel the bot cannot post in: recorded, managers told once, not retried forever", async () => {
    await configure("C0PRIVATE");
    // A manager added with `/webhook managers add` is told too (the commands' manager policy).
    await h.built.deps.settings.addManager(h.slack.teamId, "U0OTHER", "U0ADMIN", new Date());
    await h.sandbox.deliverLifecycle(SEED.profiles.newsroom, {
      videoId: "x7priv1",
      deliverTo: h.url,
      force: true,
    });
    await h.sandbox.deliverLifecycle(SEED.profiles.newsroom, {
      videoId: "x7priv2",
      deliverTo: h.url,
      force: true,
    });
    await eventually(async () => (await h.outbox.stats()).depth === 0, 15_000, "the outbox to drain");
    const dead = await h.outbox.listDead(h.slack.teamId, 100);
    expect(dead.length).toBeGreaterThan(0);
    expect(dead.every((d) => d.reason === "not_in_channel")).toBe(true);
    // Both managers told, then the worker idle: a second notice would have come by then.
    const toldTo = (user: string) =>
      h.slack.calls.some((c) => c.method === "chat.postMessage" && c.args.channel === user);
    await waitFor(() => toldTo("U0ADMIN") && toldTo("U0OTHER"), 15_000, "the managers told");
    await settled(h.outbox);
    const dms = h.slack.calls.filter((c) => c.method === "chat.postMessage" && c.args.channel === "U0ADMIN");
    expect(dms).toHaveLength(1);
    expect(String(dms[0]?.args.text)).toMatch(/not_in_channel/);
    const added = h.slack.calls.filter(
      (c) => c.method === "chat.postMessage" && c.args.channel === "U0OTHER",
    );
    expect(added).toHaveLength(1);
    const attempts = h.slack.calls.filter((c) => c.args.channel === "C0PRIVATE").length;
    // Several more worker polls that find nothing: no retry comes.
    await settled(h.outbox);
    expect(h.slack.calls.filter((c) => c.args.channel === "C0PRIVATE").length).toBe(attempts);
    expect(PUBLIC_URL).toContain("https://");
  });
});
