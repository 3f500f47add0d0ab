/**
 * `GET /videos/{id}` of the platform's API v2 ("Get a video", scope `video.read`), beyond our
 * spec: sparse `fields` with one level of dot notation, like a livestream. Field names follow the
 * API v2 conventions the livestream uses and the platform's migration guide states (`video_id`,
 * `video_url`, the owning `profile` object, ISO 8601 `created_at`); the bot relies on `title` only.
 *
 * Choices: any caller with `video.read` reads a public video of any profile (as a livestream);
 * a private or password video of a profile the caller does not own answers 404, like an unknown
 * id. The embedded profile's `webhook` is shown to its owner only.
 */
import { createHash } from "node:crypto";
import { type Caller, requireScopes } from "./auth.js";
import { notFound } from "./errors.js";
import { type ObjectShape, parseFields, project } from "./fields.js";
import { invalidFields, PROFILE_SHAPE, profileView } from "./profiles.js";
import type { SandboxProfile, SandboxVideo } from "./types.js";

const leaves = (...names: string[]): ObjectShape => ({
  fields: Object.fromEntries(names.map((n) => [n, null])),
});

export const VIDEO_SHAPE: ObjectShape = {
  fields: {
    video_id: null,
    title: null,
    description: null,
    video_url: null,
    visibility: null,
    category: null,
    language: null,
    status: null,
    duration: null,
    profile: PROFILE_SHAPE,
    thumbnail: {
      ...leaves("h1080_url", "h720_url", "h480_url", "h240_url", "default_url"),
      wholeDefault: ["h1080_url"],
    },
    created_at: null,
    updated_at: null,
    published_at: null,
  },
};

/** Choice (as for livestreams): without `fields`, the id, title, URL and creation time. */
export const VIDEO_DEFAULT_FIELDS = ["video_id", "title", "video_url", "created_at"];

export function readVideo(
  videos: Map<string, SandboxVideo>,
  profiles: Map<string, SandboxProfile>,
  caller: Caller,
  id: string,
  fieldsRaw: string | undefined,
): Record<string, unknown> {
  requireScopes(caller, ["video.read"]);
  const video = videos.get(id);
  const profile = video === undefined ? undefined : profiles.get(video.profile_id);
  const owner = profile !== undefined && profile.owner_client_id === caller.clientId;
  if (video === undefined || (video.visibility !== "public" && !owner)) throw notFound("video", id, "id");
  const parsed = parseFields(fieldsRaw, VIDEO_SHAPE, VIDEO_DEFAULT_FIELDS);
  if (!parsed.ok) throw invalidFields(parsed.invalid, VIDEO_SHAPE);
  const { profile_id: _profileId, ...rest } = video;
  const view = { ...rest, profile: profile === undefined ? undefined : profileView(profile, owner) };
  return project(view, VIDEO_SHAPE, parsed.selection);
}

// --- Titles and defaults of videos the sandbox makes up ---------------------------------------

const TITLES: Record<string, readonly string[]> = {
  news: [
    "Harbour Bridge Reopens After Two-Year Renovation",
    "City Council Approves the Riverside Tram Line",
    "Storm Warning: What to Expect This Weekend",
    "Markets Close Higher as Energy Prices Ease",
    "Inside the New Northwind Children's Hospital",
    "Election Night: How the Count Works",
    "Farmers Market Turns 50 with a Street Festival",
    "Airport Expansion: Residents Have Their Say",
  ],
  music: [
    "Late Night Acoustic: The Full Session",
    "Behind the Mix: Recording a String Quartet",
    "Open Mic Highlights, Volume 3",
    "Festival Warm-Up: Five Bands to Watch",
    "The Piano Room: Live from Studio B",
    "Soundcheck Stories with the House Band",
  ],
  sport: [
    "Match Highlights: Harbour City vs Northwind United",
    "Cup Final Preview: Form, Injuries and Tactics",
    "Marathon Morning: The Best Moments",
  ],
};

/** A realistic title for a made-up video, stable for a given id. */
export function titleFor(videoId: string, category: string): string {
  const list = TITLES[category] ?? TITLES.news ?? [];
  const n = createHash("sha256").update(videoId).digest().readUInt32BE(0);
  return list[n % list.length] ?? `Video ${videoId}`;
}

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");

/** A video with every field filled in: `over` wins, the rest follows the profile's defaults. */
export function makeVideo(
  over: Partial<SandboxVideo> & Pick<SandboxVideo, "video_id" | "profile_id">,
  profile: SandboxProfile | undefined,
  now: number,
): SandboxVideo {
  const id = over.video_id;
  const category = over.category ?? profile?.content_defaults.category ?? "news";
  const thumb = (size: string) => `https://s1.example-cdn.com/v/${id}/x${size}`;
  const status = over.status ?? "published";
  return {
    title: titleFor(id, category),
    description: null,
    video_url: `https://www.example-video.com/video/${id}`,
    visibility: "public",
    category,
    language: profile?.content_defaults.language ?? "en",
    status,
    duration: 60 + (createHash("sha256").update(id).digest().readUInt16BE(4) % 1800),
    thumbnail: {
      h1080_url: thumb("1080"),
      h720_url: thumb("720"),
      h480_url: thumb("480"),
      h240_url: thumb("240"),
      default_url: thumb("source"),
    },
    created_at: iso(now),
    updated_at: iso(now),
    published_at: status === "published" ? iso(now) : null,
    ...over,
  };
}

/**
 * What a delivered event tells of its video: the platform only sends events of videos it has, so
 * an unknown video is added (status "processing" when the event is its creation), and
 * `video.published` / `video.deleted` move its status. Choice: `video.deleted` does not make the
 * video disappear (its title read would then depend on the order deliveries arrive in); a test
 * that needs a 404 deletes it (`deleteVideo`, `DELETE /_sandbox/videos/{id}`).
 */
export function noteVideoEvent(
  videos: Map<string, SandboxVideo>,
  profile: SandboxProfile,
  type: string,
  videoId: string,
  now: number,
): void {
  let video = videos.get(videoId);
  if (video === undefined) {
    video = makeVideo(
      {
        video_id: videoId,
        profile_id: profile.profile_id,
        status: type === "video.created" ? "processing" : "published",
      },
      profile,
      now,
    );
    videos.set(videoId, video);
  }
  if (type === "video.published" && video.status !== "published") {
    video.status = "published";
    video.published_at = iso(now);
    video.updated_at = iso(now);
  } else if (type === "video.deleted") {
    video.status = "deleted";
    video.updated_at = iso(now);
  }
}
