/** The mention syntax a subscription may store, and how often a channel may be pinged. */

/** What a stored `mention` may be: `here` or a Slack user id, nothing else (nothing can be injected). */
export const MENTION_RE = /^(?:here|[UW][A-Z0-9]{2,20})$/;

/** Pings per channel in any 60 minutes (src/notify/mentions.ts holds to it; a reply held back says it). */
export const MENTIONS_PER_CHANNEL_PER_HOUR = 3;
