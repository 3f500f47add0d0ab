/**
 * Messages of the video notifications: the parent message (one per video, updated in place) and
 * the milestone replies of its thread. Pure: the state and the clock in, `{ text, blocks }` out.
 *
 * Times are Slack date tokens (shown in each reader's time zone, never stale), not "3 min ago":
 * the parent stays on screen long after it was rendered, and the same state renders the same
 * message (so `parentHash`, src/notify/video/hash.ts, lets the worker skip identical updates).
 *
 * The video's link comes from VIDEO_URL_TEMPLATE, passed in (`VideoLinks`): none when unset.
 * `parentMetadata` is the Slack message metadata of the parent, from which the video → message
 * map can be rebuilt (docs/notifications.md).
 */

import { canonicalJson } from "./json.js";
import {
  chunkLines,
  code,
  context,
  header,
  isLinkableUrl,
  link,
  mentionMarkup,
  message,
  section,
} from "./kit.js";
import { escapeTruncate, slackDate, truncate, utcText } from "./limits.js";
import type { KnownBlock, Message } from "./types.js";
import { IGNORED_PRESETS_CAP, MENTIONS_PER_CHANNEL_PER_HOUR } from "./vocabulary.js";

/**
 * What the video messages read of a video's state: src/notify/video/state.ts's VideoState has this
 * shape (the reducer's state, with its milestones and presets).
 */
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
function videoLink(s: VideoView, links: VideoLinks): string {
  const url = videoUrl(s.videoId, links);
  return url === undefined ? "" : ` · 🔗 ${link(url, "Open the video")}`;
}

/** The video's title when the platform gave one (src/notify/title.ts), else null. */
export function videoTitleOf(s: Pick<VideoView, "title">): string | null {
  return s.title !== undefined && "title" in s.title ? s.title.title : null;
}

/** Whether the platform said it has no such video (404 on its title read). */
function notConfirmed(s: VideoView): boolean {
  return s.title !== undefined && "notConfirmed" in s.title;
}

/**
 * The title as a context line of plain text: nothing in it is interpreted (no mention, link or
 * formatting), whatever the video's owner typed.
 */
function titleContext(title: string): KnownBlock {
  return {
    type: "context",
    elements: [{ type: "plain_text", text: truncatePlain(oneLine(title), TITLE_INLINE_MAX), emoji: false }],
  };
}

export const VIDEO_STATUS_EVENT = "video_status";

/** Slack message metadata of a video's parent message (`event_type` video_status). */
export interface VideoStatusMetadata {
  event_type: typeof VIDEO_STATUS_EVENT;
  event_payload: { video_id: string; profile_id: string; stage: VideoStage };
}

export function parentMetadata(s: VideoView): VideoStatusMetadata | undefined {
  if (s.videoId === null) return undefined;
  return {
    event_type: VIDEO_STATUS_EVENT,
    event_payload: { video_id: s.videoId, profile_id: s.profileId, stage: s.stage },
  };
}

/** Preset lines shown in the parent; the rest is summed up as "and N more". */
export const MAX_PRESET_LINES = 20;
/** Preset names listed inline (fallback text, complete milestone, error summary). */
export const MAX_NAMES_INLINE = 10;
/** After this long without an event, an unfinished encoding says so. */
export const STALL_MS = 30 * 60_000;
const NAME_MAX = 60;
const INLINE_NAME_MAX = 40;
const ID_MAX = 80;
const TITLE_INLINE_MAX = 150;
const DATA_BLOCK_MAX = 1500;
const DETAILS_MAX = 500;

export const STAGE_EMOJI: Record<VideoStage, string> = {
  created: "🆕",
  encoding: "⚙️",
  formats_ready: "🎞️",
  published: "✅",
  complete: "🏁",
  deleted: "🗑️",
};

const STAGE_LABEL: Record<VideoStage, string> = {
  created: "Created",
  encoding: "Encoding",
  formats_ready: "Formats ready",
  published: "Published",
  complete: "Complete",
  deleted: "Video deleted",
};

const collator = new Intl.Collator("en", { numeric: true });

function compareNames(a: string, b: string): number {
  return collator.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0);
}

/** Presets in natural name order (240p, 480p, 1080p). */
function sortedPresets(s: VideoView): [string, PresetView][] {
  return Object.entries(s.presets).sort(([a], [b]) => compareNames(a, b));
}

/** A Slack date token of an event timestamp, with its UTC text as fallback. */
function at(ms: number): string {
  const d = new Date(ms);
  return slackDate(d, utcText(d));
}

function pct(progress: number): number {
  return Number.isFinite(progress) ? Math.min(100, Math.max(0, Math.floor(progress))) : 0;
}

/** `▰▰▰▰▰▱▱▱▱▱` for 50%: one cell per full 10%. */
export function progressBar(progress: number, cells = 10): string {
  const filled = Math.min(cells, Math.floor((pct(progress) * cells) / 100));
  return "▰".repeat(filled) + "▱".repeat(cells - filled);
}

/** "a, b and 3 more" of names as inline code (for mrkdwn: no link, mention or formatting). */
function nameList(names: readonly string[], max = MAX_NAMES_INLINE): string {
  const shown = names.slice(0, max).map((n) => code(oneLine(n), INLINE_NAME_MAX));
  const more = names.length - shown.length;
  return more > 0 ? `${shown.join(", ")} and ${more} more` : shown.join(", ");
}

/** The same list for the fallback text (escaped as a whole by `message`). */
function plainNameList(names: readonly string[], max: number): string {
  const shown = names.slice(0, max).map((n) => plainCode(n));
  const more = names.length - shown.length;
  return more > 0 ? `${shown.join(", ")} and ${more} more` : shown.join(", ");
}

/**
 * A foreign name as inline code in the fallback text: backticks neutralised, one line, bounded
 * (`message` escapes `<`, `>` and `&` of the whole text), so it never shows as a link or formatting.
 */
function plainCode(name: string, max = INLINE_NAME_MAX): string {
  return `\`${truncatePlain(oneLine(name).replace(/`/g, "'"), max)}\``;
}

/** "+N more formats not shown" when the video named more presets than the state keeps. */
function ignoredNote(s: VideoView): string | undefined {
  const n = s.ignoredPresets?.length ?? 0;
  if (n === 0) return undefined;
  return `+${n}${n >= IGNORED_PRESETS_CAP ? "+" : ""} more format${n === 1 ? "" : "s"} not shown`;
}

function oneLine(s: string): string {
  return s.replace(/\s+/g, " ").trim() || "?";
}

/** At most `max` code units, never ending with half a surrogate pair (an emoji cut in two). */
function truncatePlain(s: string, max: number): string {
  return truncate(s, max);
}

function presetLine(name: string, p: PresetView): string {
  const n = code(name, NAME_MAX);
  switch (p.status) {
    case "processing":
      return `${n} ${progressBar(p.progress)} ${pct(p.progress)}%`;
    case "ready":
      return `${n} ${progressBar(100)} 100% · ready ✓`;
    case "error":
      return `${n} ✗ error${p.progress > 0 ? ` (at ${pct(p.progress)}%)` : ""}`;
    case "deleted":
      return `${n} 🗑️ format deleted`;
  }
}

function presetWord(p: PresetView): string {
  switch (p.status) {
    case "processing":
      return `${pct(p.progress)}%`;
    case "ready":
      return "ready";
    case "error":
      return "error";
    case "deleted":
      return "deleted";
  }
}

const SHOW_FIRST: Record<PresetView["status"], number> = { error: 0, processing: 1, ready: 2, deleted: 3 };

/** At most MAX_PRESET_LINES presets: errors, then processing, ready, deleted; shown in name order. */
function presetLines(s: VideoView): string[] {
  const all = sortedPresets(s);
  let shown = all;
  if (all.length > MAX_PRESET_LINES) {
    const keep = new Set(
      [...all]
        .sort(([a, pa], [b, pb]) => SHOW_FIRST[pa.status] - SHOW_FIRST[pb.status] || compareNames(a, b))
        .slice(0, MAX_PRESET_LINES)
        .map(([name]) => name),
    );
    shown = all.filter(([name]) => keep.has(name));
  }
  const lines = shown.map(([name, p]) => presetLine(name, p));
  const hidden = all.filter((e) => !shown.includes(e));
  if (hidden.length > 0) {
    const counts = countByStatus(hidden.map(([, p]) => p));
    lines.push(`_and ${hidden.length} more (${countsText(counts)})_`);
  }
  const ignored = ignoredNote(s);
  if (ignored) lines.push(`_${ignored}_`);
  return lines;
}

type Counts = Record<PresetView["status"], number>;

function countByStatus(presets: readonly PresetView[]): Counts {
  const c: Counts = { processing: 0, ready: 0, error: 0, deleted: 0 };
  for (const p of presets) c[p.status]++;
  return c;
}

function countsText(c: Counts): string {
  const parts: string[] = [];
  if (c.ready) parts.push(`${c.ready} ready`);
  if (c.processing) parts.push(`${c.processing} encoding`);
  if (c.error) parts.push(`${c.error} failed`);
  if (c.deleted) parts.push(`${c.deleted} deleted`);
  return parts.join(", ");
}

function namesWith(s: VideoView, status: PresetView["status"]): string[] {
  return sortedPresets(s)
    .filter(([, p]) => p.status === status)
    .map(([name]) => name);
}

function titleLine(s: VideoView, links: VideoLinks): string {
  const parts = [
    s.videoId === null ? "🎬 *Events without a video*" : `🎬 *Video* ${code(s.videoId, ID_MAX)}`,
  ];
  // The owner is usually the profile itself: named only when it differs.
  if (s.ownerId && s.ownerId !== s.profileId) parts.push(`owner ${code(s.ownerId, ID_MAX)}`);
  const name = s.profileName?.replace(/\s+/g, " ").trim();
  parts.push(
    name && name !== s.profileId
      ? `profile ${escapeTruncate(name, 100)} (${code(s.profileId, ID_MAX)})`
      : `profile ${code(s.profileId, ID_MAX)}`,
  );
  return parts.join(" · ") + videoLink(s, links);
}

function stageLine(s: VideoView, now: Date): string {
  const presets = Object.values(s.presets);
  const c = countByStatus(presets);
  const total = presets.length - c.deleted;
  const head = `${STAGE_EMOJI[s.stage]} *${STAGE_LABEL[s.stage]}*`;
  const parts: string[] = [];
  switch (s.stage) {
    case "created":
      parts.push(`${head} ${at(s.createdAt ?? s.firstEventAt)}`);
      break;
    case "encoding":
      parts.push(head, `${c.ready}/${total} format${total === 1 ? "" : "s"} ready`);
      break;
    case "formats_ready":
      parts.push(head, `${c.ready}/${total} format${total === 1 ? "" : "s"}`);
      break;
    case "published":
      parts.push(`${head} ${at(s.publishedAt ?? s.stageAt)}`);
      break;
    case "complete":
      parts.push(`${head} ${at(s.completeAt ?? s.stageAt)}`, "all formats ready");
      break;
    case "deleted":
      parts.push(`${head} ${at(s.deletedAt ?? s.stageAt)}`);
      break;
  }
  if (c.error > 0) parts.push(`⚠️ failed: ${nameList(namesWith(s, "error"), 3)}`);
  const unfinished = s.stage === "created" || s.stage === "encoding";
  if (unfinished && s.eventCount > 0 && now.getTime() - s.lastEventAt > STALL_MS) {
    parts.push("⏳ no news for over 30 min");
  }
  return parts.join(" · ");
}

function timeline(s: VideoView): string[] {
  const out: string[] = [];
  if (s.createdAt !== null) out.push(`Created ${at(s.createdAt)}`);
  if (s.publishedAt !== null) out.push(`Published ${at(s.publishedAt)}`);
  if (s.completeAt !== null) out.push(`Complete ${at(s.completeAt)}`);
  return out;
}

function parentFallback(s: VideoView): string {
  const title = videoTitleOf(s);
  const id = s.videoId === null ? "" : truncatePlain(oneLine(s.videoId), ID_MAX);
  const who =
    s.videoId === null
      ? "Events without a video"
      : title === null
        ? `Video ${id}`
        : `${truncatePlain(oneLine(title), TITLE_INLINE_MAX)} (video ${id})`;
  const presets = Object.values(s.presets);
  const c = countByStatus(presets);
  const total = presets.length - c.deleted;
  let what: string;
  switch (s.stage) {
    case "created":
      what = "created";
      break;
    case "encoding": {
      const busy = sortedPresets(s)
        .filter(([, p]) => p.status === "processing")
        .map(([name, p]) => `${plainCode(name)} ${pct(p.progress)}%`);
      const shown = busy.slice(0, 3).join(", ") + (busy.length > 3 ? `, and ${busy.length - 3} more` : "");
      what = `encoding ${c.ready}/${total} formats${shown ? ` (${shown})` : ""}`;
      break;
    }
    case "formats_ready":
      what = `formats ready (${c.ready}/${total})`;
      break;
    case "published":
      what = "published";
      break;
    case "complete": {
      const ready = namesWith(s, "ready");
      what = `complete${ready.length ? `, all formats ready (${plainNameList(ready, MAX_NAMES_INLINE)})` : ""}`;
      break;
    }
    case "deleted":
      what = "deleted";
      break;
  }
  const errors = namesWith(s, "error");
  const failed = errors.length ? `; failed: ${plainNameList(errors, 3)}` : "";
  const ignored = ignoredNote(s);
  return `${who}: ${what}${failed}${ignored ? ` (${ignored})` : ""}`;
}

/** The one parent message of a video, updated in place as its lifecycle moves. */
export function renderParent(s: VideoView, now: Date, links: VideoLinks = {}): Message {
  const title = videoTitleOf(s);
  // The title in a header: plain text, so nothing the video's owner typed is interpreted.
  const blocks: KnownBlock[] = [...(title === null ? [] : [header(title)]), section(titleLine(s, links))];
  if (notConfirmed(s))
    blocks.push(context(["❔ Not confirmed by the platform: it knows no video with this id"]));
  blocks.push(section(stageLine(s, now)));
  const presets = sortedPresets(s);
  if (s.stage === "deleted") {
    if (presets.length > 0) {
      const shown = presets.slice(0, MAX_PRESET_LINES);
      const list = shown.map(([name, p]) => `${code(oneLine(name), INLINE_NAME_MAX)} ${presetWord(p)}`);
      const more = presets.length - shown.length;
      const ignored = ignoredNote(s);
      blocks.push(
        context([
          `Formats at deletion: ${list.join(" · ")}${more > 0 ? ` · and ${more} more` : ""}${ignored ? ` · ${ignored}` : ""}`,
        ]),
      );
    }
  } else {
    for (const chunk of chunkLines(presetLines(s))) blocks.push(section(chunk));
  }
  const events = `${s.eventCount} event${s.eventCount === 1 ? "" : "s"}`;
  const last = s.eventCount > 0 ? `Last event ${at(s.lastEventAt)} · ${events}` : "No event yet";
  blocks.push(context([...timeline(s), last]));
  return message(parentFallback(s), blocks);
}

/** Compact JSON of foreign data as a code block: backticks neutralised, escaped, bounded. */
function dataBlock(data: Record<string, unknown>, max: number): string {
  const raw = Object.hasOwn(data, "_truncated") ? data._truncated : undefined;
  const json = Object.keys(data).length === 1 && typeof raw === "string" ? `${raw}…` : canonicalJson(data);
  return `\`\`\`${escapeTruncate(json.replace(/`/g, "'"), max) || " "}\`\`\``;
}

const VIDEO_REF_FIELDS = new Set(["owner_id", "video_id", "preset_name", "status"]);

/** Fields of the data other than the video reference (error details, when the platform sends them). */
function extraFields(data: Record<string, unknown>): Record<string, unknown> | undefined {
  const extra = Object.fromEntries(Object.entries(data).filter(([k]) => !VIDEO_REF_FIELDS.has(k)));
  return Object.keys(extra).length > 0 ? extra : undefined;
}

function presetOf(m: MilestoneView, prefix: string): string {
  return m.key.slice(prefix.length);
}

/**
 * A milestone as a short message: a reply in the parent's thread, or a standalone message for
 * events without a video (then it names the profile).
 */
/**
 * `mention`: a subscription's stored mention (null, "here" or a user id, validated again by
 * mentionMarkup), put first on a format-error reply only. `heldBack`: one was asked for and held
 * back, and why (src/notify/mentions.ts), which the reply says.
 */
export function renderMilestone(
  m: MilestoneView,
  s: VideoView,
  links: VideoLinks = {},
  mention: string | null = null,
  heldBack: "hourly" | "unconfirmed" | null = null,
): Message {
  const title = videoTitleOf(s);
  const video =
    s.videoId === null
      ? ""
      : title === null
        ? `Video ${truncatePlain(oneLine(s.videoId), ID_MAX)}: `
        : `${truncatePlain(oneLine(title), TITLE_INLINE_MAX)}: `;
  let line: string;
  let fallback: string;
  if (m.key === "published") {
    line = `✅ Published ${at(m.timestamp)}`;
    fallback = `${video}published`;
  } else if (m.key === "complete") {
    const ready = namesWith(s, "ready");
    line = `🏁 Complete: all formats ready${ready.length ? ` (${nameList(ready)})` : ""}`;
    fallback = `${video}complete, all formats ready${ready.length ? ` (${plainNameList(ready, MAX_NAMES_INLINE)})` : ""}`;
  } else if (m.key === "deleted") {
    line = `🗑️ Video deleted ${at(m.timestamp)}`;
    fallback = `${video}deleted`;
  } else if (m.key.startsWith("error:")) {
    const preset = presetOf(m, "error:");
    line = preset ? `⚠️ Encoding of ${code(preset, NAME_MAX)} failed` : "⚠️ Encoding of a format failed";
    fallback = `${video}encoding of ${preset ? plainCode(preset) : "a format"} failed`;
    const extra = extraFields(m.data);
    if (extra) line += `\n${dataBlock(extra, DETAILS_MAX)}`;
    const markup = mentionMarkup(mention);
    if (markup) line = `${markup} ${line}`;
  } else if (m.key.startsWith("format-deleted:")) {
    const preset = presetOf(m, "format-deleted:");
    line = preset ? `🗑️ Format ${code(preset, NAME_MAX)} deleted` : "🗑️ A format was deleted";
    fallback = `${video}${preset ? `format ${plainCode(preset)}` : "a format was"} deleted`;
  } else {
    line = `ℹ️ Event ${code(m.type, 100)} received ${at(m.timestamp)}\n${dataBlock(m.data, DATA_BLOCK_MAX)}`;
    fallback = `${video}event ${truncatePlain(oneLine(m.type), 100)} received`;
  }
  const blocks: KnownBlock[] = [section(line + videoLink(s, links))];
  if (title !== null) blocks.push(titleContext(title));
  if (s.videoId === null) blocks.push(context([`Profile ${code(s.profileId, ID_MAX)}`]));
  if (heldBack !== null && m.key.startsWith("error:"))
    blocks.push(
      context([
        heldBack === "hourly"
          ? `🔕 No mention: this channel had its ${MENTIONS_PER_CHANNEL_PER_HOUR} mentions of the last hour already.`
          : "🔕 No mention: the platform does not confirm this video.",
      ]),
    );
  const msg = message(fallback.charAt(0).toUpperCase() + fallback.slice(1), blocks);
  // The fallback text is escaped: the mention (validated markup, nothing else) goes before it.
  const markup = m.key.startsWith("error:") ? mentionMarkup(mention) : "";
  return markup ? { ...msg, text: `${markup} ${msg.text}` } : msg;
}
