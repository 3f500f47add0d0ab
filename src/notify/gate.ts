/**
 * Per-channel pacing of Slack writes, so one channel's trouble never stalls the others:
 * - new posts at most one per `postIntervalMs` per channel (the channel never gets a flood);
 * - a 429 pauses only that channel until its Retry-After;
 * - 5xx and network failures back off that channel exponentially (1 s doubling, at most 60 s).
 * Per process: with several replicas the pace is per replica (documented in the README).
 */
export interface GateOptions {
  postIntervalMs?: number;
  now?: () => number;
}

interface ChannelState {
  nextPostAt: number;
  pausedUntil: number;
  failures: number;
}

export class ChannelGate {
  private readonly channels = new Map<string, ChannelState>();
  private readonly interval: number;
  private readonly now: () => number;

  constructor(o: GateOptions = {}) {
    this.interval = o.postIntervalMs ?? 1000;
    this.now = o.now ?? Date.now;
  }

  private get(channel: string): ChannelState {
    let s = this.channels.get(channel);
    if (!s) {
      s = { nextPostAt: 0, pausedUntil: 0, failures: 0 };
      this.channels.set(channel, s);
    }
    return s;
  }

  /** When the channel accepts any write again (0 = now). */
  blockedUntil(channel: string): number {
    const s = this.channels.get(channel);
    return s && s.pausedUntil > this.now() ? s.pausedUntil : 0;
  }

  /**
   * Takes the channel's next post slot if it is free now and returns 0; otherwise returns the time
   * the slot frees (nothing is reserved, the caller comes back then).
   */
  takePostSlot(channel: string): number {
    const s = this.get(channel);
    const t = this.now();
    const at = Math.max(s.nextPostAt, s.pausedUntil);
    if (at > t) return at;
    s.nextPostAt = t + this.interval;
    return 0;
  }

  rateLimited(channel: string, retryAfterSeconds: number): number {
    const s = this.get(channel);
    s.pausedUntil = Math.max(s.pausedUntil, this.now() + Math.max(1, retryAfterSeconds) * 1000);
    return s.pausedUntil;
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
