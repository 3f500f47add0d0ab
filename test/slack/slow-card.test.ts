/**
 * `/live status` while the platform is slow: after the bot's wait (`slowCardMs`, 10 s in
 * production, 300 ms here) the channel is told so in place, and the card replaces that message
 * when the platform answers; an error after the notice removes it and is answered privately.
 * Over the real path: signed commands, the platform sandbox with a latency fault, the Slack
 * stand-in's response_url and channel.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { type Harness, startHarness, waitFor } from "../support/harness.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ slowCardMs: 300, platformTimeouts: { headersMs: 8000 } });
});
afterAll(async () => {
  await h.close();
});
beforeEach(() => {
  h.sandbox.reset();
  h.sandbox.clearFaults();
});

const CHANNEL = "C0GENERAL";
const visible = () => h.slack.messages(CHANNEL).filter((m) => !m.ephemeralTo);

describe("/live status on a slow platform", () => {
  it("says so in place after the wait, then the card replaces that message", async () => {
    h.sandbox.addFault({ path: "/v2/livestreams", latencyMs: 1_500, times: 1 });
    const before = visible().length;
    const res = await h.slash("/live", `status ${SEED.livestreams.onAirAdBreak}`, { channel: CHANNEL });
    expect(res.status).toBe(200);
    const notice = await h.answer(res.responseUrl, 1);
    expect(notice.response_type).toBe("in_channel");
    expect(String(notice.text)).toMatch(/has not answered/);
    const card = await h.answer(res.responseUrl, 2);
    expect(card.replace_original).toBe(true);
    expect(String(card.text)).toMatch(/on air/i);
    // One message in the channel: the notice, edited into the card.
    const now = visible().slice(before);
    expect(now).toHaveLength(1);
    expect(now[0]?.edits).toBe(1);
    expect(String(now[0]?.text)).toMatch(/on air/i);
    expect(h.sandbox.requests.filter((r) => r.path.startsWith("/v2/livestreams/"))).toHaveLength(1);
  });

  it("answers a fast platform with the card alone", async () => {
    const res = await h.slash("/live", `status ${SEED.livestreams.onAirAdBreak}`, { channel: CHANNEL });
    const card = await h.answer(res.responseUrl, 1);
    expect(card.replace_original).not.toBe(true);
    expect(String(card.text)).toMatch(/on air/i);
    await new Promise((r) => setTimeout(r, 500));
    expect(h.slack.responses(res.responseUrl)).toHaveLength(1);
  });

  it("removes the notice when the slow answer is an error, and explains privately", async () => {
    h.sandbox.addFault({ path: "/v2/livestreams", latencyMs: 1_000, times: 1 });
    const before = visible().length;
    const res = await h.slash("/live", "status xnosuchlive0", { channel: CHANNEL });
    await h.answer(res.responseUrl, 1);
    const removal = await h.answer(res.responseUrl, 2);
    expect(removal.delete_original).toBe(true);
    const error = await h.answer(res.responseUrl, 3);
    expect(error.response_type).toBe("ephemeral");
    expect(String(error.text)).toMatch(/no livestream/i);
    await waitFor(() => visible().slice(before).length === 0, 2_000, "the notice to be removed");
  });
});
