/**
 * The App Home tab (issue 5): the platform connection's health, each configured profile of the
 * workspace (channel, events, last delivery, 24 h counts), manager buttons, and a how-to.
 * Pure: data and the clock in, a `home` view out, always within 100 blocks.
 *
 * Secrets: this bot's callback token is never an input; a foreign URL is shown without the
 * path and query (they often carry a secret).
 */

import type { HomeView } from "@slack/types";
import { isWebhookEvent, WEBHOOK_EVENTS } from "../domain/index.js";
import { slackDate, utcText } from "./dates.js";
import { escapeMrkdwn, escapeTruncate, truncateMrkdwn } from "./escape.js";
import { ACTIONS } from "./ids.js";
import {
  actions,
  button,
  channel,
  code,
  confirmDialog,
  context,
  divider,
  header,
  mention,
  section,
  toDate,
  when,
} from "./kit.js";
import { VIEW_LIMITS } from "./modal.js";
import { profilePlain, profileRef } from "./profiles.js";
import { type ModeClock, type SubscriptionView, subscriptionBlocks } from "./subscriptions.js";
import type { Button, KnownBlock } from "./types.js";
import { homeWatchBlocks, type WatchHealthLine, type WatchRow } from "./watch.js";
import { displayUrl } from "./webhook.js";

export interface HomeProfile {
  profileId: string;
  /** The profile's label (display name, else name); without it the id alone is shown. */
  name?: string | undefined;
  /** Channel the notifications go to; null when a foreign URL was registered. */
  channelId: string | null;
  foreignUrl: string | null;
  events: readonly string[];
  /** Slack user id. */
  setBy: string;
  /** ISO date-time. */
  setAt: string;
  /** Epoch ms of the last delivery received, or null. */
  lastDeliveryAt: number | null;
  posted24h: number;
  failed24h: number;
  received24h: number;
  /** The channels that receive its notifications, with their filters. */
  subscriptions?: readonly SubscriptionView[];
  /** The video of the last message posted or updated (title null: named by its id). */
  lastVideo?: { videoId: string; title: string | null; at: number };
}

/** The Home of a workspace refused (not allowed): why, and nothing else. */
export function refusedHomeView(text: string): HomeView {
  return { type: "home", blocks: [section(text)] };
}

/** Subscriptions listed per profile on the Home (the view's blocks are limited). */
const MAX_SUBSCRIPTIONS_ON_HOME = 5;

/**
 * Whether an access token can be obtained; `message` is mrkdwn (e.g. from describePlatformError).
 * `withheld`: the scopes the bot works without, each with how to grant it (plain text).
 */
export type PlatformHealth =
  | {
      ok: true;
      grantedScopes: readonly string[];
      withheld?: ReadonlyArray<{ scope: string; advice: string }>;
    }
  | { ok: false; message: string };

export interface HomeViewOptions {
  now: Date;
  isManager: boolean;
  platform: PlatformHealth;
  profiles: readonly HomeProfile[];
  managers: { configured: readonly string[]; added: readonly string[] };
  /** Adds a Refresh button (ACTIONS.homeRefresh); only when a listener handles it. */
  showRefresh?: boolean;
  /** Multi-workspace mode: the last failed refresh of this workspace's rotating bot token. */
  tokenRefreshFailure?: { at: string; error: string } | undefined;
  /** The workspace's live watches, and the polls that failed (a health line). */
  watches?: readonly WatchRow[];
  watchHealth?: WatchHealthLine;
  /** Each channel's mode and next digest are shown against it. */
  modeClock?: ModeClock;
}

/** Why the workspace may soon stop working, and what to do. */
function tokenNotice(f: { at: string; error: string }): string {
  const at = new Date(f.at);
  const when = Number.isNaN(at.getTime()) ? "" : ` ${slackDate(at, utcText(at))}`;
  return `⚠️ *The bot could not refresh its Slack token for this workspace*${when} (Slack answered ${code(f.error, 100)}). It keeps working until the current token expires (at most 12 hours), then stops here. It retries by itself; if this notice stays, reinstall the app in this workspace or tell the bot's operator.`;
}

/** Blocks kept for the live-watch section when there are watches. */
const WATCH_ROOM = 24;

const MAX_MENTIONS = 20;
const MAX_EVENTS_SHOWN = 12;
const MAX_MORE_IDS = 40;

function count(n: number): string {
  return Number.isFinite(n) && n >= 0 ? String(Math.floor(n)) : "0";
}

function eventNames(events: readonly string[]): string {
  const unique = [...new Set(events)];
  if (unique.length === 0) return "none";
  const shown = unique.slice(0, MAX_EVENTS_SHOWN).map((e) => {
    const short = escapeTruncate(e.replace(/^video\./, ""), 60);
    return isWebhookEvent(e) ? short : `${short} (not known to this bot)`;
  });
  const more = unique.length - shown.length;
  return `${shown.join(", ")}${more > 0 ? ` and ${more} more` : ""}`;
}

function destination(p: HomeProfile): string {
  if (p.channelId) return `*Channel:* ${channel(p.channelId)}`;
  if (p.foreignUrl) {
    return `*Sends to:* a foreign URL, the bot posts nothing: ${code(displayUrl(p.foreignUrl), 500)}`;
  }
  return `*Channel:* none set — run \`/webhook set ${escapeTruncate(p.profileId, 100)}\` in the channel that should get its notifications`;
}

function profileSection(p: HomeProfile, now: Date): KnownBlock {
  const last =
    p.lastDeliveryAt !== null && Number.isFinite(p.lastDeliveryAt)
      ? when(new Date(p.lastDeliveryAt), now)
      : "none yet";
  const at = toDate(p.setAt);
  const lines = [
    `*Profile ${profileRef(p.profileId, p.name)}*`,
    destination(p),
    `*Events (${new Set(p.events).size}):* ${eventNames(p.events)}`,
    `*Last delivery:* ${last}`,
    ...(p.lastVideo
      ? [
          `*Last video:* ${p.lastVideo.title === null ? "" : `${escapeTruncate(p.lastVideo.title.replace(/\s+/g, " "), 150)} `}${code(p.lastVideo.videoId, 100)}`,
        ]
      : []),
    `*Last 24 h:* ${count(p.received24h)} received · ${count(p.posted24h)} posted · ${count(p.failed24h)} failed`,
    `Set by ${mention(p.setBy)}${at ? ` ${when(at, now)}` : ""}`,
  ];
  return section(lines.join("\n"));
}

function profileButtons(p: HomeProfile): KnownBlock {
  const buttons: Button[] = [
    button({ text: "✏️ Edit events", actionId: ACTIONS.webhookEditEvents, value: p.profileId }),
    button({ text: "📣 Change channel", actionId: ACTIONS.webhookSetup, value: p.profileId }),
  ];
  if (p.channelId) {
    buttons.push(button({ text: "🧪 Send test", actionId: ACTIONS.webhookTest, value: p.profileId }));
  }
  buttons.push(
    button({
      text: "🗑️ Remove",
      actionId: ACTIONS.webhookRemove,
      value: p.profileId,
      style: "danger",
      confirm: confirmDialog({
        title: "Remove the webhook?",
        text: `The platform will stop sending the events of profile ${profilePlain(p.profileId, p.name)} (callback URL and events both set to none).`,
        confirm: "Remove",
        deny: "Cancel",
        danger: true,
      }),
    }),
  );
  return actions(buttons);
}

function platformLine(p: PlatformHealth): string {
  if (p.ok) {
    const scopes = [...new Set(p.grantedScopes)].slice(0, 20).map((s) => code(s, 60));
    return `✅ *Platform:* connected, an access token can be obtained (scopes: ${scopes.length ? scopes.join(", ") : "none reported"}).`;
  }
  const message = p.message.trim() || "the token service failed";
  return `⚠️ *Platform:* the bot cannot get an access token: ${truncateMrkdwn(message, 2500)}`;
}

/** What the bot does without a scope its token lacks, and how to grant it. */
function withheldLine(w: { scope: string; advice: string }): string {
  const what =
    w.scope === "video.read"
      ? "*Video titles are off:* the bot's platform token has no"
      : "*Working without* the scope";
  const effect =
    w.scope === "video.read"
      ? "so video messages name each video by its id instead of its title; everything else works."
      : "so what needs it is skipped.";
  return `⚠️ ${what} ${code(w.scope, 60)}, ${effect} To change that, ${escapeTruncate(w.advice, 600)}.`;
}

function managersText(m: HomeViewOptions["managers"]): string {
  const ids = [...new Set([...m.configured, ...m.added])];
  const shown = ids.slice(0, MAX_MENTIONS).map(mention);
  const more = ids.length - shown.length;
  const extra = shown.length ? `, and ${shown.join(", ")}${more > 0 ? ` and ${more} more` : ""}` : "";
  return `workspace admins and owners${extra}`;
}

function howToFirstSteps(opts: HomeViewOptions): KnownBlock {
  const lt = escapeMrkdwn("<profile_id>");
  return section(
    [
      "*No profile is set up yet.* To get a profile's video notifications in Slack:",
      `1. A manager presses *➕ Set up notifications* above, or runs \`/webhook set ${lt}\` in the channel that should get them (the profile's name or id; \`/webhook set\` alone offers the profiles to choose from). The platform then sends the profile's events to this bot.`,
      `2. Anyone can post a livestream's status card with \`/live status ${escapeMrkdwn("<id or livestream URL>")}\`.`,
      `3. Managers are ${managersText(opts.managers)}; a manager adds one with *👥 Managers* above or \`/webhook managers add @user\`.`,
    ].join("\n"),
  );
}

function howToUse(opts: HomeViewOptions): KnownBlock {
  return section(
    [
      "*How to use*",
      `• \`/live status ${escapeMrkdwn("<id or livestream URL>")}\`: a livestream's status card in the channel (\`/live help\` for more).`,
      `• \`/webhook show [profile_id]\`: where a profile's notifications go; managers can set, edit or remove with \`/webhook set\`, \`/webhook events\`, \`/webhook remove\` (\`/webhook help\` for more).`,
      `• Who can change webhooks: ${managersText(opts.managers)}.`,
    ].join("\n"),
  );
}

/** The App Home tab of one user (managers get the buttons). */
export function homeView(opts: HomeViewOptions): HomeView {
  const head: KnownBlock[] = [header("📡 Livestreams & webhooks"), section(platformLine(opts.platform))];
  if (opts.platform.ok && opts.platform.withheld?.length)
    head.push(section(opts.platform.withheld.slice(0, 3).map(withheldLine).join("\n")));
  if (opts.tokenRefreshFailure) head.push(section(tokenNotice(opts.tokenRefreshFailure)));
  const top: Button[] = [];
  if (opts.isManager) {
    top.push(
      button({ text: "➕ Set up notifications", actionId: ACTIONS.webhookSetup, style: "primary" }),
      button({ text: "👥 Managers", actionId: ACTIONS.managersEdit }),
    );
  }
  if (opts.showRefresh) top.push(button({ text: "🔄 Refresh", actionId: ACTIONS.homeRefresh }));
  if (top.length > 0) head.push(actions(top));
  head.push(divider);

  const tail: KnownBlock[] = [divider, howToUse(opts)];
  if (!opts.isManager && opts.profiles.length > 0) {
    tail.push(context(["You can see everything here; the buttons that change a webhook are for managers."]));
  }
  tail.push(context([`Updated ${slackDate(opts.now, utcText(opts.now))}`]));

  const body: KnownBlock[] = [];
  const watchRoom =
    (opts.watches?.length ?? 0) > 0 || (opts.watchHealth?.failing.length ?? 0) > 0 ? WATCH_ROOM : 0;
  const n = opts.profiles.length;
  if (n === 0) {
    body.push(howToFirstSteps(opts));
  } else {
    body.push(section(`*Configured profiles (${n})*`));
    const per = opts.isManager ? 2 : 1;
    const room = VIEW_LIMITS.blocksPerView - head.length - tail.length - body.length - watchRoom;
    const shown = n * per <= room ? n : Math.max(0, Math.floor((room - 1) / per));
    for (const p of opts.profiles.slice(0, shown)) {
      body.push(profileSection(p, opts.now));
      if (p.subscriptions && p.subscriptions.length > 0)
        body.push(
          ...subscriptionBlocks(
            p.profileId,
            p.subscriptions,
            opts.isManager,
            WEBHOOK_EVENTS.length,
            MAX_SUBSCRIPTIONS_ON_HOME,
            opts.modeClock,
          ),
        );
      if (opts.isManager) body.push(profileButtons(p));
    }
    const rest = opts.profiles.slice(shown);
    if (rest.length > 0) {
      const ids = rest.slice(0, MAX_MORE_IDS).map((p) => code(p.profileId, 60));
      const more = rest.length - ids.length;
      body.push(
        section(
          `…and ${rest.length} more: ${ids.join(", ")}${more > 0 ? ` and ${more} others` : ""} — use \`/webhook show ${escapeMrkdwn("<profile_id>")}\``,
        ),
      );
    }
  }
  if (watchRoom > 0) {
    const room = Math.min(watchRoom, VIEW_LIMITS.blocksPerView - head.length - tail.length - body.length - 1);
    body.push(
      divider,
      ...homeWatchBlocks(opts.watches ?? [], { isManager: opts.isManager, health: opts.watchHealth, room }),
    );
  }
  return { type: "home", blocks: [...head, ...body, ...tail] };
}
