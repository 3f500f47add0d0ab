/**
 * Channel subscriptions of a profile (settings version 3): each channel that receives the
 * profile's notifications, with its own filter.
 * More: README.md ("subscriptions.ts").
 */

import { z } from "zod";
import { MENTION_RE } from "../domain/index.js";

export interface Subscription {
  channelId: string;
  events: string[];
  /** Preset names; empty = all. */
  presets: string[];
  /** null, "here" (`<!here>`) or a Slack user id (`<@U…>`). */
  mention: string | null;
  setBy: string;
  setAt: string;
  /** Absent: live messages. */
  digest?: DigestMode;
  /** Absent: not paused (a pause whose `until` passed is over). */
  pause?: Pause;
}

/** A digest subscription: when its digests are posted. */
export interface DigestMode {
  every: "daily" | "weekly";
  /** Time of day, `HH:MM`, in the subscriber's time zone. */
  at: string;
  /** The subscriber's Slack time zone (IANA name, `users.info` `tz`), null when Slack gave none. */
  tz: string | null;
  /** Its offset from UTC in seconds (`tz_offset`): used when `tz` is null or unknown here. */
  tzOffset: number;
  /** ISO date-time the digest was set up: periods shorter than a day are counted from it. */
  since: string;
}

/** A channel's pause: nothing of the profile is posted there until `until`. */
export interface Pause {
  /** ISO date-time the pause ends (by itself, or earlier with `/webhook resume`). */
  until: string;
  /** ISO date-time it began: names the pause (one catch-up per pause). */
  at: string;
  /** Slack user id. */
  by: string;
}

/** A preset name as the platform writes it (`720p`, `h264_1080p`). */
export const PRESET_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** `HH:MM`, 00:00 to 23:59. */
export const TIME_OF_DAY_RE = /^(?:[01]\d|2[0-3]):[0-5]\d$/;
/** An IANA time zone name as Slack gives it (`Europe/Paris`, `America/Argentina/Buenos_Aires`). */
export const TZ_RE = /^[A-Za-z][A-Za-z0-9_+\-/]{0,63}$/;

const isoDateTime = z.iso.datetime({ offset: true });

export const digestModeSchema = z
  .object({
    every: z.enum(["daily", "weekly"]),
    at: z.string().regex(TIME_OF_DAY_RE),
    tz: z.string().regex(TZ_RE).nullable(),
    tzOffset: z
      .number()
      .int()
      .min(-14 * 3600)
      .max(14 * 3600),
    since: isoDateTime,
  })
  .strict();

export const pauseSchema = z
  .object({ until: isoDateTime, at: isoDateTime, by: z.string().min(1).max(40) })
  .strict();

export const subscriptionSchema = z
  .object({
    channelId: z.string().min(1).max(40),
    events: z.array(z.string().min(1)).max(50),
    presets: z.array(z.string().regex(PRESET_RE)).max(50),
    mention: z.string().regex(MENTION_RE).nullable(),
    setBy: z.string().min(1),
    setAt: isoDateTime,
    digest: digestModeSchema.optional(),
    pause: pauseSchema.optional(),
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
