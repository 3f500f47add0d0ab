/**
 * The parent message of a video's notifications (one per video, updated in place; the milestone
 * replies of its thread are in video-thread.ts). Pure: the state and the clock in, `{ text, blocks }` out.
 *
 * Times are Slack date tokens (shown in each reader's time zone, never stale), not "3 min ago":
 * the parent stays on screen long after it was rendered, and the same state renders the same
 * message (so `parentHash`, src/video/hash.ts, lets the worker skip identical updates).
 * More: README.md ("video.ts").
 */

import { IGNORED_PRESETS_CAP } from "../domain/index.js";
import { escapeTruncate } from "./escape.js";
import { chunkLines, code, context, header, message, section } from "./kit.js";
import type { KnownBlock, Message } from "./types.js";
import {
  at,
  compareNames,
  ID_MAX,
  INLINE_NAME_MAX,
  MAX_NAMES_INLINE,
  NAME_MAX,
  nameList,
  namesWith,
  oneLine,
  type PresetView,
  plainCode,
  plainNameList,
  sortedPresets,
  TITLE_INLINE_MAX,
  truncatePlain,
  type VideoLinks,
  type VideoStage,
  type VideoView,
  videoLink,
  videoTitleOf,
} from "./video-view.js";

/** Whether the platform said it has no such video (404 on its title read). */
function notConfirmed(s: VideoView): boolean {
  return s.title !== undefined && "notConfirmed" in s.title;
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
/** After this long without an event, an unfinished encoding says so. */
export const STALL_MS = 30 * 60_000;

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
function pct(progress: number): number {
  return Number.isFinite(progress) ? Math.min(100, Math.max(0, Math.floor(progress))) : 0;
}

/** `▰▰▰▰▰▱▱▱▱▱` for 50%: one cell per full 10%. */
export function progressBar(progress: number, cells = 10): string {
  const filled = Math.min(cells, Math.floor((pct(progress) * cells) / 100));
  return "▰".repeat(filled) + "▱".repeat(cells - filled);
}

/** "+N more formats not shown" when the video named more presets than the state keeps. */
function ignoredNote(s: VideoView): string | undefined {
  const n = s.ignoredPresets?.length ?? 0;
  if (n === 0) return undefined;
  return `+${n}${n >= IGNORED_PRESETS_CAP ? "+" : ""} more format${n === 1 ? "" : "s"} not shown`;
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
      // "All" only when none failed: the failed ones are named just below.
      parts.push(
        `${head} ${at(s.completeAt ?? s.stageAt)}`,
        c.error > 0 ? `${c.ready}/${total} format${total === 1 ? "" : "s"} ready` : "all formats ready",
      );
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
      // "All" only when none failed (the failed ones follow, below).
      const formats = c.error > 0 ? "formats ready" : "all formats ready";
      what = `complete${ready.length ? `, ${formats} (${plainNameList(ready, MAX_NAMES_INLINE)})` : ""}`;
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
