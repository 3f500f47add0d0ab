/**
 * Messages of `/webhook`: the configuration read back from the platform plus where this
 * workspace sends it to, the set / remove confirmations and the test result (the managers list
 * and the events list: webhook-lists.ts).
 *
 * Secrets: this bot's callback URL ends with an unguessable callback token (contract: HTTP routes).
 * It is never rendered; a foreign URL is shown in full (without a password in its userinfo).
 */
import {
  isWebhookEvent,
  WEBHOOK_EVENT_DESCRIPTIONS,
  WEBHOOK_EVENTS,
  type WebhookConfig,
  webhookState,
} from "../domain/index.js";
import { slackDate, utcText } from "./dates.js";
import { escapeTruncate } from "./escape.js";
import { ACTIONS } from "./ids.js";
import {
  actions,
  button,
  channel,
  code,
  confirmDialog,
  context,
  mention,
  message,
  section,
  toDate,
  when,
} from "./kit.js";
import { profilePlain, profileRef } from "./profiles.js";
import { type ModeClock, type SubscriptionView, subscriptionBlocks } from "./subscriptions.js";
import type { Button, KnownBlock, Message } from "./types.js";

const MAX_EVENTS_SHOWN = 20;

/** What this workspace stored about the profile's webhook (ProfileSettings fits it). */
export interface WebhookCallbackInfo {
  /** Channel the notifications go to; null when a foreign URL was registered. */
  channelId: string | null;
  /** The foreign callback URL registered through the bot, or null. */
  foreignUrl: string | null;
  /** Slack user id of who set it. */
  setBy: string;
  /** ISO date-time. */
  setAt: string;
  /** The channels that receive the notifications, with their filters. */
  subscriptions?: readonly SubscriptionView[];
}

export interface WebhookConfigOptions {
  profileId: string;
  /** The profile's label (display name, else name); without it the id alone is shown. */
  profileName?: string | undefined;
  /** As read back from the platform. */
  webhook: WebhookConfig;
  callback?: WebhookCallbackInfo | null;
  /**
   * Alias of `callback`, so a stored ProfileSettings can be spread in as is (`callback` wins). Only the
   * fields of WebhookCallbackInfo are read: the stored callback id is never rendered.
   */
  settings?: WebhookCallbackInfo | null;
  /** The platform's callback_url is this bot's callback for this workspace. */
  ownsCallback: boolean;
  isManager: boolean;
  now: Date;
  /** Each channel's mode and next digest are shown against it. */
  modeClock?: ModeClock;
  /**
   * `${PUBLIC_URL}/hooks/platform/`: when given, a callback URL of this bot that is not this
   * workspace's route (another workspace, an old token) is recognized and its token hidden.
   */
  botHookPrefix?: string;
}

/** A foreign URL for display: in full, but without a password in its userinfo. */
/**
 * A foreign callback URL as shown in Slack: scheme and host only. Such URLs often carry their own
 * secret in the path or query, and `/webhook show` is open to anyone in the workspace.
 */
export function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    const rest = u.pathname === "/" && u.search === "" && u.hash === "" ? "" : "/…";
    return `${u.protocol}//${u.host}${rest}`;
  } catch {
    return "(not a valid URL)";
  }
}

function describeCallback(
  opts: WebhookConfigOptions,
  callback: WebhookCallbackInfo | null | undefined,
): string {
  const url = opts.webhook.callback_url;
  if (url === null || url === "") return "nowhere (no callback URL)";
  if (opts.ownsCallback) {
    return callback?.channelId
      ? `this bot → ${channel(callback.channelId)}`
      : "this bot (no channel set in this workspace)";
  }
  if (opts.botHookPrefix && url.startsWith(opts.botHookPrefix)) {
    return "another address of this bot, not this workspace's route (its token is hidden)";
  }
  return code(displayUrl(url), 1500);
}

function eventLines(events: readonly string[] | null): string[] {
  if (events === null || events.length === 0) return ["none"];
  const lines = events.slice(0, MAX_EVENTS_SHOWN).map((e) => {
    const desc = isWebhookEvent(e) ? WEBHOOK_EVENT_DESCRIPTIONS[e] : "not an event this bot knows";
    return `• ${code(e, 60)} — ${escapeTruncate(desc, 200)}`;
  });
  if (events.length > MAX_EVENTS_SHOWN) lines.push(`• and ${events.length - MAX_EVENTS_SHOWN} more`);
  return lines;
}

function warnings(opts: WebhookConfigOptions, callback: WebhookCallbackInfo | null | undefined): string[] {
  const out: string[] = [];
  const state = webhookState(opts.webhook);
  const id = profileRef(opts.profileId, opts.profileName);
  const url = opts.webhook.callback_url;
  if (state === "partial") {
    out.push(
      `⚠️ The webhook is incomplete (${url ? "a callback URL without events" : "events without a callback URL"}): the platform sends nothing. Set it again with \`/webhook set ${escapeTruncate(opts.profileId, 100)}\`.`,
    );
  }
  if (callback?.channelId && !opts.ownsCallback) {
    const where = url ? "another address" : "nowhere";
    out.push(
      `⚠️ This workspace routes the profile's notifications to ${channel(callback.channelId)}, but the platform sends its events to ${where}: nothing will arrive there. Run \`/webhook set ${escapeTruncate(opts.profileId, 100)}\` in that channel to point it back at this bot.`,
    );
  }
  if (callback?.foreignUrl && url && url !== callback.foreignUrl && !opts.ownsCallback) {
    out.push(
      `⚠️ The URL registered from this workspace was ${code(displayUrl(callback.foreignUrl), 800)}; the platform now has another one.`,
    );
  }
  if (opts.ownsCallback && !callback?.channelId) {
    out.push(
      `⚠️ The platform sends ${id}'s events to this bot, but no channel is set for them: run \`/webhook set ${escapeTruncate(opts.profileId, 100)}\` in the channel that should get them.`,
    );
  }
  return out;
}

function managerButtons(
  opts: WebhookConfigOptions,
  callback: WebhookCallbackInfo | null | undefined,
): Button[] {
  const state = webhookState(opts.webhook);
  const buttons: Button[] = [];
  // Rule 4 of spec 4.2: events alone can change only on a complete webhook.
  if (state === "configured") {
    buttons.push(
      button({ text: "✏️ Edit events", actionId: ACTIONS.webhookEditEvents, value: opts.profileId }),
    );
  }
  if (opts.ownsCallback && callback?.channelId) {
    buttons.push(button({ text: "🧪 Send test", actionId: ACTIONS.webhookTest, value: opts.profileId }));
  }
  if (state !== "none") {
    buttons.push(
      button({
        text: "🗑️ Remove",
        actionId: ACTIONS.webhookRemove,
        value: opts.profileId,
        style: "danger",
        confirm: confirmDialog({
          title: "Remove the webhook?",
          text: `The platform will stop sending the events of profile ${profilePlain(opts.profileId, opts.profileName)} (callback URL and events both set to none).`,
          confirm: "Remove",
          deny: "Cancel",
          danger: true,
        }),
      }),
    );
  }
  return buttons;
}

function stateText(opts: WebhookConfigOptions): { line: string; short: string } {
  switch (webhookState(opts.webhook)) {
    case "none":
      return { line: "⚪ No webhook: the platform sends no events for this profile.", short: "no webhook" };
    case "configured":
      return { line: "✅ Configured", short: "configured" };
    case "partial":
      return { line: "⚠️ Incomplete", short: "incomplete" };
  }
}

function configBlocks(opts: WebhookConfigOptions): { blocks: KnownBlock[]; text: string } {
  const callback = opts.callback ?? opts.settings;
  const state = stateText(opts);
  const events = opts.webhook.events;
  const lines = [`*Webhook of profile ${profileRef(opts.profileId, opts.profileName)}* — ${state.line}`];
  const hasAnything = webhookState(opts.webhook) !== "none";
  if (hasAnything) {
    lines.push(`*Sends to:* ${describeCallback(opts, callback)}`);
    lines.push(`*Events (${events?.length ?? 0}):*`, ...eventLines(events));
  }
  const foreign =
    !opts.ownsCallback && (callback?.foreignUrl != null || (hasAnything && !!opts.webhook.callback_url));
  if (foreign) lines.push("This bot posts nothing for this profile: its events go to another address.");

  const blocks: KnownBlock[] = [section(lines.join("\n"))];
  const subs = opts.ownsCallback ? (callback?.subscriptions ?? []) : [];
  if (subs.length > 0) {
    blocks.push(section(`*Channels (${subs.length}):*`));
    blocks.push(
      ...subscriptionBlocks(
        opts.profileId,
        subs,
        opts.isManager,
        WEBHOOK_EVENTS.length,
        undefined,
        opts.modeClock,
      ),
    );
  }
  const warn = warnings(opts, callback);
  if (warn.length > 0) blocks.push(section(warn.join("\n")));
  if (callback) {
    const at = toDate(callback.setAt);
    blocks.push(
      context([`Set from Slack by ${mention(callback.setBy)}${at ? ` ${when(at, opts.now)}` : ""}`]),
    );
  }
  if (opts.isManager) {
    const buttons = managerButtons(opts, callback);
    if (buttons.length > 0) blocks.push(actions(buttons));
    else if (!hasAnything) {
      blocks.push(
        context([`Set one with \`/webhook set ${escapeTruncate(opts.profileId, 100)} [event ...]\``]),
      );
    }
  }
  const dest = opts.ownsCallback ? "this bot" : opts.webhook.callback_url ? "another address" : "nowhere";
  const name = profilePlain(opts.profileId, opts.profileName);
  const text = hasAnything
    ? `Webhook of profile ${name}: ${state.short}, ${events?.length ?? 0} event${events?.length === 1 ? "" : "s"} → ${dest}`
    : `Webhook of profile ${name}: ${state.short}`;
  return { blocks, text };
}

/** `/webhook show`: the platform's configuration and this workspace's routing of it. */
export function webhookConfigMessage(opts: WebhookConfigOptions): Message {
  const { blocks, text } = configBlocks(opts);
  return message(text, blocks);
}

export type WebhookSetOptions = Omit<WebhookConfigOptions, "isManager"> & {
  /** Setting is for managers: buttons are shown unless told otherwise. */
  isManager?: boolean;
  /** Who ran `/webhook set`. */
  byUser?: string;
};

/** Confirmation of `/webhook set`: a first line, then the configuration as read back. */
export function webhookSetMessage(opts: WebhookSetOptions): Message {
  const o: WebhookConfigOptions = { ...opts, isManager: opts.isManager ?? true };
  const callback = o.callback ?? o.settings;
  const id = profileRef(o.profileId, o.profileName);
  const name = profilePlain(o.profileId, o.profileName);
  const by = opts.byUser ? ` by ${mention(opts.byUser)}` : "";
  let first: string;
  let short: string;
  if (o.ownsCallback) {
    const dest = callback?.channelId ? channel(callback.channelId) : "this bot";
    first = `✅ Webhook set for profile ${id}${by}: its events now come to ${dest}.`;
    short = `Webhook set for profile ${name}: events come to this bot`;
  } else {
    const url = o.webhook.callback_url ?? callback?.foreignUrl ?? null;
    first = `✅ Webhook set for profile ${id}${by}: the platform sends its events to ${url ? code(displayUrl(url), 1500) : "the URL given"}. This bot will post nothing for this profile.`;
    short = `Webhook set for profile ${name}: events go to another address, this bot posts nothing for it`;
  }
  const { blocks } = configBlocks(o);
  return message(short, [section(first), ...blocks]);
}

/** `/webhook remove`: the question, with Remove / Cancel. */
export function removeConfirmMessage(profileId: string, name?: string): Message {
  const id = profileRef(profileId, name);
  return message(`Remove the webhook of profile ${profilePlain(profileId, name)}?`, [
    section(
      `Remove the webhook of profile ${id}? The platform will stop sending its events (callback URL and events both set to none) and notifications for it stop.`,
    ),
    actions([
      button({ text: "Remove", actionId: ACTIONS.webhookRemoveConfirm, value: profileId, style: "danger" }),
      button({ text: "Cancel", actionId: ACTIONS.webhookRemoveCancel, value: profileId }),
    ]),
  ]);
}

/** Unsubscribing the last channel removes the webhook: asked first, saying why. */
export function lastSubscriptionMessage(profileId: string, channelId: string, name?: string): Message {
  const confirm = removeConfirmMessage(profileId, name);
  const why = `${channel(channelId)} is the only channel that receives the notifications of this profile.`;
  return { ...confirm, blocks: [section(why), ...confirm.blocks] };
}

/** After a confirmed removal. */
export function webhookRemovedMessage(profileId: string, byUser: string, now: Date, name?: string): Message {
  return message(`Webhook of profile ${profilePlain(profileId, name)} removed`, [
    section(
      `🗑️ Webhook of profile ${profileRef(profileId, name)} removed by ${mention(byUser)} ${slackDate(now, utcText(now))}. The platform no longer sends its events; notifications for it stop.`,
    ),
  ]);
}

/** When a test event cannot be sent for the profile (the reason is said, plainly). */
/** The answer to `/webhook test` and the Send test button. */
export function testResultMessage(
  profileId: string,
  opts:
    | { kind: "sent"; videoId: string; events: number; channelId: string }
    | { kind: "foreign"; url: string }
    | { kind: "not-configured" },
  name?: string,
): Message {
  const id = profileRef(profileId, name);
  if (opts.kind === "sent") {
    return message(`Test lifecycle sent for profile ${profilePlain(profileId, name)}`, [
      section(
        `🧪 Sent a sample video (${code(opts.videoId, 60)}, ${opts.events} events: created, encoding of 3 formats, published, complete) through the delivery route for profile ${id}. It shows up in ${channel(opts.channelId)} as one message, updated as it goes, with milestones in its thread.`,
      ),
    ]);
  }
  const why =
    opts.kind === "foreign"
      ? "its webhook points at another URL, so this bot posts nothing for it"
      : "this workspace has no webhook for it: run `/webhook set` first";
  return message(`No test event sent for profile ${profilePlain(profileId, name)}`, [
    section(`🧪 No test event sent for profile ${id}: ${why}.`),
  ]);
}
