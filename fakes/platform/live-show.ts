/**
 * Live-show controls of the sandbox: put a livestream on and off air, run ad breaks, change the
 * recording status, and play a scripted broadcast (steps with delays), so tests and the demo can
 * show a whole broadcast. Spec 2.2 / 3.2: `status.onair`, `status.airing_at` (last time it went
 * on air), `advertising.end_at` (running break) and `remaining` (of 24 per hour, 0 off air),
 * `recording.status`.
 *
 * Choices (the spec does not show them): going on air starts a fresh hourly quota of 24; an ad
 * break uses one ad and lasts `durationMs` (default 30 s); the quota is not refilled on the hour.
 */
import { unprocessable } from "./errors.js";
import { iso } from "./seed.js";
import type { SandboxLivestream } from "./types.js";

export const ADS_PER_HOUR = 24;
export const DEFAULT_AD_BREAK_MS = 30_000;
const RECORDING = ["starting", "started", "stopping", "stopped"] as const;

export type LiveAction =
  /** `at`: the real start (ISO), default now; also written to start_at. */
  | { action: "on_air"; at?: string }
  | { action: "off_air" }
  | { action: "ad_break"; durationMs?: number }
  | { action: "recording"; status: (typeof RECORDING)[number] }
  | { action: "title"; title: string };

export interface ScriptStep {
  /** Wait before this step, ms (from the previous step). */
  afterMs: number;
  step: LiveAction;
}

/** Clears an ad break that is over (advertising.end_at in the past): called before each read. */
export function settleLivestream(ls: SandboxLivestream, now: number): void {
  const end = ls.advertising.end_at === null ? Number.NaN : Date.parse(ls.advertising.end_at);
  if (Number.isFinite(end) && end <= now) ls.advertising.end_at = null;
}

/** Applies one action; throws a 422 envelope for one that makes no sense in the current state. */
export function applyLiveAction(ls: SandboxLivestream, a: LiveAction, now: number): void {
  settleLivestream(ls, now);
  const stamp = iso(now);
  switch (a.action) {
    case "on_air": {
      const at = a.at === undefined ? now : Date.parse(a.at);
      if (!Number.isFinite(at))
        throw unprocessable("INVALID_FORMAT", "at is not a date-time", { param: "at" });
      ls.status = { onair: true, airing_at: iso(at), audio_bitrate: 128_000 };
      ls.start_at = iso(at);
      ls.end_at = null;
      ls.advertising = { end_at: null, remaining: ADS_PER_HOUR };
      break;
    }
    case "off_air":
      ls.status = { ...ls.status, onair: false, audio_bitrate: null };
      ls.end_at = stamp;
      ls.advertising = { end_at: null, remaining: 0 };
      if (ls.recording.status === "started" || ls.recording.status === "starting") {
        ls.recording = { ...ls.recording, status: "stopped", end_at: stamp };
      }
      break;
    case "ad_break": {
      if (!ls.status.onair)
        throw unprocessable("INVALID_STATE", "The livestream is off air", { param: "action" });
      if (ls.advertising.remaining <= 0) {
        throw unprocessable("QUOTA_EXHAUSTED", "No ads left this hour", { param: "action" });
      }
      const ms = a.durationMs ?? DEFAULT_AD_BREAK_MS;
      ls.advertising = { end_at: iso(now + ms), remaining: ls.advertising.remaining - 1 };
      break;
    }
    case "recording":
      ls.recording = {
        ...ls.recording,
        status: a.status,
        ...(a.status === "started" ? { start_at: stamp, end_at: null } : {}),
        ...(a.status === "stopped" ? { end_at: stamp } : {}),
      };
      break;
    case "title":
      ls.title = a.title;
      break;
  }
  ls.updated_at = stamp;
}

/** Plays scripts step by step with timers; `cancelAll()` on reset and close. */
export class LiveScripts {
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    private readonly livestream: (id: string) => SandboxLivestream | undefined,
    private readonly now: () => number,
  ) {}

  /** Starts `steps` on livestream `id` (checked to exist by the caller); returns at once. */
  play(id: string, steps: readonly ScriptStep[]): void {
    const next = (i: number) => {
      const s = steps[i];
      if (s === undefined) return;
      const t = setTimeout(() => {
        this.timers.delete(t);
        const ls = this.livestream(id);
        if (ls === undefined) return;
        try {
          applyLiveAction(ls, s.step, this.now());
        } catch {
          // A step that does not apply (ad break off air) is skipped; the script goes on.
        }
        next(i + 1);
      }, s.afterMs);
      t.unref?.();
      this.timers.add(t);
    };
    next(0);
  }

  get running(): number {
    return this.timers.size;
  }

  cancelAll(): void {
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
  }
}
