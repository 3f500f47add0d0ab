/**
 * The `livestream_status` step and the steps' checks, over the real path: signed
 * `function_executed` events through the bot's receiver, the platform sandbox, the Slack stand-in
 * recording `functions.completeSuccess` / `completeError`.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { type Harness, startHarness } from "../support/harness.js";
import { completion, runStep } from "../support/steps.js";

const TEAM = "T0STANDIN";
let h: Harness;
beforeAll(async () => {
  // Newsroom's livestreams are bound to the workspace; the foreign profile's are not.
  h = await startHarness({
    env: { PROFILE_BINDINGS: `${TEAM}=${SEED.profiles.newsroom},${SEED.profiles.studio}` },
  });
});
afterAll(async () => {
  await h?.close();
});
beforeEach(() => {
  h.sandbox.reset();
  h.slack.reset();
});

const step = (callbackId: string, inputs: Record<string, unknown>) =>
  runStep(h.slack, h.eventsUrl, callbackId, inputs);
const reads = () =>
  h.sandbox.requests.filter((r) => r.method === "GET" && r.path.startsWith("/v2/livestreams/"));

describe("livestream_status", () => {
  it("completes at once with the documented outputs, with the workflow token", async () => {
    const id = SEED.livestreams.onAirAdBreak;
    const c = await completion(h.slack, await step("livestream_status", { livestream: id }));
    expect(c.outcome).toBe("success");
    expect(c.by).toBe("workflow");
    const o = c.outputs ?? {};
    expect(Object.keys(o).sort()).toEqual(
      ["ads_left", "livestream_id", "on_air", "on_air_since", "title", "url"].sort(),
    );
    expect(o.livestream_id).toBe(id);
    expect(o.on_air).toBe(true);
    expect(String(o.on_air_since)).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(typeof o.title).toBe("string");
    expect(String(o.url)).toMatch(/^https:\/\//);
    expect(o.ads_left).toBeGreaterThanOrEqual(0);
    expect(o.ads_left).toBeLessThanOrEqual(24);
    expect(reads()).toHaveLength(1);
  });

  it("reads a livestream URL; off air: on_air false and no on_air_since", async () => {
    const id = SEED.livestreams.offAir;
    const c = await completion(
      h.slack,
      await step("livestream_status", { livestream: `https://www.dailymotion.com/video/${id}` }),
    );
    expect(c.outputs).toMatchObject({ livestream_id: id, on_air: false, on_air_since: "" });
  });

  it("fails an unknown and an unbound livestream with one and the same words, no correlation id", async () => {
    const unknown = await completion(h.slack, await step("livestream_status", { livestream: "x0nothere" }));
    const unbound = await completion(
      h.slack,
      await step("livestream_status", { livestream: SEED.livestreams.foreign }),
    );
    expect(unknown.outcome).toBe("error");
    expect(unbound.outcome).toBe("error");
    const words = (e: string | undefined, id: string) => (e ?? "").split(id).join("<id>");
    expect(words(unbound.error, SEED.livestreams.foreign)).toBe(words(unknown.error, "x0nothere"));
    expect(unknown.error).not.toMatch(/correlation/i);
  });

  it("fails a platform failure in plain words with the platform's correlation id", async () => {
    h.sandbox.addFault({ path: "/v2/livestreams", status: 500, times: 10 });
    // A livestream no other test read: reads are shared for 10 s.
    const c = await completion(
      h.slack,
      await step("livestream_status", { livestream: SEED.livestreams.recording }),
    );
    expect(c.outcome).toBe("error");
    expect(c.error).toMatch(/correlation id: \S+/);
  });

  it.each([
    ["wait_until_live", { livestream: "" }, /needs a livestream/],
    ["livestream_status", {}, /needs a livestream/],
    ["livestream_status", { livestream: "not a livestream" }, /is not a livestream id or livestream URL/],
    ["wait_until_live", { livestream: SEED.livestreams.offAir, timeout_minutes: 0 }, /more than 0/],
    ["wait_until_off_air", { livestream: SEED.livestreams.offAir, timeout_minutes: 1441 }, /at most 1440/],
    [
      "wait_until_live",
      { livestream: SEED.livestreams.offAir, timeout_minutes: "soon" },
      /number of minutes/,
    ],
  ])(
    "fails %s with bad input %j at once, saying what to give, without reading",
    async (id, inputs, words) => {
      const c = await completion(h.slack, await step(id, inputs));
      expect(c.outcome).toBe("error");
      expect(c.error).toMatch(words);
      expect(c.error).toMatch(/Give/);
      expect(reads()).toHaveLength(0);
    },
  );
});
