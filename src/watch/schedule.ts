/**
 * Which watched livestream is due for a poll, and which replica may poll it.
 * More: README.md ("schedule.ts").
 */
import { DEFAULT_NAMESPACE, type RedisClient, type Store } from "../store/index.js";
import {
  claimArgs,
  claimFromHeap,
  claimScript,
  type DueEntry,
  DueHeap,
  runScript,
  type Script,
  script,
} from "../store/lease/index.js";

export interface WatchSchedule {
  /**
   * Schedules the livestream at `dueAt` unless it is already scheduled; no earlier than the due
   * time a `remove(id, true)` kept, when that is later (it is used once, then forgotten).
   */
  add(id: string, dueAt: number): Promise<void>;
  /**
   * Takes the livestream out of the schedule. `keepDue`: its due time (the next read after the
   * last one, or the end of a read under way) still holds for a watch added again before then, so
   * watching and unwatching in a loop never reads it more than once per interval.
   */
  remove(id: string, keepDue?: boolean): Promise<void>;
  /** Up to `max` due livestreams, now leased to `owner` until `now + leaseMs`. */
  claimDue(owner: string, now: number, max: number, leaseMs: number): Promise<string[]>;
  /** Next due time and lease end; false when `owner` no longer holds the lease (or it was removed). */
  reschedule(owner: string, id: string, dueAt: number, leaseUntil: number): Promise<boolean>;
  /** Whether `owner` still holds the lease (checked before state writes and Slack calls). */
  holds(owner: string, id: string): Promise<boolean>;
  /** Gives up every lease of `owner` and makes them due now (clean stop: another replica takes over). */
  releaseAll(owner: string, ids: readonly string[], now: number): Promise<void>;
  size(): Promise<number>;
}

/** Kept due times remembered in process at most (then forgotten: a read sooner, nothing lost). */
const MAX_KEPT = 10_000;

// --- memory ---------------------------------------------------------------------------------------

export class MemorySchedule implements WatchSchedule {
  private readonly heap = new DueHeap();
  /** Each scheduled id's current heap entry; other entries of the id are stale. */
  private readonly entries = new Map<string, DueEntry>();
  private readonly leased = new Set<string>();
  /** Due times kept by `remove(id, true)` for a watch added again (stale ones are harmless). */
  private readonly kept = new Map<string, number>();
  private readonly isCurrent = (e: DueEntry): boolean => this.entries.get(e.key) === e;

  private push(id: string, due: number): void {
    const entry = { dueAt: due, key: id };
    this.entries.set(id, entry);
    this.heap.push(entry);
  }

  async add(id: string, dueAt: number): Promise<void> {
    const kept = this.kept.get(id);
    this.kept.delete(id);
    if (!this.entries.has(id)) this.push(id, Math.max(dueAt, kept ?? dueAt));
  }

  async remove(id: string, keepDue = false): Promise<void> {
    const due = this.entries.get(id)?.dueAt;
    this.entries.delete(id);
    this.leased.delete(id);
    this.kept.delete(id);
    if (!keepDue || due === undefined) return;
    if (this.kept.size >= MAX_KEPT) this.kept.clear();
    this.kept.set(id, due);
  }

  async claimDue(_owner: string, now: number, max: number, leaseMs: number): Promise<string[]> {
    return claimFromHeap(this.heap, now, max, this.isCurrent, (id) => {
      this.leased.add(id);
      this.push(id, now + leaseMs);
      return true;
    });
  }

  async reschedule(_owner: string, id: string, dueAt: number): Promise<boolean> {
    if (!this.entries.has(id)) return false;
    this.push(id, dueAt);
    return true;
  }

  async holds(_owner: string, id: string): Promise<boolean> {
    return this.entries.has(id);
  }

  async releaseAll(): Promise<void> {
    this.leased.clear();
  }

  async size(): Promise<number> {
    return this.entries.size;
  }
}

// --- Redis ----------------------------------------------------------------------------------------

/** The shared claim (src/store/lease/claim.ts). KEYS: sched. ARGV: owner, now, max, leaseMs, lease prefix. */
const CLAIM = claimScript();

/** KEYS: lease, sched. ARGV: owner, dueAt, leaseMs, id. */
const RESCHEDULE = script(`if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if redis.call('ZADD', KEYS[2], 'XX', 'CH', ARGV[2], ARGV[4]) == 0 and not redis.call('ZSCORE', KEYS[2], ARGV[4]) then
  redis.call('DEL', KEYS[1])
  return 0
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
return 1`);

/** KEYS: lease, sched. ARGV: owner, now, id. */
const RELEASE = script(`if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('ZADD', KEYS[2], 'XX', ARGV[2], ARGV[3])
return 1`);

/** KEYS: sched, kept. ARGV: id, dueAt. The kept due time (remove with keepDue) when later, once. */
const ADD = script(`local due = tonumber(ARGV[2])
local kept = tonumber(redis.call('GET', KEYS[2]) or '')
if kept and kept > due then due = kept end
redis.call('DEL', KEYS[2])
redis.call('ZADD', KEYS[1], 'NX', string.format('%.0f', due), ARGV[1])
return 1`);

/** KEYS: sched, lease, kept. ARGV: id, now, keepDue ('1'). The due time kept until it passes. */
const REMOVE = script(`local due = tonumber(redis.call('ZSCORE', KEYS[1], ARGV[1]) or '')
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('DEL', KEYS[2], KEYS[3])
local now = tonumber(ARGV[2])
if ARGV[3] == '1' and due and due > now then
  redis.call('SET', KEYS[3], string.format('%.0f', due), 'PX', string.format('%.0f', math.ceil(due - now)))
end
return 1`);

export class RedisSchedule implements WatchSchedule {
  readonly prefix: string;
  private readonly sched: string;

  constructor(
    private readonly store: Store,
    private readonly redis: RedisClient,
  ) {
    this.prefix = `${store.keyv.namespace ?? DEFAULT_NAMESPACE}:watch:`;
    this.sched = `${this.prefix}sched`;
  }

  private lease(id: string): string {
    return `${this.prefix}lease:${id}`;
  }

  /** The due time a `remove(id, true)` kept (expires with it). */
  private kept(id: string): string {
    return `${this.prefix}kept:${id}`;
  }

  private eval(s: Script, keys: string[], args: string[]): Promise<unknown> {
    return runScript(this.redis, s, keys, args);
  }

  add(id: string, dueAt: number): Promise<void> {
    return this.store.run("watch schedule add", async () => {
      await this.eval(ADD, [this.sched, this.kept(id)], [id, String(Math.round(dueAt))]);
    });
  }

  remove(id: string, keepDue = false): Promise<void> {
    return this.store.run("watch schedule remove", async () => {
      await this.eval(
        REMOVE,
        [this.sched, this.lease(id), this.kept(id)],
        [id, String(Date.now()), keepDue ? "1" : "0"],
      );
    });
  }

  claimDue(owner: string, now: number, max: number, leaseMs: number): Promise<string[]> {
    return this.store.run("watch schedule claim", async () => {
      const out = await this.eval(
        CLAIM,
        [this.sched],
        claimArgs(owner, now, max, leaseMs, `${this.prefix}lease:`),
      );
      return Array.isArray(out) ? out.map(String) : [];
    });
  }

  reschedule(owner: string, id: string, dueAt: number, leaseUntil: number): Promise<boolean> {
    return this.store.run("watch schedule reschedule", async () => {
      const leaseMs = Math.max(1, Math.floor(leaseUntil - Date.now()));
      const out = await this.eval(
        RESCHEDULE,
        [this.lease(id), this.sched],
        [owner, String(dueAt), String(leaseMs), id],
      );
      return Number(out) === 1;
    });
  }

  holds(owner: string, id: string): Promise<boolean> {
    return this.store.run("watch lease check", async () => (await this.redis.get(this.lease(id))) === owner);
  }

  releaseAll(owner: string, ids: readonly string[], now: number): Promise<void> {
    return this.store.run("watch schedule release", async () => {
      for (const id of ids) await this.eval(RELEASE, [this.lease(id), this.sched], [owner, String(now), id]);
    });
  }

  size(): Promise<number> {
    return this.store.run("watch schedule size", () => this.redis.zCard(this.sched));
  }
}

export function scheduleFor(store: Store): WatchSchedule {
  return store.backend.redis ? new RedisSchedule(store, store.backend.redis) : new MemorySchedule();
}
