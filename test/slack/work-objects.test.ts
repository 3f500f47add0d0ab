/**
 * Work Objects over the real path: signed `link_shared` and `entity_details_requested` events to
 * the bot's receiver, the platform sandbox, `chat.unfurl` (with `metadata.entities`) and
 * `entity.presentDetails` recorded by the Slack stand-in. The workspace is bound to the newsroom
 * profile only: the studio's livestreams and videos read as missing. A user's read budget is 4 a
 * minute, so each test uses people of its own.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import {
  entityDetailsRequestedEvent,
  eventBody,
  linkSharedEvent,
  type RecordedEntityDetails,
  sendSigned,
} from "../../fakes/slack/index.js";
import { ENTITY_TYPE } from "../../src/messages/index.js";
import { type Harness, SIGNING_SECRET, startHarness, waitFor } from "../support/harness.js";

const TEAM = "T0STANDIN";
const L = SEED.livestreams;
const V = SEED.videos;
let h: Harness;

type Entity = {
  entity_type: string;
  url: string;
  app_unfurl_url?: string;
  external_ref: { id: string; type?: string };
  entity_payload: {
    attributes: { title: { text: string } };
    custom_fields: Array<{ key: string; label: string; type: string; value: string | number }>;
  };
};

const gets = (prefix: string) => h.sandbox.requests.filter((r) => r.path.startsWith(prefix));
const liveGets = () => gets("/v2/livestreams/").length;
const videoGets = () => gets("/v2/videos/").length;
const handled = (what: string) => h.logs.filter((l) => l.includes(`"${what} handled"`)).length;

async function send(event: Record<string, unknown>): Promise<void> {
  const res = await sendSigned(h.eventsUrl, eventBody({ event, teamId: TEAM }), SIGNING_SECRET);
  expect(res.status).toBe(200);
}

/** Pastes `urls` in one message, waits until the bot handled it; the unfurl it made, if any. */
async function paste(urls: string[], userId = "U0MEMBER") {
  const [seen, before] = [handled("link_shared"), h.slack.unfurls().length];
  await send(linkSharedEvent({ urls, userId, channelId: "C0GENERAL" }));
  await waitFor(() => handled("link_shared") > seen, 8000, "link_shared handled");
  return h.slack.unfurls().slice(before)[0];
}

/** Opens an entity's pane as `userId`; the answer the bot gave (`entity.presentDetails`). */
async function open(
  url: string,
  userId: string,
  externalRef?: { id: string; type?: string },
): Promise<RecordedEntityDetails> {
  const triggerId = `${Date.now()}.${Math.floor(Math.random() * 1e9)}.${"ab".repeat(16)}`;
  await send(
    entityDetailsRequestedEvent({ url, userId, triggerId, ...(externalRef ? { externalRef } : {}) }),
  );
  return waitFor(
    () => h.slack.entityDetails().find((d) => d.trigger_id === triggerId),
    8000,
    "entity.presentDetails",
  );
}

const field = (e: Entity, key: string) => e.entity_payload.custom_fields.find((f) => f.key === key)?.value;
const entitiesOf = (u: { metadata?: Record<string, unknown> } | undefined) =>
  (u?.metadata?.entities ?? []) as Entity[];
const withoutTrigger = ({ trigger_id: _t, at: _a, ...rest }: RecordedEntityDetails) => rest;

beforeAll(async () => {
  h = await startHarness({
    env: { PROFILE_BINDINGS: `${TEAM}=${SEED.profiles.newsroom}`, USER_READS_PER_MINUTE: "4" },
  });
});
afterAll(async () => {
  await h?.close();
});

describe("a pasted livestream link as a Work Object", () => {
  it("the unfurl carries one entity per URL: its type, the pasted URL, the id and the title", async () => {
    const a = `https://www.dailymotion.com/video/${L.onAirAdBreak}`;
    const b = `https://dai.ly/${L.recording}`;
    const unfurl = await paste([a, b]);
    expect(Object.keys(unfurl?.unfurls ?? {}).sort()).toEqual([a, b].sort());
    const entities = entitiesOf(unfurl);
    expect(entities).toHaveLength(2);
    const byUrl = new Map(entities.map((e) => [e.url, e]));
    for (const [url, id, title] of [
      [a, L.onAirAdBreak, "Northwind Morning Live: Markets & Headlines"],
      [b, L.recording, "City Council Meeting (live)"],
    ] as const) {
      const e = byUrl.get(url);
      expect(e?.entity_type).toBe(ENTITY_TYPE);
      expect(e?.app_unfurl_url).toBe(url);
      expect(e?.external_ref).toEqual({ id, type: "livestream" });
      expect(e?.entity_payload.attributes.title.text).toBe(title);
      expect(String(field(e as Entity, "on_air"))).toMatch(/^On air for /);
    }
    expect(field(byUrl.get(a) as Entity, "ads_left")).toBe("17 of 24 this hour");
    expect(field(byUrl.get(b) as Entity, "ads_left")).toBe("24 of 24 this hour");
    const all = JSON.stringify(unfurl);
    expect(all).not.toContain(SEED.streamKey);
    expect(all).not.toMatch(/rtmp|srt:\/\//i);
  });

  it("the pane reflects a state that changed after the link was pasted: one fresh GET, charged to who opened it", async () => {
    const url = `https://www.dailymotion.com/video/${L.recording}`;
    const pasted = entitiesOf(await paste([url], "U0PASTER"))[0] as Entity;
    expect(String(field(pasted, "on_air"))).toMatch(/^On air/);
    // Off air now, well within the 10 s a preview's read is shared for.
    h.sandbox.live(L.recording, { action: "off_air" });
    const before = liveGets();
    const pane = await open(url, "U0OPENER", { id: L.recording, type: "livestream" });
    expect(liveGets()).toBe(before + 1);
    const read = gets(`/v2/livestreams/${L.recording}`).at(-1);
    expect(read?.query.fields?.split(",").some((f) => f.startsWith("ingest"))).toBe(false);
    const e = pane.metadata as unknown as Entity;
    expect(e.external_ref).toEqual({ id: L.recording, type: "livestream" });
    expect(e.url).toBe(url);
    expect(e.entity_payload.attributes.title.text).toBe("City Council Meeting (live)");
    expect(String(field(e, "on_air"))).toMatch(/^Off air/);
    expect(e.entity_payload.custom_fields.map((f) => f.key)).toEqual([
      "on_air",
      "ad_break",
      "ads_left",
      "recording",
      "geo_restriction",
      "link",
    ]);
    expect(field(e, "ads_left")).toBe("No ads while off air");
    expect(JSON.stringify(pane)).not.toContain(SEED.streamKey);
  });

  it("the pane of an on-air livestream: since when, the ad break and ads left, recording, geo-restriction, a link", async () => {
    const url = `https://dai.ly/${L.onAirAdBreak}`;
    const pane = await open(url, "U0ONAIR", { id: L.onAirAdBreak, type: "livestream" });
    const e = pane.metadata as unknown as Entity;
    expect(e.entity_payload.custom_fields.find((f) => f.key === "on_air_since")?.type).toBe(
      "slack#/types/timestamp",
    );
    expect(String(field(e, "ad_break"))).toMatch(/^Running, ends /);
    expect(field(e, "ads_left")).toBe("17 of 24 this hour");
    expect(field(e, "recording")).toBe("Recording · auto-record on");
    expect(field(e, "geo_restriction")).toBe("Available everywhere");
    expect(String(field(e, "link"))).toMatch(/^https:\/\//);
    const all = JSON.stringify(pane);
    expect(all).not.toContain(SEED.streamKey);
    expect(all).not.toMatch(/rtmp|srt:\/\//i);
  });

  it("an unbound livestream's pane and an unknown one's are identical and empty of it", async () => {
    const unbound = await open(`https://www.dailymotion.com/video/${L.offAir}`, "U0PROBE1", {
      id: L.offAir,
      type: "livestream",
    });
    const unknown = await open("https://www.dailymotion.com/video/x0nothere", "U0PROBE2", {
      id: "x0nothere",
      type: "livestream",
    });
    // Without external_ref (read from the URL): still the same answer.
    const bare = await open("https://www.dailymotion.com/video/x0nowhere", "U0PROBE3");
    expect(withoutTrigger(unbound)).toEqual({ error: { status: "not_found" } });
    expect(withoutTrigger(unknown)).toEqual(withoutTrigger(unbound));
    expect(withoutTrigger(bare)).toEqual(withoutTrigger(unbound));
    expect(JSON.stringify(unbound)).not.toMatch(/Studio Session|Late Night/);
  });

  it("a member's repeated pane opens stop at their budget with a plain answer; nothing more is sent", async () => {
    const url = `https://www.dailymotion.com/video/${L.geoRestricted}`;
    // geoRestricted is the studio's: use a bound one that nobody else reads here.
    const bound = `https://www.dailymotion.com/video/${L.onAirAdBreak}`;
    expect(url).not.toBe(bound);
    const before = liveGets();
    const answers: RecordedEntityDetails[] = [];
    for (let i = 0; i < 5; i++)
      answers.push(await open(bound, "U0REPEAT", { id: L.onAirAdBreak, type: "livestream" }));
    expect(answers.slice(0, 4).every((a) => a.metadata !== undefined)).toBe(true);
    expect(liveGets()).toBe(before + 4);
    const refused = answers[4]?.error as { status: string; custom_message?: string } | undefined;
    expect(refused?.status).toBe("custom");
    expect(refused?.custom_message).toMatch(
      /^Your platform read budget is used up for now\. Try again in \d+ s\.$/,
    );
    // Someone else is not held by that member's budget.
    const other = await open(bound, "U0SOMEONE", { id: L.onAirAdBreak, type: "livestream" });
    expect(other.metadata).toBeDefined();
    expect(liveGets()).toBe(before + 5);
  });
});

describe("a pasted video link", () => {
  it("is previewed by its title (livestream first, then one sparse video GET), as a Work Object too", async () => {
    const url = `https://www.dailymotion.com/video/${V.published}`;
    const [lives, videos] = [liveGets(), videoGets()];
    const unfurl = await paste([url], "U0VIDEO1");
    expect(liveGets()).toBe(lives + 1);
    expect(videoGets()).toBe(videos + 1);
    const read = gets(`/v2/videos/${V.published}`).at(-1);
    const fields = read?.query.fields?.split(",") ?? [];
    expect(fields).toContain("title");
    expect(fields).toContain("profile.profile_id");
    expect(JSON.stringify(unfurl?.unfurls[url])).toContain(SEED.videoTitles.published);
    const [e] = entitiesOf(unfurl);
    expect(e?.entity_type).toBe(ENTITY_TYPE);
    expect(e?.url).toBe(url);
    expect(e?.app_unfurl_url).toBe(url);
    expect(e?.external_ref).toEqual({ id: V.published, type: "video" });
    expect(e?.entity_payload.attributes.title.text).toBe(SEED.videoTitles.published);

    // Its kind is remembered: once the shared reads are gone, the next paste reads the video alone.
    h.built.deps.access.sharedReads.clear();
    h.built.deps.access.sharedVideoReads.clear();
    const [lives2, videos2] = [liveGets(), videoGets()];
    const again = await paste([`https://dai.ly/${V.published}`], "U0VIDEO2");
    expect(entitiesOf(again)[0]?.external_ref.id).toBe(V.published);
    expect(liveGets()).toBe(lives2);
    expect(videoGets()).toBe(videos2 + 1);
  });

  it("a video of a profile not bound to the workspace, or unknown: no preview at all", async () => {
    const before = h.slack.unfurls().length;
    // Each costs two of the member's reads (a livestream, then a video): one member each.
    for (const [i, id] of [V.studio, V.foreign, "x0novideo"].entries()) {
      const [lives, videos] = [liveGets(), videoGets()];
      expect(await paste([`https://www.dailymotion.com/video/${id}`], `U0VIDEO3${i}`)).toBeUndefined();
      expect(liveGets()).toBe(lives + 1);
      expect(videoGets()).toBe(videos + 1);
    }
    expect(h.slack.unfurls().length).toBe(before);
  });

  it("its pane: title, status, duration, visibility, when published, a link; an unbound one's is not_found", async () => {
    const url = `https://www.dailymotion.com/video/${V.published}`;
    const pane = await open(url, "U0VIDEO4", { id: V.published, type: "video" });
    const e = pane.metadata as unknown as Entity;
    expect(e.external_ref).toEqual({ id: V.published, type: "video" });
    expect(e.entity_payload.attributes.title.text).toBe(SEED.videoTitles.published);
    expect(e.entity_payload.custom_fields.map((f) => f.key)).toEqual(
      expect.arrayContaining(["status", "visibility", "link"]),
    );
    const unbound = await open(`https://www.dailymotion.com/video/${V.studio}`, "U0VIDEO5", {
      id: V.studio,
      type: "video",
    });
    expect(withoutTrigger(unbound)).toEqual({ error: { status: "not_found" } });
  });
});
