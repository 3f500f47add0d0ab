/**
 * Work Objects (Slack, GA since late 2025): a pasted livestream or video link becomes an entity
 * (`chat.unfurl`'s `metadata.entities[]`), and whoever opens it gets a details pane
 * (`entity.presentDetails`). Pure: data and the clock in, the entity out.
 *
 * The entity type is `slack#/entities/item` (the general-purpose one, declared under
 * `features.rich_previews` in manifest.yml); an item has no standard fields, so what the contract
 * calls its fields are `custom_fields`. Values are plain text (Slack renders them as such). Never
 * reads `ingest`: ingest addresses carry the stream key.
 */
import { clock, duration, relative, utcText } from "./dates.js";
import { truncate } from "./escape.js";
import { isLinkableUrl, toDate } from "./kit.js";
import { ADS_PER_HOUR, type LivestreamView, titleOf } from "./livestream.js";

export const ENTITY_TYPE = "slack#/entities/item";
/** What Slack shows as the entity's product. */
const PRODUCT_NAME = "Video Platform";
const MAX_TITLE = 255;
const MAX_VALUE = 500;

/** One Work Object field (an item's `custom_fields` entry). */
export interface EntityField {
  key: string;
  label: string;
  type: "string" | "slack#/types/timestamp" | "slack#/types/link";
  value: string | number;
  link?: string;
}

/** A Work Object, as `chat.unfurl` (with `app_unfurl_url`) and `entity.presentDetails` take it. */
export interface Entity {
  entity_type: typeof ENTITY_TYPE;
  url: string;
  app_unfurl_url?: string;
  external_ref: { id: string; type: EntityKind };
  entity_payload: {
    attributes: {
      title: { text: string };
      display_type: string;
      display_id: string;
      product_name: string;
    };
    custom_fields: EntityField[];
    display_order: string[];
  };
}

/** What an entity stands for: `external_ref.type`, read back when its pane is opened. */
export type EntityKind = "livestream" | "video";

/** A video as a preview and a pane read it (`GET /videos/{id}`, sparse): every field may be missing. */
export interface VideoFacts {
  video_id?: string | undefined;
  title?: string | undefined;
  video_url?: string | undefined;
  status?: string | undefined;
  visibility?: string | undefined;
  duration?: number | undefined;
  published_at?: string | null | undefined;
  created_at?: string | undefined;
  thumbnail?: { h240_url?: string | null | undefined; h480_url?: string | null | undefined } | undefined;
}

/**
 * The sparse `fields` of a video preview's one GET (and of its pane's): what the card and the
 * entity show, plus the owning profile the binding is checked on.
 */
export const VIDEO_PREVIEW_FIELDS: readonly string[] = Object.freeze([
  "video_id",
  "title",
  "video_url",
  "status",
  "visibility",
  "duration",
  "published_at",
  "created_at",
  "thumbnail.h240_url",
  "thumbnail.h480_url",
  "profile.profile_id",
]);

function entity(
  kind: EntityKind,
  id: string,
  title: string,
  url: string,
  fields: EntityField[],
  pastedUrl: string | undefined,
): Entity {
  return {
    entity_type: ENTITY_TYPE,
    url,
    ...(pastedUrl === undefined ? {} : { app_unfurl_url: pastedUrl }),
    external_ref: { id, type: kind },
    entity_payload: {
      attributes: {
        title: { text: truncate(title, MAX_TITLE) },
        display_type: kind === "livestream" ? "Livestream" : "Video",
        display_id: id,
        product_name: PRODUCT_NAME,
      },
      custom_fields: fields,
      display_order: fields.map((f) => f.key),
    },
  };
}

function text(key: string, label: string, value: string): EntityField {
  return { key, label, type: "string", value: truncate(value, MAX_VALUE) };
}

function timestamp(key: string, label: string, at: Date): EntityField {
  return { key, label, type: "slack#/types/timestamp", value: Math.floor(at.getTime() / 1000) };
}

function linkField(key: string, label: string, url: string): EntityField {
  return { key, label, type: "slack#/types/link", value: url, link: url };
}

// --- livestreams ----------------------------------------------------------------------------------

function onAir(ls: LivestreamView, now: Date): string {
  const s = ls.status;
  const airing = toDate(s?.airing_at);
  if (s?.onair === true)
    return airing ? `On air for ${duration(now.getTime() - airing.getTime())}` : "On air";
  if (s?.onair === false) {
    if (airing) return `Off air (last on air ${relative(airing, now)})`;
    return s.airing_at === null ? "Off air (never on air yet)" : "Off air";
  }
  return "Unknown";
}

function adsLeft(ls: LivestreamView): string {
  if (ls.status?.onair === false) return "No ads while off air";
  const remaining = ls.advertising?.remaining;
  return typeof remaining === "number" ? `${remaining} of ${ADS_PER_HOUR} this hour` : "Unknown";
}

function adBreak(ls: LivestreamView, now: Date): string {
  if (ls.status?.onair === false) return "None (off air)";
  const end = toDate(ls.advertising?.end_at);
  if (end && end.getTime() > now.getTime()) return `Running, ends ${utcText(end)} (${relative(end, now)})`;
  return ls.advertising === undefined ? "Unknown" : "None running";
}

const RECORDING: Record<string, string> = {
  starting: "Starting",
  started: "Recording",
  stopping: "Stopping",
  stopped: "Stopped",
};

function recording(ls: LivestreamView): string {
  const r = ls.recording;
  const status = r?.status === undefined ? "Unknown" : (RECORDING[r.status] ?? r.status);
  const auto =
    r?.auto_record === true ? "auto-record on" : r?.auto_record === false ? "auto-record off" : undefined;
  return auto === undefined ? status : `${status} · ${auto}`;
}

function geo(ls: LivestreamView): string {
  const g = ls.geo_restriction;
  const countries = g?.countries?.map((c) => c.trim()).filter((c) => c !== "");
  if (g?.mode === undefined || countries === undefined) return "Unknown";
  const list = countries.join(", ");
  if (g.mode === "deny") return countries.length === 0 ? "Available everywhere" : `Blocked in ${list}`;
  if (g.mode === "allow")
    return countries.length === 0 ? "Available nowhere (empty allow list)" : `Only in ${list}`;
  return `${g.mode}: ${list || "no countries"}`;
}

/** The livestream's own page when the platform gave one, else the URL that was pasted. */
function pageOf(url: string | undefined, pasted: string): string {
  return isLinkableUrl(url) ? url : pasted;
}

/**
 * The entity of a pasted livestream link (`chat.unfurl`): its title, on-air state and ads left.
 * `url` and `app_unfurl_url` are the pasted URL (Slack matches the entity to the link by them).
 */
export function livestreamEntity(ls: LivestreamView, pastedUrl: string, now: Date): Entity {
  const id = ls.livestream_id ?? "";
  return entity(
    "livestream",
    id,
    titleOf(ls),
    pastedUrl,
    [text("on_air", "On air", onAir(ls, now)), text("ads_left", "Ads left", adsLeft(ls))],
    pastedUrl,
  );
}

/**
 * The details pane of a livestream (`entity.presentDetails`), read fresh for whoever opened it:
 * title, on-air state and since when, ad break and ads left, recording, geo-restriction, a link.
 */
export function livestreamDetails(ls: LivestreamView, entityUrl: string, now: Date): Entity {
  const id = ls.livestream_id ?? "";
  const airing = toDate(ls.status?.airing_at);
  const fields: EntityField[] = [text("on_air", "On air", onAir(ls, now))];
  if (ls.status?.onair === true && airing) fields.push(timestamp("on_air_since", "On air since", airing));
  fields.push(
    text("ad_break", "Ad break", adBreak(ls, now)),
    text("ads_left", "Ads left", adsLeft(ls)),
    text("recording", "Recording", recording(ls)),
    text("geo_restriction", "Geo-restriction", geo(ls)),
    linkField("link", "Link", pageOf(ls.livestream_url, entityUrl)),
  );
  return entity("livestream", id, titleOf(ls), entityUrl, fields, undefined);
}

// --- videos ----------------------------------------------------------------------------------------

export function videoTitle(v: VideoFacts): string {
  const t = v.title?.replace(/\s+/g, " ").trim();
  if (t) return t;
  return v.video_id ? `Video ${v.video_id}` : "Untitled video";
}

const VIDEO_STATUS: Record<string, string> = {
  published: "Published",
  ready: "Ready (not published)",
  processing: "Processing",
  encoding: "Encoding",
  waiting: "Waiting",
  deleted: "Deleted",
  rejected: "Rejected",
};

const VISIBILITY: Record<string, string> = {
  public: "Public",
  private: "Private",
  password: "Password-protected",
};

function videoFields(v: VideoFacts, full: boolean): EntityField[] {
  const fields: EntityField[] = [
    text("status", "Status", v.status === undefined ? "Unknown" : (VIDEO_STATUS[v.status] ?? v.status)),
  ];
  if (typeof v.duration === "number") fields.push(text("duration", "Duration", clock(v.duration)));
  if (full) {
    fields.push(
      text(
        "visibility",
        "Visibility",
        v.visibility === undefined ? "Unknown" : (VISIBILITY[v.visibility] ?? v.visibility),
      ),
    );
    const published = toDate(v.published_at);
    if (published) fields.push(timestamp("published_at", "Published", published));
  }
  return fields;
}

/** The entity of a pasted video link (`chat.unfurl`): its title, status and duration. */
export function videoEntity(v: VideoFacts, pastedUrl: string): Entity {
  return entity("video", v.video_id ?? "", videoTitle(v), pastedUrl, videoFields(v, false), pastedUrl);
}

/** The details pane of a video: title, status, duration, visibility, when published, a link. */
export function videoDetails(v: VideoFacts, entityUrl: string): Entity {
  const fields = [...videoFields(v, true), linkField("link", "Link", pageOf(v.video_url, entityUrl))];
  return entity("video", v.video_id ?? "", videoTitle(v), entityUrl, fields, undefined);
}
