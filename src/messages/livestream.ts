/**
 * The livestream status card (`/live status`, Refresh button) and the managers-only ingest message
 * (`/live ingest`). The card never reads `ls.ingest`: ingest addresses carry the stream key.
 *
 * Every field of a livestream may be missing (sparse responses) and some may be null (spec 2.1,
 * 2.2): a missing value reads "unknown", a null one what null means for that field.
 */
import { relative, slackDate, utcText } from "./dates.js";
import { escapeTruncate, htmlToText, truncate } from "./escape.js";
import { ACTIONS } from "./ids.js";
import {
  actions as actionsBlock,
  button,
  chunkLines,
  code,
  context,
  fieldsSection,
  header,
  isLinkableUrl,
  link,
  mention,
  message,
  plainSection,
  section,
  toDate,
  when,
} from "./kit.js";
import { LIMITS } from "./limits.js";
import type { ImageElement, KnownBlock, Message } from "./types.js";

/**
 * What the card, the ingest message and the link preview read of a livestream (spec 2.1, 2.2):
 * every field may be missing (sparse responses). src/platform's Livestream has this shape.
 */
export interface LivestreamView {
  livestream_id?: string | undefined;
  title?: string | undefined;
  livestream_url?: string | undefined;
  description?: string | null | undefined;
  visibility?: string | undefined;
  start_at?: string | null | undefined;
  end_at?: string | null | undefined;
  updated_at?: string | undefined;
  status?:
    | {
        onair?: boolean | undefined;
        airing_at?: string | null | undefined;
        audio_bitrate?: number | null | undefined;
      }
    | undefined;
  recording?: { auto_record?: boolean | undefined; status?: string | undefined } | undefined;
  advertising?: { end_at?: string | null | undefined; remaining?: number | undefined } | undefined;
  geo_restriction?: { mode?: string | undefined; countries?: readonly string[] | undefined } | undefined;
  embedding?: { enable_embed?: boolean | undefined; embed_url?: string | undefined } | undefined;
  thumbnail?: { h240_url?: string | null | undefined; h480_url?: string | null | undefined } | undefined;
  ingest?:
    | {
        rtmp_url?: string | undefined;
        srt_url?: string | null | undefined;
        available_servers?: Record<string, string> | undefined;
      }
    | undefined;
}

/**
 * The sparse `fields` list of `GET /livestreams/{id}` for the card: exactly what the card renders.
 * Never `ingest`. Thumbnail: the accessory image is shown small, so 240 px, with 480 px as fallback.
 */
export const LIVESTREAM_CARD_FIELDS: readonly string[] = Object.freeze([
  "livestream_id",
  "title",
  "livestream_url",
  "description",
  "visibility",
  "start_at",
  "end_at",
  "updated_at",
  "status.onair",
  "status.airing_at",
  "status.audio_bitrate",
  "recording.auto_record",
  "recording.status",
  "advertising.remaining",
  "advertising.end_at",
  "geo_restriction.mode",
  "geo_restriction.countries",
  "embedding.enable_embed",
  "embedding.embed_url",
  "thumbnail.h240_url",
  "thumbnail.h480_url",
]);

/** Spec 8: at most 24 ads per hour. */
export const ADS_PER_HOUR = 24;
const DESCRIPTION_EXCERPT = 300;
const MAX_COUNTRIES_SHOWN = 40;
const UNKNOWN = "_unknown_";

export interface LivestreamCardOptions {
  now: Date;
  /** When the data was read (defaults to `now`). */
  refreshedAt?: Date;
  /** Slack user id of who asked for the card or pressed Refresh. */
  requestedBy?: string;
}

export function titleOf(ls: LivestreamView): string {
  const t = ls.title?.replace(/\s+/g, " ").trim();
  if (t) return t;
  return ls.livestream_id ? `Livestream ${ls.livestream_id}` : "Untitled livestream";
}

interface OnAir {
  line: string;
  short: string;
}

export function onAirState(ls: LivestreamView, now: Date): OnAir {
  const s = ls.status;
  const airing = toDate(s?.airing_at);
  if (s?.onair === true) {
    return { line: `🔴 *On air*${airing ? ` since ${when(airing, now)}` : ""}`, short: "on air" };
  }
  if (s?.onair === false) {
    const last = airing
      ? ` · last on air ${when(airing, now)}`
      : s.airing_at === null
        ? " · never on air yet"
        : "";
    return { line: `⚫ *Off air*${last}`, short: "off air" };
  }
  return { line: "❔ *On-air state unknown*", short: "on-air state unknown" };
}

function scheduleText(ls: LivestreamView, now: Date): string {
  const onair = ls.status?.onair;
  const neverAired = onair === false && ls.status?.airing_at === null;
  const lines: string[] = [];
  const start = toDate(ls.start_at);
  if (ls.start_at === null) lines.push("Start: not scheduled");
  else if (!start) lines.push(`Start: ${UNKNOWN}`);
  else if (start.getTime() > now.getTime()) lines.push(`Scheduled to start ${when(start, now)}`);
  else lines.push(`${neverAired ? "Was scheduled to start" : "Started"} ${when(start, now)}`);
  const end = toDate(ls.end_at);
  if (ls.end_at === null) lines.push("End: not scheduled");
  else if (!end) lines.push(`End: ${UNKNOWN}`);
  else if (end.getTime() > now.getTime()) lines.push(`Scheduled to end ${when(end, now)}`);
  else lines.push(`${onair === true ? "Was scheduled to end" : "Ended"} ${when(end, now)}`);
  return `*Schedule*\n${lines.join("\n")}`;
}

const RECORDING_STATUS_TEXT: Record<string, string> = {
  starting: "⏳ starting",
  started: "⏺️ recording",
  stopping: "⏳ stopping",
  stopped: "⏹️ stopped",
};

function recordingText(ls: LivestreamView): string {
  const r = ls.recording;
  const auto =
    r?.auto_record === true
      ? "Auto-record on"
      : r?.auto_record === false
        ? "Auto-record off"
        : `Auto-record ${UNKNOWN}`;
  const st = r?.status;
  const status =
    st === undefined ? `status ${UNKNOWN}` : (RECORDING_STATUS_TEXT[st] ?? `status ${code(st, 40)}`);
  return `*Recording*\n${auto} · ${status}`;
}

interface Ads {
  text: string;
  short: string;
}

export function advertising(ls: LivestreamView, now: Date): Ads {
  const onair = ls.status?.onair;
  if (onair === false) return { text: "*Advertising*\nNo ads while off air", short: "" };
  const ad = ls.advertising;
  const lines: string[] = [];
  const shorts: string[] = [];
  const end = toDate(ad?.end_at);
  if (end && end.getTime() > now.getTime()) {
    lines.push(`📺 Ad break running, ends ${slackDate(end, utcText(end), "{time}")} (${relative(end, now)})`);
    shorts.push("ad break running");
  }
  const remaining = ad?.remaining;
  if (typeof remaining === "number") {
    lines.push(
      remaining === 0
        ? `0/${ADS_PER_HOUR} ads left this hour (quota used up or ad breaks unavailable)`
        : `${remaining}/${ADS_PER_HOUR} ads left this hour`,
    );
    shorts.push(`${remaining}/${ADS_PER_HOUR} ads left`);
  } else {
    lines.push(`Ads left this hour: ${UNKNOWN}`);
  }
  return { text: `*Advertising*\n${lines.join("\n")}`, short: shorts.join(", ") };
}

function countryList(countries: readonly string[]): string {
  const shown = countries.slice(0, MAX_COUNTRIES_SHOWN).map((c) => escapeTruncate(c.trim(), 12));
  const more = countries.length - shown.length;
  return `${shown.join(", ")}${more > 0 ? ` and ${more} more` : ""}`;
}

function geoText(ls: LivestreamView): string {
  const g = ls.geo_restriction;
  const mode = g?.mode;
  const countries = g?.countries;
  let text: string;
  if (mode === undefined) {
    text = countries?.length ? `${countryList(countries)} (mode ${UNKNOWN})` : UNKNOWN;
  } else if (countries === undefined) {
    text = `${mode === "allow" ? "Allow list" : mode === "deny" ? "Block list" : `Mode ${code(mode, 40)}`}, countries ${UNKNOWN}`;
  } else if (mode === "deny") {
    text = countries.length === 0 ? "🌍 Available everywhere" : `🚫 Blocked in ${countryList(countries)}`;
  } else if (mode === "allow") {
    text =
      countries.length === 0
        ? "⛔ Available nowhere (empty allow list)"
        : `📍 Only in ${countryList(countries)}`;
  } else {
    text = `Mode ${code(mode, 40)}: ${countries.length ? countryList(countries) : "no countries"}`;
  }
  return `*Geo-restriction*\n${text}`;
}

function embeddingText(ls: LivestreamView): string {
  const e = ls.embedding;
  const url = isLinkableUrl(e?.embed_url) ? ` · ${link(e?.embed_url, "embed URL")}` : "";
  const state = e?.enable_embed === true ? "Enabled" : e?.enable_embed === false ? "Disabled" : UNKNOWN;
  return `*Embedding*\n${state}${e?.enable_embed === false ? "" : url}`;
}

function audioText(ls: LivestreamView): string {
  const b = ls.status?.audio_bitrate;
  let text: string;
  if (b === undefined) text = UNKNOWN;
  else if (b === null || b <= 0) text = "🔇 No audio signal";
  else if (b < 1000) text = `${b} bps`;
  else text = `${Math.round(b / 1000)} kbps`;
  return `*Audio bitrate*\n${text}`;
}

const VISIBILITY_TEXT: Record<string, string> = {
  public: "🌐 Public",
  private: "🔒 Private",
  password: "🔑 Password-protected",
};

function visibilityText(ls: LivestreamView): string {
  const v = ls.visibility;
  const text = v === undefined ? UNKNOWN : (VISIBILITY_TEXT[v] ?? code(v, 40));
  return `*Visibility*\n${text}`;
}

export function thumbnail(ls: Pick<LivestreamView, "thumbnail">, title: string): ImageElement | undefined {
  const t = ls.thumbnail;
  const url = [t?.h240_url, t?.h480_url].find((u) => isLinkableUrl(u, LIMITS.imageUrl));
  if (!url) return undefined;
  return { type: "image", image_url: url, alt_text: truncate(`Thumbnail of ${title}`, LIMITS.imageAltText) };
}

/** The status card: what a person needs to know about a livestream right now. */
export function livestreamCard(ls: LivestreamView, opts: LivestreamCardOptions): Message {
  const { now } = opts;
  const title = titleOf(ls);
  const state = onAirState(ls, now);
  const ads = advertising(ls, now);

  const topLines: string[] = [];
  const idPart = ls.livestream_id ? `ID ${code(ls.livestream_id, 100)}` : "";
  const linkPart = isLinkableUrl(ls.livestream_url)
    ? `🔗 ${link(ls.livestream_url, "Open the livestream")}`
    : "";
  const first = [linkPart, idPart].filter(Boolean).join(" · ");
  if (first) topLines.push(first);
  topLines.push(state.line);

  const blocks: KnownBlock[] = [header(title), section(topLines.join("\n"), thumbnail(ls, title))];
  blocks.push(
    fieldsSection([
      scheduleText(ls, now),
      recordingText(ls),
      ads.text,
      geoText(ls),
      embeddingText(ls),
      audioText(ls),
      visibilityText(ls),
    ]),
  );

  const description = typeof ls.description === "string" ? htmlToText(ls.description) : "";
  if (description !== "") blocks.push(plainSection(truncate(description, DESCRIPTION_EXCERPT)));

  const updated = toDate(ls.updated_at);
  const refreshedAt = opts.refreshedAt ?? now;
  const ctx: string[] = [];
  if (updated) ctx.push(`Livestream updated ${when(updated, now)}`);
  ctx.push(
    `Card refreshed ${slackDate(refreshedAt, utcText(refreshedAt))}${opts.requestedBy ? ` by ${mention(opts.requestedBy)}` : ""}`,
  );
  blocks.push(context([ctx.join(" · ")]));

  const id = ls.livestream_id;
  if (id && id.length <= LIMITS.buttonValue) {
    blocks.push(
      actionsBlock([
        button({
          text: "🔄 Refresh",
          actionId: ACTIONS.liveRefresh,
          value: id,
          accessibilityLabel: "Refresh this livestream card",
        }),
      ]),
    );
  }

  const summary = [state.short, ads.short].filter(Boolean).join(", ");
  return message(`${truncate(title, 255)}: ${summary}`, blocks);
}

/** A foreign value escaped for a code block (a fence inside it would end the block). */
function codeLine(value: string): string {
  return escapeTruncate(value.replace(/`{3,}/g, "'''").replace(/\s+/g, " "), 2000);
}

function codeBlock(escapedLines: string): string {
  return `\`\`\`${escapedLines}\`\`\``;
}

/**
 * Ingest addresses (managers only, ephemeral): RTMP, SRT and the available servers, code
 * formatted. The fallback `text` holds none of them, so notifications never show a stream key.
 */
export function ingestMessage(ls: LivestreamView): Message {
  const title = titleOf(ls);
  const ingest = ls.ingest;
  const id = ls.livestream_id ? ` (${code(ls.livestream_id, 100)})` : "";
  const blocks: KnownBlock[] = [
    section(`*Ingest addresses of ${escapeTruncate(title, 300)}*${id}`),
    section(
      "⚠️ *These addresses carry the stream key*: anyone who has them can broadcast on this livestream. Only you can see this message; do not paste them in a channel.",
    ),
  ];
  const rtmp = ingest?.rtmp_url;
  blocks.push(
    section(
      `*RTMP*\n${rtmp ? codeBlock(codeLine(rtmp)) : "Not available (the platform gives it only to the livestream owner's API key)"}`,
    ),
  );
  const srt = ingest?.srt_url;
  blocks.push(section(`*SRT*\n${srt ? codeBlock(codeLine(srt)) : "Not available"}`));
  const servers = Object.entries(ingest?.available_servers ?? {});
  if (servers.length === 0) {
    blocks.push(section("*Available servers*\nNone listed"));
  } else {
    const lines = servers.slice(0, 200).map(([label, url]) => codeLine(`${label}: ${url}`));
    // Each section holds a closed code block; a long list goes on in further sections.
    chunkLines(lines, 2800)
      .slice(0, 20)
      .forEach((chunk, i) => {
        blocks.push(section(`${i === 0 ? "*Available servers*\n" : ""}${codeBlock(chunk)}`));
      });
  }
  return message(`Ingest addresses of ${title} (only you can see them: they carry the stream key)`, blocks);
}

/**
 * What the channel sees when the platform takes longer than the bot waits before saying so
 * (`/live status`): the card replaces this message as soon as the platform answers.
 */
export function livestreamPending(livestreamId: string, afterSeconds: number, requestedBy: string): Message {
  const text = `⏳ The platform has not answered for ${afterSeconds} s about livestream ${escapeTruncate(livestreamId, 100)}: the status card will appear here as soon as it does.`;
  return message(text, [
    section(
      `⏳ The platform has not answered for ${afterSeconds} s about livestream ${code(livestreamId, 100)}. The status card will replace this message as soon as it does.`,
    ),
    context([`Asked by ${mention(requestedBy)}`]),
  ]);
}
