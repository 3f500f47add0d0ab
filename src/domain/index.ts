/**
 * The bot's domain at the bottom of the house: the webhook's events and rules, what an id and a
 * mention may be, canonical JSON, and the keys of the notification path. Imports nothing of src/;
 * every folder imports it through this file.
 */
export {
  hasEvents,
  hasUrl,
  isWebhookEvent,
  WEBHOOK_EVENT_DESCRIPTIONS,
  WEBHOOK_EVENTS,
  type WebhookConfig,
  type WebhookEvent,
  type WebhookState,
  webhookState,
} from "./events.js";
export { isPlatformId } from "./ids.js";
export { canonicalJson } from "./json.js";
export {
  channelKeyOf,
  type DigestKey,
  digestKeyOf,
  isChannelKey,
  type KeyParts,
  partsOfDigestKey,
  partsOfVideoKey,
  profileKeyOf,
  profileOfVideoKey,
  titleRef,
  type VideoKey,
  videoKeyOf,
  workspaceOfKey,
} from "./keys.js";
export { MENTION_RE, MENTIONS_PER_CHANNEL_PER_HOUR } from "./mentions.js";
export type { RevokedCheck } from "./revoked.js";
export { IGNORED_PRESETS_CAP } from "./video.js";
