/**
 * When a digest subscription's digests are due, and whether a subscription holds its channel's
 * live messages back (a digest, or a pause that has not ended). Pure: the period and the clock in.
 *
 * The period is DIGEST_PERIOD (default 24 h) for a daily digest, seven times it for a weekly one.
 * More: README.md ("digest-times.ts").
 */
import type { DigestMode, Subscription } from "./subscriptions.js";

export const DAY_MS = 86_400_000;

/** The length of one period of the digest. */
export function periodOf(d: Pick<DigestMode, "every">, periodMs: number): number {
  return d.every === "weekly" ? 7 * periodMs : periodMs;
}

const formats = new Map<string, Intl.DateTimeFormat | null>();

function formatFor(tz: string): Intl.DateTimeFormat | null {
  let f = formats.get(tz);
  if (f === undefined) {
    try {
      f = new Intl.DateTimeFormat("en-US", {
        timeZone: tz,
        hourCycle: "h23",
        year: "numeric",
        month: "numeric",
        day: "numeric",
        hour: "numeric",
        minute: "numeric",
        second: "numeric",
      });
    } catch {
      f = null; // not a zone this runtime knows: the fixed offset is used
    }
    if (formats.size > 1_000) formats.clear();
    formats.set(tz, f);
  }
  return f;
}

/** The zone's offset from UTC at `instant`, ms. */
function offsetAt(d: Pick<DigestMode, "tz" | "tzOffset">, instant: number): number {
  const f = d.tz === null ? null : formatFor(d.tz);
  if (f === null) return d.tzOffset * 1000;
  const parts: Record<string, number> = {};
  for (const p of f.formatToParts(new Date(instant)))
    if (p.type !== "literal") parts[p.type] = Number(p.value);
  const asUtc = Date.UTC(
    parts.year ?? 1970,
    (parts.month ?? 1) - 1,
    parts.day ?? 1,
    parts.hour ?? 0,
    parts.minute ?? 0,
    parts.second ?? 0,
  );
  return asUtc - Math.floor(instant / 1000) * 1000;
}

/** The local day (days since the epoch) of `instant` in the zone. */
function localDay(d: Pick<DigestMode, "tz" | "tzOffset">, instant: number): number {
  return Math.floor((instant + offsetAt(d, instant)) / DAY_MS);
}

/** The instant of local `minutes` after midnight on local day `day` in the zone. */
function localInstant(d: Pick<DigestMode, "tz" | "tzOffset">, day: number, minutes: number): number {
  const wall = day * DAY_MS + minutes * 60_000;
  const guess = wall - offsetAt(d, wall);
  return wall - offsetAt(d, guess);
}

function minutesOf(at: string): number {
  const [h, m] = at.split(":");
  return Number(h) * 60 + Number(m);
}

interface Times {
  /** The k-th digest time (k ≥ 0). */
  at(k: number): number;
  /** A k whose time is at or before `t` (or 0), close below the answer. */
  near(t: number): number;
}

function timesOf(d: DigestMode, periodMs: number): Times {
  const step = periodOf(d, periodMs);
  const since = Date.parse(d.since);
  if (periodMs < DAY_MS || step % DAY_MS !== 0) {
    // Counted from the subscription time: the first digest one period after it.
    return {
      at: (k) => since + (k + 1) * step,
      near: (t) => Math.max(0, Math.floor((t - since) / step) - 2),
    };
  }
  const days = step / DAY_MS;
  const minutes = minutesOf(d.at);
  let first = localDay(d, since);
  if (localInstant(d, first, minutes) < since) first += 1;
  return {
    at: (k) => localInstant(d, first + k * days, minutes),
    near: (t) => Math.max(0, Math.floor((localDay(d, t) - first) / days) - 2),
  };
}

/** The first digest time after `after` (strictly). */
export function nextDigestAt(d: DigestMode, periodMs: number, after: number): number {
  const times = timesOf(d, periodMs);
  for (let k = times.near(after); ; k++) {
    const t = times.at(k);
    if (t > after) return t;
  }
}

/** The latest digest time at or before `now`, or null when the first one is still to come. */
export function lastDigestAt(d: DigestMode, periodMs: number, now: number): number | null {
  const times = timesOf(d, periodMs);
  let last: number | null = null;
  for (let k = times.near(now); ; k++) {
    const t = times.at(k);
    if (t > now) return last;
    last = t;
  }
}

/** Why a channel's live messages are held back, and when what is held is due. */
export interface Hold {
  why: "pause" | "digest";
  /** The pause's end, or the next digest time. */
  dueAt: number;
}

/** Whether the subscription holds its channel's live messages back at `now`: a pause, else a digest. */
export function holdOf(
  s: Pick<Subscription, "digest" | "pause">,
  periodMs: number,
  now: number,
): Hold | null {
  const until = s.pause ? Date.parse(s.pause.until) : Number.NaN;
  if (until > now) return { why: "pause", dueAt: until };
  if (s.digest) return { why: "digest", dueAt: nextDigestAt(s.digest, periodMs, now) };
  return null;
}

/** Whether the subscription's pause is on at `now`. */
export function pausedAt(s: Pick<Subscription, "pause">, now: number): boolean {
  return s.pause !== undefined && Date.parse(s.pause.until) > now;
}
