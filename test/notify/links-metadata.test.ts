/**
 * Video messages over the real path (sandbox deliveries → bot → Slack stand-in): the parent and
 * its milestones link the video (VIDEO_URL_TEMPLATE), and the parent carries Slack message
 * metadata (video_status) on chat.postMessage and chat.update, from which the video → message
 * map can be rebuilt with conversations.history (docs/notifications.md).
 */
import { WebClient } from "@slack/web-api";
import { afterEach, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { type Harness, startHarness, waitFor } from "../support/harness.js";

const CHANNEL = "C0NEWS";
let h: Harness | undefined;

afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function lifecycle(env: Record<string, string>, videoId: string) {
  h = await startHarness({ env, worker: { coalesceMs: 100, postIntervalMs: 20, pollMs: 10 } });
  await h.configureProfile({ channel: CHANNEL });
  // The upload is shown first, so the rest of the lifecycle is written by chat.update: delivered
  // all at once, a fast bot can gather the whole lifecycle into its first post.
  const created = await h.sandbox.deliver(
    SEED.profiles.newsroom,
    { type: "video.created", data: { owner_id: SEED.profiles.newsroom, video_id: videoId } },
    { deliverTo: h.url, force: true },
  );
  expect(created.status).toBe(200);
  const posted = () =>
    h?.slack.messages(CHANNEL).some((m) => !m.thread_ts && JSON.stringify(m).includes(videoId));
  await waitFor(() => posted() || undefined, 10_000, "the video's first message");
  const results = await h.sandbox.deliverLifecycle(SEED.profiles.newsroom, {
    videoId,
    presets: ["240p", "720p"],
    progressSteps: 3,
    deliverTo: h.url,
    force: true,
  });
  expect(results.every((r) => r.status === 200)).toBe(true);
  const slack = h.slack;
  return waitFor(
    () => {
      const all = slack.messages(CHANNEL);
      const parent = all.find((m) => !m.thread_ts && JSON.stringify(m).includes(videoId));
      const thread = parent ? all.filter((m) => m.thread_ts === parent.ts) : [];
      return parent && /complete/i.test(parent.text) && thread.length >= 2 ? { parent, thread } : undefined;
    },
    10_000,
    "the complete video",
  );
}

describe("video messages", () => {
  it("link the video and carry video_status metadata; the map can be rebuilt from Slack", async () => {
    const videoId = "x7link1";
    const { parent, thread } = await lifecycle({}, videoId);
    const linked = `<https://www.dailymotion.com/video/${videoId}|Open the video>`;
    expect(JSON.stringify(parent.blocks)).toContain(linked);
    for (const reply of thread) expect(JSON.stringify(reply.blocks)).toContain(linked);

    const writes = (h?.slack.calls ?? []).filter(
      (c) =>
        (c.method === "chat.postMessage" || c.method === "chat.update") &&
        c.ok &&
        c.args.thread_ts === undefined &&
        JSON.stringify(c.args.blocks).includes(videoId),
    );
    expect(writes.map((c) => c.method)).toContain("chat.update");
    for (const c of writes) {
      expect(c.args.metadata).toMatchObject({
        event_type: "video_status",
        event_payload: { video_id: videoId, profile_id: SEED.profiles.newsroom },
      });
    }
    expect(parent.metadata).toEqual({
      event_type: "video_status",
      event_payload: { video_id: videoId, profile_id: SEED.profiles.newsroom, stage: "complete" },
    });

    // The rebuild of docs/notifications.md: conversations.history with include_all_metadata.
    const client = new WebClient(h?.slack.botToken, { slackApiUrl: h?.slack.apiUrl });
    const history = await client.conversations.history({ channel: CHANNEL, include_all_metadata: true });
    const map = new Map(
      (history.messages ?? [])
        .filter((m) => m.metadata?.event_type === "video_status")
        .map((m) => [String((m.metadata?.event_payload as { video_id?: string })?.video_id), m.ts]),
    );
    expect(map.get(videoId)).toBe(parent.ts);
  });

  it("VIDEO_URL_TEMPLATE set empty: no link, metadata still carried", async () => {
    const videoId = "x7link2";
    const { parent, thread } = await lifecycle({ VIDEO_URL_TEMPLATE: "" }, videoId);
    expect(JSON.stringify([parent, ...thread])).not.toContain("Open the video");
    expect(parent.metadata).toMatchObject({ event_type: "video_status" });
  });
});
