/**
 * Outbox on the store's Redis, shared by every bot process using that Redis.
 * More: README.md ("redis.ts").
 */
import { profileOfVideoKey, type VideoKey } from "../domain/index.js";
import { DEFAULT_NAMESPACE, type RedisClient, type Store, StoreUnavailableError } from "../store/index.js";
import { claimArgs, claimScript, runScript, type Script, script } from "../store/lease/index.js";
import {
  backlogSpacingOf,
  type Clock,
  DEAD_LETTERS_PER_TEAM,
  DEFAULT_DEDUPE_TTL_MS,
  decodeItem,
  encodeItem,
  encodeState,
  type OutboxOptions,
  PULL_FORWARD_MS,
  parseJson,
  positiveMs,
  profileQuotaOf,
  type Retention,
  retentionOf,
} from "./common.js";
import type { DeadLetter, EnqueueOutcome, NewOutboxItem, Outbox, OutboxItem, OutboxStats } from "./types.js";

/**
 * Lua: a state key (if it exists) lives at least `ms` more; one without expiry (written before
 * states expired) gets one.
 */
const KEEP = `local function keep(key, ms)
  local left = redis.call('PTTL', key)
  if left == -1 or (left >= 0 and left < tonumber(ms)) then redis.call('PEXPIRE', key, ms) end
end
`;

/**
 * KEYS: dedupe, id, q, sched, recv, state, routes, lease. ARGV: ttlMs, json, video, dueAt,
 * receivedAt, keepMs, route, quota, pullMs, spacingMs, now. → id, 0 (duplicate) or -1 (the route is
 * over its quota: nothing written). The video comes due at its fair due time (common.ts
 * `fairDue`: dueAt, or the schedule's head when earlier, plus backlog × spacingMs); one scheduled
 * more than pullMs later than that and not leased is brought forward to it (Outbox.enqueue).
 */
const ENQUEUE = script(`${KEEP}
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
local backlog = tonumber(redis.call('HGET', KEYS[7], ARGV[7]) or '0')
if backlog >= tonumber(ARGV[8]) then return -1 end
redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
redis.call('HINCRBY', KEYS[7], ARGV[7], 1)
local id = redis.call('INCR', KEYS[2])
redis.call('ZADD', KEYS[3], id, id .. ' ' .. ARGV[2])
redis.call('ZADD', KEYS[5], ARGV[5], id)
local at = tonumber(ARGV[4])
local spacing = tonumber(ARGV[10])
if spacing > 0 then
  local head = redis.call('ZRANGE', KEYS[4], 0, 0, 'WITHSCORES')[2]
  if head and tonumber(head) < at and at <= tonumber(ARGV[11]) then at = tonumber(head) end
  at = at + backlog * spacing
end
local due = redis.call('ZSCORE', KEYS[4], ARGV[3])
if not due then redis.call('ZADD', KEYS[4], at, ARGV[3])
elseif tonumber(due) > at + tonumber(ARGV[9]) and redis.call('EXISTS', KEYS[8]) == 0 then
  redis.call('ZADD', KEYS[4], 'XX', at, ARGV[3])
end
keep(KEYS[6], ARGV[6])
return id`);

/**
 * The shared claim (src/store/lease/claim.ts). KEYS: sched. ARGV: owner, now, max, leaseMs, lease
 * key prefix, state key prefix, final retention. → claimed videos, earliest due first; each one's
 * state kept past the lease. A due video whose lease another owner still holds (the callers'
 * clocks disagree with Redis's) is pushed back to when that lease ends, so it does not hide the
 * videos behind it; every video looked at leaves the due range, hence the loop ends.
 */
const CLAIM = claimScript({ prelude: KEEP, onClaim: "keep(ARGV[6] .. key, lease + tonumber(ARGV[7]))" });

const FENCE = "if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end\n";

/** KEYS: lease, sched, state. ARGV: owner, until (due time, bot clock), video, keepMs, leaseMs. */
const RENEW = script(`${KEEP}${FENCE}
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('ZADD', KEYS[2], 'XX', ARGV[2], ARGV[3])
keep(KEYS[3], ARGV[4])
return 1`);

/** KEYS: lease, q, recv, routes. ARGV: owner, route, ids… */
const ACK = script(`${FENCE}
local removed = 0
for i = 3, #ARGV do
  if redis.call('ZREMRANGEBYSCORE', KEYS[2], ARGV[i], ARGV[i]) > 0 then
    redis.call('ZREM', KEYS[3], ARGV[i])
    removed = removed + 1
  end
end
if removed > 0 and redis.call('HINCRBY', KEYS[4], ARGV[2], -removed) <= 0 then redis.call('HDEL', KEYS[4], ARGV[2]) end
return 1`);

/** KEYS: lease, sched, q. ARGV: owner, video, dueAt or '', now, pullMs (Outbox.release). */
const RELEASE = script(`${FENCE}
redis.call('DEL', KEYS[1])
if ARGV[3] ~= '' then
  local due = ARGV[3]
  if tonumber(due) > tonumber(ARGV[4]) + tonumber(ARGV[5]) and redis.call('EXISTS', KEYS[3]) == 1 then due = ARGV[4] end
  redis.call('ZADD', KEYS[2], due, ARGV[2])
elseif redis.call('EXISTS', KEYS[3]) == 1 then redis.call('ZADD', KEYS[2], ARGV[4], ARGV[2])
else redis.call('ZREM', KEYS[2], ARGV[2]) end
return 1`);

/** KEYS: lease, sched. ARGV: video, at (Outbox.wake: a free video due later comes due at `at`). */
const WAKE = script(`local due = redis.call('ZSCORE', KEYS[2], ARGV[1])
if due and tonumber(due) > tonumber(ARGV[2]) and redis.call('EXISTS', KEYS[1]) == 0 then
  redis.call('ZADD', KEYS[2], 'XX', ARGV[2], ARGV[1])
end
return 1`);

/** KEYS: lease, state. ARGV: owner, json or '' (delete), retention (from the lease's end). */
const SET_STATE = script(`${FENCE}
if ARGV[2] == '' then redis.call('DEL', KEYS[2]) return 1 end
local lease = redis.call('PTTL', KEYS[1])
if lease < 0 then lease = 0 end
redis.call('SET', KEYS[2], ARGV[2], 'PX', tonumber(ARGV[3]) + lease)
return 1`);

/**
 * SET_STATE then ACK in one script. KEYS: lease, state, q, recv, routes. ARGV: owner, json, '' (delete)
 * or '-' (left as is), retention, route, ids…
 */
const SETTLE = script(`${FENCE}
if ARGV[2] == '' then redis.call('DEL', KEYS[2])
elseif ARGV[2] ~= '-' then
  local lease = redis.call('PTTL', KEYS[1])
  if lease < 0 then lease = 0 end
  redis.call('SET', KEYS[2], ARGV[2], 'PX', tonumber(ARGV[3]) + lease)
end
local removed = 0
for i = 5, #ARGV do
  if redis.call('ZREMRANGEBYSCORE', KEYS[3], ARGV[i], ARGV[i]) > 0 then
    redis.call('ZREM', KEYS[4], ARGV[i])
    removed = removed + 1
  end
end
if removed > 0 and redis.call('HINCRBY', KEYS[5], ARGV[4], -removed) <= 0 then redis.call('HDEL', KEYS[5], ARGV[4]) end
return 1`);

/** KEYS: dead list, dead count. ARGV: json, cap. */
const DEAD = script(`
redis.call('LPUSH', KEYS[1], ARGV[1])
local extra = redis.call('LLEN', KEYS[1]) - tonumber(ARGV[2])
if extra > 0 then redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[2]) - 1) else extra = 0 end
redis.call('INCRBY', KEYS[2], 1 - extra)
return 1`);

/** KEYS: recv, sched, dead count. → depth, oldest score or nil, scheduled, dead. */
const STATS = script(`
local oldest = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
return { redis.call('ZCARD', KEYS[1]), oldest[2] or false, redis.call('ZCARD', KEYS[2]),
  tonumber(redis.call('GET', KEYS[3]) or '0') }`);

const toNumber = (v: unknown): number => (typeof v === "number" ? v : Number(v));
const toStrings = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);

export class RedisOutbox implements Outbox {
  readonly kind = "redis" as const;
  private readonly client: RedisClient;
  private readonly p: string;
  private readonly now: Clock;
  private readonly dedupeTtlMs: number;
  private readonly retention: Retention;
  private readonly profileQuota: number;
  private readonly spacingMs: number;
  private closed = false;

  constructor(
    private readonly store: Store,
    opts: OutboxOptions = {},
  ) {
    const client = store.backend.redis;
    if (!client) throw new Error("RedisOutbox needs a redis store");
    this.client = client;
    this.p = `${store.keyv.namespace ?? DEFAULT_NAMESPACE}:outbox:`;
    this.now = opts.now ?? Date.now;
    this.dedupeTtlMs = positiveMs(opts.dedupeTtlMs ?? DEFAULT_DEDUPE_TTL_MS);
    this.retention = retentionOf(opts);
    this.profileQuota = profileQuotaOf(opts);
    this.spacingMs = backlogSpacingOf(opts);
  }

  /** The prefix of every key this outbox writes (tests clean up with it). */
  get keyPrefix(): string {
    return this.p;
  }

  async enqueue(item: NewOutboxItem, dedupeKey: string, dueAt: number): Promise<EnqueueOutcome> {
    const v = item.videoKey;
    const id = await this.eval(
      "enqueue",
      ENQUEUE,
      [
        this.k("dd:", dedupeKey),
        this.k("id"),
        this.k("q:", v),
        this.k("sched"),
        this.k("recv"),
        this.k("state:", v),
        this.k("routes"),
        this.k("lease:", v),
      ],
      [
        String(this.dedupeTtlMs),
        encodeItem(item),
        v,
        String(dueAt),
        String(item.receivedAt),
        String(this.retention.final),
        profileOfVideoKey(v),
        String(this.profileQuota),
        String(PULL_FORWARD_MS),
        String(this.spacingMs),
        String(this.now()),
      ],
    );
    const n = toNumber(id);
    return n === 0 ? "duplicate" : n < 0 ? "full" : "stored";
  }

  async claimDue(owner: string, now: number, max: number, leaseMs: number): Promise<VideoKey[]> {
    if (max <= 0) return [];
    const keys = await this.eval(
      "claimDue",
      CLAIM,
      [this.k("sched")],
      [
        ...claimArgs(owner, now, max, leaseMs, this.k("lease:")),
        this.k("state:"),
        String(this.retention.final),
      ],
    );
    return toStrings(keys);
  }

  async renew(owner: string, key: VideoKey, until: number): Promise<boolean> {
    // A length, not a time: the lease expires by Redis's clock (see the module comment).
    const leaseMs = positiveMs(until - this.now());
    const r = await this.eval(
      "renew",
      RENEW,
      [this.k("lease:", key), this.k("sched"), this.k("state:", key)],
      [owner, String(Math.floor(until)), key, String(leaseMs + this.retention.final), String(leaseMs)],
    );
    return toNumber(r) === 1;
  }

  async pending(key: VideoKey, limit: number): Promise<OutboxItem[]> {
    this.check();
    if (limit <= 0) return [];
    const members = await this.store.run("outbox.pending", () =>
      this.client.zRange(this.k("q:", key), 0, Math.floor(limit) - 1),
    );
    return members.map((m) => {
      const space = m.indexOf(" ");
      return decodeItem(m.slice(0, space), m.slice(space + 1), key);
    });
  }

  async ack(owner: string, key: VideoKey, ids: readonly string[]): Promise<boolean> {
    const numeric = ids.filter((id) => /^\d+$/.test(id));
    const r = await this.eval(
      "ack",
      ACK,
      [this.k("lease:", key), this.k("q:", key), this.k("recv"), this.k("routes")],
      [owner, profileOfVideoKey(key), ...numeric],
    );
    return toNumber(r) === 1;
  }

  async release(owner: string, key: VideoKey, dueAt: number | null): Promise<void> {
    await this.eval(
      "release",
      RELEASE,
      [this.k("lease:", key), this.k("sched"), this.k("q:", key)],
      [owner, key, dueAt === null ? "" : String(dueAt), String(this.now()), String(PULL_FORWARD_MS)],
    );
  }

  async wake(key: VideoKey, at: number): Promise<void> {
    await this.eval("wake", WAKE, [this.k("lease:", key), this.k("sched")], [key, String(at)]);
  }

  async getState(key: VideoKey): Promise<unknown> {
    this.check();
    const json = await this.store.run("outbox.getState", () => this.client.get(this.k("state:", key)));
    return json === null ? undefined : parseJson(`outbox state ${key}`, json);
  }

  async setState(owner: string, key: VideoKey, state: unknown, opts?: { final?: boolean }): Promise<boolean> {
    const keep = opts?.final ? this.retention.final : this.retention.normal;
    const r = await this.eval(
      "setState",
      SET_STATE,
      [this.k("lease:", key), this.k("state:", key)],
      [owner, encodeState(state) ?? "", String(keep)],
    );
    return toNumber(r) === 1;
  }

  async settle(
    owner: string,
    key: VideoKey,
    state: unknown,
    ids: readonly string[],
    opts?: { final?: boolean },
  ): Promise<boolean> {
    const keep = opts?.final ? this.retention.final : this.retention.normal;
    // A state that encodes to nothing is deleted (''); none given leaves the stored one ('-').
    const json = state === undefined ? "-" : (encodeState(state) ?? "");
    const r = await this.eval(
      "settle",
      SETTLE,
      [this.k("lease:", key), this.k("state:", key), this.k("q:", key), this.k("recv"), this.k("routes")],
      [owner, json, String(keep), profileOfVideoKey(key), ...ids.filter((id) => /^\d+$/.test(id))],
    );
    return toNumber(r) === 1;
  }

  /** Redis drops expired states by itself (PX): nothing to sweep. */
  async sweepStates(_max: number): Promise<number> {
    this.check();
    return 0;
  }

  async deadLetter(item: OutboxItem, reason: string, at: number): Promise<void> {
    const json = JSON.stringify({ item, reason, at } satisfies DeadLetter);
    await this.eval(
      "deadLetter",
      DEAD,
      [this.k("dead:", item.teamId), this.k("deadn")],
      [json, String(DEAD_LETTERS_PER_TEAM)],
    );
  }

  /** Newest first. */
  async listDead(teamId: string, limit: number): Promise<DeadLetter[]> {
    this.check();
    if (limit <= 0) return [];
    const rows = await this.store.run("outbox.listDead", () =>
      this.client.lRange(this.k("dead:", teamId), 0, Math.floor(limit) - 1),
    );
    return rows.map((json) => parseJson("dead letter", json) as DeadLetter);
  }

  async once(key: string, ttlMs: number): Promise<boolean> {
    this.check();
    const r = await this.store.run("outbox.once", () =>
      this.client.sendCommand(["SET", this.k("once:", key), "1", "NX", "PX", String(positiveMs(ttlMs))]),
    );
    return r !== null;
  }

  async putNote(key: string, value: string, ttlMs: number): Promise<void> {
    this.check();
    await this.store.run("outbox.putNote", () =>
      this.client.sendCommand(["SET", this.k("note:", key), value, "PX", String(positiveMs(ttlMs))]),
    );
  }

  async getNote(key: string): Promise<string | undefined> {
    this.check();
    return (await this.store.run("outbox.getNote", () => this.client.get(this.k("note:", key)))) ?? undefined;
  }

  async stats(): Promise<OutboxStats> {
    const r = await this.eval("stats", STATS, [this.k("recv"), this.k("sched"), this.k("deadn")], []);
    const [depth, oldest, scheduled, dead] = Array.isArray(r) ? r : [];
    return {
      depth: toNumber(depth ?? 0),
      oldestReceivedAt: oldest === null || oldest === undefined ? null : toNumber(oldest),
      scheduled: toNumber(scheduled ?? 0),
      dead: toNumber(dead ?? 0),
    };
  }

  /** Stops this outbox; the Redis client belongs to the store and stays open. */
  async close(): Promise<void> {
    this.closed = true;
  }

  private k(kind: string, name = ""): string {
    return `${this.p}${kind}${name}`;
  }

  private check(): void {
    if (this.closed) throw new StoreUnavailableError("outbox unavailable: the outbox is closed");
  }

  /** EVALSHA, loading the script with EVAL when Redis does not know it yet (first use, restart). */
  private eval(op: string, s: Script, keys: string[], args: string[]): Promise<unknown> {
    this.check();
    return this.store.run(`outbox.${op}`, () => runScript(this.client, s, keys, args));
  }
}
