/**
 * Work Objects' renderers (src/messages/entity.ts, and the video card of unfurl.ts): pure, every
 * state of a livestream and a video, and never an ingest address even when the data holds one.
 */
import { describe, expect, it } from "vitest";
import {
  ENTITY_TYPE,
  type Entity,
  type LivestreamView,
  livestreamDetails,
  livestreamEntity,
  VIDEO_PREVIEW_FIELDS,
  videoDetails,
  videoEntity,
  videoUnfurl,
} from "../../src/messages/index.js";

const NOW = new Date("2026-11-27T12:00:00Z");
const URL_ = "https://www.dailymotion.com/video/x9b2k4m";
const min = (n: number) => new Date(NOW.getTime() - n * 60_000).toISOString();

const fieldsOf = (e: Entity) =>
  Object.fromEntries(e.entity_payload.custom_fields.map((f) => [f.key, f.value]));

const onAir: LivestreamView = {
  livestream_id: "x9b2k4m",
  title: "  Morning   Live ",
  livestream_url: "https://www.dailymotion.com/video/x9b2k4m",
  status: { onair: true, airing_at: min(80) },
  advertising: { remaining: 17, end_at: new Date(NOW.getTime() + 40_000).toISOString() },
  recording: { auto_record: true, status: "started" },
  geo_restriction: { mode: "allow", countries: ["FR", " BE", "CH"] },
  ingest: {
    rtmp_url: "rtmp://ingest.example/live/sk_live_SECRET",
    srt_url: "srt://x?streamid=sk_live_SECRET",
  },
};

describe("livestream entities", () => {
  it("the card's entity: item type, pasted URL twice, id and kind, title, on air and ads left", () => {
    const e = livestreamEntity(onAir, URL_, NOW);
    expect(e.entity_type).toBe(ENTITY_TYPE);
    expect(e.url).toBe(URL_);
    expect(e.app_unfurl_url).toBe(URL_);
    expect(e.external_ref).toEqual({ id: "x9b2k4m", type: "livestream" });
    expect(e.entity_payload.attributes.title.text).toBe("Morning Live");
    expect(fieldsOf(e)).toEqual({ on_air: "On air for 1 h 20 min", ads_left: "17 of 24 this hour" });
    expect(e.entity_payload.display_order).toEqual(["on_air", "ads_left"]);
  });

  it("the pane: since when (a timestamp), ad break, ads left, recording, geo-restriction, the livestream's page", () => {
    const e = livestreamDetails(onAir, URL_, NOW);
    expect(e.app_unfurl_url).toBeUndefined();
    const f = fieldsOf(e);
    expect(f.on_air_since).toBe(Math.floor(Date.parse(min(80)) / 1000));
    expect(f.ad_break).toBe("Running, ends 2026-11-27 12:00 UTC (in less than a minute)");
    expect(f.recording).toBe("Recording · auto-record on");
    expect(f.geo_restriction).toBe("Only in FR, BE, CH");
    expect(f.link).toBe("https://www.dailymotion.com/video/x9b2k4m");
    expect(JSON.stringify(e)).not.toMatch(/sk_live|rtmp|srt:/);
    expect(JSON.stringify(livestreamEntity(onAir, URL_, NOW))).not.toMatch(/sk_live|rtmp|srt:/);
  });

  it("off air, never aired, unknown: plain words, no 'since', no ads", () => {
    const last = fieldsOf(
      livestreamDetails({ status: { onair: false, airing_at: min(60 * 24) } }, URL_, NOW),
    );
    expect(last.on_air).toBe("Off air (last on air 1 d ago)");
    expect(last.on_air_since).toBeUndefined();
    expect(last.ads_left).toBe("No ads while off air");
    expect(last.ad_break).toBe("None (off air)");
    const never = fieldsOf(livestreamEntity({ status: { onair: false, airing_at: null } }, URL_, NOW));
    expect(never.on_air).toBe("Off air (never on air yet)");
    const unknown = livestreamDetails({}, URL_, NOW);
    expect(fieldsOf(unknown)).toMatchObject({
      on_air: "Unknown",
      ads_left: "Unknown",
      ad_break: "Unknown",
      recording: "Unknown",
      geo_restriction: "Unknown",
      link: URL_,
    });
    expect(unknown.entity_payload.attributes.title.text).toBe("Untitled livestream");
  });

  it("geo-restriction in words; a title past 255 characters is cut", () => {
    const geo = (mode: string, countries: string[]) =>
      fieldsOf(livestreamDetails({ geo_restriction: { mode, countries } }, URL_, NOW)).geo_restriction;
    expect(geo("deny", [])).toBe("Available everywhere");
    expect(geo("deny", ["US"])).toBe("Blocked in US");
    expect(geo("allow", [])).toBe("Available nowhere (empty allow list)");
    const long = livestreamEntity({ title: "x".repeat(400) }, URL_, NOW).entity_payload.attributes.title.text;
    expect([...long].length).toBeLessThanOrEqual(255);
  });
});

describe("video entities and card", () => {
  const v = {
    video_id: "x8nw5fq",
    title: "Harbour Bridge Reopens",
    status: "published",
    visibility: "public",
    duration: 3723,
    published_at: min(120),
    video_url: "https://www.dailymotion.com/video/x8nw5fq",
  };

  it("its fields ask for the owning profile", () => {
    expect(VIDEO_PREVIEW_FIELDS).toContain("profile.profile_id");
    expect(VIDEO_PREVIEW_FIELDS).toContain("title");
  });

  it("the card's entity and the pane", () => {
    const e = videoEntity(v, "https://dai.ly/x8nw5fq");
    expect(e.external_ref).toEqual({ id: "x8nw5fq", type: "video" });
    expect(e.app_unfurl_url).toBe("https://dai.ly/x8nw5fq");
    expect(fieldsOf(e)).toEqual({ status: "Published", duration: "1:02:03" });
    const d = fieldsOf(videoDetails(v, "https://dai.ly/x8nw5fq"));
    expect(d).toMatchObject({ visibility: "Public", link: "https://www.dailymotion.com/video/x8nw5fq" });
    expect(d.published_at).toBe(Math.floor(Date.parse(min(120)) / 1000));
  });

  it("the card: title linked to the pasted URL, status, duration, when published", () => {
    const card = JSON.stringify(videoUnfurl({ ...v, duration: 724 }, "https://dai.ly/x8nw5fq", NOW));
    expect(card).toContain("<https://dai.ly/x8nw5fq|Harbour Bridge Reopens>");
    expect(card).toContain("12:04");
    expect(card).toContain("published 2 h ago");
  });
});
