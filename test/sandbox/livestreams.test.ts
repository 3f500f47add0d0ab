import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, SEED, startSandbox } from "../../fakes/platform/server.js";
import { api, at, expectEnvelope, keys, tokenFor } from "./helpers.js";

const NOW = Date.parse("2025-03-01T10:00:00Z");
let sb: Sandbox;
let owner: string;
let reader: string;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, now: () => NOW });
  owner = await tokenFor(sb, "live.read");
  reader = await tokenFor(sb, "live.read", SEED.clients.reader.clientId, SEED.clients.reader.clientSecret);
});
afterAll(async () => {
  await sb.close();
});

const L = SEED.livestreams;
const get = (id: string, fields?: string, token = owner) =>
  api(
    sb,
    "GET",
    `/livestreams/${id}${fields === undefined ? "" : `?fields=${encodeURIComponent(fields)}`}`,
    token,
  );

/** Spec 4.1's list of allowed names. */
const SPEC_FIELDS =
  "advertising, category, country, created_at, description, embedding, enable_comments, end_at, geo_restriction, has_paid_partnership, ingest, is_ai_altered, is_exclusive_content, is_explicit, is_for_kids, language, livestream_id, livestream_url, profile, recording, start_at, status, thumbnail, title, updated_at, visibility".split(
    ", ",
  );
const NESTED: Record<string, string[]> = {
  ingest: ["rtmp_url", "srt_url", "available_servers"],
  status: ["onair", "airing_at", "audio_bitrate"],
  recording: ["auto_record", "status", "start_at", "end_at"],
  geo_restriction: ["mode", "countries"],
  embedding: ["enable_embed", "embed_url", "embed_html"],
  advertising: ["end_at", "remaining"],
  thumbnail: ["h1080_url", "h720_url", "h480_url", "h240_url", "default_url"],
  profile: [
    "profile_id",
    "name",
    "display_name",
    "description",
    "created_at",
    "can_change_name",
    "social_links",
    "content_defaults",
    "webhook",
  ],
};
const sorted = (a: string[]) => [...a].sort();

describe("GET /v2/livestreams/{id} fields", () => {
  it("without fields returns only the default fields", async () => {
    const r = await get(L.onAirAdBreak);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      livestream_id: L.onAirAdBreak,
      title: "Northwind Morning Live: Markets & Headlines",
      livestream_url: `https://www.example-video.com/video/${L.onAirAdBreak}`,
      created_at: "2025-02-20T10:00:00Z",
    });
    expect(keys((await get(L.onAirAdBreak, "")).json)).toEqual(keys(r.json));
  });

  it("returns exactly the requested fields, embedded objects whole", async () => {
    const r = await get(L.onAirAdBreak, "title,status,advertising");
    expect(r.json).toEqual({
      title: "Northwind Morning Live: Markets & Headlines",
      status: { onair: true, airing_at: "2025-03-01T09:40:00Z", audio_bitrate: 128000 },
      advertising: { end_at: "2025-03-01T10:00:40Z", remaining: 17 },
    });
  });

  it("narrows embedded objects with dot notation", async () => {
    const r = await get(L.onAirAdBreak, "status.onair,advertising.end_at,recording.status");
    expect(r.json).toEqual({
      status: { onair: true },
      recording: { status: "started" },
      advertising: { end_at: "2025-03-01T10:00:40Z" },
    });
  });

  it("trims names and skips empty items", async () => {
    expect(keys((await get(L.offAir, " title , ,status.onair")).json)).toEqual(["title", "status"]);
  });

  it("refuses a repeated fields parameter with 422 INVALID_FORMAT", async () => {
    const r = await api(sb, "GET", `/livestreams/${L.offAir}?fields=title&fields=visibility`, owner);
    expectEnvelope(r, 422, "INVALID_FORMAT");
    expect(at(r.json, "error.details.param")).toBe("fields");
    expect(at(r.json, "error.details.provided")).toEqual(["title", "visibility"]);
  });

  it("refuses dot notation deeper than one level, like the client", async () => {
    const r = await get(L.offAir, "title,profile.social_links.website_url,profile.webhook.events");
    expectEnvelope(r, 422, "INVALID_FORMAT");
    expect(at(r.json, "error.details.invalid_values")).toEqual([
      "profile.social_links.website_url",
      "profile.webhook.events",
    ]);
  });

  it("thumbnail without sub-fields gives only h1080_url", async () => {
    const id = L.onAirAdBreak;
    expect((await get(id, "thumbnail")).json).toEqual({
      thumbnail: { h1080_url: `https://s1.example-cdn.com/v/${id}/x1080` },
    });
    expect((await get(id, "thumbnail.h720_url,thumbnail.default_url")).json).toEqual({
      thumbnail: {
        h720_url: `https://s1.example-cdn.com/v/${id}/x720`,
        default_url: `https://s1.example-cdn.com/v/${id}/xsource`,
      },
    });
    expect(keys(at((await get(id, "thumbnail,thumbnail.h240_url")).json, "thumbnail"))).toEqual([
      "h1080_url",
      "h240_url",
    ]);
  });

  it("keeps nulls as null", async () => {
    expect((await get(L.offAir, "thumbnail.h240_url,advertising,status.audio_bitrate")).json).toEqual({
      status: { audio_bitrate: null },
      advertising: { end_at: null, remaining: 0 },
      thumbnail: { h240_url: null },
    });
  });

  it("a whole object wins over a narrowed one", async () => {
    expect(at((await get(L.offAir, "status.onair,status")).json, "status")).toEqual({
      onair: false,
      airing_at: "2025-02-28T10:00:00Z",
      audio_bitrate: null,
    });
  });

  it("returns every field with every nested field to the owner", async () => {
    for (const id of [L.onAirAdBreak, L.offAir, L.recording, L.geoRestricted]) {
      const r = await get(id, SPEC_FIELDS.join(","));
      expect(r.status).toBe(200);
      expect(sorted(keys(r.json))).toEqual(sorted(SPEC_FIELDS));
      for (const [name, sub] of Object.entries(NESTED)) {
        const expected = name === "thumbnail" ? ["h1080_url"] : sub;
        expect(sorted(keys(at(r.json, name))), `${id} ${name}`).toEqual(sorted(expected));
      }
      const all = await get(
        id,
        Object.entries(NESTED)
          .flatMap(([n, s]) => s.map((f) => `${n}.${f}`))
          .join(","),
      );
      for (const [name, sub] of Object.entries(NESTED))
        expect(sorted(keys(at(all.json, name)))).toEqual(sorted(sub));
    }
  });

  it("rejects unknown names with 422 INVALID_FORMAT", async () => {
    const r = await get(
      L.onAirAdBreak,
      "title,bogus,status.nope,title.length,ingest.available_servers.x,bogus",
    );
    expectEnvelope(r, 422, "INVALID_FORMAT");
    const details = at(r.json, "error.details");
    expect(at(details, "param")).toBe("fields");
    expect(at(details, "invalid_values")).toEqual([
      "bogus",
      "status.nope",
      "title.length",
      "ingest.available_servers.x",
    ]);
    const allowed = at(details, "allowed_values") as string[];
    expect(allowed.slice(0, SPEC_FIELDS.length)).toEqual(SPEC_FIELDS);
    expect(allowed).toContain("advertising.end_at");
    expect(allowed).toContain("profile.webhook");
    expect(allowed).not.toContain("profile.webhook.events");
    expect(allowed).not.toContain("owner_client_id");
    expectEnvelope(await get(L.onAirAdBreak, "profile_id"), 422, "INVALID_FORMAT");
    expectEnvelope(await get(L.onAirAdBreak, "profile.owner_client_id"), 422, "INVALID_FORMAT");
  });
});

describe("ingest and owner rights", () => {
  it("gives the owner the ingest addresses with the stream key", async () => {
    const ingest = at((await get(L.onAirAdBreak, "ingest")).json, "ingest");
    expect(at(ingest, "rtmp_url")).toBe(`rtmp://publish.example.net/live/${SEED.streamKey}`);
    expect(at(ingest, "srt_url")).toMatch(/^srt:\/\//);
    expect(Object.keys(at(ingest, "available_servers") as object)).toHaveLength(2);
    expect((await get(L.onAirAdBreak, "ingest.rtmp_url")).json).toEqual({
      ingest: { rtmp_url: `rtmp://publish.example.net/live/${SEED.streamKey}` },
    });
  });

  it("omits ingest for a livestream of another client's profile, even if asked", async () => {
    const r = await get(L.foreign, "title,ingest,ingest.rtmp_url,status.onair");
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ title: "Contoso Sports Tonight", status: { onair: true } });
  });

  it("omits ingest for a client that owns no profile", async () => {
    const r = await get(L.onAirAdBreak, "livestream_id,ingest", reader);
    expect(r.json).toEqual({ livestream_id: L.onAirAdBreak });
  });

  it("embeds the owning profile; its webhook only for the owner", async () => {
    const mine = await get(L.offAir, "profile");
    expect(at(mine.json, "profile.profile_id")).toBe(SEED.profiles.studio);
    expect(at(mine.json, "profile.webhook")).toEqual(SEED.studioWebhook);
    expect(at(mine.json, "profile.owner_client_id")).toBeUndefined();
    expect(at((await get(L.offAir, "profile.name,profile.social_links")).json, "profile.name")).toBe(
      "northwind-studio",
    );
    expect(
      at((await get(L.offAir, "profile.name,profile.social_links")).json, "profile.social_links.website_url"),
    ).toBe("https://studio.northwind.example");
    const theirs = await get(L.foreign, "profile");
    expect(at(theirs.json, "profile.name")).toBe("contoso-tv");
    expect(keys(at(theirs.json, "profile"))).not.toContain("webhook");
    expect((await get(L.foreign, "profile.webhook")).json).toEqual({ profile: {} });
  });
});

describe("seeded livestreams", () => {
  const full = (id: string) => get(id, SPEC_FIELDS.join(","));

  it("onAirAdBreak: live with an ad break running", async () => {
    const r = (await full(L.onAirAdBreak)).json;
    expect(at(r, "advertising")).toEqual({ end_at: "2025-03-01T10:00:40Z", remaining: 17 });
    expect(at(r, "recording.status")).toBe("started");
    expect(at(r, "geo_restriction")).toEqual({ mode: "deny", countries: [] });
    expect(at(r, "embedding.enable_embed")).toBe(true);
    expect(at(r, "status.audio_bitrate")).toBe(128000);
  });

  it("offAir: off air, scheduled, some thumbnails missing", async () => {
    const r = (await full(L.offAir)).json;
    expect(at(r, "status.onair")).toBe(false);
    expect(at(r, "status.airing_at")).toBe("2025-02-28T10:00:00Z");
    expect(at(r, "advertising")).toEqual({ end_at: null, remaining: 0 });
    expect(at(r, "recording.status")).toBe("stopped");
    expect(at(r, "start_at")).toBe("2025-03-02T10:00:00Z");
    const thumbs = (await get(L.offAir, NESTED.thumbnail?.map((t) => `thumbnail.${t}`).join(","))).json;
    expect(Object.values(at(thumbs, "thumbnail") as object)).toContain(null);
  });

  it("recording: recording starting, no ad break", async () => {
    const r = (await full(L.recording)).json;
    expect(at(r, "recording.status")).toBe("starting");
    expect(at(r, "status.onair")).toBe(true);
    expect(at(r, "advertising.end_at")).toBeNull();
  });

  it("geoRestricted: allow-list, no embedding, longest title and description", async () => {
    const r = (await full(L.geoRestricted)).json;
    expect(at(r, "geo_restriction")).toEqual({ mode: "allow", countries: ["FR", "BE", "CH"] });
    expect(at(r, "embedding.enable_embed")).toBe(false);
    expect(String(at(r, "title"))).toHaveLength(255);
    expect(String(at(r, "description"))).toHaveLength(3000);
    expect(String(at(r, "description"))).toMatch(/^<p>/);
  });

  it("reflects direct state changes", async () => {
    const ls = sb.state.livestreams.get(L.offAir);
    if (ls === undefined) throw new Error("seed missing");
    ls.status.onair = true;
    expect((await get(L.offAir, "status.onair")).json).toEqual({ status: { onair: true } });
    sb.reset();
    expect((await get(L.offAir, "status.onair")).json).toEqual({ status: { onair: false } });
  });
});
