/**
 * The digest log on the store's Redis, shared by every replica using it.
 * More: README.md ("log-redis.ts").
 */
import type { DigestKey } from "../domain/index.js";
import { DEFAULT_NAMESPACE, type RedisClient, type Store, StoreUnavailableError } from "../store/index.js";
import { claimScript, runScript, type Script, script } from "../store/lease/index.js";
import { DIGEST_LOG_BOUND, type DigestLog, type RecordOutcome, type StoredEntry } from "./types.js";

/** Lua: the key (ARGV[k]) due at `due` at the latest; remembered in `want` while leased. */
const WAKE_FN = `local function wake(due_key, want_key, lease_key, key, at)
  if redis.call('EXISTS', lease_key) == 1 then
    local w = redis.call('HGET', want_key, key)
    if not w or tonumber(w) > tonumber(at) then redis.call('HSET', want_key, key, at) end
  else
    local d = redis.call('ZSCORE', due_key, key)
    if not d or tonumber(d) > tonumber(at) then redis.call('ZADD', due_key, at, key) end
  end
end
`;

/** KEYS: ids, log, meta, due, want, lease, seq. ARGV: entry id, json, bound, dueAt, key. → seq, 0 duplicate, -1 left out. */
const RECORD = script(`${WAKE_FN}
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 0 end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then
  redis.call('HINCRBY', KEYS[3], 'left', 1)
  wake(KEYS[4], KEYS[5], KEYS[6], ARGV[5], ARGV[4])
  return -1
end
local seq = redis.call('INCR', KEYS[7])
redis.call('ZADD', KEYS[1], seq, ARGV[1])
redis.call('ZADD', KEYS[2], seq, seq .. ' ' .. ARGV[2])
wake(KEYS[4], KEYS[5], KEYS[6], ARGV[5], ARGV[4])
return seq`);

/** KEYS: due, want, lease. ARGV: dueAt, key. */
const WAKE = script(`${WAKE_FN}
wake(KEYS[1], KEYS[2], KEYS[3], ARGV[2], ARGV[1])
return 1`);

/** KEYS: due, want. ARGV: owner, now, max, leaseMs, lease key prefix. → claimed keys (no longer wanted early). */
const CLAIM = claimScript({ onClaim: "redis.call('HDEL', KEYS[2], key)" });

const FENCE = "if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end\n";

/** KEYS: lease, due. ARGV: owner, until, key, leaseMs. */
const RENEW = script(`${FENCE}
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('ZADD', KEYS[2], 'XX', ARGV[2], ARGV[3])
return 1`);

/** KEYS: lease, meta. ARGV: owner, json. */
const SET_STATE = script(`${FENCE}
redis.call('HSET', KEYS[2], 'state', ARGV[2])
return 1`);

/** KEYS: lease, meta, log, ids. ARGV: owner, json, upTo, minus the left-out count reported. */
const SETTLE = script(`${FENCE}
redis.call('HSET', KEYS[2], 'state', ARGV[2])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', ARGV[3])
if redis.call('HINCRBY', KEYS[2], 'left', ARGV[4]) < 0 then redis.call('HSET', KEYS[2], 'left', 0) end
return 1`);

/** KEYS: lease, due, want. ARGV: owner, key, dueAt or ''. */
const RELEASE = script(`${FENCE}
redis.call('DEL', KEYS[1])
local w = redis.call('HGET', KEYS[3], ARGV[2])
redis.call('HDEL', KEYS[3], ARGV[2])
local d = ARGV[3]
if w and (d == '' or tonumber(w) < tonumber(d)) then d = w end
if d == '' then redis.call('ZREM', KEYS[2], ARGV[2]) else redis.call('ZADD', KEYS[2], d, ARGV[2]) end
return 1`);

/** KEYS: log, ids, meta, lease, due, want. ARGV: key. */
const DROP = script(`
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
redis.call('ZREM', KEYS[5], ARGV[1])
redis.call('HDEL', KEYS[6], ARGV[1])
return 1`);

/** KEYS: log, meta. → { members…, left } */
const READ = script(`
local out = redis.call('ZRANGE', KEYS[1], 0, -1)
out[#out + 1] = redis.call('HGET', KEYS[2], 'left') or '0'
return out`);

export class RedisDigestLog implements DigestLog {
  readonly kind = "redis" as const;
  private readonly client: RedisClient;
  private readonly p: string;
  private closed = false;

  constructor(
    private readonly store: Store,
    private readonly now: () => number = Date.now,
  ) {
    const client = store.backend.redis;
    if (!client) throw new Error("RedisDigestLog needs a redis store");
    this.client = client;
    this.p = `${store.keyv.namespace ?? DEFAULT_NAMESPACE}:digest:`;
  }

  /** The prefix of every key it writes (tests clean up with it). */
  get keyPrefix(): string {
    return this.p;
  }

  private k(kind: string, name = ""): string {
    return `${this.p}${kind}${name}`;
  }

  async record(key: DigestKey, entryId: string, json: string, dueAt: number): Promise<RecordOutcome> {
    const out = Number(
      await this.eval(
        "record",
        RECORD,
        [
          this.k("ids:", key),
          this.k("log:", key),
          this.k("meta:", key),
          this.k("due"),
          this.k("want"),
          this.k("lease:", key),
          this.k("seq"),
        ],
        [entryId, json, String(DIGEST_LOG_BOUND), String(dueAt), key],
      ),
    );
    return out > 0 ? "stored" : out === 0 ? "duplicate" : "left_out";
  }

  async wake(key: DigestKey, dueAt: number): Promise<void> {
    await this.eval(
      "wake",
      WAKE,
      [this.k("due"), this.k("want"), this.k("lease:", key)],
      [String(dueAt), key],
    );
  }

  async claimDue(owner: string, now: number, max: number, leaseMs: number): Promise<DigestKey[]> {
    const out = await this.eval(
      "claim",
      CLAIM,
      [this.k("due"), this.k("want")],
      [owner, String(now), String(max), String(leaseMs), this.k("lease:")],
    );
    return Array.isArray(out) ? out.map(String) : [];
  }

  async renew(owner: string, key: DigestKey, until: number): Promise<boolean> {
    const ms = Math.max(1, Math.round(until - this.now()));
    const out = await this.eval(
      "renew",
      RENEW,
      [this.k("lease:", key), this.k("due")],
      [owner, String(until), key, String(ms)],
    );
    return Number(out) === 1;
  }

  async read(key: DigestKey): Promise<{ entries: StoredEntry[]; leftOut: number }> {
    const out = await this.eval("read", READ, [this.k("log:", key), this.k("meta:", key)], []);
    const rows = Array.isArray(out) ? out.map(String) : ["0"];
    const left = Number(rows.pop() ?? "0");
    const entries: StoredEntry[] = [];
    for (const row of rows) {
      const blank = row.indexOf(" ");
      if (blank > 0) entries.push({ seq: Number(row.slice(0, blank)), json: row.slice(blank + 1) });
    }
    return { entries, leftOut: Number.isFinite(left) ? Math.max(0, left) : 0 };
  }

  async getState(key: DigestKey): Promise<string | undefined> {
    this.check();
    const v: unknown = await this.store.run("digest.state", () =>
      this.client.hGet(this.k("meta:", key), "state"),
    );
    return typeof v === "string" ? v : undefined;
  }

  async setState(owner: string, key: DigestKey, state: string): Promise<boolean> {
    const out = await this.eval(
      "setState",
      SET_STATE,
      [this.k("lease:", key), this.k("meta:", key)],
      [owner, state],
    );
    return Number(out) === 1;
  }

  async settle(
    owner: string,
    key: DigestKey,
    state: string,
    upTo: number,
    leftOut: number,
  ): Promise<boolean> {
    const out = await this.eval(
      "settle",
      SETTLE,
      [this.k("lease:", key), this.k("meta:", key), this.k("log:", key), this.k("ids:", key)],
      [owner, state, String(upTo), String(-Math.max(0, Math.floor(leftOut)))],
    );
    return Number(out) === 1;
  }

  async release(owner: string, key: DigestKey, dueAt: number | null): Promise<void> {
    await this.eval(
      "release",
      RELEASE,
      [this.k("lease:", key), this.k("due"), this.k("want")],
      [owner, key, dueAt === null ? "" : String(dueAt)],
    );
  }

  async drop(key: DigestKey): Promise<void> {
    await this.eval(
      "drop",
      DROP,
      [
        this.k("log:", key),
        this.k("ids:", key),
        this.k("meta:", key),
        this.k("lease:", key),
        this.k("due"),
        this.k("want"),
      ],
      [key],
    );
  }

  async scheduled(): Promise<number> {
    this.check();
    return this.store.run("digest.scheduled", () => this.client.zCard(this.k("due")));
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private check(): void {
    if (this.closed) throw new StoreUnavailableError("digest log unavailable: it is closed");
  }

  /** EVALSHA, loading the script with EVAL when Redis does not know it yet. */
  private eval(op: string, s: Script, keys: string[], args: string[]): Promise<unknown> {
    this.check();
    return this.store.run(`digest.${op}`, () => runScript(this.client, s, keys, args));
  }
}
