/**
 * Messages of `/webhook subscribe|unsubscribe|subscriptions`, and the subscriptions part of
 * `/webhook show` and the App Home: every channel that receives a profile's notifications, with
 * its filter (events, formats, mention), and an Unsubscribe button per channel for managers.
 */
import { slackDate, utcText } from "./dates.js";
import { escapeTruncate } from "./escape.js";
import { ACTIONS } from "./ids.js";
import { button, channel, code, confirmDialog, context, mention, message, section } from "./kit.js";
import { profilePlain, profileRef } from "./profiles.js";
import type { KnownBlock, Message } from "./types.js";

/** What the messages read of a channel's subscription (src/store/subscriptions.ts's Subscription has it). */
export interface SubscriptionView extends ModeView {
  channelId: string;
  events: readonly string[];
  /** Preset names; empty = all. */
  presets: readonly string[];
  /** null, "here" or a Slack user id. */
  mention: string | null;
  setBy: string;
}

/** Subscriptions listed in one message (blocks are limited); the rest are counted. */
export const MAX_SUBSCRIPTIONS_SHOWN = 20;

/** The Unsubscribe button's value: `<profileId> <channelId>` (neither has a blank). */
export function unsubscribeValue(profileId: string, channelId: string): string {
  return `${profileId} ${channelId}`;
}

export function parseUnsubscribeValue(value: string): { profileId: string; channelId: string } | null {
  const m = /^([A-Za-z0-9][A-Za-z0-9_-]{0,63}) ([CDG][A-Z0-9]{2,30})$/.exec(value);
  return m?.[1] && m[2] ? { profileId: m[1], channelId: m[2] } : null;
}

/** One line of filters: events, formats, mention. */
export function filterText(s: SubscriptionView, allEvents: number): string {
  const events =
    s.events.length >= allEvents
      ? "all events"
      : s.events.length <= 6
        ? s.events.map((e) => code(e, 60)).join(", ")
        : `${s.events.length} events`;
  const formats =
    s.presets.length === 0 ? "all formats" : `formats ${s.presets.map((p) => code(p, 64)).join(", ")}`;
  const who =
    s.mention === null
      ? ""
      : `; mentions ${s.mention === "here" ? "@here" : mention(s.mention)} on format errors`;
  return `${events}; ${formats}${who}`;
}

/** A digest subscription as the messages read it (src/store/subscriptions.ts's DigestMode has it). */
export interface DigestModeView {
  every: "daily" | "weekly";
  /** HH:MM in the subscriber's zone. */
  at: string;
  tz: string | null;
  /** Seconds east of UTC (`tz_offset`), when the zone has no name. */
  tzOffset: number;
  /** ISO date-time it was set up (periods shorter than a day count from it). */
  since: string;
}

/** A subscription with its mode (digest, pause), as `/webhook subscriptions` and the Home show it. */
export interface ModeView {
  digest?: DigestModeView | undefined;
  pause?: { until: string } | undefined;
}

/**
 * What a channel's mode is shown against: the clock, DIGEST_PERIOD (ms), and when a digest is due
 * next (src/store/digest-times.ts's nextDigestAt, handed in: time zones are the store's matter).
 */
export interface ModeClock {
  now: Date;
  periodMs: number;
  nextDigestAt: (d: DigestModeView, periodMs: number, after: number) => number;
}

const DAY_MS = 86_400_000;

const dateOf = (ms: number) => slackDate(new Date(ms), utcText(new Date(ms)));

/** `every 30 s`, `every 2 h`, `every 3 d`. */
function every(ms: number): string {
  if (ms % DAY_MS === 0) return `every ${ms / DAY_MS} d`;
  if (ms % 3_600_000 === 0) return `every ${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `every ${ms / 60_000} min`;
  return `every ${Math.round(ms / 1000)} s`;
}

/** The time zone as stored: its name, else its offset (`UTC+05:30`). */
function zoneText(d: DigestModeView): string {
  if (d.tz !== null) return escapeTruncate(d.tz, 64);
  const m = Math.round(Math.abs(d.tzOffset) / 60);
  return `UTC${d.tzOffset < 0 ? "-" : "+"}${String(Math.floor(m / 60)).padStart(2, "0")}:${String(m % 60).padStart(2, "0")}`;
}

/**
 * The channel's mode: `🔔 live`, `📰 daily digest at 09:00 (Europe/Paris), next <date>`, a weekly
 * one, `⏸️ paused until <date>`; dates in Slack date formatting.
 */
export function modeText(s: ModeView, clock: ModeClock): string {
  const now = clock.now.getTime();
  const until = s.pause ? Date.parse(s.pause.until) : Number.NaN;
  const parts: string[] = [];
  if (until > now) parts.push(`⏸️ paused until ${dateOf(until)}`);
  if (s.digest) {
    const d = s.digest;
    const step = d.every === "weekly" ? 7 * clock.periodMs : clock.periodMs;
    const at =
      clock.periodMs < DAY_MS || step % DAY_MS !== 0
        ? `${every(step)} (DIGEST_PERIOD)`
        : `at ${d.at} (${zoneText(d)})`;
    parts.push(`📰 ${d.every} digest ${at}, next ${dateOf(clock.nextDigestAt(d, clock.periodMs, now))}`);
  } else if (parts.length === 0) parts.push("🔔 live");
  return parts.join(" · ");
}

/** The subscriptions as blocks (one section per channel, with Unsubscribe for managers). */
export function subscriptionBlocks(
  profileId: string,
  subs: readonly SubscriptionView[],
  isManager: boolean,
  allEvents: number,
  max = MAX_SUBSCRIPTIONS_SHOWN,
  clock?: ModeClock,
): KnownBlock[] {
  if (subs.length === 0) return [section("No channel receives this profile's notifications.")];
  const blocks: KnownBlock[] = subs.slice(0, max).map((s) =>
    section(
      `• ${channel(s.channelId)}: ${clock ? `${modeText(s, clock)}; ` : ""}${filterText(s, allEvents)}`,
      isManager
        ? button({
            text: "Unsubscribe",
            actionId: ACTIONS.webhookUnsubscribe,
            value: unsubscribeValue(profileId, s.channelId),
            confirm: confirmDialog({
              title: "Unsubscribe the channel?",
              text: "This channel will stop receiving the profile's notifications.",
              confirm: "Unsubscribe",
              deny: "Cancel",
              danger: true,
            }),
          })
        : undefined,
    ),
  );
  if (subs.length > max)
    blocks.push(
      context([
        `and ${subs.length - max} more channels (\`/webhook subscriptions ${escapeTruncate(profileId, 100)}\`)`,
      ]),
    );
  return blocks;
}

const CHANGE_HINT =
  "To change a channel's filter, run `/webhook subscribe &lt;profile&gt; [event ...] [preset=...] [mention=...]` in it again (the profile's name or id); `digest=daily|weekly|off` changes its mode, `/webhook pause` quiets it for a while.";

/** `/webhook subscriptions`. */
export function subscriptionsMessage(opts: {
  profileId: string;
  profileName?: string | undefined;
  subscriptions: readonly SubscriptionView[];
  foreign: boolean;
  isManager: boolean;
  allEvents: number;
  clock?: ModeClock;
}): Message {
  const id = profileRef(opts.profileId, opts.profileName);
  const name = profilePlain(opts.profileId, opts.profileName);
  if (opts.foreign)
    return message(`Profile ${name} sends its events to another address`, [
      section(`Profile ${id} sends its events to another address: this bot posts nothing for it.`),
    ]);
  return message(`Subscriptions of profile ${name}: ${opts.subscriptions.length}`, [
    section(`*Channels that receive the notifications of profile ${id}* (${opts.subscriptions.length})`),
    ...subscriptionBlocks(
      opts.profileId,
      opts.subscriptions,
      opts.isManager,
      opts.allEvents,
      MAX_SUBSCRIPTIONS_SHOWN,
      opts.clock,
    ),
    context([CHANGE_HINT]),
  ]);
}

/** After `/webhook subscribe`. */
export function subscribedMessage(opts: {
  profileId: string;
  profileName?: string | undefined;
  subscription: SubscriptionView;
  replaced: boolean;
  platformEvents: readonly string[];
  platformChanged: boolean;
  allEvents: number;
  clock?: ModeClock;
}): Message {
  const id = profileRef(opts.profileId, opts.profileName);
  const s = opts.subscription;
  const mode = opts.clock && (s.digest || s.pause) ? ` ${modeText(s, opts.clock)}.` : "";
  const first = `✅ ${channel(s.channelId)} ${opts.replaced ? "now receives" : "also receives"} the notifications of profile ${id} by ${mention(s.setBy)}: ${filterText(s, opts.allEvents)}.${mode}`;
  const platform = opts.platformChanged
    ? `The profile's webhook now carries ${opts.platformEvents.length} events (every subscription's).`
    : "The profile's webhook already carried these events: nothing changed on the platform.";
  return message(`Channel subscribed to profile ${profilePlain(opts.profileId, opts.profileName)}`, [
    section(first),
    context([platform, CHANGE_HINT]),
  ]);
}

/** After `/webhook unsubscribe` (or its button). */
export function unsubscribedMessage(opts: {
  profileId: string;
  profileName?: string | undefined;
  channelId: string;
  byUser: string;
  platformChanged: boolean;
}): Message {
  const text = `🔕 ${channel(opts.channelId)} no longer receives the notifications of profile ${profileRef(opts.profileId, opts.profileName)} (by ${mention(opts.byUser)}).${opts.platformChanged ? " The profile's webhook now carries fewer events." : ""}`;
  return message(`Channel unsubscribed from profile ${profilePlain(opts.profileId, opts.profileName)}`, [
    section(text),
  ]);
}

/** What `/webhook unsubscribe` answers when nothing was to do. */
export function notSubscribedMessage(profileId: string, channelId: string, name?: string): Message {
  return message(`Not subscribed to profile ${profilePlain(profileId, name)}`, [
    section(
      `${channel(channelId)} does not receive the notifications of profile ${profileRef(profileId, name)}. \`/webhook subscriptions ${escapeTruncate(profileId, 100)}\` lists the channels that do.`,
    ),
  ]);
}

/** Subscribing a profile this bot does not receive. */
export function notOursMessage(profileId: string, name?: string): Message {
  const id = escapeTruncate(profileId, 100);
  return message(`Profile ${profilePlain(profileId, name)} has no webhook of this bot`, [
    section(
      `Profile ${profileRef(profileId, name)} does not send its events to this bot in this workspace. Run \`/webhook set ${id}\` first (it subscribes the channel where you run it).`,
    ),
  ]);
}

/** After `/webhook pause`, in the channel. */
export function pausedMessage(opts: {
  profileId: string;
  profileName?: string | undefined;
  channelId: string;
  byUser: string;
  until: Date;
  extended: boolean;
}): Message {
  const id = profileRef(opts.profileId, opts.profileName);
  const until = dateOf(opts.until.getTime());
  return message(`Notifications of profile ${profilePlain(opts.profileId, opts.profileName)} paused here`, [
    section(
      `⏸️ ${channel(opts.channelId)} gets nothing of profile ${id} until ${until} (${opts.extended ? "pause changed" : "paused"} by ${mention(opts.byUser)}). What arrives meanwhile is kept: one catch-up message here when the pause ends, or sooner with \`/webhook resume ${escapeTruncate(opts.profileId, 100)}\`.`,
    ),
    context(["Other channels go on getting the profile's notifications."]),
  ]);
}

/** After `/webhook resume`. */
export function resumedMessage(opts: {
  profileId: string;
  profileName?: string | undefined;
  channelId: string;
}): Message {
  return message(`Notifications of profile ${profilePlain(opts.profileId, opts.profileName)} resumed`, [
    section(
      `▶️ The pause of ${channel(opts.channelId)} for profile ${profileRef(opts.profileId, opts.profileName)} is over: the catch-up of what arrived meanwhile follows here, then live messages again.`,
    ),
  ]);
}

/** `/webhook resume` when the channel is not paused. */
export function notPausedMessage(opts: {
  profileId: string;
  profileName?: string | undefined;
  channelId: string;
}): Message {
  return message(`Not paused for profile ${profilePlain(opts.profileId, opts.profileName)}`, [
    section(
      `${channel(opts.channelId)} is not paused for profile ${profileRef(opts.profileId, opts.profileName)}: nothing to resume.`,
    ),
  ]);
}
