/**
 * The digest log in process memory (memory:// stores: tests, one process). Every method runs
 * without awaiting inside, so it is atomic for the process. Due keys are found through a min-heap
 * (the shared DueHeap, src/store/lease/, lazy deletion): a claim looks at the due keys only.
 */
import type { DigestKey } from "../domain/index.js";
import { DueHeap } from "../store/lease/index.js";
import { DIGEST_LOG_BOUND, type DigestLog, type RecordOutcome, type StoredEntry } from "./types.js";

interface Log {
  entries: Array<StoredEntry & { id: string }>;
  leftOut: number;
  state: string | undefined;
  due: number | null;
  /** Asked by wake while leased; applied at release. */
  want: number | null;
  lease: { owner: string; until: number } | null;
}

export class MemoryDigestLog implements DigestLog {
  readonly kind = "memory" as const;
  private readonly logs = new Map<DigestKey, Log>();
  private readonly heap = new DueHeap();
  private seq = 0;

  constructor(private readonly now: () => number = Date.now) {}

  private log(key: DigestKey): Log {
    let l = this.logs.get(key);
    if (!l) {
      l = { entries: [], leftOut: 0, state: undefined, due: null, want: null, lease: null };
      this.logs.set(key, l);
    }
    return l;
  }

  private leased(l: Log): boolean {
    return l.lease !== null && l.lease.until > this.now();
  }

  private holds(owner: string, key: DigestKey): Log | undefined {
    const l = this.logs.get(key);
    return l?.lease?.owner === owner && l.lease.until > this.now() ? l : undefined;
  }

  private schedule(key: DigestKey, l: Log, due: number | null): void {
    l.due = due;
    if (due !== null) this.heap.push({ dueAt: due, key });
    if (this.heap.size > 4 * this.logs.size + 64) this.heap.compact((e) => this.current(e.key, e.dueAt));
  }

  private current(key: DigestKey, dueAt: number): boolean {
    return this.logs.get(key)?.due === dueAt;
  }

  private wakeLog(key: DigestKey, l: Log, dueAt: number): void {
    if (this.leased(l)) l.want = l.want === null ? dueAt : Math.min(l.want, dueAt);
    else if (l.due === null || dueAt < l.due) this.schedule(key, l, dueAt);
  }

  async record(key: DigestKey, entryId: string, json: string, dueAt: number): Promise<RecordOutcome> {
    const l = this.log(key);
    if (l.entries.some((e) => e.id === entryId)) return "duplicate";
    let outcome: RecordOutcome = "stored";
    if (l.entries.length >= DIGEST_LOG_BOUND) {
      l.leftOut += 1;
      outcome = "left_out";
    } else l.entries.push({ seq: ++this.seq, id: entryId, json });
    this.wakeLog(key, l, dueAt);
    return outcome;
  }

  async wake(key: DigestKey, dueAt: number): Promise<void> {
    this.wakeLog(key, this.log(key), dueAt);
  }

  async claimDue(owner: string, now: number, max: number, leaseMs: number): Promise<DigestKey[]> {
    const claimed: DigestKey[] = [];
    const later: Array<{ key: DigestKey; dueAt: number }> = [];
    while (claimed.length < max) {
      const e = this.heap.popDue(now, (x) => this.current(x.key, x.dueAt));
      if (!e) break;
      const l = this.logs.get(e.key);
      if (!l) continue;
      if (l.lease !== null && l.lease.until > now && l.lease.owner !== owner) {
        later.push({ key: e.key, dueAt: l.lease.until });
        continue;
      }
      l.lease = { owner, until: now + leaseMs };
      l.want = null;
      // Due again when the lease ends, should its holder stop without releasing it.
      this.schedule(e.key, l, now + leaseMs);
      claimed.push(e.key);
    }
    for (const x of later) {
      const l = this.logs.get(x.key);
      if (l) this.schedule(x.key, l, x.dueAt);
    }
    return claimed;
  }

  async renew(owner: string, key: DigestKey, until: number): Promise<boolean> {
    const l = this.holds(owner, key);
    if (!l?.lease) return false;
    l.lease.until = until;
    this.schedule(key, l, until);
    return true;
  }

  async read(key: DigestKey): Promise<{ entries: StoredEntry[]; leftOut: number }> {
    const l = this.logs.get(key);
    return {
      entries: (l?.entries ?? []).map(({ seq, json }) => ({ seq, json })),
      leftOut: l?.leftOut ?? 0,
    };
  }

  async getState(key: DigestKey): Promise<string | undefined> {
    return this.logs.get(key)?.state;
  }

  async setState(owner: string, key: DigestKey, state: string): Promise<boolean> {
    const l = this.holds(owner, key);
    if (!l) return false;
    l.state = state;
    return true;
  }

  async settle(
    owner: string,
    key: DigestKey,
    state: string,
    upTo: number,
    leftOut: number,
  ): Promise<boolean> {
    const l = this.holds(owner, key);
    if (!l) return false;
    l.state = state;
    l.entries = l.entries.filter((e) => e.seq > upTo);
    l.leftOut = Math.max(0, l.leftOut - leftOut);
    return true;
  }

  async release(owner: string, key: DigestKey, dueAt: number | null): Promise<void> {
    const l = this.logs.get(key);
    if (!l || l.lease?.owner !== owner) return;
    const want = l.want;
    l.lease = null;
    l.want = null;
    const due = dueAt === null ? want : want === null ? dueAt : Math.min(dueAt, want);
    this.schedule(key, l, due);
  }

  async drop(key: DigestKey): Promise<void> {
    this.logs.delete(key);
  }

  async scheduled(): Promise<number> {
    let n = 0;
    for (const l of this.logs.values()) if (l.due !== null) n++;
    return n;
  }

  async close(): Promise<void> {}
}
