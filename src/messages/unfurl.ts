/**
 * The compact livestream card of a link preview (`link_shared` → `chat.unfurl`): title and link,
 * on-air state, ads left this hour and recording, thumbnail. Built from the status card's pieces
 * (livestream.ts); pure. Never reads `ls.ingest`, and its fields list never asks for it.
 */
import { clock, relative } from "./dates.js";
import { type VideoFacts, videoTitle } from "./entity.js";
import { truncate } from "./escape.js";
import { code, context, isLinkableUrl, link, section, toDate } from "./kit.js";
import {
  advertising,
  LIVESTREAM_CARD_FIELDS,
  type LivestreamView,
  onAirState,
  thumbnail,
  titleOf,
} from "./livestream.js";
import type { KnownBlock } from "./types.js";

/**
 * The `fields` of the preview's one GET: the status card's, although the compact card shows fewer
 * of them, so that a preview, a status card and a Refresh of one livestream share one GET
 * (src/access/shared-reads.ts). Never `ingest`.
 */
export const LIVESTREAM_UNFURL_FIELDS: readonly string[] = LIVESTREAM_CARD_FIELDS;

const RECORDING: Record<string, string> = {
  starting: "⏳ recording starting",
  started: "⏺️ recording",
  stopping: "⏳ recording stopping",
};

/** What `chat.unfurl` takes for one URL: blocks, and a fallback for clients that show text. */
export interface UnfurlCard {
  blocks: KnownBlock[];
  fallback: string;
}

export function livestreamUnfurl(ls: LivestreamView, now: Date): UnfurlCard {
  const title = titleOf(ls);
  const state = onAirState(ls, now);
  const ads = advertising(ls, now);
  const heading = isLinkableUrl(ls.livestream_url)
    ? `*${link(ls.livestream_url, title, 150)}*`
    : `*${link(undefined, title, 150)}*`;
  const blocks: KnownBlock[] = [section(`${heading}\n${state.line}`, thumbnail(ls, title))];
  const ctx: string[] = [];
  if (ads.short !== "") ctx.push(`📺 ${ads.short}`);
  const rec = ls.recording?.status;
  if (rec !== undefined && RECORDING[rec]) ctx.push(RECORDING[rec] ?? "");
  if (ls.livestream_id) ctx.push(`ID ${code(ls.livestream_id, 100)} · \`/live status\` for details`);
  blocks.push(context([ctx.join(" · ")]));
  const summary = [state.short, ads.short].filter(Boolean).join(", ");
  return { blocks, fallback: truncate(`${title}: ${summary}`, 300) };
}

const VIDEO_STATE: Record<string, string> = {
  published: "published",
  ready: "ready, not published",
  processing: "processing",
  encoding: "encoding",
  deleted: "deleted",
  rejected: "rejected",
};

/**
 * The compact card of a pasted video link (a video of a profile bound to the workspace): its
 * title linked to the pasted URL, status, duration and when it was published, thumbnail.
 */
export function videoUnfurl(v: VideoFacts, pastedUrl: string, now: Date): UnfurlCard {
  const title = videoTitle(v);
  const image = thumbnail(v, title);
  const heading = isLinkableUrl(pastedUrl) ? link(pastedUrl, title, 150) : link(undefined, title, 150);
  const facts: string[] = ["🎬 Video"];
  if (v.status !== undefined) facts.push(VIDEO_STATE[v.status] ?? code(v.status, 40));
  if (typeof v.duration === "number") facts.push(clock(v.duration));
  const published = toDate(v.published_at);
  if (published && v.status === "published") facts.push(`published ${relative(published, now)}`);
  const blocks: KnownBlock[] = [section(`*${heading}*`, image)];
  const ctx = [facts.join(" · ")];
  if (v.video_id) ctx.push(`ID ${code(v.video_id, 100)}`);
  blocks.push(context([ctx.join(" · ")]));
  return { blocks, fallback: truncate(`${title}: video`, 300) };
}
