/**
 * Block Kit for live watch messages (pure): the on-air message, kept up to date in place; the
 * ended message; thread replies; fallback texts. Foreign text (the title) is escaped and bounded;
 * times are Slack date tokens (each reader's time zone) with a UTC fallback.
 *
 * What the message shows changes at most once a minute on its own (time on air in minutes), so
 * the watch service's "same hash, no update" rule plus its minimum interval between updates of one
 * message keeps chat.update far below Slack's ~1/s per channel.
 */

import { duration, slackDate, utcText } from "./dates.js";
import { escapeTruncate } from "./escape.js";
import { context, header, isLinkableUrl, link, message, section } from "./kit.js";
import { ADS_PER_HOUR } from "./livestream.js";
import type { Message } from "./types.js";

/** What the live watch messages read of a broadcast: src/watch/broadcast.ts's Broadcast has this shape. */
export interface BroadcastView {
  phase: "live" | "grace" | "ended";
  startedAt: number;
  lastOnAirAt: number;
  /** First poll that found it off air, while in the grace or ended. */
  offAirSince: number | null;
  endedAt: number | null;
  title: string;
  url: string | null;
  thumbnailUrl: string | null;
  adEndAt: number | null;
  adsRemaining: number | null;
  /** starting, started, stopping, stopped (the platform's recording status), or null. */
  recording: string | null;
  adBreaks: number;
  recordings: number;
}

/** A thread reply of a broadcast (src/watch/broadcast.ts's Milestone). */
export type BroadcastMilestone = "recording_started" | "recording_stopped" | "ad_quota_used_up";

const at = (ms: number) => slackDate(new Date(ms), utcText(new Date(ms)));
const time = (ms: number) => slackDate(new Date(ms), utcText(new Date(ms)).slice(11), "{time}");
const titleOf = (b: BroadcastView, id: string) => (b.title.trim() === "" ? `Livestream ${id}` : b.title);

function adsLine(b: BroadcastView, now: number): string {
  const left = b.adsRemaining === null ? "" : `${b.adsRemaining} of ${ADS_PER_HOUR} ads left this hour`;
  if (b.adEndAt !== null && b.adEndAt > now) {
    return `:tv: Ad break running until ${time(b.adEndAt)}${left ? ` · ${left}` : ""}`;
  }
  return left ? `:tv: ${left}` : "";
}

function recordingLine(b: BroadcastView): string {
  switch (b.recording) {
    case "started":
      return ":red_circle: Recording";
    case "starting":
      return ":hourglass_flowing_sand: Recording is starting";
    case "stopping":
      return ":black_square_for_stop: Recording is stopping";
    case "stopped":
      return ":black_square_for_stop: Not recording";
    default:
      return "";
  }
}

/** Who the message is for: a watching channel, or one person by DM (a personal watch). */
export type Audience = "channel" | "dm";

/** The message while on air (or in the off-air grace). */
export function renderLive(
  livestreamId: string,
  b: BroadcastView,
  now: number,
  audience: Audience = "channel",
): Message {
  const title = titleOf(b, livestreamId);
  const thumb = isLinkableUrl(b.thumbnailUrl)
    ? {
        type: "image" as const,
        image_url: b.thumbnailUrl,
        alt_text: escapeTruncate(title, 100) || "thumbnail",
      }
    : undefined;
  const lines = [
    `*${link(b.url, title)}*`,
    `On air since ${at(b.startedAt)} · for ${duration(now - b.startedAt)}`,
  ];
  if (b.phase === "grace" && b.offAirSince !== null) {
    lines.push(`:warning: Signal lost at ${time(b.offAirSince)}; waiting for it to come back`);
  }
  const ads = adsLine(b, now);
  const rec = recordingLine(b);
  const details = [ads, rec].filter((l) => l !== "");
  const blocks = [
    header(`🔴 Live: ${title}`),
    section(lines.join("\n"), thumb),
    ...(details.length > 0 ? [section(details.join("\n"))] : []),
    context([
      audience === "dm"
        ? `Livestream \`${escapeTruncate(livestreamId, 100)}\` · you asked for this DM · stop with \`/live unwatch ${escapeTruncate(livestreamId, 100)} dm\``
        : `Livestream \`${escapeTruncate(livestreamId, 100)}\` · watched by this channel`,
    ]),
  ];
  return message(`${title} is live since ${utcText(new Date(b.startedAt))}`, blocks);
}

/** The same message once the broadcast ended. */
export function renderEnded(livestreamId: string, b: BroadcastView): Message {
  const title = titleOf(b, livestreamId);
  const end = b.endedAt ?? b.lastOnAirAt;
  const ran = duration(end - b.startedAt);
  const blocks = [
    header(`Ended: ${title}`),
    section(`*${link(b.url, title)}*\nWas on air from ${at(b.startedAt)} to ${time(end)} · ran for ${ran}`),
    context([`Livestream \`${escapeTruncate(livestreamId, 100)}\` · off air`]),
  ];
  return message(`${title} ended; it ran for ${ran}`, blocks);
}

const MILESTONES: Record<BroadcastMilestone, string> = {
  recording_started: ":red_circle: Recording started",
  recording_stopped: ":black_square_for_stop: Recording stopped",
  ad_quota_used_up: `:tv: All ${ADS_PER_HOUR} ads of this hour are used up`,
};

/** A thread reply for a milestone, at `now`. */
export function renderMilestone(m: BroadcastMilestone, now: number): Message {
  const text = `${MILESTONES[m]} at ${time(now)}`;
  return message(`${MILESTONES[m].replace(/^:[a-z_]+: /, "")} at ${utcText(new Date(now))}`, [section(text)]);
}

/** The thread summary when the broadcast ended. */
export function renderSummary(b: BroadcastView): Message {
  const end = b.endedAt ?? b.lastOnAirAt;
  const parts = [
    `Ended after ${duration(end - b.startedAt)} on air.`,
    `${b.adBreaks} ad break${b.adBreaks === 1 ? "" : "s"}.`,
    b.recordings > 0
      ? `Recorded (${b.recordings} recording${b.recordings === 1 ? "" : "s"} started).`
      : "Not recorded.",
  ];
  return message(parts.join(" "), [section(`:checkered_flag: ${parts.join(" ")}`)]);
}

/**
 * The one notice of a watch ended because the workspace may no longer read the livestream: its id
 * only, nothing of its title or state.
 */
export function renderRevoked(livestreamId: string): Message {
  const id = escapeTruncate(livestreamId, 100);
  return message(
    `This channel no longer watches livestream ${id}: this workspace no longer has access to it.`,
    [
      section(
        `:no_bell: This channel no longer watches livestream \`${id}\`: this workspace no longer has access to it. Nothing more about it is posted here.`,
      ),
    ],
  );
}

/** The one DM of a personal watch ended because the person may no longer read the livestream. */
export function renderRevokedDm(livestreamId: string): Message {
  const id = escapeTruncate(livestreamId, 100);
  return message(`You no longer get DMs about livestream ${id}: this workspace no longer has access to it.`, [
    section(
      `:no_bell: You no longer get DMs about livestream \`${id}\`: this workspace no longer has access to it. Nothing more about it is sent to you.`,
    ),
  ]);
}

/**
 * The one DM to the person who set a channel's watch, ended because Slack refuses the bot's
 * messages there for good (a private channel it is not in, an archived one): what happened, and
 * what to do.
 */
export function renderWatchChannelClosed(
  livestreamId: string,
  channelId: string,
  title: string | null,
  code: string,
): Message {
  const id = escapeTruncate(livestreamId, 100);
  const name = title?.trim() ? escapeTruncate(title.trim(), 150) : `livestream ${id}`;
  const why =
    code === "is_archived"
      ? "the channel is archived"
      : "the bot is not in that channel (invite it, then run `/live watch` there again)";
  const text = `<#${channelId}> no longer watches ${name}: Slack refuses the bot's messages there (${code}), ${why}.`;
  return message(text, [section(`:no_bell: ${text} Nothing more is posted about it.`)]);
}
