/**
 * The milestone replies of a video's thread (published, complete, deleted, a format's error or
 * deletion, any other event), or standalone messages for events without a video. Pure: the
 * milestone and the state in, `{ text, blocks }` out.
 */

import { canonicalJson, MENTIONS_PER_CHANNEL_PER_HOUR } from "../domain/index.js";
import { escapeTruncate } from "./escape.js";
import { code, context, mentionMarkup, message, section } from "./kit.js";
import type { KnownBlock, Message } from "./types.js";
import {
  at,
  ID_MAX,
  MAX_NAMES_INLINE,
  type MilestoneView,
  NAME_MAX,
  nameList,
  namesWith,
  oneLine,
  plainCode,
  plainNameList,
  TITLE_INLINE_MAX,
  truncatePlain,
  type VideoLinks,
  type VideoView,
  videoLink,
  videoTitleOf,
} from "./video-view.js";

const DATA_BLOCK_MAX = 1500;
const DETAILS_MAX = 500;

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
 *
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
    const failed = namesWith(s, "error");
    if (failed.length === 0) {
      line = `🏁 Complete: all formats ready${ready.length ? ` (${nameList(ready)})` : ""}`;
      fallback = `${video}complete, all formats ready${ready.length ? ` (${plainNameList(ready, MAX_NAMES_INLINE)})` : ""}`;
    } else {
      // Not "all": the failed formats are named beside the ready ones.
      const readyPart = ready.length ? `ready: ${nameList(ready)}` : "no format ready";
      const plainReady = ready.length
        ? `ready: ${plainNameList(ready, MAX_NAMES_INLINE)}`
        : "no format ready";
      line = `🏁 Complete: ${readyPart}; failed: ${nameList(failed)}`;
      fallback = `${video}complete, ${plainReady}; failed: ${plainNameList(failed, MAX_NAMES_INLINE)}`;
    }
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
