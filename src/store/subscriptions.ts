/**
 * Channel subscriptions of a profile (settings version 3): each channel that receives the
 * profile's notifications, with its own filter.
 *
 *  - `events`: the delivery types it shows (the platform's webhook carries the union of every
 *    subscription's events);
 *  - `presets`: empty = every format; otherwise the preset-specific events (`video.format.*`, by
 *    `preset_name`) of those presets only; events that are not about a preset pass;
 *  - `mention`: null, "here" or a Slack user id, put only in the format-error thread reply.
 */
import { z } from "zod";
import { MENTION_RE } from "../messages/index.js";

export interface Subscription {
  channelId: string;
  events: string[];
  /** Preset names; empty = all. */
  presets: string[];
  /** null, "here" (`<!here>`) or a Slack user id (`<@U…>`). */
  mention: string | null;
  setBy: string;
  setAt: string;
}

/** A preset name as the platform writes it (`720p`, `h264_1080p`). */
export const PRESET_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
/** A Slack conversation id. */
export const CHANNEL_RE = /^[CDG][A-Z0-9]{2,30}$/;

export const subscriptionSchema = z
  .object({
    channelId: z.string().min(1).max(40),
    events: z.array(z.string().min(1)).max(50),
    presets: z.array(z.string().regex(PRESET_RE)).max(50),
    mention: z.string().regex(MENTION_RE).nullable(),
    setBy: z.string().min(1),
    setAt: z.iso.datetime({ offset: true }),
  })
  .strict();

/**
 * Whether a delivery of `type` with `data` passes the subscription's filter. A subscription to
 * every event of `known` also passes types the bot does not know (shown as they are, as before).
 */
export function matchesSubscription(
  sub: Pick<Subscription, "events" | "presets">,
  type: string,
  data: Record<string, unknown>,
  known: readonly string[],
): boolean {
  const all = known.every((e) => sub.events.includes(e));
  if (!sub.events.includes(type) && !(all && !known.includes(type))) return false;
  if (sub.presets.length === 0 || !type.startsWith("video.format.")) return true;
  const preset = data.preset_name;
  return typeof preset === "string" && sub.presets.includes(preset);
}

/** The union of the subscriptions' events, in the order of `known` (then any other, sorted). */
export function unionOfEvents(
  subs: readonly Pick<Subscription, "events">[],
  known: readonly string[],
): string[] {
  const all = new Set(subs.flatMap((s) => s.events));
  return [...known.filter((e) => all.has(e)), ...[...all].filter((e) => !known.includes(e)).sort()];
}

export function sameEventSet(a: readonly string[], b: readonly string[]): boolean {
  const sa = new Set(a);
  const sb = new Set(b);
  return sa.size === sb.size && [...sa].every((e) => sb.has(e));
}
