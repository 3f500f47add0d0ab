/**
 * In-process outbox (tests, `memory://`). Nothing survives the process.
 *
 * Atomicity: every method does all its work synchronously between two awaits (there are none
 * inside), so concurrent async callers of one process can never see or produce a half-done step.
 * Values are copied through JSON on the way in and out, like the durable backends do.
 */
import { profileOfVideoKey, type VideoKey } from "../domain/index.js";
import { StoreUnavailableError } from "../store/index.js";
import { claimFromHeap, type DueEntry, DueHeap } from "../store/lease/index.js";
import {
  backlogSpacingOf,
  type Clock,
  DEAD_LETTERS_PER_TEAM,
  DEFAULT_DEDUPE_TTL_MS,
  decodeItem,
  encodeItem,
  encodeState,
  fairDue,
  type OutboxOptions,
  PULL_FORWARD_MS,
  positiveMs,
  profileQuotaOf,
  type Retention,
  retentionOf,
  STATE_SWEEP_EVERY_MS,
  STATE_SWEEP_MAX,
} from "./common.js";
import type { DeadLetter, EnqueueOutcome, NewOutboxItem, Outbox, OutboxItem, OutboxStats } from "./types.js";

interface Slot {
  dueAt: number;
  owner: string | null;
  leaseUntil: number;
  /** This slot's current entry in the due heap (older entries for the key are stale). */
  entry: DueEntry;
}

/** A state sweep looks at no more than this many states per state it may drop. */
const SWEEP_VISITS_PER_DROP = 4;

/** Expired dedupe / once entries are swept after this many insertions. */
const SWEEP_EVERY = 1000;

export class MemoryOutbox implements Outbox {
  readonly kind = "memory" as const;
  private readonly now: Clock;
  private readonly dedupeTtlMs: number;
  private lastId = 0;
  /** Per video, oldest first: [id, stored JSON]. */
  private readonly items = new Map<VideoKey, Array<{ id: string; json: string; receivedAt: number }>>();
  private readonly schedule = new Map<VideoKey, Slot>();
  /** The schedule by due time: a claim looks at the due videos only, never the whole backlog. */
  private readonly due = new DueHeap();
  /** Where the last bounded state sweep stopped (Map iterators survive insertions and deletions). */
  private sweepCursor: Iterator<[VideoKey, { json: string; expiresAt: number }]> | undefined;
  /** JSON and when it may be dropped (outbox clock). */
  private readonly states = new Map<VideoKey, { json: string; expiresAt: number }>();
  private readonly dedupe = new Map<string, number>();
  /** Per route (teamId:profileId): items stored and not yet acknowledged. */
  private readonly perProfile = new Map<string, number>();
  private readonly profileQuota: number;
  private readonly spacingMs: number;
  private readonly onceKeys = new Map<string, number>();
  private readonly notes = new Map<string, { value: string; expiresAt: number }>();
  /** Per team, oldest first. */
  private readonly dead = new Map<string, string[]>();
  private insertions = 0;
  private readonly retention: Retention;
  private nextStateSweepAt = 0;
  private closed = false;

  constructor(now: Clock = Date.now, opts: Omit<OutboxOptions, "now"> = {}) {
    this.now = now;
    this.dedupeTtlMs = positiveMs(opts.dedupeTtlMs ?? DEFAULT_DEDUPE_TTL_MS);
    this.retention = retentionOf(opts);
    this.profileQuota = profileQuotaOf(opts);
    this.spacingMs = backlogSpacingOf(opts);
  }

  async enqueue(item: NewOutboxItem, dedupeKey: string, dueAt: number): Promise<EnqueueOutcome> {
    this.check();
    const dd = this.dedupe.get(dedupeKey);
    if (dd !== undefined && dd > this.now()) return "duplicate";
    const route = profileOfVideoKey(item.videoKey);
    const count = this.perProfile.get(route) ?? 0;
    if (count >= this.profileQuota) return "full";
    this.setIfAbsent(this.dedupe, dedupeKey, this.dedupeTtlMs);
    this.perProfile.set(route, count + 1);
    const id = String(++this.lastId);
    let list = this.items.get(item.videoKey);
    if (!list) {
      list = [];
      this.items.set(item.videoKey, list);
    }
    list.push({ id, json: encodeItem(item), receivedAt: item.receivedAt });
    const due = fairDue(dueAt, count, this.spacingMs, this.due.earliest(this.isCurrent), this.now());
    const slot = this.schedule.get(item.videoKey);
    if (!slot) this.scheduleAt(item.videoKey, due);
    else if (slot.owner === null && slot.dueAt > due + PULL_FORWARD_MS)
      this.moveDue(slot, item.videoKey, due);
    return "stored";
  }

  /** Heap entries looked at by claimDue so far (a claim must not walk the videos not due). */
  get claimVisits(): number {
    return this.due.visits;
  }

  /** (Re)schedules a video, free of any lease, at `dueAt`. */
  private scheduleAt(key: VideoKey, dueAt: number): void {
    const entry = { dueAt, key };
    this.schedule.set(key, { dueAt, owner: null, leaseUntil: 0, entry });
    this.pushDue(entry);
  }

  /** Moves a scheduled video's due time (its slot keeps its lease fields). */
  private moveDue(slot: Slot, key: VideoKey, dueAt: number): void {
    slot.dueAt = dueAt;
    slot.entry = { dueAt, key };
    this.pushDue(slot.entry);
  }

  private pushDue(entry: DueEntry): void {
    this.due.push(entry);
    // Stale entries (rescheduled or unscheduled videos) are dropped when they come due; if they
    // pile up meanwhile, one rebuild (amortized over as many pushes) keeps the heap near the schedule.
    if (this.due.size > 2 * this.schedule.size + 1024) this.due.compact(this.isCurrent);
  }

  private readonly isCurrent = (e: DueEntry): boolean => this.schedule.get(e.key)?.entry === e;

  async claimDue(owner: string, now: number, max: number, leaseMs: number): Promise<VideoKey[]> {
    this.check();
    const claimed = claimFromHeap(this.due, now, max, this.isCurrent, (key) => {
      const slot = this.schedule.get(key) as Slot;
      // Due but leased (a caller's clock behind): back when the lease ends, out of the way.
      if (slot.owner !== null && slot.leaseUntil > now) {
        this.moveDue(slot, key, slot.leaseUntil);
        return false;
      }
      slot.owner = owner;
      slot.leaseUntil = now + leaseMs;
      this.moveDue(slot, key, now + leaseMs); // not due for anyone else while leased
      const state = this.states.get(key);
      if (state) state.expiresAt = Math.max(state.expiresAt, now + leaseMs + this.retention.final);
      return true;
    });
    if (this.now() >= this.nextStateSweepAt) {
      this.nextStateSweepAt = this.now() + STATE_SWEEP_EVERY_MS;
      this.dropExpiredStates(STATE_SWEEP_MAX);
    }
    return claimed;
  }

  async renew(owner: string, key: VideoKey, until: number): Promise<boolean> {
    this.check();
    const slot = this.held(owner, key);
    if (!slot) return false;
    slot.leaseUntil = until;
    this.moveDue(slot, key, until);
    const state = this.states.get(key);
    if (state) state.expiresAt = Math.max(state.expiresAt, until + this.retention.final);
    return true;
  }

  async pending(key: VideoKey, limit: number): Promise<OutboxItem[]> {
    this.check();
    const list = this.items.get(key) ?? [];
    return list.slice(0, Math.max(0, limit)).map((e) => decodeItem(e.id, e.json, key));
  }

  async settle(
    owner: string,
    key: VideoKey,
    state: unknown,
    ids: readonly string[],
    opts?: { final?: boolean },
  ): Promise<boolean> {
    this.check();
    const slot = this.held(owner, key);
    if (!slot) return false;
    if (state !== undefined) this.writeState(slot, key, state, opts);
    this.ackHeld(key, ids);
    return true;
  }

  async ack(owner: string, key: VideoKey, ids: readonly string[]): Promise<boolean> {
    this.check();
    if (!this.held(owner, key)) return false;
    this.ackHeld(key, ids);
    return true;
  }

  /** Removes the items and counts them off their route (the lease was checked). */
  private ackHeld(key: VideoKey, ids: readonly string[]): void {
    const remove = new Set(ids);
    const before = this.items.get(key) ?? [];
    const left = before.filter((e) => !remove.has(e.id));
    if (left.length > 0) this.items.set(key, left);
    else this.items.delete(key);
    const removed = before.length - left.length;
    if (removed > 0) {
      const route = profileOfVideoKey(key);
      const n = (this.perProfile.get(route) ?? 0) - removed;
      if (n > 0) this.perProfile.set(route, n);
      else this.perProfile.delete(route);
    }
  }

  async release(owner: string, key: VideoKey, dueAt: number | null): Promise<void> {
    this.check();
    if (!this.held(owner, key)) return;
    const now = this.now();
    if (dueAt !== null)
      this.scheduleAt(key, dueAt > now + PULL_FORWARD_MS && this.items.has(key) ? now : dueAt);
    else if (this.items.has(key)) this.scheduleAt(key, this.now());
    else this.schedule.delete(key);
  }

  async wake(key: VideoKey, at: number): Promise<void> {
    this.check();
    const slot = this.schedule.get(key);
    if (slot === undefined || slot.dueAt <= at) return;
    if (slot.owner !== null && slot.leaseUntil > this.now()) return;
    this.moveDue(slot, key, at);
  }

  async getState(key: VideoKey): Promise<unknown> {
    this.check();
    const state = this.states.get(key);
    return state === undefined ? undefined : JSON.parse(state.json);
  }

  async setState(owner: string, key: VideoKey, state: unknown, opts?: { final?: boolean }): Promise<boolean> {
    this.check();
    const slot = this.held(owner, key);
    if (!slot) return false;
    this.writeState(slot, key, state, opts);
    return true;
  }

  private writeState(slot: Slot, key: VideoKey, state: unknown, opts?: { final?: boolean }): void {
    const json = encodeState(state);
    const keep = opts?.final ? this.retention.final : this.retention.normal;
    if (json === undefined) this.states.delete(key);
    else this.states.set(key, { json, expiresAt: slot.leaseUntil + keep });
  }

  async sweepStates(max: number): Promise<number> {
    this.check();
    return this.dropExpiredStates(max);
  }

  /**
   * Drops up to `max` expired states whose video is not scheduled (nor, so, leased). Bounded:
   * looks at most at SWEEP_VISITS_PER_DROP × max states, going on next time where it stopped.
   */
  private dropExpiredStates(max: number): number {
    const now = this.now();
    let dropped = 0;
    let budget = Math.max(0, max) * SWEEP_VISITS_PER_DROP;
    while (dropped < max && budget-- > 0) {
      this.sweepCursor ??= this.states.entries();
      const next = this.sweepCursor.next();
      if (next.done) {
        this.sweepCursor = undefined;
        break; // a full round: the next sweep starts from the beginning
      }
      const [key, state] = next.value;
      if (state.expiresAt > now || this.schedule.has(key)) continue;
      this.states.delete(key);
      dropped++;
    }
    return dropped;
  }

  async deadLetter(item: OutboxItem, reason: string, at: number): Promise<void> {
    this.check();
    let list = this.dead.get(item.teamId);
    if (!list) {
      list = [];
      this.dead.set(item.teamId, list);
    }
    list.push(JSON.stringify({ item, reason, at } satisfies DeadLetter));
    if (list.length > DEAD_LETTERS_PER_TEAM) list.splice(0, list.length - DEAD_LETTERS_PER_TEAM);
  }

  /** Newest first. */
  async listDead(teamId: string, limit: number): Promise<DeadLetter[]> {
    this.check();
    const list = this.dead.get(teamId) ?? [];
    const n = Math.max(0, Math.min(limit, list.length));
    return list
      .slice(list.length - n)
      .reverse()
      .map((json) => JSON.parse(json) as DeadLetter);
  }

  async once(key: string, ttlMs: number): Promise<boolean> {
    this.check();
    return this.setIfAbsent(this.onceKeys, key, ttlMs);
  }

  async putNote(key: string, value: string, ttlMs: number): Promise<void> {
    this.check();
    const now = this.now();
    this.notes.set(key, { value, expiresAt: now + positiveMs(ttlMs) });
    if (++this.insertions % SWEEP_EVERY === 0)
      for (const [k, n] of this.notes) if (n.expiresAt <= now) this.notes.delete(k);
  }

  async getNote(key: string): Promise<string | undefined> {
    this.check();
    const note = this.notes.get(key);
    return note !== undefined && note.expiresAt > this.now() ? note.value : undefined;
  }

  async stats(): Promise<OutboxStats> {
    this.check();
    let depth = 0;
    let oldest: number | null = null;
    for (const list of this.items.values()) {
      depth += list.length;
      for (const e of list) if (oldest === null || e.receivedAt < oldest) oldest = e.receivedAt;
    }
    let dead = 0;
    for (const list of this.dead.values()) dead += list.length;
    return { depth, oldestReceivedAt: oldest, scheduled: this.schedule.size, dead };
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private check(): void {
    if (this.closed) throw new StoreUnavailableError("outbox unavailable: the outbox is closed");
  }

  /** The slot if `owner` holds a lease on `key` that has not expired by the outbox clock. */
  private held(owner: string, key: VideoKey): Slot | undefined {
    const slot = this.schedule.get(key);
    return slot && slot.owner === owner && slot.leaseUntil > this.now() ? slot : undefined;
  }

  /**
   * Dedupe keys all live `dedupeTtlMs`, and an expired key set again moves to the end, so the map
   * is in expiry order and a sweep stops at the first live key: a few entries per insertion on
   * average, never a walk over the whole day of keys on the delivery path. `once` keys have
   * their own TTLs: their (small) map is swept whole. Either way a lookup checks the expiry
   * itself; the sweep only frees memory.
   */
  private setIfAbsent(map: Map<string, number>, key: string, ttlMs: number): boolean {
    const now = this.now();
    const expires = map.get(key);
    if (expires !== undefined) {
      if (expires > now) return false;
      map.delete(key);
    }
    map.set(key, now + ttlMs);
    if (++this.insertions % SWEEP_EVERY === 0) {
      const ordered = map === this.dedupe;
      for (const [k, e] of map) {
        if (e <= now) map.delete(k);
        else if (ordered) break;
      }
    }
    return true;
  }
}
