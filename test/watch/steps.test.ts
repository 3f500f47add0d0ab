/**
 * Waiting steps (`wait_until_live`, `wait_until_off_air`) on the memory store, over the real path:
 * signed `function_executed` events, the platform sandbox playing the livestream on and off air,
 * the live-watch schedule, the Slack stand-in recording each completion.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { eventBody, sendSigned } from "../../fakes/slack/index.js";
import { dmKey } from "../../src/watch/registry.js";
import { eventually, type Harness, SIGNING_SECRET, startHarness, waitFor } from "../support/harness.js";
import { POLL_CEILING_MS, untilElapsed } from "../support/polls.js";
import { completion, completionsOf, runStep } from "../support/steps.js";

const TEAM = "T0STANDIN";
const INTERVAL = 1000;
const GRACE = 1000;
const OFF = SEED.livestreams.offAir;
const ON = SEED.livestreams.onAirAdBreak;

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    env: {
      PROFILE_BINDINGS: `${TEAM}=${SEED.profiles.newsroom},${SEED.profiles.studio}`,
      LIVE_WATCH_INTERVAL_MS: String(INTERVAL),
      LIVE_OFFAIR_GRACE_MS: String(GRACE),
    },
    watch: { tickMs: 20 },
  });
});
afterAll(async () => {
  await h?.close();
});
beforeEach(() => {
  h.sandbox.reset();
  h.slack.reset();
  // A step's own read is shared for 10 s like /live status's: each test starts from the sandbox.
  h.built.deps.access.sharedReads.clear();
});

const step = (callbackId: string, inputs: Record<string, unknown>) =>
  runStep(h.slack, h.eventsUrl, callbackId, inputs);
/** The schedule's reads (its field list has the large thumbnail; a step's own read does not). */
const pollReads = (id: string) =>
  h.sandbox.requests.filter(
    (r) =>
      r.method === "GET" &&
      r.path === `/v2/livestreams/${id}` &&
      (r.query.fields ?? "").includes("thumbnail.h720_url"),
  ).length;
const waiting = async () => (await h.built.watch?.registry.listTeam(TEAM)) ?? [];

describe("waiting steps", () => {
  it("a wait already satisfied completes at once, with the workflow token", async () => {
    const live = await completion(h.slack, await step("wait_until_live", { livestream: ON }));
    expect(live).toMatchObject({ outcome: "success", by: "workflow" });
    expect(live.outputs).toMatchObject({ livestream_id: ON, on_air: true });
    const off = await completion(h.slack, await step("wait_until_off_air", { livestream: OFF }));
    expect(off).toMatchObject({ outcome: "success", by: "workflow" });
    expect(off.outputs).toMatchObject({ livestream_id: OFF, on_air: false, on_air_minutes: 0 });
    expect(await waiting()).toEqual([]);
  });

  it("wait_until_live completes once when the stream goes on air, and not again", async () => {
    const id = await step("wait_until_live", { livestream: OFF, timeout_minutes: 5 });
    await waitFor(() => pollReads(OFF) >= 1, 5000, "the first poll");
    expect(completionsOf(h.slack, id)).toEqual([]);
    expect((await waiting()).map((w) => w.livestreamId)).toEqual([OFF]);
    h.sandbox.live(OFF, { action: "on_air" });
    const c = await completion(h.slack, id, 3 * INTERVAL + 2000);
    expect(c).toMatchObject({ outcome: "success", by: "bot" });
    expect(c.outputs).toMatchObject({ livestream_id: OFF, on_air: true });
    expect(String(c.outputs?.on_air_since)).toMatch(/^\d{4}-/);
    // Completed, nobody else watches it: no poll of it to count; wall time, as the schedule measures it.
    await eventually(
      async () => (await waiting()).length === 0,
      POLL_CEILING_MS,
      "the step no longer waiting",
    );
    await untilElapsed(Date.now(), 2 * INTERVAL);
    expect(completionsOf(h.slack, id)).toHaveLength(1);
    expect(await waiting()).toEqual([]);
    // Nobody else watched it: no channel was told, and it is read no more.
    expect(h.slack.callsTo("chat.postMessage")).toEqual([]);
    const reads = pollReads(OFF);
    await untilElapsed(Date.now(), 1.5 * INTERVAL);
    expect(pollReads(OFF)).toBe(reads);
  }, 20_000);

  it("wait_until_off_air completes when the broadcast has ended, with how long it lasted", async () => {
    h.sandbox.live(OFF, { action: "on_air", at: new Date(Date.now() - 120_000).toISOString() });
    const id = await step("wait_until_off_air", { livestream: OFF });
    await waitFor(() => pollReads(OFF) >= 1, 5000, "the first poll");
    h.sandbox.live(OFF, { action: "off_air" });
    const c = await completion(h.slack, id, GRACE + 3 * INTERVAL + 2000);
    expect(c).toMatchObject({ outcome: "success", by: "bot" });
    expect(c.outputs).toMatchObject({ livestream_id: OFF, on_air: false, on_air_since: "" });
    expect(c.outputs?.on_air_minutes).toBeGreaterThanOrEqual(1.9);
    expect(await waiting()).toEqual([]);
  }, 20_000);

  it("fails at its timeout", async () => {
    const id = await step("wait_until_live", { livestream: OFF, timeout_minutes: 0.02 });
    const c = await completion(h.slack, id, 1200 + 2 * INTERVAL + 2000);
    expect(c).toMatchObject({ outcome: "error", by: "bot" });
    expect(c.error).toBe("The livestream did not go on air within 0.02 minutes.");
    // Failed, nobody else watches it: no poll of it to count; wall time, as the schedule measures it.
    await eventually(
      async () => (await waiting()).length === 0,
      POLL_CEILING_MS,
      "the step no longer waiting",
    );
    await untilElapsed(Date.now(), INTERVAL);
    expect(completionsOf(h.slack, id)).toHaveLength(1);
    expect(await waiting()).toEqual([]);
  }, 20_000);

  it("a livestream watched by a channel, a DM and a waiting step is read once per interval", async () => {
    const w = h.built.watch;
    if (!w) throw new Error("no watch");
    await w.watch({ teamId: TEAM, channelId: "C0NEWS", livestreamId: OFF, by: "U0ADMIN" });
    await w.watch({ teamId: TEAM, channelId: dmKey("U0MEMBER"), livestreamId: OFF, by: "U0MEMBER" });
    await step("wait_until_live", { livestream: OFF });
    await eventually(async () => (await waiting()).length === 3, 5000, "the waiting step stored");
    await waitFor(() => pollReads(OFF) >= 1, 5000, "the first poll");
    const from = pollReads(OFF);
    const started = Date.now();
    // Four poll reads (as many as four intervals hold), then the intervals they took.
    await waitFor(() => pollReads(OFF) >= from + 4, POLL_CEILING_MS, "four more poll reads");
    const intervals = (Date.now() - started) / (0.9 * INTERVAL);
    expect(pollReads(OFF) - from).toBeLessThanOrEqual(Math.ceil(intervals));
    expect(pollReads(OFF) - from).toBeGreaterThanOrEqual(2);
    await w.unwatch({ teamId: TEAM, channelId: "C0NEWS", livestreamId: OFF });
    await w.unwatch({ teamId: TEAM, channelId: dmKey("U0MEMBER"), livestreamId: OFF });
  }, 20_000);

  it("/live watching and the App Home list a waiting step, with no Unwatch button", async () => {
    const id = await step("wait_until_off_air", { livestream: ON, timeout_minutes: 5 });
    const stored = async () => (await waiting()).some((w) => w.channelId.endsWith(id));
    await eventually(stored, 5000, "the waiting step stored");
    const res = await h.slash("/live", "watching", { user: "U0MEMBER" });
    const listed = JSON.stringify(await h.answer(res.responseUrl));
    expect(listed).toContain(`for a workflow step (\`${id}\`) waiting until it goes off air`);
    await sendSigned(
      h.eventsUrl,
      eventBody({
        teamId: TEAM,
        event: { type: "app_home_opened", user: "U0ADMIN", channel: "D0HOME", tab: "home" },
      }),
      SIGNING_SECRET,
    );
    const home = await waitFor(
      () => h.slack.callsTo("views.publish").find((c) => c.args.user_id === "U0ADMIN"),
      5000,
      "the App Home",
    );
    const view = JSON.stringify(home.args.view);
    expect(view).toContain(`for a workflow step (\`${id}\`) waiting until it goes off air`);
    expect(view).not.toContain("Unwatch");
  }, 20_000);
});
