/**
 * What the video messages read of a video's state (src/video/state.ts's VideoState has this
 * shape), its link and title, and the text pieces the parent message (video.ts) and the thread
 * replies (video-thread.ts) share: name lists, dates, bounds.
 */

import { slackDate, utcText } from "./dates.js";
import { truncate } from "./escape.js";
import { code, isLinkableUrl, link } from "./kit.js";

export type VideoStage = "created" | "encoding" | "formats_ready" | "published" | "complete" | "deleted";

export interface PresetView {
  status: "processing" | "ready" | "error" | "deleted";
  /** 0..100. */
  progress: number;
}

export interface MilestoneView {
  /** "published", "complete", "deleted", "error:<preset>", "format-deleted:<preset>", "event:<type>:<timestamp>". */
  key: string;
  /** Event type of the delivery. */
  type: string;
  timestamp: number;
  data: Record<string, unknown>;
}

export interface VideoView {
  profileId: string;
  videoId: string | null;
  ownerId: string | null;
  stage: VideoStage;
  stageAt: number;
  firstEventAt: number;
  lastEventAt: number;
  presets: Record<string, PresetView>;
  createdAt: number | null;
  publishedAt: number | null;
  completeAt: number | null;
  deletedAt: number | null;
  eventCount: number;
  /** Hashes of the preset names the state ignored (at most IGNORED_PRESETS_CAP). */
  ignoredPresets?: readonly string[] | undefined;
  /** What the platform said of the video: its title, no such video, or not known. */
  title?: { title: string | null } | { notConfirmed: true } | { unknown: string } | undefined;
  /** The profile's display name (else name), when known. */
  profileName?: string | undefined;
}

/** How videos are linked: VIDEO_URL_TEMPLATE (`{id}` = the video id), or none. */
export interface VideoLinks {
  videoUrlTemplate?: string | undefined;
}

/** The video's URL: the template with the id URL-encoded, or undefined (no template, no video). */
export function videoUrl(videoId: string | null, links: VideoLinks = {}): string | undefined {
  const t = links.videoUrlTemplate;
  if (!t || videoId === null || videoId === "") return undefined;
  const url = t.replaceAll("{id}", encodeURIComponent(videoId));
  return isLinkableUrl(url) ? url : undefined;
}

/** ` · <url|Open the video>` (escaped), or "" without a link. */
export function videoLink(s: VideoView, links: VideoLinks): string {
  const url = videoUrl(s.videoId, links);
  return url === undefined ? "" : ` · 🔗 ${link(url, "Open the video")}`;
}

/** The video's title when the platform gave one (src/notify/title.ts), else null. */
export function videoTitleOf(s: Pick<VideoView, "title">): string | null {
  return s.title !== undefined && "title" in s.title ? s.title.title : null;
}

/** Preset names listed inline (fallback text, complete milestone, error summary). */
export const MAX_NAMES_INLINE = 10;
export const NAME_MAX = 60;
export const INLINE_NAME_MAX = 40;
export const ID_MAX = 80;
export const TITLE_INLINE_MAX = 150;

const collator = new Intl.Collator("en", { numeric: true });

export function compareNames(a: string, b: string): number {
  return collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);
}

/** Presets in natural name order (240p, 480p, 1080p). */
export function sortedPresets(s: VideoView): [string, PresetView][] {
  return Object.entries(s.presets).sort(([a], [b]) => compareNames(a, b));
}

/** A Slack date token of an event timestamp, with its UTC text as fallback. */
export function at(ms: number): string {
  const d = new Date(ms);
  return slackDate(d, utcText(d));
}

/** "a, b and 3 more" of names as inline code (for mrkdwn: no link, mention or formatting). */
export function nameList(names: readonly string[], max = MAX_NAMES_INLINE): string {
  const shown = names.slice(0, max).map((n) => code(oneLine(n), INLINE_NAME_MAX));
  const more = names.length - shown.length;
  return more > 0 ? `${shown.join(", ")} and ${more} more` : shown.join(", ");
}

/** The same list for the fallback text (escaped as a whole by `message`). */
export function plainNameList(names: readonly string[], max: number): string {
  const shown = names.slice(0, max).map((n) => plainCode(n));
  const more = names.length - shown.length;
  return more > 0 ? `${shown.join(", ")} and ${more} more` : shown.join(", ");
}

/**
 * A foreign name as inline code in the fallback text: backticks neutralised, one line, bounded
 * (`message` escapes `<`, `>` and `&` of the whole text), so it never shows as a link or formatting.
 */
export function plainCode(name: string, max = INLINE_NAME_MAX): string {
  return `\`${truncatePlain(oneLine(name).replace(/`/g, "'"), max)}\``;
}

export function oneLine(s: string): string {
  return s.replace(/\s+/g, " ").trim() || "?";
}

/** At most `max` code units, never ending with half a surrogate pair (an emoji cut in two). */
export function truncatePlain(s: string, max: number): string {
  return truncate(s, max);
}

export function namesWith(s: VideoView, status: PresetView["status"]): string[] {
  return sortedPresets(s)
    .filter(([, p]) => p.status === status)
    .map(([name]) => name);
}
