/**
 * The words the messages state and the layers below check, defined once here because
 * src/messages imports nothing: the webhook events (spec 6.1) and the line describing each, the
 * state of a webhook (spec table 3.3), what a platform id and a stored mention may be, and the
 * two caps the video messages quote. src/platform, src/store, src/notify and src/slack/grammar.ts
 * import them from here.
 */

export const WEBHOOK_EVENTS = [
  "video.created",
  "video.deleted",
  "video.published",
  "video.complete",
  "video.format.ready",
  "video.format.processing",
  "video.format.error",
  "video.format.deleted",
] as const;

export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/** Spec 6.1: one line per event, for help texts and the events editor. */
export const WEBHOOK_EVENT_DESCRIPTIONS: Record<WebhookEvent, string> = {
  "video.created": "The video is created (before publication and encoding).",
  "video.deleted": "The video is deleted.",
  "video.published": "The video is published: SD and preview are encoded and the required metadata exist.",
  "video.complete": "The video is ready: all associated formats have been created.",
  "video.format.processing": "The encoders are processing a video format.",
  "video.format.ready": "Encoding of a video format is done.",
  "video.format.error": "An error occurred while encoding a specific format.",
  "video.format.deleted": "A video format is deleted.",
};

export function isWebhookEvent(value: string): value is WebhookEvent {
  return (WEBHOOK_EVENTS as readonly string[]).includes(value);
}

/** A profile's webhook as the platform answers it (spec 2.3). */
export interface WebhookConfig {
  callback_url: string | null;
  events: string[] | null;
}

export type WebhookState = "none" | "configured" | "partial";

export const hasUrl = (w: WebhookConfig) => w.callback_url !== null && w.callback_url !== "";
export const hasEvents = (w: WebhookConfig) => w.events !== null && w.events.length > 0;

/** State of spec table 3.3. "partial" should not exist, but a robust client names it. */
export function webhookState(w: WebhookConfig): WebhookState {
  if (hasUrl(w) && hasEvents(w)) return "configured";
  if (!hasUrl(w) && !hasEvents(w)) return "none";
  return "partial";
}

const ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** Whether `s` has the shape of a platform id (profile or livestream): what commands and forms accept. */
export function isPlatformId(s: string): boolean {
  return ID.test(s);
}

/** What a stored `mention` may be: `here` or a Slack user id, nothing else (nothing can be injected). */
export const MENTION_RE = /^(?:here|[UW][A-Z0-9]{2,20})$/;

/** Pings per channel in any 60 minutes (src/notify/mentions.ts holds to it; a reply held back says it). */
export const MENTIONS_PER_CHANNEL_PER_HOUR = 3;

/** Distinct ignored preset names a video's state counts (the message then says "N+ more"). */
export const IGNORED_PRESETS_CAP = 200;
