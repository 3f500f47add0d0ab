/**
 * Which watched livestream is due for a poll, and which replica may poll it.
 *
 * Redis (shared by replicas), keys under `${namespace}:watch:` (apart from Keyv's `ns::…`):
 *   sched          ZSET livestream → due time (ms)
 *   lease:<id>     owner, PX: the replica polling it; expires by Redis's clock
 * `claimDue` is one Lua script (nothing interleaves): the due members (ZRANGEBYSCORE, LIMIT, so a
 * tick costs the due ones, not every watch), each taken when its lease is free or already ours,
 * leased and pushed to `now + leaseMs`; one leased by another replica is pushed to that lease's
 * end, so it does not hide the ones behind it. `reschedule` (fenced: only the lease holder)
 * sets the next due time and keeps the lease until `leaseUntil` (next due + half an interval):
 * the holder polls it again, and if the holder dies another replica takes it within about 1.5
 * intervals of its last poll.
 *
 * memory / sqlite: one process, an in-process min-heap (lazy deletion) rebuilt from the watch
 * registry at start; leases are trivially ours. Several processes on one sqlite file are not
 * coordinated (use Redis for replicas).
 */
import { createHash } from "node:crypto";
import { DEFAULT_NAMESPACE, type RedisClient, type Store } from "../store/index.js";

export interface WatchSchedule {
  /** Schedules the livestream at `dueAt` unless it is already scheduled. */
  add(id: string, dueAt: number): Promise<void>;
  remove(id: string): Promise<void>;
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

// --- memory ---------------------------------------------------------------------------------------

interface HeapEntry {
  id: string;
  due: number;
  gen: number;
}

export class MemorySchedule implements WatchSchedule {
  private heap: HeapEntry[] = [];
  /** Current generation of each scheduled id; heap entries of older generations are stale. */
  private readonly gens = new Map<string, number>();
  private readonly leased = new Set<string>();
  private genSeq = 0;

  private push(id: string, due: number): void {
    const gen = ++this.genSeq;
    this.gens.set(id, gen);
    this.heap.push({ id, due, gen });
    let i = this.heap.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if ((this.heap[p] as HeapEntry).due <= (this.heap[i] as HeapEntry).due) break;
      [this.heap[p], this.heap[i]] = [this.heap[i] as HeapEntry, this.heap[p] as HeapEntry];
      i = p;
    }
  }

  private pop(): HeapEntry | undefined {
    const top = this.heap[0];
    const last = this.heap.pop();
    if (top === undefined || last === undefined || this.heap.length === 0) return top;
    this.heap[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < this.heap.length && (this.heap[l] as HeapEntry).due < (this.heap[m] as HeapEntry).due) m = l;
      if (r < this.heap.length && (this.heap[r] as HeapEntry).due < (this.heap[m] as HeapEntry).due) m = r;
      if (m === i) break;
      [this.heap[m], this.heap[i]] = [this.heap[i] as HeapEntry, this.heap[m] as HeapEntry];
      i = m;
    }
    return top;
  }

  async add(id: string, dueAt: number): Promise<void> {
    if (!this.gens.has(id)) this.push(id, dueAt);
  }

  async remove(id: string): Promise<void> {
    this.gens.delete(id);
    this.leased.delete(id);
  }

  async claimDue(_owner: string, now: number, max: number, leaseMs: number): Promise<string[]> {
    const out: string[] = [];
    while (out.length < max) {
      const top = this.heap[0];
      if (top === undefined || top.due > now) break;
      this.pop();
      if (this.gens.get(top.id) !== top.gen) continue; // stale entry
      this.leased.add(top.id);
      this.push(top.id, now + leaseMs);
      out.push(top.id);
    }
    return out;
  }

  async reschedule(_owner: string, id: string, dueAt: number): Promise<boolean> {
    if (!this.gens.has(id)) return false;
    this.push(id, dueAt);
    return true;
  }

  async holds(_owner: string, id: string): Promise<boolean> {
    return this.gens.has(id);
  }

  async releaseAll(): Promise<void> {
    this.leased.clear();
  }

  async size(): Promise<number> {
    return this.gens.size;
  }
}

// --- Redis ----------------------------------------------------------------------------------------

const sha = (lua: string) => createHash("sha1").update(lua).digest("hex");

/** KEYS: sched. ARGV: owner, now, max, leaseMs, lease prefix. */
const CLAIM = `local owner, now, max, lease = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local claimed = {}
while #claimed < max do
  local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[2], 'LIMIT', 0, max - #claimed)
  if #due == 0 then break end
  for _, id in ipairs(due) do
    local lk = ARGV[5] .. id
    local holder = redis.call('GET', lk)
    if holder == false or holder == owner then
      redis.call('SET', lk, owner, 'PX', lease)
      redis.call('ZADD', KEYS[1], 'XX', now + lease, id)
      claimed[#claimed + 1] = id
    else
      local left = redis.call('PTTL', lk)
      if left < 1 then left = lease end
      redis.call('ZADD', KEYS[1], 'XX', now + left, id)
    end
  end
end
return claimed`;

/** KEYS: lease, sched. ARGV: owner, dueAt, leaseMs, id. */
const RESCHEDULE = `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if redis.call('ZADD', KEYS[2], 'XX', 'CH', ARGV[2], ARGV[4]) == 0 and not redis.call('ZSCORE', KEYS[2], ARGV[4]) then
  redis.call('DEL', KEYS[1])
  return 0
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
return 1`;

/** KEYS: lease, sched. ARGV: owner, now, id. */
const RELEASE = `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
redis.call('ZADD', KEYS[2], 'XX', ARGV[2], ARGV[3])
return 1`;

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

  private async eval(lua: string, keys: string[], args: string[]): Promise<unknown> {
    const digest = sha(lua);
    try {
      return await this.redis.evalSha(digest, { keys, arguments: args });
    } catch (err) {
      if (!(err instanceof Error) || !err.message.includes("NOSCRIPT")) throw err;
      return this.redis.eval(lua, { keys, arguments: args });
    }
  }

  add(id: string, dueAt: number): Promise<void> {
    return this.store.run("watch schedule add", async () => {
      await this.redis.zAdd(this.sched, { score: dueAt, value: id }, { NX: true });
    });
  }

  remove(id: string): Promise<void> {
    return this.store.run("watch schedule remove", async () => {
      await this.redis.zRem(this.sched, id);
      await this.redis.del(this.lease(id));
    });
  }

  claimDue(owner: string, now: number, max: number, leaseMs: number): Promise<string[]> {
    return this.store.run("watch schedule claim", async () => {
      const out = await this.eval(
        CLAIM,
        [this.sched],
        [owner, String(now), String(max), String(Math.max(1, Math.floor(leaseMs))), `${this.prefix}lease:`],
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
