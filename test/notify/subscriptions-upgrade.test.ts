/**
 * A video in progress when the bot is upgraded to subscriptions: its state was kept at its route
 * key (one channel per profile). The channel's key continues from that state, so its later events
 * update the same parent message instead of posting a second one (src/notify/fanout.ts).
 */

import { WebClient } from "@slack/web-api";
import { request } from "undici";
import { afterAll, beforeAll, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { videoKeyOf } from "../../src/domain/index.js";
import { workerClientOptions } from "../../src/install/oauth.js";
import { foldBatch, initialStateOf } from "../../src/notify/fold.js";
import { type Harness, startHarness } from "../support/harness.js";
import { RECENT } from "../support/recent.js";

const PROFILE = SEED.profiles.newsroom;
const CHANNEL = "C0NEWS";
const VIDEO = "x7inflight";
let h: Harness;
let hook: string;

async function deliver(type: string, timestamp: number): Promise<void> {
  const res = await request(hook, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ type, timestamp, data: { owner_id: PROFILE, video_id: VIDEO } }),
  });
  await res.body.text();
  expect(res.statusCode).toBe(200);
}
const parents = () =>
  h.slack.messages(CHANNEL).filter((m) => !m.thread_ts && JSON.stringify(m).includes(VIDEO));

beforeAll(async () => {
  h = await startHarness({ worker: { manual: true, coalesceMs: 0, postIntervalMs: 0 } });
  hook = await h.configureProfile({ channel: CHANNEL });
});
afterAll(async () => {
  await h.close();
});

it("continues the profile key's state for the same channel: no second parent", async () => {
  // What the worker did before the upgrade: the video's state at its profile key, its parent posted.
  await deliver("video.created", RECENT);
  const profileKey = videoKeyOf(h.slack.teamId, PROFILE, VIDEO);
  const owner = "old-worker";
  expect(await h.outbox.claimDue(owner, Date.now(), 10, 30_000)).toEqual([profileKey]);
  const items = await h.outbox.pending(profileKey, 10);
  const first = items[0];
  if (!first) throw new Error("no item");
  const { state } = foldBatch(initialStateOf(first), items);
  const client = new WebClient(h.slack.botToken, workerClientOptions(h.slack.apiUrl));
  const posted = await client.chat.postMessage({ channel: CHANNEL, text: `Video ${VIDEO}: created` });
  expect(await h.outbox.setState(owner, profileKey, { ...state, parentTs: posted.ts ?? null })).toBe(true);
  expect(
    await h.outbox.ack(
      owner,
      profileKey,
      items.map((i) => i.id),
    ),
  ).toBe(true);
  await h.outbox.release(owner, profileKey, null);
  expect(parents()).toHaveLength(1);

  // After the upgrade: the next event goes through the fan-out to the channel's key.
  await deliver("video.published", RECENT + 1000);
  await h.built.worker.drain();
  const after = parents();
  expect(after).toHaveLength(1);
  expect(after[0]?.ts).toBe(posted.ts);
  expect(after[0]?.text ?? "").toMatch(/published/i);
});
