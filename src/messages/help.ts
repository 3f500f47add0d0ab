/**
 * Usage of `/live` and `/webhook`, following the grammar of the runtime contract (slash commands),
 * plus `/webhook managers` (a bot addition: managers can add managers for the workspace).
 */
import { WEBHOOK_EVENTS } from "../domain/index.js";
import { escapeMrkdwn, escapeTruncate } from "./escape.js";
import { chunkLines, context, header, message, section } from "./kit.js";
import type { KnownBlock, Message } from "./types.js";

export interface HelpEntry {
  /** The grammar, as a person types it. */
  usage: string;
  who: "anyone" | "managers" | "anyone (changes: managers)";
  what: string;
  example: string;
}

export const LIVE_HELP: readonly HelpEntry[] = [
  {
    usage: "/live status <id or livestream URL>",
    who: "anyone",
    what: "Posts a status card of the livestream in this channel: on air or not, schedule, recording, ads left, geo-restriction, embedding, audio. Its Refresh button updates it.",
    example: "/live status x8abc12",
  },
  {
    usage: "/live ingest <id or URL>",
    who: "managers",
    what: "Shows the ingest addresses (RTMP, SRT, available servers) only to you: they carry the stream key.",
    example: "/live ingest https://www.dailymotion.com/video/x8abc12",
  },
  {
    usage: "/live watch <id or URL>",
    who: "managers",
    what: "Tells this channel when the livestream goes on air (one message, kept up to date while it is on air: time on air, ad breaks, recording) and when it ends.",
    example: "/live watch x8abc12",
  },
  {
    usage: "/live watch <id or URL> dm",
    who: "anyone",
    what: "Tells only you, by a DM from this app, when the livestream goes on air (one message, kept up to date) and when it ends. Anyone who may read the livestream; at most 10 per person.",
    example: "/live watch x8abc12 dm",
  },
  {
    usage: "/live unwatch <id or URL>",
    who: "managers",
    what: "Stops telling this channel about the livestream.",
    example: "/live unwatch x8abc12",
  },
  {
    usage: "/live unwatch <id or URL> dm",
    who: "anyone",
    what: "Stops your DMs about the livestream.",
    example: "/live unwatch x8abc12 dm",
  },
  {
    usage: "/live watching",
    who: "anyone",
    what: "The livestreams this workspace watches, in which channel, and whether each is on air now; also the ones you get DMs about (only you see those).",
    example: "/live watching",
  },
  {
    usage: "/live help",
    who: "anyone",
    what: "This help (so does `/live` alone).",
    example: "/live help",
  },
];

export const WEBHOOK_HELP: readonly HelpEntry[] = [
  {
    usage: "/webhook set <profile_id> [event ...]",
    who: "managers",
    what: "Points the profile's webhook at this bot with these events (space or comma separated; `all` = every event; none given = all) and posts its notifications in this channel.",
    example: "/webhook set northwind-news video.published video.format.error",
  },
  {
    usage: "/webhook set <profile_id> url=<https URL> [event ...]",
    who: "managers",
    what: "Registers another HTTPS callback URL instead: the bot then posts nothing for that profile.",
    example: "/webhook set x1abc2 url=https://example.com/hooks/video all",
  },
  {
    usage: "/webhook show [profile_id]",
    who: "anyone",
    what: "The webhook as the platform has it, and where its notifications go.",
    example: "/webhook show northwind-news",
  },
  {
    usage: "/webhook events [profile_id] [event ...]",
    who: "managers",
    what: "Shows which events are delivered; with event names after it, changes only the events (the callback URL stays).",
    example: "/webhook events x1abc2 published complete format.error",
  },
  {
    usage: "/webhook subscribe <profile_id> [event ...] [preset=<name,...>] [mention=<@user or @here>]",
    who: "managers",
    what: "This channel also receives the profile's notifications, only the events named (none = all) and, with `preset=`, only those formats' events; `mention=` pings on format errors only. Run it again to change this channel's filter.",
    example: "/webhook subscribe x1abc2 format.error preset=720p,1080p mention=@here",
  },
  {
    usage: "/webhook unsubscribe <profile_id>",
    who: "managers",
    what: "This channel stops receiving the profile's notifications (for the last channel, you are asked to remove the webhook).",
    example: "/webhook unsubscribe x1abc2",
  },
  {
    usage: "/webhook subscriptions [profile_id]",
    who: "anyone",
    what: "Every channel that receives the profile's notifications, with its filters.",
    example: "/webhook subscriptions x1abc2",
  },
  {
    usage: "/webhook subscribe <profile_id> digest=daily|weekly [at=HH:MM]",
    who: "managers",
    what: "This channel gets one digest a day (or a week) instead of a message per video, at that time in your Slack time zone (default 09:00): the videos published and complete, format errors, deletions, and the broadcasts of the livestreams it watches. Its filters still apply. `digest=off` brings live messages back.",
    example: "/webhook subscribe northwind-news digest=daily at=09:00",
  },
  {
    usage: "/webhook pause <profile_id> <duration>",
    who: "managers",
    what: "This channel gets nothing of the profile for that long (5s to 7d: `30m`, `2h`, `1d`); what arrives meanwhile is kept and summarised in one catch-up message when the pause ends. Other channels go on as before.",
    example: "/webhook pause northwind-news 2h",
  },
  {
    usage: "/webhook resume <profile_id>",
    who: "managers",
    what: "Ends this channel's pause now: one catch-up message, then live messages again.",
    example: "/webhook resume northwind-news",
  },
  {
    usage: "/webhook remove [profile_id]",
    who: "managers",
    what: "Removes the webhook after you confirm (the platform stops sending events).",
    example: "/webhook remove x1abc2",
  },
  {
    usage: "/webhook test [profile_id]",
    who: "managers",
    what: "Sends a sample event through the whole notification path to the channel.",
    example: "/webhook test x1abc2",
  },
  {
    usage: "/webhook managers [add|remove <@user>]",
    who: "anyone (changes: managers)",
    what: "Lists who can change webhooks here; managers can add or remove managers for this workspace.",
    example: "/webhook managers add @alice",
  },
  {
    usage: "/webhook help",
    who: "anyone",
    what: "This help (so does `/webhook` alone).",
    example: "/webhook help",
  },
];

function entryLines(entries: readonly HelpEntry[]): string[] {
  return entries.map(
    (e) =>
      `*\`${escapeMrkdwn(e.usage)}\`* (${e.who})\n${escapeMrkdwn(e.what)}\nExample: \`${escapeMrkdwn(e.example)}\``,
  );
}

function helpBlocks(title: string, entries: readonly HelpEntry[], notes: readonly string[]): KnownBlock[] {
  return [
    header(title),
    ...chunkLines(entryLines(entries).map((l) => `${l}\n`)).map((chunk) => section(chunk)),
    ...(notes.length ? [context(notes)] : []),
  ];
}

function fallback(entries: readonly HelpEntry[]): string {
  return `Usage: ${entries.map((e) => e.usage).join(" · ")}`;
}

/** `/live help`. */
export function liveHelp(): Message {
  return message(
    fallback(LIVE_HELP),
    helpBlocks("/live: livestream status", LIVE_HELP, [
      "Managers: workspace admins and owners, the users in MANAGER_USER_IDS, and users added with `/webhook managers add`.",
    ]),
  );
}

/** `/webhook help`. */
export function webhookHelp(): Message {
  return message(
    fallback(WEBHOOK_HELP),
    helpBlocks("/webhook: profile webhook and notifications", WEBHOOK_HELP, [
      "`profile_id` may be left out once this workspace has one configured profile; otherwise `set`, `show`, `events`, `remove`, `test`, `subscribe`, `subscriptions`, `pause` and `resume` offer a menu of this workspace's profiles to choose from. A profile's name works wherever its id does (`northwind-news` or `x1abc2`).",
      `Events: ${WEBHOOK_EVENTS.map((e) => `\`${e}\``).join(", ")}`,
    ]),
  );
}

/** A usage problem ("Unknown subcommand …") followed by the command's help. */
export function usageError(command: "/live" | "/webhook", problem: string): Message {
  const help = command === "/webhook" ? webhookHelp() : liveHelp();
  const p = problem.trim() || "That command was not understood.";
  return message(`${p} Type \`${command} help\` for usage.`, [
    section(`⚠️ ${escapeTruncate(p, 1000)}`),
    ...help.blocks,
  ]);
}
