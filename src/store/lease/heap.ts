/**
 * The in-process schedule index (memory outbox, digest log, watch schedule): a binary min-heap of
 * (due time, key), earliest first (ties by key, the order claimDue promises). Lazy deletion:
 * rescheduling a key pushes a new entry and leaves the old one; the owner tells `popDue` which
 * entries are still current. A claim therefore looks at the due entries it takes (plus stale ones
 * it drops) and costs O(log n) each, whatever the number of keys waiting.
 */
export interface DueEntry {
  dueAt: number;
  key: string;
}

const before = (a: DueEntry, b: DueEntry): boolean =>
  a.dueAt < b.dueAt || (a.dueAt === b.dueAt && a.key < b.key);

export class DueHeap {
  private heap: DueEntry[] = [];
  /** Entries looked at by `popDue` since the heap was made (the tests read it). */
  visits = 0;

  get size(): number {
    return this.heap.length;
  }

  push(entry: DueEntry): void {
    const h = this.heap;
    h.push(entry);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = h[parent] as DueEntry;
      if (!before(entry, p)) break;
      h[i] = p;
      i = parent;
    }
    h[i] = entry;
  }

  /**
   * Removes and returns the earliest entry due by `now` for which `current` holds (stale ones on
   * the way are dropped); undefined when none is due.
   */
  popDue(now: number, current: (e: DueEntry) => boolean): DueEntry | undefined {
    for (;;) {
      const top = this.heap[0];
      if (top === undefined || top.dueAt > now) return undefined;
      this.visits++;
      this.pop();
      if (current(top)) return top;
    }
  }

  /** The earliest due time among the `current` entries (stale ones on top are dropped); undefined when empty. */
  earliest(current: (e: DueEntry) => boolean): number | undefined {
    for (;;) {
      const top = this.heap[0];
      if (top === undefined) return undefined;
      if (current(top)) return top.dueAt;
      this.pop();
    }
  }

  /** Keeps only the entries for which `current` holds (when stale ones outnumber the live). */
  compact(current: (e: DueEntry) => boolean): void {
    const live = this.heap.filter(current);
    this.heap = [];
    for (const e of live) this.push(e);
  }

  private pop(): void {
    const h = this.heap;
    const last = h.pop();
    if (last === undefined || h.length === 0) return;
    let i = 0;
    const n = h.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const child = r < n && before(h[r] as DueEntry, h[l] as DueEntry) ? r : l;
      const c = h[child] as DueEntry;
      if (!before(c, last)) break;
      h[i] = c;
      i = child;
    }
    h[i] = last;
  }
}
