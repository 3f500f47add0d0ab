/**
 * Live watch and digests/pauses over the real path (signed commands, the sandbox's live-show
 * controls, the Slack stand-in): a channel whose subscription to the livestream's profile is
 * paused gets no live message while the livestream is on air, and the broadcast is in the one
 * catch-up posted on resume; another channel watching it is told live as before.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { digestsIn } from "../notify/digest-helpers.js";
import { type Harness, startHarness, waitFor } from "../support/harness.js";
import { afterPolls } from "../support/polls.js";

const LIVESTREAM = SEED.livestreams.offAir; // of the studio profile
const PROFILE = SEED.profiles.studio;
const PAUSED = "C0GENERAL";
const LIVE = "C0NEWS";

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    env: { LIVE_WATCH_INTERVAL_MS: "1000", LIVE_OFFAIR_GRACE_MS: "1000", DIGEST_PERIOD: "2s" },
    watch: { minUpdateIntervalMs: 0 },
    worker: { coalesceMs: 100, postIntervalMs: 10, pollMs: 10 },
  });
});
afterAll(async () => {
  await h?.close();
});

const json = (v: unknown) => JSON.stringify(v);
/** The watch's own announcements in a channel (not threaded, not a command's answer, not a digest). */
const announcements = (ch: string) =>
  h.slack
    .callsTo("chat.postMessage")
    .filter(
      (c) =>
        c.args.channel === ch &&
        c.args.thread_ts === undefined &&
        json(c.args).includes(LIVESTREAM) &&
        !json(c.args).includes("video_digest"),
    );

async function command(cmd: "/live" | "/webhook", text: string, channel: string) {
  const { responseUrl, status } = await h.slash(cmd, text, { channel });
  expect(status).toBe(200);
  return h.answer(responseUrl);
}

describe("a paused channel watching a livestream", () => {
  it("gets no live message; its broadcast is in the catch-up; another channel is told live", async () => {
    await h.configureProfile({ profileId: PROFILE, channel: LIVE });
    expect((await command("/webhook", `subscribe ${PROFILE}`, PAUSED)).response_type).toBe("in_channel");
    expect(json(await command("/webhook", `pause ${PROFILE} 1h`, PAUSED))).toMatch(/paused/i);
    for (const ch of [PAUSED, LIVE]) await command("/live", `watch ${LIVESTREAM}`, ch);

    h.sandbox.live(LIVESTREAM, { action: "on_air" });
    await waitFor(() => announcements(LIVE)[0], 8000, "the live announcement in the live channel");
    await afterPolls(h, LIVESTREAM, 2); // two more polls of the on-air livestream handled
    expect(announcements(PAUSED)).toEqual([]);

    h.sandbox.live(LIVESTREAM, { action: "off_air" });
    await waitFor(
      () =>
        h.slack.callsTo("chat.update").find((c) => c.args.channel === LIVE && /ended/i.test(json(c.args))),
      10_000,
      "the end in the live channel",
    );
    // The poll that ended it handled in full: the end recorded for the paused channel.
    await afterPolls(h, LIVESTREAM, 0);
    expect(announcements(PAUSED)).toEqual([]);

    expect(json(await command("/webhook", `resume ${PROFILE}`, PAUSED))).toMatch(/resum/i);
    const catchUp = await waitFor(() => digestsIn(h, PAUSED)[0], 10_000, "the catch-up");
    expect(json(catchUp)).toContain(LIVESTREAM);
    expect(announcements(PAUSED)).toEqual([]);
    expect(digestsIn(h, PAUSED)).toHaveLength(1);
  }, 60_000);
});
