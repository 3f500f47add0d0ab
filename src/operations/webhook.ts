/**
 * The webhook operations behind `/webhook` and its buttons: one place that keeps the platform,
 * the workspace settings and the delivery routes consistent.
 * More: README.md ("webhook.ts").
 */

import type { Cause } from "../access/index.js";
import type { BotDeps } from "../deps.js";
import {
  isWebhookEvent,
  videoKeyOf,
  WEBHOOK_EVENTS,
  type WebhookConfig,
  type WebhookEvent,
} from "../domain/index.js";
import { callbackUrlFor } from "../http/paths.js";
import { SAMPLE_TITLE, sampleLifecycle, sampleVideoId } from "../notify/sample.js";
import { noteTitle } from "../notify/title.js";
import { isPlatformError } from "../platform/index.js";
import {
  callbackIdOf,
  newCallbackToken,
  type ProfileSettings,
  type Subscription,
  tokenMatchesCallbackId,
  unionOfEvents,
} from "../store/index.js";

export interface WebhookView {
  profileId: string;
  webhook: WebhookConfig;
  settings: ProfileSettings | undefined;
  /** The platform's callback URL is this bot's route for this workspace. */
  ownsCallback: boolean;
  /** `${PUBLIC_URL}/hooks/platform/`: every URL under it is this bot's, and its token is hidden. */
  botHookPrefix: string;
}

function hookPrefix(deps: BotDeps): string {
  return callbackUrlFor(deps.config.publicUrl, "");
}

/**
 * Whether `callbackUrl` is this bot's URL for route `callbackId`: it starts with
 * `${PUBLIC_URL}/hooks/platform/` and the rest, a token, hashes to the callback id (compared in
 * constant time).
 */
export function isOurCallback(
  publicUrl: string,
  callbackUrl: string | null,
  callbackId: string | null,
): boolean {
  if (callbackUrl === null || callbackId === null) return false;
  const prefix = callbackUrlFor(publicUrl, "");
  if (!callbackUrl.startsWith(prefix)) return false;
  return tokenMatchesCallbackId(callbackUrl.slice(prefix.length), callbackId);
}

/**
 * The profile's webhook and this workspace's routing of it. The read is charged to `cause`: by
 * default the workspace (`/webhook show` charged its person when it was authorized).
 */
export async function readWebhook(
  deps: BotDeps,
  teamId: string,
  profileId: string,
  cause: Cause = { workspace: teamId },
): Promise<WebhookView> {
  const [webhook, settings] = await Promise.all([
    deps.platform.getProfileWebhook(cause, profileId),
    deps.settings.getProfile(teamId, profileId),
  ]);
  const ownsCallback = isOurCallback(
    deps.config.publicUrl,
    webhook.callback_url,
    settings?.callbackId ?? null,
  );
  return { profileId, webhook, settings, ownsCallback, botHookPrefix: hookPrefix(deps) };
}

export interface SetRequest {
  teamId: string;
  profileId: string;
  channelId: string;
  userId: string;
  /** A foreign HTTPS callback; null points the webhook at this bot. */
  url: string | null;
  events: WebhookEvent[];
}

/**
 * The settings after `set`: this channel's subscription (its events) replaces any it had; the other
 * channels' subscriptions are kept (a foreign URL has none). `events`: what the platform carries.
 */
function settingsFor(
  req: SetRequest,
  token: string | null,
  events: readonly string[],
  now: Date,
  previous: ProfileSettings | undefined,
): ProfileSettings {
  const own = req.url === null;
  const others = own ? (previous?.subscriptions ?? []).filter((x) => x.channelId !== req.channelId) : [];
  const mine: Subscription = {
    channelId: req.channelId,
    events: [...req.events],
    presets: [],
    mention: null,
    setBy: req.userId,
    setAt: now.toISOString(),
  };
  return {
    profileId: req.profileId,
    channelId: own ? req.channelId : null,
    callbackId: token === null ? null : callbackIdOf(token),
    foreignUrl: req.url,
    events: [...events],
    setBy: req.userId,
    setAt: now.toISOString(),
    subscriptions: own ? [mine, ...others] : [],
  };
}

/** The events the platform must carry after `set`: the union of the subscriptions' events. */
function platformEventsFor(req: SetRequest, previous: ProfileSettings | undefined): WebhookEvent[] {
  if (req.url !== null) return req.events;
  const others = (previous?.subscriptions ?? []).filter((x) => x.channelId !== req.channelId);
  return unionOfEvents([{ events: req.events }, ...others], WEBHOOK_EVENTS).filter(isWebhookEvent);
}

export async function setWebhook(deps: BotDeps, req: SetRequest): Promise<WebhookView> {
  const claim = await deps.access.claimOf(req.profileId);
  if (claim && !claim.counts && claim.holder !== req.teamId) {
    deps.logger.warn(
      { profile: req.profileId, from: claim.holder, to: req.teamId },
      "profile taken over: its claim's holder may no longer act on it (uninstalled, not allowed or not bound)",
    );
    await deps.settings.claims.release(req.profileId, claim.holder);
  }
  const claimed = await deps.settings.claims.take(req.profileId, req.teamId, deps.now());
  try {
    return await setClaimedWebhook(deps, req);
  } catch (err) {
    // The platform refused, so it did not change: the profile is free again.
    if (claimed && isPlatformError(err) && err.kind !== "not_confirmed")
      await deps.settings.claims.release(req.profileId, req.teamId).catch(() => undefined);
    throw err;
  }
}

async function setClaimedWebhook(deps: BotDeps, req: SetRequest): Promise<WebhookView> {
  const previous = await deps.settings.getProfile(req.teamId, req.profileId);
  const newToken = req.url === null ? newCallbackToken() : null;
  if (newToken) {
    await deps.callbacks.put(newToken, {
      teamId: req.teamId,
      profileId: req.profileId,
      channelId: req.channelId,
    });
  }
  let webhook: WebhookConfig;
  try {
    webhook = await deps.platform.setWebhook(req.profileId, {
      callback_url: newToken === null ? (req.url ?? "") : callbackUrlFor(deps.config.publicUrl, newToken),
      events: platformEventsFor(req, previous),
    });
  } catch (err) {
    if (isPlatformError(err) && err.kind === "not_confirmed") {
      // The platform may point at the new route already: keep it and record it, so no delivery
      // is lost; the person is told the change could not be confirmed.
      const events = platformEventsFor(req, previous);
      await deps.settings.updateProfile(req.teamId, req.profileId, (now) =>
        settingsFor(req, newToken, events, deps.now(), now),
      );
    } else if (newToken) {
      await deps.callbacks.delete(newToken).catch(() => undefined);
    }
    throw err;
  }
  // Other channels' subscriptions as stored when written (compare-and-set): one added meanwhile stays.
  const events = webhook.events ?? platformEventsFor(req, previous);
  const replaced: { callbackId: string | null } = { callbackId: null };
  const saved = await deps.settings.updateProfile(req.teamId, req.profileId, (now) => {
    replaced.callbackId = now?.callbackId ?? null;
    return settingsFor(req, newToken, events, deps.now(), now);
  });
  const settings = saved ?? settingsFor(req, newToken, events, deps.now(), previous);
  if (replaced.callbackId !== null && replaced.callbackId !== settings.callbackId)
    await deps.callbacks.deleteById(replaced.callbackId);
  return {
    profileId: req.profileId,
    webhook,
    settings,
    ownsCallback: newToken !== null,
    botHookPrefix: hookPrefix(deps),
  };
}

/**
 * Removes the platform's webhook, then this workspace's route and settings for the profile. The
 * caller authorized "webhook.remove" first (src/access: role, binding, claim).
 */
export async function removeWebhook(deps: BotDeps, teamId: string, profileId: string): Promise<void> {
  const settings = await deps.settings.getProfile(teamId, profileId);
  await deps.platform.removeWebhook(profileId);
  if (settings?.callbackId) await deps.callbacks.deleteById(settings.callbackId);
  if (settings) await deps.settings.removeProfile(teamId, profileId);
  await deps.settings.claims.release(profileId, teamId);
}

export type TestOutcome =
  | { kind: "sent"; videoId: string; events: number; channelId: string }
  | { kind: "foreign"; url: string }
  | { kind: "not-configured" };

/**
 * `/webhook test`: a realistic sample lifecycle through the delivery route's own path (the route,
 * found by the profile's callback id, then validation, deduplication, durable outbox), then the
 * worker posts it like every other video. The platform does not have the sample video: its title
 * is given to the worker first, so it is not read (nor shown as not confirmed).
 */
export async function sendTestLifecycle(
  deps: BotDeps,
  teamId: string,
  profileId: string,
): Promise<TestOutcome> {
  const settings = await deps.settings.getProfile(teamId, profileId);
  if (!settings) return { kind: "not-configured" };
  if (settings.foreignUrl || !settings.callbackId || !settings.channelId) {
    return { kind: "foreign", url: settings.foreignUrl ?? "" };
  }
  const route = await deps.callbacks.getById(settings.callbackId);
  if (!route) throw new Error("the sample delivery was refused (404: unknown delivery token)");
  const videoId = sampleVideoId();
  const events = sampleLifecycle(profileId, deps.now().getTime(), videoId);
  await noteTitle(deps.outbox, videoKeyOf(route.teamId, route.profileId, videoId), SAMPLE_TITLE);
  for (const e of events) {
    const r = await deps.ingest(route, JSON.stringify(e));
    if (r.status !== 200)
      throw new Error(`the sample delivery was refused (${r.status}: ${String(r.body.error)})`);
  }
  return { kind: "sent", videoId, events: events.length, channelId: settings.channelId };
}
