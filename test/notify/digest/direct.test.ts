/**
 * A profile whose only channel is a digest: its deliveries are shown in place on the route's key
 * (no copies, src/notify/fanout.ts `directFilter`), and the digest holds them there too: no
 * per-video message, one digest. Real path, DIGEST_PERIOD=2s, memory store.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { SEED } from "../../../fakes/platform/server.js";
import { type Harness, startHarness, waitFor } from "../../support/harness.js";
import { digestLists, digestsIn, videoPosts } from "../digest-helpers.js";

const PROFILE = SEED.profiles.newsroom;
const CHANNEL = "C0NEWS";
let h: Harness;

beforeAll(async () => {
  h = await startHarness({
    env: { DIGEST_PERIOD: "2s" },
    worker: { coalesceMs: 200, postIntervalMs: 10, pollMs: 10 },
  });
  await h.configureProfile({ channel: CHANNEL });
});
afterAll(async () => {
  await h.close();
});

it("the callback's own channel as a digest: no per-video message, one digest", async () => {
  const res = await h.slash("/webhook", `subscribe ${PROFILE} digest=daily`, {
    user: "U0ADMIN",
    channel: CHANNEL,
  });
  expect((await h.answer(res.responseUrl)).response_type).toBe("in_channel");
  const p = await h.built.deps.settings.getProfile(h.slack.teamId, PROFILE);
  expect(p?.subscriptions.map((s) => s.channelId)).toEqual([CHANNEL]);
  for (const r of await h.sandbox.deliverLifecycle(PROFILE, {
    videoId: "x7direct",
    presets: ["240p", "480p"],
    progressSteps: 2,
    deliverTo: h.url,
  }))
    expect(r.status).toBe(200);
  await waitFor(() => digestsIn(h, CHANNEL).length > 0, 15_000, "the digest");
  const [digest] = digestsIn(h, CHANNEL);
  expect(digest?.text).toMatch(/^Daily digest of Northwind News/);
  expect(digestLists(digestsIn(h, CHANNEL))["✅ Published"]?.join()).toContain("x7direct");
  expect(videoPosts(h, CHANNEL, "x7direct")).toEqual([]);
}, 40_000);
