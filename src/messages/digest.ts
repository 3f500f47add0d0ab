/**
 * A digest or catch-up as Slack messages: the message itself (headed as the digest it is, the
 * period in Slack date formatting, the counts, the first lines of each list) and thread replies
 * with the rest of each list that is too long for it. Pure: entries and the clock in.
 *
 * Every foreign text (video titles, profile names, livestream titles) is escaped; a title links
 * the video (VIDEO_URL_TEMPLATE).
 */
import { duration, slackDate, utcText } from "./dates.js";
import { escapeTruncate } from "./escape.js";
import { chunkLines, code, context, header, link, message, section } from "./kit.js";
import { ADS_PER_HOUR } from "./livestream.js";
import { profilePlain, profileRef } from "./profiles.js";
import type { KnownBlock, Message } from "./types.js";
import { type VideoLinks, videoUrl } from "./video-view.js";

/** What a digest reads of one recorded entry (src/digest/types.ts's DigestEntry has it). */
export interface DigestEntryView {
  kind: "published" | "complete" | "format_error" | "deleted" | "broadcast" | "other";
  videoId?: string | undefined;
  title?: string | null | undefined;
  notConfirmed?: true | undefined;
  preset?: string | undefined;
  type?: string | undefined;
  broadcast?:
    | {
        livestreamId: string;
        title: string | null;
        startedAt: number;
        endedAt: number;
        adsUsed: number | null;
      }
    | undefined;
}

/** Lines of each list in the message itself; the rest go to its thread. */
export const LINES_IN_MESSAGE = 8;
/** Lines per thread reply. */
const LINES_PER_REPLY = 40;

export interface DigestView {
  kind: "digest" | "catch-up" | "since";
  /** The subscription's digest (for a digest's heading). */
  every: "daily" | "weekly" | null;
  profileId: string;
  profileName?: string | undefined;
  from: number;
  end: number;
  entries: readonly DigestEntryView[];
  leftOut: number;
  links: VideoLinks;
  /** A catch-up: who paused the channel. */
  pausedBy?: string | undefined;
}

export interface DigestMessages {
  parent: Message;
  replies: Message[];
}

const date = (ms: number) => slackDate(new Date(ms), utcText(new Date(ms)));

interface Video {
  videoId: string;
  title: string | null;
  notConfirmed: boolean;
  kinds: Set<string>;
  presets: string[];
}

/** The entries of each video, in the order the videos first appear. */
function videosOf(entries: readonly DigestEntryView[]): Video[] {
  const videos = new Map<string, Video>();
  for (const e of entries) {
    if (e.videoId === undefined) continue;
    let v = videos.get(e.videoId);
    if (!v) {
      v = { videoId: e.videoId, title: null, notConfirmed: false, kinds: new Set(), presets: [] };
      videos.set(e.videoId, v);
    }
    if (typeof e.title === "string" && e.title.trim() !== "") v.title = e.title;
    if (e.notConfirmed) v.notConfirmed = true;
    v.kinds.add(e.kind);
    if (e.kind === "format_error" && e.preset !== undefined && !v.presets.includes(e.preset))
      v.presets.push(e.preset);
  }
  return [...videos.values()];
}

function videoLine(v: Video, links: VideoLinks, extra = ""): string {
  const url = videoUrl(v.videoId, links);
  const name =
    v.title === null
      ? link(url, v.videoId, 100)
      : `${link(url, v.title.replace(/\s+/g, " "), 150)} ${code(v.videoId, 60)}`;
  const unconfirmed = v.notConfirmed ? " _(not confirmed by the platform)_" : "";
  return `• ${name}${extra}${unconfirmed}`;
}

function broadcastLine(e: DigestEntryView): string | undefined {
  const b = e.broadcast;
  if (!b) return undefined;
  const title = b.title?.trim() ? escapeTruncate(b.title.replace(/\s+/g, " "), 150) : "Livestream";
  const ads =
    b.adsUsed === null
      ? ""
      : ` · ${b.adsUsed} ad${b.adsUsed === 1 ? "" : "s"} used (of ${ADS_PER_HOUR} per hour)`;
  return `• ${title} ${code(b.livestreamId, 64)} · on air from ${date(b.startedAt)} for ${duration(b.endedAt - b.startedAt)}${ads}`;
}

interface List {
  title: string;
  /** How the count reads in the summary line: `3 published`. */
  counted: (n: number) => string;
  lines: string[];
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

function listsOf(v: DigestView): List[] {
  const videos = videosOf(v.entries);
  const having = (kind: string) => videos.filter((x) => x.kinds.has(kind));
  const other = new Map<string, number>();
  for (const e of v.entries)
    if (e.kind === "other") other.set(e.type ?? "?", (other.get(e.type ?? "?") ?? 0) + 1);
  const lists: List[] = [
    {
      title: "✅ Published",
      counted: (n) => `${n} published`,
      lines: having("published").map((x) => videoLine(x, v.links)),
    },
    {
      title: "🏁 Complete",
      counted: (n) => `${n} complete`,
      lines: having("complete").map((x) => videoLine(x, v.links)),
    },
    {
      title: "⚠️ Format errors",
      counted: (n) => `${n} with format errors`,
      lines: having("format_error").map((x) =>
        videoLine(x, v.links, `: ${x.presets.map((p) => code(p, 64)).join(", ")}`),
      ),
    },
    {
      title: "🗑️ Deleted",
      counted: (n) => `${n} deleted`,
      lines: having("deleted").map((x) => videoLine(x, v.links)),
    },
    {
      title: "🔴 Broadcasts",
      counted: (n) => plural(n, "broadcast", "broadcasts"),
      lines: v.entries
        .flatMap((e) => (e.kind === "broadcast" ? [broadcastLine(e) ?? ""] : []))
        .filter(Boolean),
    },
    {
      title: "📨 Other events",
      counted: (n) => plural(n, "other event type", "other event types"),
      lines: [...other].map(([type, n]) => `• ${code(type, 100)}${n > 1 ? ` × ${n}` : ""}`),
    },
  ];
  return lists.filter((l) => l.lines.length > 0);
}

function heading(v: DigestView): { head: string; text: string } {
  const name = profilePlain(v.profileId, v.profileName);
  switch (v.kind) {
    case "digest": {
      const which = v.every === "weekly" ? "Weekly" : "Daily";
      return { head: `📰 ${which} digest of ${name}`, text: `${which} digest of ${name}` };
    }
    case "catch-up":
      return {
        head: `⏯️ Catch-up of ${name}`,
        text: `Catch-up of ${name}: what happened while this channel was paused`,
      };
    case "since":
      return { head: `📰 Digest of ${name}`, text: `Digest of ${name} since the last one` };
  }
}

function periodLine(v: DigestView): string {
  switch (v.kind) {
    case "digest":
      return `${date(v.from)} – ${date(v.end)}`;
    case "catch-up":
      return `While this channel was paused${v.pausedBy ? ` by ${`<@${v.pausedBy}>`}` : ""}: ${date(v.from)} – ${date(v.end)}. Live messages go on from now.`;
    case "since":
      return `${date(v.from)} – ${date(v.end)}. This channel gets live messages again from now.`;
  }
}

/** The digest's message and its thread replies (the lists too long for the message). */
export function renderDigest(v: DigestView): DigestMessages {
  const lists = listsOf(v);
  const { head, text } = heading(v);
  const counts = lists.map((l) => l.counted(l.lines.length)).join(" · ");
  const blocks: KnownBlock[] = [header(head), context([periodLine(v)])];
  if (lists.length === 0) {
    blocks.push(
      section(
        v.kind === "catch-up"
          ? "Nothing arrived while this channel was paused."
          : `Nothing to report for profile ${profileRef(v.profileId, v.profileName)}.`,
      ),
    );
  } else blocks.push(section(counts));
  const replies: Message[] = [];
  for (const l of lists) {
    const shown = l.lines.slice(0, LINES_IN_MESSAGE);
    const rest = l.lines.slice(LINES_IN_MESSAGE);
    const more = rest.length > 0 ? `\n…and ${rest.length} more in the thread` : "";
    blocks.push(section(`*${l.title} (${l.lines.length})*\n${shown.join("\n")}${more}`));
    for (let i = 0; i < rest.length; i += LINES_PER_REPLY) {
      const part = rest.slice(i, i + LINES_PER_REPLY);
      const first = LINES_IN_MESSAGE + i + 1;
      const title = `*${l.title}, ${first}–${first + part.length - 1} of ${l.lines.length}*`;
      replies.push(
        message(
          `${l.title}, continued`,
          chunkLines([title, ...part]).map((c) => section(c)),
        ),
      );
    }
  }
  if (v.leftOut > 0)
    blocks.push(
      context([
        `${v.leftOut} more event${v.leftOut === 1 ? " was" : "s were"} left out: the bot keeps at most 500 per digest.`,
      ]),
    );
  return {
    parent: message(`${text}: ${lists.length === 0 ? "nothing to report" : counts}`, blocks),
    replies,
  };
}
