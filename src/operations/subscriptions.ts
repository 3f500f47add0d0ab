/**
 * `/webhook subscribe|unsubscribe` (and the Unsubscribe button): change one channel's
 * subscription to a profile's notifications, keeping the platform's webhook events the union of
 * every subscription's events.
 * More: README.md ("subscriptions.ts").
 */

import type { WebClient } from "@slack/web-api";
import type { BotDeps } from "../deps.js";
import { isWebhookEvent, WEBHOOK_EVENTS, type WebhookEvent } from "../domain/index.js";
import {
  type DigestMode,
  type ProfileSettings,
  type Subscription,
  sameEventSet,
  TZ_RE,
  unionOfEvents,
} from "../store/index.js";

export interface SubscribeRequest {
  teamId: string;
  profileId: string;
  channelId: string;
  userId: string;
  events: WebhookEvent[];
  presets: string[];
  mention: string | null;
  /** A digest (its `since` is set here when it is new), `off`, or absent: the channel's mode stays. */
  digest?: Omit<DigestMode, "since"> | "off";
  /** Keep the channel's current filter (`digest=` given alone). */
  keepFilters?: boolean;
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
  return p !== undefined && p.foreignUrl === null && p.callbackId !== null;
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

/**
 * The channel's subscription after `req`: its filter (or the one it had, `keepFilters`), its mode
 * (a digest kept with its `since` when unchanged, so its periods do not move) and its pause.
 */
function nextSubscription(req: SubscribeRequest, prev: Subscription | undefined, now: Date): Subscription {
  const keep = req.keepFilters === true && prev !== undefined;
  let digest = prev?.digest;
  if (req.digest === "off") digest = undefined;
  else if (req.digest !== undefined) {
    const same =
      digest !== undefined &&
      digest.every === req.digest.every &&
      digest.at === req.digest.at &&
      digest.tz === req.digest.tz &&
      digest.tzOffset === req.digest.tzOffset;
    digest = same && digest ? digest : { ...req.digest, since: now.toISOString() };
  }
  return {
    channelId: req.channelId,
    events: keep ? [...prev.events] : [...req.events],
    presets: keep ? [...prev.presets] : [...req.presets],
    mention: keep ? prev.mention : req.mention,
    setBy: req.userId,
    setAt: now.toISOString(),
    ...(digest ? { digest } : {}),
    ...(prev?.pause ? { pause: prev.pause } : {}),
  };
}

export async function subscribe(deps: BotDeps, req: SubscribeRequest): Promise<SubscribeOutcome> {
  const now = deps.now();
  const sent: Sent = {};
  let outcome: SubscribeOutcome = { kind: "not-ours" };
  let digestOff = false;
  await deps.settings.updateProfile(req.teamId, req.profileId, async (p) => {
    outcome = { kind: "not-ours" };
    if (!ours(p)) return undefined;
    const prev = p.subscriptions.find((s) => s.channelId === req.channelId);
    const subscription = nextSubscription(req, prev, now);
    digestOff = prev?.digest !== undefined && subscription.digest === undefined;
    const replaced = prev !== undefined;
    const subs = replaced
      ? withSubscription(p.subscriptions, subscription)
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
  // Live messages again: what the digest kept is posted now, as one last digest.
  if (digestOff) await deps.digests?.wake(req.teamId, req.profileId, req.channelId, now.getTime());
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
  // What a digest or a pause kept for the channel goes with its subscription.
  if ((outcome as UnsubscribeOutcome).kind === "unsubscribed")
    await deps.digests?.drop(teamId, profileId, channelId);
  return outcome;
}

export type PauseOutcome =
  | { kind: "not-ours" }
  | { kind: "not-subscribed" }
  /** `until`: when it ends; `extended`: it was paused already (one catch-up covers both). */
  | { kind: "paused"; subscription: Subscription; until: Date; extended: boolean };

/**
 * `/webhook pause`: the channel gets nothing of the profile until `now + ms`; a pause under way
 * is extended (or shortened) and keeps its start, so one catch-up covers it all. The catch-up is
 * scheduled for the end.
 */
export async function pause(
  deps: BotDeps,
  opts: { teamId: string; profileId: string; channelId: string; userId: string; ms: number },
): Promise<PauseOutcome> {
  const now = deps.now();
  const until = new Date(now.getTime() + opts.ms);
  let outcome: PauseOutcome = { kind: "not-ours" };
  await deps.settings.updateProfile(opts.teamId, opts.profileId, (p) => {
    outcome = { kind: "not-ours" };
    if (!ours(p)) return undefined;
    const prev = p.subscriptions.find((s) => s.channelId === opts.channelId);
    outcome = { kind: "not-subscribed" };
    if (!prev) return undefined;
    const on = prev.pause !== undefined && Date.parse(prev.pause.until) > now.getTime();
    const subscription: Subscription = {
      ...prev,
      pause: {
        until: until.toISOString(),
        at: on && prev.pause ? prev.pause.at : now.toISOString(),
        by: opts.userId,
      },
    };
    outcome = { kind: "paused", subscription, until, extended: on };
    return {
      ...p,
      subscriptions: withSubscription(p.subscriptions, subscription),
    };
  });
  const done = outcome as PauseOutcome;
  if (done.kind === "paused")
    await deps.digests?.wake(opts.teamId, opts.profileId, opts.channelId, until.getTime());
  return done;
}

export type ResumeOutcome =
  | { kind: "not-ours" }
  | { kind: "not-subscribed" }
  | { kind: "not-paused" }
  | { kind: "resumed" };

/** `/webhook resume`: the channel's pause ends now; its catch-up is posted at once. */
export async function resume(
  deps: BotDeps,
  opts: { teamId: string; profileId: string; channelId: string },
): Promise<ResumeOutcome> {
  const now = deps.now();
  let outcome: ResumeOutcome = { kind: "not-ours" };
  await deps.settings.updateProfile(opts.teamId, opts.profileId, (p) => {
    outcome = { kind: "not-ours" };
    if (!ours(p)) return undefined;
    const prev = p.subscriptions.find((s) => s.channelId === opts.channelId);
    outcome = { kind: "not-subscribed" };
    if (!prev) return undefined;
    outcome = { kind: "not-paused" };
    if (!prev.pause || Date.parse(prev.pause.until) <= now.getTime()) return undefined;
    const subscription: Subscription = { ...prev, pause: { ...prev.pause, until: now.toISOString() } };
    outcome = { kind: "resumed" };
    return {
      ...p,
      subscriptions: withSubscription(p.subscriptions, subscription),
    };
  });
  const done = outcome as ResumeOutcome;
  if (done.kind === "resumed")
    await deps.digests?.wake(opts.teamId, opts.profileId, opts.channelId, now.getTime());
  return done;
}

/**
 * The person's Slack time zone (`users.info`: `tz`, `tz_offset`), for a digest's time of day;
 * UTC when Slack does not say (or cannot be asked).
 */
export async function userTimeZone(
  client: Pick<WebClient, "users">,
  userId: string,
): Promise<{ tz: string | null; tzOffset: number }> {
  try {
    const res = await client.users.info({ user: userId });
    const tz: unknown = res.user?.tz;
    const offset: unknown = res.user?.tz_offset;
    return {
      tz: typeof tz === "string" && TZ_RE.test(tz) ? tz : null,
      tzOffset:
        typeof offset === "number" && Number.isInteger(offset) && Math.abs(offset) <= 14 * 3600 ? offset : 0,
    };
  } catch {
    return { tz: null, tzOffset: 0 };
  }
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

/** The subscriptions with the one of `next`'s channel replaced by `next`. */
function withSubscription(all: readonly Subscription[], next: Subscription): Subscription[] {
  return all.map((s) => (s.channelId === next.channelId ? next : s));
}
