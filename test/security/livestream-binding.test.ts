/**
 * Single-workspace mode with PROFILE_BINDINGS set: the workspace is bound to the studio profile
 * only. A livestream of another profile (newsroom's, on air, with a stream key) is answered
 * exactly as a livestream that does not exist: the same text byte for byte (only the platform's
 * correlation id, random per request, differs), after exactly one GET that also read
 * `profile.profile_id`, and never its ingest addresses.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { ACTIONS } from "../../src/slack/blocks/index.js";
import { type Harness, startHarness } from "../support/harness.js";

const TEAM = "T0STANDIN";
const UNBOUND_LIVE = SEED.livestreams.onAirAdBreak;
let h: Harness;

const liveGets = () => h.sandbox.requests.filter((r) => r.path.startsWith("/v2/livestreams/"));
const cid = (s: string) => s.replace(/correlation id: [0-9a-f]+/g, "correlation id: <cid>");

beforeAll(async () => {
  h = await startHarness({ env: { PROFILE_BINDINGS: `${TEAM}=${SEED.profiles.studio}` } });
});
afterAll(async () => {
  await h?.close();
});

describe("a livestream of a profile not bound to the workspace", () => {
  it.each([
    ["/live status", () => h.slash("/live", `status ${UNBOUND_LIVE}`)],
    ["/live ingest", () => h.slash("/live", `ingest ${UNBOUND_LIVE}`)],
    ["Refresh", () => h.press(ACTIONS.liveRefresh, UNBOUND_LIVE)],
  ])("%s: answered exactly as a missing one, with exactly 1 GET", async (_name, send) => {
    const before = liveGets().length;
    const unbound = JSON.stringify(await h.answer((await send()).responseUrl));
    const read = liveGets().slice(before);
    expect(read).toHaveLength(1);
    expect(read[0]?.query.fields?.split(",")).toContain("profile.profile_id");
    expect(unbound).not.toContain(SEED.streamKey);
    // The same id, now really missing on the platform: the answer must be the same, byte for byte.
    const ls = h.sandbox.state.livestreams.get(UNBOUND_LIVE);
    if (!ls) throw new Error("seeded livestream missing");
    h.sandbox.state.livestreams.delete(UNBOUND_LIVE);
    try {
      const missing = JSON.stringify(await h.answer((await send()).responseUrl));
      expect(liveGets().length).toBe(before + 2);
      expect(missing).toContain("The platform has no livestream");
      expect(cid(unbound)).toBe(cid(missing));
    } finally {
      h.sandbox.state.livestreams.set(UNBOUND_LIVE, ls);
    }
  });

  it("a livestream of the bound profile is shown (one GET)", async () => {
    const before = liveGets().length;
    const r = await h.slash("/live", `status ${SEED.livestreams.offAir}`);
    expect((await h.answer(r.responseUrl)).response_type).toBe("in_channel");
    expect(liveGets().length).toBe(before + 1);
  });
});
