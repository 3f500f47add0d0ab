/**
 * Shared reads: identical platform reads (same livestream, same field list) share one GET while it
 * is in flight and for at most `ttlMs` (10 s) after it answered, so a flood of Refresh presses,
 * previews or status cards of one livestream costs the platform one GET. A failure is shared only
 * while in flight (the next read tries again), unless `keepFailure` says it is an answer too (the
 * Authorizer keeps "does not exist", so a flood of one unknown id costs one GET as well). Bounded: expired entries are dropped, and past
 * `maxEntries` the oldest go first. Per process: each replica reads on its own.
 *
 * It keeps data only: who may see it is decided per request by the Authorizer, on the shared result.
 */

interface Entry<T> {
  read: Promise<T>;
  /** When the read answered (undefined while in flight). */
  answeredAt: number | undefined;
}

export interface SharedReadsOptions {
  ttlMs?: number;
  /** A failure kept like an answer (shared for ttlMs); others are dropped once they settle. */
  keepFailure?: (err: unknown) => boolean;
  maxEntries?: number;
  now?: () => number;
}

export const SHARED_READ_TTL_MS = 10_000;

export class SharedReads<T> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(private readonly opts: SharedReadsOptions = {}) {}

  private now(): number {
    return this.opts.now?.() ?? Date.now();
  }

  private fresh(e: Entry<T>, now: number): boolean {
    return e.answeredAt === undefined || now - e.answeredAt < (this.opts.ttlMs ?? SHARED_READ_TTL_MS);
  }

  /**
   * The read of `key` in flight or answered less than ttlMs ago, to join; else undefined. With
   * `inFlightOnly`, an answered read is not joined (a details pane reads what is true now).
   */
  joinable(key: string, o: { inFlightOnly?: boolean } = {}): Promise<T> | undefined {
    const e = this.entries.get(key);
    if (e === undefined) return undefined;
    if (!this.fresh(e, this.now())) {
      this.entries.delete(key);
      return undefined;
    }
    return o.inFlightOnly && e.answeredAt !== undefined ? undefined : e.read;
  }

  /**
   * Joins the read of `key` if there is one (`inFlightOnly`: only one in flight), else starts
   * `fetch` and keeps it for the others.
   */
  run(
    key: string,
    fetch: () => Promise<T>,
    o: { inFlightOnly?: boolean } = {},
  ): { read: Promise<T>; joined: boolean } {
    const joined = this.joinable(key, o);
    if (joined) return { read: joined, joined: true };
    const entry: Entry<T> = { read: fetch(), answeredAt: undefined };
    this.entries.set(key, entry);
    entry.read.then(
      () => {
        entry.answeredAt = this.now();
      },
      (err: unknown) => {
        if (this.opts.keepFailure?.(err)) entry.answeredAt = this.now();
        else if (this.entries.get(key) === entry) this.entries.delete(key);
      },
    );
    this.bound();
    return { read: entry.read, joined: false };
  }

  private bound(): void {
    const max = this.opts.maxEntries ?? 1000;
    if (this.entries.size <= max) return;
    const now = this.now();
    for (const [k, e] of this.entries) if (!this.fresh(e, now)) this.entries.delete(k);
    for (const k of this.entries.keys()) {
      if (this.entries.size <= max) break;
      this.entries.delete(k);
    }
  }

  /** Forgets every read (tests: the next read of each goes to the platform). */
  clear(): void {
    this.entries.clear();
  }

  /** Entries held (tests: bounded). */
  get size(): number {
    return this.entries.size;
  }
}
