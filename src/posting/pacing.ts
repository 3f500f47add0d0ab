/**
 * Pacing of Slack writes, so one channel's trouble never stalls the others:
 * - new posts at most one per `postIntervalMs` per channel (the channel never gets a flood);
 * - a 429 on chat.postMessage pauses only that channel until its Retry-After;
 * - a 429 on another method (chat.update, ...) pauses that method in the whole workspace until
 *   its Retry-After: the other channels' calls of that method would only meet the same 429;
 * - 5xx and network failures back off that channel exponentially (1 s doubling, at most 60 s).
 * Used by the worker, the digests and (given the gate) the live watch: one view of a channel.
 * More: README.md ("pacing.ts": why per method, turns, the live watch).
 */
import { classifySlackError, type SlackFailure } from "./slack-errors.js";

export interface GateOptions {
  postIntervalMs?: number | undefined;
  now?: () => number;
}

interface ChannelState {
  nextPostAt: number;
  pausedUntil: number;
  failures: number;
  /** Waiter (video key) → its turn (ms), in the order given (so in time order). */
  turns: Map<string, number>;
  /** The last turn given. */
  lastTurn: number;
}

/** A turn not taken this long after its time is dropped (its video went elsewhere). */
const MISSED_TURN_MS = 30_000;
/**
 * Turns kept per channel at most: a flood of new videos into one channel is given turns up to
 * this many; the videos beyond come back after them (spread over as many intervals again) and ask
 * again, so memory stays bounded however many videos wait.
 */
export const MAX_TURNS_PER_CHANNEL = 1_000;

/** The one method whose 429 is per channel; every other method's is per workspace. */
export const PER_CHANNEL_METHOD = "chat.postMessage";

export class ChannelGate {
  private readonly channels = new Map<string, ChannelState>();
  /** `${teamId} ${method}` → paused until (ms). */
  private readonly methods = new Map<string, number>();
  private readonly interval: number;
  private readonly now: () => number;
  /** Channels with a pass in Slack right now (this process). */
  private readonly inSlack = new Set<string>();

  constructor(opts: GateOptions = {}) {
    this.interval = opts.postIntervalMs ?? 1000;
    this.now = opts.now ?? Date.now;
  }

  private get(channel: string): ChannelState {
    let s = this.channels.get(channel);
    if (!s) {
      s = { nextPostAt: 0, pausedUntil: 0, failures: 0, turns: new Map(), lastTurn: 0 };
      this.channels.set(channel, s);
    }
    return s;
  }

  /** When the channel accepts writes again (0 = now). */
  blockedUntil(channel: string): number {
    const s = this.channels.get(channel);
    return s && s.pausedUntil > this.now() ? s.pausedUntil : 0;
  }

  /**
   * Takes the channel's next post slot if it is free now and returns 0; otherwise returns when to
   * come back. With a `waiter` (the video key) that time is the waiter's turn (see the module
   * comment): it takes the slot then, ahead of newcomers. Without one, nothing is reserved: the
   * time the slot frees.
   */
  takePostSlot(channel: string, waiter?: string): number {
    const s = this.get(channel);
    const t = this.now();
    const free = Math.max(s.nextPostAt, s.pausedUntil);
    for (const [w, turn] of s.turns) {
      if (turn >= t - MISSED_TURN_MS) break;
      s.turns.delete(w);
    }
    const turn = waiter === undefined ? undefined : s.turns.get(waiter);
    if (turn !== undefined && turn > t) return turn;
    // A turn that came while the channel is not free (a 429's pause, a late post): when it frees.
    if (free > t) return waiter === undefined || turn !== undefined ? free : this.giveTurn(s, waiter, free);
    if (turn === undefined && s.turns.size > 0)
      return waiter === undefined
        ? Math.max(free, s.lastTurn + this.interval)
        : this.giveTurn(s, waiter, free);
    if (waiter !== undefined) s.turns.delete(waiter);
    s.nextPostAt = t + this.interval;
    return 0;
  }

  private giveTurn(s: ChannelState, waiter: string, free: number): number {
    const at = Math.max(free, s.lastTurn + this.interval);
    // Past the bound: no turn kept; back after the turns given, spread so they do not return at once.
    if (s.turns.size >= MAX_TURNS_PER_CHANNEL)
      return at + Math.floor(Math.random() * MAX_TURNS_PER_CHANNEL) * this.interval;
    s.lastTurn = at;
    s.turns.set(waiter, at);
    return at;
  }

  /**
   * Takes the channel for one pass's Slack calls: false when another pass of this process has it
   * (come back at `retryAt()`). A channel whose Slack calls are slow (timeouts, a slow Slack) so
   * holds one of the worker's loops at most, never all of them.
   */
  enter(channel: string): boolean {
    if (this.inSlack.has(channel)) return false;
    this.inSlack.add(channel);
    return true;
  }

  leave(channel: string): void {
    this.inSlack.delete(channel);
  }

  /**
   * When a pass turned away by `enter` comes back: soon, never at once (with an in-process outbox
   * a video due again at once would be claimed again before the pass in Slack could finish).
   */
  retryAt(): number {
    return this.now() + Math.max(20, Math.min(this.interval, 250));
  }

  /** When the workspace accepts calls of `method` again (0 = now). */
  methodBlockedUntil(teamId: string, method: string): number {
    const key = `${teamId} ${method}`;
    const until = this.methods.get(key) ?? 0;
    if (until > this.now()) return until;
    this.methods.delete(key);
    return 0;
  }

  /**
   * Slack answered 429 with Retry-After. chat.postMessage (or no method given): pauses the channel.
   * Any other method: pauses that method in the workspace `teamId`, not the channel. Returns when
   * the pause ends.
   */
  rateLimited(channel: string, retryAfterSeconds: number, call?: { teamId: string; method: string }): number {
    const until = this.now() + Math.max(1, retryAfterSeconds) * 1000;
    if (call && call.method !== PER_CHANNEL_METHOD) {
      const key = `${call.teamId} ${call.method}`;
      const at = Math.max(this.methods.get(key) ?? 0, until);
      this.methods.set(key, at);
      return at;
    }
    const s = this.get(channel);
    s.pausedUntil = Math.max(s.pausedUntil, until);
    return s.pausedUntil;
  }

  /**
   * A failed Slack call's effect on the pace: a 429 pauses the channel (chat.postMessage) or the
   * method in the workspace (`rateLimited`), a 5xx or network failure backs the channel off
   * (`failed`); anything else (a refusal, a token problem) leaves the pace as it is, the caller
   * decides. Returns what the failure was (the one classifier's answer).
   */
  failedCall(channel: string, err: unknown, call: { teamId: string; method: string }): SlackFailure {
    const f = classifySlackError(err);
    if (f.kind === "rate_limited") this.rateLimited(channel, f.retryAfterSeconds, call);
    else if (f.kind === "transient") this.failed(channel);
    return f;
  }

  failed(channel: string): number {
    const s = this.get(channel);
    s.failures++;
    const delay = Math.min(60_000, 1000 * 2 ** (s.failures - 1));
    s.pausedUntil = Math.max(s.pausedUntil, this.now() + delay);
    return s.pausedUntil;
  }

  succeeded(channel: string): void {
    const s = this.channels.get(channel);
    if (s) s.failures = 0;
  }
}
