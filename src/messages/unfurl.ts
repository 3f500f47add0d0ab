/**
 * The compact livestream card of a link preview (`link_shared` → `chat.unfurl`): title and link,
 * on-air state, ads left this hour and recording, thumbnail. Built from the status card's pieces
 * (livestream.ts); pure. Never reads `ls.ingest`, and its fields list never asks for it.
 */
import { truncate } from "./escape.js";
import { code, context, isLinkableUrl, link, section } from "./kit.js";
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
