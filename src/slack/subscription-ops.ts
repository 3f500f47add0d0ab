/**
 * `/webhook subscribe|unsubscribe` (and the Unsubscribe button): change one channel's
 * subscription to a profile's notifications, keeping the platform's webhook events the union of
 * every subscription's events.
 *
 * Order: the platform first (only when the union changes; updateWebhookEvents reads it back),
 * then the settings. A refused or unconfirmed PATCH changes no setting; a store failure after it
 * leaves the platform with the new union (a later subscribe or unsubscribe writes it again).
 * Both run inside `SettingsRepo.updateProfile` (compare-and-set): when another change to the
 * workspace's profiles lands in between, they run again on the profile as stored then, so
 * concurrent subscriptions of several channels are all kept and the platform ends with their union.
 * The caller authorized the action first (src/access).
 */
import type { WebhookEvent } from "../platform/index.js";
import { isWebhookEvent, WEBHOOK_EVENTS } from "../platform/index.js";
import { type ProfileSettings, type Subscription, sameEventSet, unionOfEvents } from "../store/index.js";
import type { BotDeps } from "./context.js";

export interface SubscribeRequest {
  teamId: string;
  profileId: string;
  channelId: string;
  userId: string;
  events: WebhookEvent[];
  presets: string[];
  mention: string | null;
}

export type SubscribeOutcome =
  | { kind: "not-ours" }
  | {
      kind: "subscribed";
      subscription: Subscription;
      replaced: boolean;
      platformEvents: string[];
      platformChanged: boolean;
    };

export type UnsubscribeOutcome =
  | { kind: "not-ours" }
  | { kind: "not-subscribed" }
  /** The only subscription: the webhook's removal is asked for instead. */
  | { kind: "last" }
  | { kind: "unsubscribed"; platformChanged: boolean };

/** Whether this bot receives the profile's events in this workspace. */
function ours(p: ProfileSettings | undefined): p is ProfileSettings {
  return p !== undefined && p.foreignUrl === null && p.routeId !== null;
}

/** What one subscribe or unsubscribe last sent to the platform (it may run again, see below). */
interface Sent {
  events?: string[];
}

/**
 * The platform's events for `subs`: PATCHed when their union differs from the stored events, or
 * from what this change sent before a retry (another change may have PATCHed since).
 */
async function platformEvents(
  deps: BotDeps,
  p: ProfileSettings,
  subs: Subscription[],
  sent: Sent,
): Promise<{ events: string[]; changed: boolean }> {
  const union = unionOfEvents(subs, WEBHOOK_EVENTS).filter(isWebhookEvent);
  let events = p.events;
  if (!sameEventSet(union, p.events) || (sent.events !== undefined && !sameEventSet(union, sent.events))) {
    const webhook = await deps.platform.updateWebhookEvents(p.profileId, union);
    events = [...(webhook.events ?? union)];
    sent.events = events;
  }
  return { events, changed: !sameEventSet(events, p.events) };
}

export async function subscribe(deps: BotDeps, req: SubscribeRequest): Promise<SubscribeOutcome> {
  const subscription: Subscription = {
    channelId: req.channelId,
    events: [...req.events],
    presets: [...req.presets],
    mention: req.mention,
    setBy: req.userId,
    setAt: deps.now().toISOString(),
  };
  const sent: Sent = {};
  let outcome: SubscribeOutcome = { kind: "not-ours" };
  await deps.settings.updateProfile(req.teamId, req.profileId, async (p) => {
    outcome = { kind: "not-ours" };
    if (!ours(p)) return undefined;
    const replaced = p.subscriptions.some((s) => s.channelId === req.channelId);
    const subs = replaced
      ? p.subscriptions.map((s) => (s.channelId === req.channelId ? subscription : s))
      : [...p.subscriptions, subscription];
    const { events, changed } = await platformEvents(deps, p, subs, sent);
    outcome = {
      kind: "subscribed",
      subscription,
      replaced,
      platformEvents: events,
      platformChanged: changed,
    };
    return { ...p, events, subscriptions: subs };
  });
  return outcome;
}

export async function unsubscribe(
  deps: BotDeps,
  teamId: string,
  profileId: string,
  channelId: string,
): Promise<UnsubscribeOutcome> {
  const sent: Sent = {};
  let outcome: UnsubscribeOutcome = { kind: "not-ours" };
  await deps.settings.updateProfile(teamId, profileId, async (p) => {
    outcome = { kind: "not-ours" };
    if (!ours(p)) return undefined;
    outcome = { kind: "not-subscribed" };
    if (!p.subscriptions.some((s) => s.channelId === channelId)) return undefined;
    const subs = p.subscriptions.filter((s) => s.channelId !== channelId);
    outcome = { kind: "last" };
    if (subs.length === 0) return undefined;
    const { events, changed } = await platformEvents(deps, p, subs, sent);
    outcome = { kind: "unsubscribed", platformChanged: changed };
    return { ...p, events, subscriptions: subs };
  });
  return outcome;
}

/**
 * The subscriptions after `/webhook events` set the platform's events to `events` directly: a
 * single subscription follows them; with several, each keeps only what the platform still
 * carries (events added there reach a channel once it subscribes to them).
 */
export function subscriptionsForEvents(p: ProfileSettings, events: readonly string[]): Subscription[] {
  if (p.subscriptions.length === 1) return p.subscriptions.map((s) => ({ ...s, events: [...events] }));
  return p.subscriptions.map((s) => ({ ...s, events: s.events.filter((e) => events.includes(e)) }));
}
