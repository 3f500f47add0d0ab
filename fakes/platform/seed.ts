/** Seeded profiles, livestreams and videos; `SEED` names them so tests never hardcode ids. */
import type { SandboxLivestream, SandboxProfile, SandboxVideo } from "./types.js";
import { makeVideo } from "./videos.js";

export const SEED = {
  clients: {
    /** Always accepted; granted only live.read whatever it asks; owns no profile. */
    reader: { clientId: "sandbox-reader", clientSecret: "sandbox-reader-secret" },
    /** Owner of the foreign profile (no credentials: it never calls the sandbox). */
    foreignOwner: "contoso-media-key",
  },
  profiles: { newsroom: "x2vq8nw", studio: "x2vq8st", foreign: "x3kf9zt" },
  livestreams: {
    onAirAdBreak: "x9b2k4m",
    offAir: "x9b2k5p",
    recording: "x9b2k6r",
    geoRestricted: "x9b2k7g",
    foreign: "x9c8d1f",
  },
  /**
   * Videos with fixed titles. `published` and `formatError` are the two videos of the demo's
   * scenario (`npm run demo`); any other video a delivery names is added with a made-up title
   * (`DeliverOptions.unknownVideo` leaves it unknown).
   */
  videos: {
    published: "x8nw5fq",
    formatError: "x8nw6kd",
    studio: "x8st2ac",
    /** Private, of newsroom: visible to its owner only. */
    private: "x8nw7pv",
    /** A title full of Slack mrkdwn and mention syntax, for escaping. */
    tricky: "x8nw9zz",
    /** Public, of the foreign profile. */
    foreign: "x8cf1tv",
    /** Private, of the foreign profile: 404 to you. */
    foreignPrivate: "x8cf2pv",
  },
  /** Titles of the seeded videos, by the handles above. */
  videoTitles: {
    published: "Harbour Bridge Reopens After Two-Year Renovation",
    formatError: "Election Night Special: How the Count Works",
    studio: "Late Night Acoustic: The Full Session",
    private: "Embargoed: Budget Briefing for Editors",
    tricky:
      '<!channel> *Breaking* _now_: `Harbour` ~Bridge~ & "tolls" <https://evil.example|click here> 50% off 🌉',
    foreign: "Contoso Sports Tonight: Full Highlights",
    foreignPrivate: "Contoso Internal: Rights Review",
  },
  studioWebhook: {
    callback_url: "https://hooks.example.com/platform",
    events: ["video.created", "video.published", "video.deleted"],
  },
  /** Stream key inside the on-air livestream's ingest URLs. */
  streamKey: "sk_live_7Qm2Xv9LpR4tZ8wBn3Kd",
} as const;

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

export const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

function exactLength(unit: string, length: number): string {
  return unit.repeat(Math.ceil(length / unit.length)).slice(0, length);
}

function thumbnails(id: string, missing: string[] = []) {
  const url = (size: string) =>
    missing.includes(size) ? null : `https://s1.example-cdn.com/v/${id}/x${size}`;
  return {
    h1080_url: url("1080"),
    h720_url: url("720"),
    h480_url: url("480"),
    h240_url: url("240"),
    default_url: url("source"),
  };
}

function embedding(id: string, enable: boolean) {
  const embedUrl = `https://geo.example.com/player.html?video=${id}`;
  return {
    enable_embed: enable,
    embed_url: embedUrl,
    embed_html: `<iframe src="${embedUrl}" width="640" height="360" frameborder="0" allow="autoplay; fullscreen; picture-in-picture" allowfullscreen></iframe>`,
  };
}

function ingest(key: string) {
  return {
    rtmp_url: `rtmp://publish.example.net/live/${key}`,
    srt_url: `srt://publish.example.net:9998?streamid=live/${key}&latency=2000`,
    available_servers: {
      "Europe (Paris)": `rtmp://par.publish.example.net/live/${key}`,
      "US East (Ashburn)": `rtmp://iad.publish.example.net/live/${key}`,
    },
  };
}

function livestream(
  id: string,
  profileId: string,
  now: number,
  over: Partial<SandboxLivestream> &
    Pick<SandboxLivestream, "title" | "status" | "recording" | "advertising">,
): SandboxLivestream {
  return {
    livestream_id: id,
    livestream_url: `https://www.example-video.com/video/${id}`,
    description: null,
    language: "en",
    category: "news",
    country: "GB",
    visibility: "public",
    is_for_kids: false,
    is_explicit: false,
    is_exclusive_content: false,
    is_ai_altered: false,
    has_paid_partnership: false,
    enable_comments: true,
    profile_id: profileId,
    start_at: null,
    end_at: null,
    ingest: ingest(`sk_live_${id}Hq4Tn8`),
    geo_restriction: { mode: "deny", countries: [] },
    embedding: embedding(id, true),
    thumbnail: thumbnails(id),
    created_at: iso(now - 9 * DAY),
    updated_at: iso(now - 20 * MIN),
    ...over,
  };
}

function profile(
  id: string,
  owner: string,
  over: Partial<SandboxProfile> & Pick<SandboxProfile, "name" | "display_name" | "created_at">,
): SandboxProfile {
  return {
    profile_id: id,
    description: null,
    can_change_name: false,
    social_links: { twitter_url: null, instagram_url: null, facebook_url: null, website_url: null },
    content_defaults: {
      language: "en",
      visibility: "public",
      is_for_kids: false,
      title: null,
      description: null,
      tags: [],
      category: "news",
      ai_subtitles: [],
      enable_comments: true,
      enable_ai_chapter_generation: false,
      geo_restriction: { mode: "deny", countries: [] },
    },
    webhook: { callback_url: null, events: null },
    owner_client_id: owner,
    ...over,
  };
}

/** Fresh seed state: `ownerClientId` owns newsroom and studio; `now` anchors every timestamp. */
export function seedState(ownerClientId: string, now: number) {
  const P = SEED.profiles;
  const L = SEED.livestreams;
  const profiles: SandboxProfile[] = [
    profile(P.newsroom, ownerClientId, {
      name: "northwind-news",
      display_name: "Northwind News",
      description: "<p>Live news from the <b>Northwind</b> newsroom, around the clock.</p>",
      created_at: "2019-03-14T09:26:53Z",
      social_links: {
        twitter_url: "https://x.com/northwindnews",
        instagram_url: null,
        facebook_url: "https://www.facebook.com/northwindnews",
        website_url: "https://news.northwind.example",
      },
      content_defaults: {
        language: "en",
        visibility: "public",
        is_for_kids: false,
        title: "Northwind News: {date}",
        description: "Northwind News, live and on demand.",
        tags: ["news", "live", "northwind"],
        category: "news",
        ai_subtitles: ["fr", "de"],
        enable_comments: true,
        enable_ai_chapter_generation: true,
        geo_restriction: { mode: "deny", countries: [] },
      },
    }),
    profile(P.studio, ownerClientId, {
      name: "northwind-studio",
      display_name: "Northwind Studio",
      created_at: "2021-11-02T16:04:11Z",
      can_change_name: true,
      social_links: {
        twitter_url: null,
        instagram_url: null,
        facebook_url: null,
        website_url: "https://studio.northwind.example",
      },
      webhook: { callback_url: SEED.studioWebhook.callback_url, events: [...SEED.studioWebhook.events] },
    }),
    profile(P.foreign, SEED.clients.foreignOwner, {
      name: "contoso-tv",
      display_name: "Contoso TV",
      created_at: "2017-06-30T12:00:00Z",
      webhook: { callback_url: "https://contoso.example.org/hooks/video", events: ["video.published"] },
    }),
  ];

  const onAirSince = now - 20 * MIN;
  const livestreams: SandboxLivestream[] = [
    livestream(L.onAirAdBreak, P.newsroom, now, {
      title: "Northwind Morning Live: Markets & Headlines",
      description: "<p>Markets, headlines and the weather, <em>live</em> every weekday morning.</p>",
      start_at: iso(onAirSince),
      end_at: iso(now + 100 * MIN),
      ingest: ingest(SEED.streamKey),
      status: { onair: true, airing_at: iso(onAirSince), audio_bitrate: 128000 },
      recording: { auto_record: true, status: "started", start_at: iso(onAirSince + 4000), end_at: null },
      advertising: { end_at: iso(now + 40_000), remaining: 17 },
    }),
    livestream(L.offAir, P.studio, now, {
      title: "Studio Session: Late Night Acoustic",
      category: "music",
      start_at: iso(now + DAY),
      end_at: iso(now + DAY + 2 * HOUR),
      status: { onair: false, airing_at: iso(now - DAY), audio_bitrate: null },
      recording: {
        auto_record: true,
        status: "stopped",
        start_at: iso(now - DAY),
        end_at: iso(now - DAY + HOUR),
      },
      advertising: { end_at: null, remaining: 0 },
      thumbnail: thumbnails(L.offAir, ["240", "source"]),
      updated_at: iso(now - DAY + HOUR),
    }),
    livestream(L.recording, P.newsroom, now, {
      title: "City Council Meeting (live)",
      start_at: iso(now - 2 * MIN),
      status: { onair: true, airing_at: iso(now - 2 * MIN), audio_bitrate: 96000 },
      recording: { auto_record: true, status: "starting", start_at: null, end_at: null },
      advertising: { end_at: null, remaining: 24 },
      updated_at: iso(now - 2 * MIN),
    }),
    livestream(L.geoRestricted, P.studio, now, {
      title: exactLength("Festival des Lumières : concert d'ouverture en direct depuis Lausanne, ", 255),
      description: exactLength(
        '<p>Le concert d\'ouverture, avec <strong>orchestre</strong> et <a href="https://studio.northwind.example">invités</a>.</p>',
        3000,
      ),
      language: "fr",
      country: "FR",
      category: "music",
      start_at: iso(now - 45 * MIN),
      status: { onair: true, airing_at: iso(now - 45 * MIN), audio_bitrate: 192000 },
      recording: { auto_record: false, status: "stopped", start_at: null, end_at: null },
      advertising: { end_at: null, remaining: 22 },
      geo_restriction: { mode: "allow", countries: ["FR", "BE", "CH"] },
      embedding: embedding(L.geoRestricted, false),
    }),
    livestream(L.foreign, P.foreign, now, {
      title: "Contoso Sports Tonight",
      category: "sport",
      country: "US",
      start_at: iso(now - 70 * MIN),
      status: { onair: true, airing_at: iso(now - 70 * MIN), audio_bitrate: 128000 },
      recording: { auto_record: true, status: "started", start_at: iso(now - 70 * MIN), end_at: null },
      advertising: { end_at: null, remaining: 9 },
    }),
  ];
  const V = SEED.videos;
  const T = SEED.videoTitles;
  const byId = new Map(profiles.map((p) => [p.profile_id, p]));
  const video = (
    id: string,
    profileId: string,
    over: Partial<SandboxVideo> & Pick<SandboxVideo, "title">,
  ): SandboxVideo =>
    makeVideo({ video_id: id, profile_id: profileId, ...over }, byId.get(profileId), now - 2 * HOUR);
  const videos: SandboxVideo[] = [
    video(V.published, P.newsroom, { title: T.published }),
    video(V.formatError, P.newsroom, { title: T.formatError }),
    video(V.studio, P.studio, { title: T.studio, category: "music" }),
    video(V.private, P.newsroom, {
      title: T.private,
      visibility: "private",
      status: "ready",
      published_at: null,
    }),
    video(V.tricky, P.newsroom, { title: T.tricky }),
    video(V.foreign, P.foreign, { title: T.foreign, category: "sport" }),
    video(V.foreignPrivate, P.foreign, { title: T.foreignPrivate, visibility: "private" }),
  ];
  return {
    profiles: byId,
    livestreams: new Map(livestreams.map((l) => [l.livestream_id, l])),
    videos: new Map(videos.map((v) => [v.video_id, v])),
  };
}
