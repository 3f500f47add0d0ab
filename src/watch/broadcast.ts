/**
 * The broadcast reducer: (previous broadcast, what one poll saw, now, grace) → next broadcast and
 * the effects the service performs. Pure: no clock, no I/O.
 *
 * A broadcast is one stretch on air. Its id is its real start in ms (`status.airing_at`, else a
 * `start_at` not in the future, else the time of the poll that first saw it), so a broadcast that
 * started while the bot was down is announced on the next poll as live since its real start.
 * More: README.md ("broadcast.ts").
 */
import type { RecordingStatus } from "../platform/index.js";

/** What one sparse GET told about the livestream (times in ms, null when absent). */
export interface LiveSnapshot {
  onAir: boolean;
  airingAt: number | null;
  startAt: number | null;
  title: string;
  url: string | null;
  thumbnailUrl: string | null;
  /** End of the running ad break; null when none runs. */
  adEndAt: number | null;
  /** Ads left this hour (of 24); null when not given. */
  adsRemaining: number | null;
  recording: RecordingStatus | null;
}

export type BroadcastPhase = "live" | "grace" | "ended";

export interface Broadcast {
  /** The real start in ms, as a string: stable for the whole broadcast (keys of its messages). */
  id: string;
  phase: BroadcastPhase;
  startedAt: number;
  lastOnAirAt: number;
  /** First poll that found it off air, while in the grace or ended. */
  offAirSince: number | null;
  endedAt: number | null;
  /** The final update and summary went to every channel. */
  finalized: boolean;
  title: string;
  url: string | null;
  thumbnailUrl: string | null;
  adEndAt: number | null;
  adsRemaining: number | null;
  recording: RecordingStatus | null;
  /** Counted for the summary. */
  adBreaks: number;
  recordings: number;
  /** The quota-used-up milestone was posted for the current exhaustion (reset when ads come back). */
  quotaUsedUp: boolean;
}

export type Milestone = "recording_started" | "recording_stopped" | "ad_quota_used_up";

export type Effect =
  | { type: "announce" }
  | { type: "sync" }
  | { type: "milestone"; milestone: Milestone }
  | { type: "end" };

export interface Step {
  next: Broadcast | null;
  effects: Effect[];
}

/** The real start of what the snapshot shows on air. */
export function realStart(s: LiveSnapshot, now: number): number {
  if (s.airingAt !== null && s.airingAt <= now) return s.airingAt;
  if (s.startAt !== null && s.startAt <= now) return s.startAt;
  return now;
}

function facts(s: LiveSnapshot) {
  return {
    title: s.title,
    url: s.url,
    thumbnailUrl: s.thumbnailUrl,
    adEndAt: s.adEndAt,
    adsRemaining: s.adsRemaining,
    recording: s.recording,
  };
}

function startBroadcast(s: LiveSnapshot, now: number): Broadcast {
  const startedAt = realStart(s, now);
  const recordingOn = s.recording === "started";
  return {
    id: String(startedAt),
    phase: "live",
    startedAt,
    lastOnAirAt: now,
    offAirSince: null,
    endedAt: null,
    finalized: false,
    ...facts(s),
    adBreaks: s.adEndAt !== null ? 1 : 0,
    recordings: recordingOn ? 1 : 0,
    quotaUsedUp: s.adsRemaining === 0,
  };
}

/** Milestones and counters from the change between `prev` and an on-air snapshot. */
function onAirChanges(
  prev: Broadcast,
  s: LiveSnapshot,
): { counts: Partial<Broadcast>; milestones: Milestone[] } {
  const milestones: Milestone[] = [];
  let { adBreaks, recordings, quotaUsedUp } = prev;
  if (s.recording === "started" && prev.recording !== "started") {
    recordings += 1;
    milestones.push("recording_started");
  }
  if (
    (s.recording === "stopped" || s.recording === "stopping") &&
    (prev.recording === "started" || prev.recording === "starting")
  ) {
    milestones.push("recording_stopped");
  }
  if (s.adEndAt !== null && (prev.adEndAt === null || s.adEndAt > prev.adEndAt)) adBreaks += 1;
  if (s.adsRemaining === 0 && !quotaUsedUp) {
    quotaUsedUp = true;
    milestones.push("ad_quota_used_up");
  } else if (s.adsRemaining !== null && s.adsRemaining > 0) {
    quotaUsedUp = false;
  }
  return { counts: { adBreaks, recordings, quotaUsedUp }, milestones };
}

export function reduce(prev: Broadcast | null, s: LiveSnapshot, now: number, graceMs: number): Step {
  if (s.onAir) {
    const reopen = prev !== null && prev.phase === "ended" && prev.id === String(realStart(s, now));
    if (prev !== null && (prev.phase !== "ended" || reopen)) {
      const { counts, milestones } = onAirChanges(prev, s);
      const next: Broadcast = {
        ...prev,
        ...facts(s),
        ...counts,
        phase: "live",
        lastOnAirAt: now,
        offAirSince: null,
        endedAt: null,
        finalized: false,
      };
      return {
        next,
        effects: [...milestones.map((m) => ({ type: "milestone", milestone: m }) as const), { type: "sync" }],
      };
    }
    return { next: startBroadcast(s, now), effects: [{ type: "announce" }, { type: "sync" }] };
  }
  // Off air.
  if (prev === null) return { next: null, effects: [] };
  if (prev.phase === "ended") {
    return { next: prev, effects: prev.finalized ? [] : [{ type: "end" }] };
  }
  if (prev.phase === "live") {
    // The recording stopping with the stream is said in the summary, not as a milestone.
    return {
      next: { ...prev, phase: "grace", offAirSince: now, adEndAt: null },
      effects: [{ type: "sync" }],
    };
  }
  const since = prev.offAirSince ?? now;
  if (now - since < graceMs) return { next: prev, effects: [] };
  return {
    next: {
      ...prev,
      phase: "ended",
      // It was last seen on air at lastOnAirAt; it went off somewhere before `since`.
      endedAt: Math.max(prev.lastOnAirAt, prev.startedAt),
      adEndAt: null,
      adsRemaining: 0,
      recording: s.recording ?? prev.recording,
      finalized: false,
    },
    effects: [{ type: "end" }],
  };
}

/**
 * The livestream fields a poll asks for (sparse GET, spec 4.1), with its owning profile: access is
 * decided again with it (service.ts), in the same single GET.
 */
export const POLL_FIELDS = [
  "profile.profile_id",
  "title",
  "livestream_url",
  "start_at",
  "status.onair",
  "status.airing_at",
  "advertising.end_at",
  "advertising.remaining",
  "recording.status",
  "thumbnail.h720_url",
] as const;

const ms = (ts: string | null | undefined): number | null => {
  if (typeof ts !== "string") return null;
  const v = Date.parse(ts);
  return Number.isFinite(v) ? v : null;
};

/** The snapshot of a sparse livestream (missing parts read as off air / unknown). */
export function snapshotOf(ls: {
  title?: string;
  livestream_url?: string;
  start_at?: string | null;
  status?: { onair?: boolean; airing_at?: string | null };
  advertising?: { end_at?: string | null; remaining?: number };
  recording?: { status?: string };
  thumbnail?: { h720_url?: string | null };
}): LiveSnapshot {
  const rec = ls.recording?.status;
  return {
    onAir: ls.status?.onair === true,
    airingAt: ms(ls.status?.airing_at),
    startAt: ms(ls.start_at),
    title: ls.title ?? "",
    url: ls.livestream_url ?? null,
    thumbnailUrl: ls.thumbnail?.h720_url ?? null,
    adEndAt: ms(ls.advertising?.end_at),
    adsRemaining: typeof ls.advertising?.remaining === "number" ? ls.advertising.remaining : null,
    recording:
      rec === "starting" || rec === "started" || rec === "stopping" || rec === "stopped" ? rec : null,
  };
}
