/**
 * Single-workspace mode with PROFILE_BINDINGS set: the workspace is bound to the studio profile
 * only. A livestream of another profile (newsroom's, on air, with a stream key) is answered
 * exactly as a livestream that does not exist, on every surface (status, ingest, Refresh, watch,
 * link preview): the same bytes, with no correlation id, after exactly one GET that also read
 * `profile.profile_id`, and never its ingest addresses. Any other platform error still shows the
 * platform's correlation id.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { eventBody, linkSharedEvent, sendSigned } from "../../fakes/slack/index.js";
import { ACTIONS } from "../../src/messages/index.js";
import { type Harness, SIGNING_SECRET, startHarness, waitFor } from "../support/harness.js";

const TEAM = "T0STANDIN";
const UNBOUND_LIVE = SEED.livestreams.onAirAdBreak;
let h: Harness;

const liveGets = () => h.sandbox.requests.filter((r) => r.path.startsWith("/v2/livestreams/"));
const handled = () => h.logs.filter((l) => l.includes('"link_shared handled"'));

/** What a person is shown for one request: the response_url answer. */
const answered = (send: () => Promise<{ responseUrl: string }>) => async () =>
  JSON.stringify(await h.answer((await send()).responseUrl));

/** A pasted link: every Slack call the bot made for it (none: no preview), and the outcome. */
async function preview(): Promise<string> {
  const [calls, seen] = [h.slack.calls.length, handled().length];
  const event = linkSharedEvent({ urls: [`https://www.dailymotion.com/video/${UNBOUND_LIVE}`] });
  const res = await sendSigned(h.eventsUrl, eventBody({ event, teamId: TEAM }), SIGNING_SECRET);
  expect(res.status).toBe(200);
  await waitFor(() => handled().length > seen, 8000, "link_shared handled");
  const outcome = JSON.parse(handled().at(-1) ?? "{}").outcome;
  return JSON.stringify({ calls: h.slack.calls.slice(calls).map((c) => c.method), outcome });
}

beforeAll(async () => {
  h = await startHarness({ env: { PROFILE_BINDINGS: `${TEAM}=${SEED.profiles.studio}` } });
});
afterAll(async () => {
  await h?.close();
});

describe("a livestream of a profile not bound to the workspace", () => {
  it.each([
    ["/live status", answered(() => h.slash("/live", `status ${UNBOUND_LIVE}`))],
    ["/live ingest", answered(() => h.slash("/live", `ingest ${UNBOUND_LIVE}`))],
    ["Refresh", answered(() => h.press(ACTIONS.liveRefresh, UNBOUND_LIVE))],
    ["/live watch", answered(() => h.slash("/live", `watch ${UNBOUND_LIVE}`))],
    ["link preview", preview],
  ])("%s: answered byte for byte as a missing one, no correlation id, 1 GET", async (name, ask) => {
    // Each read goes to the platform (identical reads within 10 s are otherwise shared).
    h.built.deps.access.sharedReads.clear();
    const before = liveGets().length;
    const unbound = await ask();
    const read = liveGets().slice(before);
    expect(read).toHaveLength(1);
    expect(read[0]?.query.fields?.split(",")).toContain("profile.profile_id");
    expect(unbound).not.toContain(SEED.streamKey);
    // The same id, now really missing on the platform (its 404 carries a correlation id).
    const ls = h.sandbox.state.livestreams.get(UNBOUND_LIVE);
    if (!ls) throw new Error("seeded livestream missing");
    h.sandbox.state.livestreams.delete(UNBOUND_LIVE);
    h.built.deps.access.sharedReads.clear();
    try {
      const missing = await ask();
      expect(liveGets().length).toBe(before + 2);
      expect(h.sandbox.requests.at(-1)?.status).toBe(404);
      if (name === "link preview") expect(missing).toBe('{"calls":[],"outcome":"not_previewed"}');
      else expect(missing).toContain("The platform has no livestream");
      expect(missing).not.toMatch(/correlation/i);
      expect(unbound).toBe(missing);
    } finally {
      h.sandbox.state.livestreams.set(UNBOUND_LIVE, ls);
    }
  });

  it("a livestream of the bound profile is shown (one GET)", async () => {
    h.built.deps.access.sharedReads.clear();
    const before = liveGets().length;
    const r = await h.slash("/live", `status ${SEED.livestreams.offAir}`);
    expect((await h.answer(r.responseUrl)).response_type).toBe("in_channel");
    expect(liveGets().length).toBe(before + 1);
  });

  it("a platform 500 still shows the platform's correlation id", async () => {
    h.built.deps.access.sharedReads.clear();
    h.sandbox.addFault({ method: "GET", path: `/v2/livestreams/${SEED.livestreams.offAir}`, status: 500 });
    try {
      const r = await h.slash("/live", `status ${SEED.livestreams.offAir}`);
      const text = JSON.stringify(await h.answer(r.responseUrl));
      expect(text).toContain("The platform had a problem on its side (500)");
      expect(text).toMatch(/\(correlation id: [0-9a-f]{24}\)/);
    } finally {
      h.sandbox.clearFaults();
    }
  });
});
