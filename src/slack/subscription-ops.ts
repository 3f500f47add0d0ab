/**
 * `/webhook subscribe|unsubscribe` (and the Unsubscribe button): change one channel's
 * subscription to a profile's notifications, keeping the platform's webhook events the union of
 * every subscription's events.
 *
 * Order: the platform first (only when the union changes; updateWebhookEvents reads it back),
 * then the settings. A refused or unconfirmed PATCH changes no setting; a store failure after it
 * leaves the platform with the new union (a later subscribe or unsubscribe writes it again).
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

/** The profile's settings when this bot receives its events in this workspace. */
async function ours(deps: BotDeps, teamId: string, profileId: string): Promise<ProfileSettings | undefined> {
  const p = await deps.settings.getProfile(teamId, profileId);
  return p && p.foreignUrl === null && p.routeId !== null ? p : undefined;
}

/** Saves `subs`, PATCHing the platform's events first when their union changes. */
async function apply(
  deps: BotDeps,
  teamId: string,
  p: ProfileSettings,
  subs: Subscription[],
): Promise<{ events: string[]; changed: boolean }> {
  const union = unionOfEvents(subs, WEBHOOK_EVENTS).filter(isWebhookEvent);
  let events = p.events;
  const changed = !sameEventSet(union, p.events);
  if (changed) {
    const webhook = await deps.platform.updateWebhookEvents(p.profileId, union);
    events = [...(webhook.events ?? union)];
  }
  await deps.settings.saveProfile(teamId, { ...p, events, subscriptions: subs });
  return { events, changed };
}

export async function subscribe(deps: BotDeps, req: SubscribeRequest): Promise<SubscribeOutcome> {
  const p = await ours(deps, req.teamId, req.profileId);
  if (!p) return { kind: "not-ours" };
  const subscription: Subscription = {
    channelId: req.channelId,
    events: [...req.events],
    presets: [...req.presets],
    mention: req.mention,
    setBy: req.userId,
    setAt: deps.now().toISOString(),
  };
  const replaced = p.subscriptions.some((s) => s.channelId === req.channelId);
  const subs = replaced
    ? p.subscriptions.map((s) => (s.channelId === req.channelId ? subscription : s))
    : [...p.subscriptions, subscription];
  const { events, changed } = await apply(deps, req.teamId, p, subs);
  return { kind: "subscribed", subscription, replaced, platformEvents: events, platformChanged: changed };
}

export async function unsubscribe(
  deps: BotDeps,
  teamId: string,
  profileId: string,
  channelId: string,
): Promise<UnsubscribeOutcome> {
  const p = await ours(deps, teamId, profileId);
  if (!p) return { kind: "not-ours" };
  if (!p.subscriptions.some((s) => s.channelId === channelId)) return { kind: "not-subscribed" };
  const subs = p.subscriptions.filter((s) => s.channelId !== channelId);
  if (subs.length === 0) return { kind: "last" };
  const { changed } = await apply(deps, teamId, p, subs);
  return { kind: "unsubscribed", platformChanged: changed };
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
