/**
 * The webhook's events (spec 6.1), the line describing each, and the state of a profile's webhook
 * (spec table 3.3): the rules the platform client checks and the words the messages state.
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
