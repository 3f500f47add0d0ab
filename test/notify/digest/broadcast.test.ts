/**
 * The interface the live watch calls (`Digests.recordBroadcast`, src/digest/record.ts): a
 * broadcast of a livestream a digest channel watches is recorded once and shows in the channel's
 * next digest (start, length, ads used of 24 per hour); for a channel that gets live messages
 * nothing is recorded (false: the watch posts as usual). Real path: the bot over HTTP, the Slack
 * stand-in, DIGEST_PERIOD=2s.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { SEED } from "../../../fakes/platform/server.js";
import { type Harness, startHarness, waitFor } from "../../support/harness.js";
import { digestLists, digestsIn } from "../digest-helpers.js";

const PROFILE = SEED.profiles.newsroom;
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ env: { DIGEST_PERIOD: "2s" }, worker: { pollMs: 10 } });
  await h.configureProfile({ channel: "C0NEWS" });
  const res = await h.slash("/webhook", `subscribe ${PROFILE} digest=daily`, {
    user: "U0ADMIN",
    channel: "C0GENERAL",
  });
  expect((await h.answer(res.responseUrl)).response_type).toBe("in_channel");
});
afterAll(async () => {
  await h.close();
});

it("records a broadcast for a digest channel once, and the digest shows it; not for a live channel", async () => {
  const started = Date.now() - 65 * 60_000;
  const broadcast = {
    teamId: h.slack.teamId,
    profileId: PROFILE,
    livestreamId: "x9b2k4m",
    title: "Northwind Morning Live",
    startedAt: started,
    endedAt: started + 62 * 60_000,
    adsUsed: 7,
  };
  const digests = h.built.digests;
  expect(await digests.recordBroadcast({ ...broadcast, channelId: "C0GENERAL" })).toBe(true);
  expect(await digests.recordBroadcast({ ...broadcast, channelId: "C0GENERAL" })).toBe(true);
  expect(await digests.recordBroadcast({ ...broadcast, channelId: "C0NEWS" })).toBe(false);
  expect(await digests.recordBroadcast({ ...broadcast, channelId: "C0GENERAL", endedAt: -1 })).toBe(false);
  await waitFor(() => digestsIn(h, "C0GENERAL").length > 0, 10_000, "the digest");
  const lines = digestLists(digestsIn(h, "C0GENERAL"))["🔴 Broadcasts"] ?? [];
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(
    /^• Northwind Morning Live `x9b2k4m` · on air from <!date\^\d+\^[^>]+> for 1 h 02 min · 7 ads used \(of 24 per hour\)$/,
  );
  expect(digestsIn(h, "C0NEWS")).toEqual([]);
});
