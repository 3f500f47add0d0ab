/**
 * Link previews over the real path: signed `link_shared` events to the bot's receiver, one
 * authorized GET on the platform sandbox, `chat.unfurl` recorded by the Slack stand-in.
 * The workspace is bound to the newsroom profile only: the studio's livestreams read as missing.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { eventBody, linkSharedEvent, sendSigned } from "../../fakes/slack/index.js";
import { type Harness, SIGNING_SECRET, startHarness, waitFor } from "../support/harness.js";

const TEAM = "T0STANDIN";
const BOUND_LIVE = SEED.livestreams.onAirAdBreak; // newsroom, on air, has a stream key
const UNBOUND_LIVE = SEED.livestreams.offAir; // studio
let h: Harness;

const liveGets = () => h.sandbox.requests.filter((r) => r.path.startsWith("/v2/livestreams/"));
const handled = () => h.logs.filter((l) => l.includes('"link_shared handled"'));

async function share(urls: string[], o: { channel?: string; composer?: boolean } = {}): Promise<void> {
  const event = linkSharedEvent({ urls, channelId: o.channel ?? "C0GENERAL", composer: o.composer ?? false });
  const res = await sendSigned(h.eventsUrl, eventBody({ event, teamId: TEAM }), SIGNING_SECRET);
  expect(res.status).toBe(200);
}

/** Shares, then waits until the bot has handled `n` more events. */
async function shareAll(batches: Array<() => Promise<void>>): Promise<void> {
  const before = handled().length;
  await Promise.all(batches.map((b) => b()));
  await waitFor(() => handled().length >= before + batches.length, 8000, "link_shared handled");
}

beforeAll(async () => {
  h = await startHarness({ env: { PROFILE_BINDINGS: `${TEAM}=${SEED.profiles.newsroom}` } });
});
beforeEach(async () => {
  // A fresh cache between tests: wait out nothing, use distinct livestreams or ids per test.
  h.sandbox.clearFaults();
});
afterAll(async () => {
  await h?.close();
});

describe("link previews", () => {
  it("a link pasted in five channels: five previews, one GET (shared while in flight), never ingest", async () => {
    // The GET is slow: the five events arrive while it is in flight.
    h.sandbox.addFault({ method: "GET", path: `/v2/livestreams/${BOUND_LIVE}`, latencyMs: 300 });
    const url = `https://www.dailymotion.com/video/${BOUND_LIVE}`;
    const gets = liveGets().length;
    const unfurls = h.slack.unfurls().length;
    const channels = ["C0GENERAL", "C0NEWS", "C0GENERAL", "C0NEWS", "C0GENERAL"];
    await shareAll(channels.map((channel) => () => share([url], { channel })));
    const made = h.slack.unfurls().slice(unfurls);
    expect(made).toHaveLength(5);
    const read = liveGets().slice(gets);
    expect(read).toHaveLength(1);
    const fields = read[0]?.query.fields?.split(",") ?? [];
    expect(fields).toContain("profile.profile_id");
    expect(fields.some((f) => f.startsWith("ingest"))).toBe(false);
    const card = JSON.stringify(made[0]?.unfurls[url]);
    expect(card).toContain("On air");
    expect(card).not.toContain(SEED.streamKey);
    expect(card).not.toMatch(/rtmp|srt:\/\//i);
    expect(made.map((u) => u.channel).sort()).toEqual([...channels].sort());

    // Within the cache's lifetime, another paste costs no GET either.
    await shareAll([() => share([`https://dai.ly/${BOUND_LIVE}`], { composer: true })]);
    expect(liveGets().length).toBe(gets + 1);
    const composer = h.slack.unfurls().at(-1);
    expect(composer?.source).toBe("composer");
    expect(composer?.unfurl_id).toBeTruthy();
  });

  it("a livestream whose profile is not bound: no preview at all (after the one authorizing GET)", async () => {
    const [gets, unfurls] = [liveGets().length, h.slack.unfurls().length];
    await shareAll([() => share([`https://www.dailymotion.com/video/${UNBOUND_LIVE}`])]);
    expect(liveGets().length).toBe(gets + 1);
    expect(h.slack.unfurls().length).toBe(unfurls);
  });

  it("an unknown livestream: no preview at all", async () => {
    const [gets, unfurls] = [liveGets().length, h.slack.unfurls().length];
    await shareAll([() => share(["https://www.dailymotion.com/video/x0nothere"])]);
    expect(liveGets().length).toBe(gets + 1);
    expect(h.slack.unfurls().length).toBe(unfurls);
  });

  it("a link off UNFURL_DOMAINS (a look-alike host): nothing read, nothing previewed", async () => {
    const [gets, unfurls] = [liveGets().length, h.slack.unfurls().length];
    await shareAll([
      () => share([`https://dailymotion.com.evil.example/video/${SEED.livestreams.recording}`]),
    ]);
    expect(liveGets().length).toBe(gets);
    expect(h.slack.unfurls().length).toBe(unfurls);
  });

  it("subdomains of an unfurl domain are previewed", async () => {
    const url = `https://live.dailymotion.com/video/${SEED.livestreams.recording}`;
    const unfurls = h.slack.unfurls().length;
    await shareAll([() => share([url])]);
    const made = h.slack.unfurls().slice(unfurls);
    expect(made).toHaveLength(1);
    expect(Object.keys(made[0]?.unfurls ?? {})).toEqual([url]);
  });
});
