/**
 * Slack's rate limits are per method per workspace, except chat.postMessage's one message per
 * second per channel (src/posting/pacing.ts). Over the real path (sandbox → bot → worker → Slack
 * stand-in): a 429 on chat.update in one channel makes chat.update wait in every channel of the
 * workspace, while posts go on; a 429 on chat.postMessage pauses that channel only.
 */

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import type { RecordedCall } from "../../fakes/slack/index.js";
import { sampleLifecycle } from "../../src/notify/sample.js";
import { type Harness, startHarness, waitFor } from "../support/harness.js";
import { RECENT } from "../support/recent.js";

const A = "C0NEWS";
const B = "C0GENERAL";
const RETRY_AFTER_S = 3;
let h: Harness;

async function configure(profileId: string, channel: string): Promise<void> {
  await h.configureProfile({ profileId, channel });
}

/** The sample lifecycle's events of one video, by type (and preset progress). */
function video(profile: string, id: string) {
  const events = sampleLifecycle(profile, RECENT, id);
  const pick = (type: string, progress?: number) => {
    const e = events.find((x) => x.type === type && (progress === undefined || x.data.progress === progress));
    if (!e) throw new Error(`no ${type}`);
    return e;
  };
  return {
    created: pick("video.created"),
    progress: pick("video.format.processing", 25),
    published: pick("video.published"),
  };
}

async function deliver(profile: string, event: ReturnType<typeof video>["created"]): Promise<void> {
  const r = await h.sandbox.deliver(profile, event, { deliverTo: h.url, force: true });
  expect(r.status).toBe(200);
}

const calls = (method: string, channel: string, pred: (c: RecordedCall) => boolean = () => true) =>
  h.slack.calls.filter((c) => c.method === method && c.args.channel === channel && pred(c));
const parentOf = (channel: string, id: string) =>
  calls("chat.postMessage", channel, (c) => c.ok && !c.args.thread_ts && JSON.stringify(c.args).includes(id));

beforeEach(async () => {
  h = await startHarness({ worker: { coalesceMs: 100, postIntervalMs: 20, pollMs: 10 } });
  await configure(SEED.profiles.newsroom, A);
  await configure(SEED.profiles.studio, B);
});
afterEach(async () => {
  await h.close();
});

describe("Slack 429s, per method and workspace", () => {
  it("a chat.update 429 in channel A holds updates in channel B of the same workspace; posts go on", async () => {
    const news = SEED.profiles.newsroom;
    const studio = SEED.profiles.studio;
    const a = video(news, "x7rla");
    const b = video(studio, "x7rlb");
    await deliver(news, a.created);
    await deliver(studio, b.created);
    await waitFor(() => parentOf(A, "x7rla")[0] && parentOf(B, "x7rlb")[0], 5000, "both parents");

    h.slack.addFault({ method: "chat.update", status: 429, retryAfter: RETRY_AFTER_S });
    await deliver(news, a.progress);
    const limited = await waitFor(() => calls("chat.update", A, (c) => c.status === 429)[0], 5000, "the 429");
    const pauseEnd = limited.at + RETRY_AFTER_S * 1000;

    // During the pause, channel B: its video moves on (an update is due, and a reply), and a new
    // video starts (a post).
    await deliver(studio, b.progress);
    await deliver(studio, b.published);
    const c = video(studio, "x7rlc");
    await deliver(studio, c.created);
    const reply = await waitFor(
      () => calls("chat.postMessage", B, (x) => x.ok && typeof x.args.thread_ts === "string")[0],
      2000,
      "the reply in B during the pause",
    );
    const post = await waitFor(() => parentOf(B, "x7rlc")[0], 2000, "the new post in B during the pause");
    expect(reply.at).toBeLessThan(pauseEnd);
    expect(post.at).toBeLessThan(pauseEnd);

    // B's update waits for the pause (not even tried meanwhile), then goes through; so does A's.
    const updateB = await waitFor(() => calls("chat.update", B, (x) => x.ok)[0], 8000, "B's update");
    const updateA = await waitFor(() => calls("chat.update", A, (x) => x.ok)[0], 3000, "A's update");
    expect(updateB.at).toBeGreaterThanOrEqual(pauseEnd);
    expect(updateA.at).toBeGreaterThanOrEqual(pauseEnd);
    expect(calls("chat.update", B, (x) => x.at < pauseEnd)).toEqual([]);
    expect(h.slack.calls.filter((x) => x.status === 429)).toHaveLength(1);
    expect(h.logs.join("\n")).toMatch(/rate-limited the method in the workspace/);
  });

  it("a chat.postMessage 429 in channel A pauses channel A only", async () => {
    const news = SEED.profiles.newsroom;
    const studio = SEED.profiles.studio;
    h.slack.addFault({ method: "chat.postMessage", status: 429, retryAfter: 2 });
    await deliver(news, video(news, "x7rpa").created);
    const limited = await waitFor(
      () => calls("chat.postMessage", A, (c) => c.status === 429)[0],
      5000,
      "the 429",
    );
    const pauseEnd = limited.at + 2000;
    await deliver(studio, video(studio, "x7rpb").created);
    const postB = await waitFor(() => parentOf(B, "x7rpb")[0], 1500, "B's post during A's pause");
    expect(postB.at).toBeLessThan(pauseEnd);
    const postA = await waitFor(() => parentOf(A, "x7rpa")[0], 5000, "A's post after its pause");
    expect(postA.at).toBeGreaterThanOrEqual(pauseEnd);
  });
});
