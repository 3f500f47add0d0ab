/**
 * Read budgets (USER_READS_PER_MINUTE, WORKSPACE_READS_PER_MINUTE): the platform's read quota is
 * shared by every workspace, so the platform reads one Slack user and one workspace may cause are
 * metered by two token buckets, taken together: a read goes ahead only when both have a token.
 * Each bucket holds at most a minute's worth and refills continuously; 0 turns a bucket off.
 * More: README.md ("budget.ts").
 */
import type { Logger } from "../log.js";
import { DEFAULT_NAMESPACE, type RedisClient, type Store, StoreUnavailableError } from "../store/index.js";
import { runScript, script } from "../store/lease/index.js";

export type BudgetName = "user" | "workspace";

export interface BudgetSizes {
  /** Reads per minute one Slack user may cause; 0 = off. */
  perUserPerMinute: number;
  /** Reads per minute one workspace may cause; 0 = off. */
  perWorkspacePerMinute: number;
}

export type BudgetTake =
  | { ok: true }
  /** Refused: which bucket is empty (the one that refills last) and when both have a token again. */
  | { ok: false; budget: BudgetName; retryAfterMs: number; perMinute: number };

export interface ReadBudget {
  readonly sizes: BudgetSizes;
  /**
   * Takes one read from the user's and the workspace's buckets, or from neither. Without a user
   * (the reads a workspace's deliveries cause: video titles), from the workspace's bucket alone.
   */
  take(teamId: string, userId?: string): Promise<BudgetTake>;
}

const MINUTE_MS = 60_000;

/** Whether any budget is on. */
export function budgetsOn(s: BudgetSizes): boolean {
  return s.perUserPerMinute > 0 || s.perWorkspacePerMinute > 0;
}

function refused(budget: BudgetName, waitMs: number, perMinute: number): BudgetTake {
  return { ok: false, budget, retryAfterMs: Math.max(1, Math.ceil(waitMs)), perMinute };
}

// --- in process -----------------------------------------------------------------------------------

interface Bucket {
  tokens: number;
  at: number;
}

/** Buckets in a Map; an entry that would be full again is dropped (the same as no entry). */
export class MemoryReadBudget implements ReadBudget {
  private readonly buckets = new Map<string, Bucket>();
  private lastSweep = 0;

  constructor(
    readonly sizes: BudgetSizes,
    private readonly opts: { now?: () => number; maxEntries?: number } = {},
  ) {}

  private now(): number {
    return this.opts.now?.() ?? Date.now();
  }

  private level(key: string, rate: number, now: number): number {
    const b = this.buckets.get(key);
    if (!b) return rate;
    return Math.min(rate, b.tokens + (Math.max(0, now - b.at) * rate) / MINUTE_MS);
  }

  private sweep(now: number): void {
    const max = this.opts.maxEntries ?? 100_000;
    if (this.buckets.size <= max && now - this.lastSweep < MINUTE_MS) return;
    this.lastSweep = now;
    // Every bucket refills within a minute: one untouched for a minute is full, i.e. absent.
    for (const [k, b] of this.buckets) if (now - b.at >= MINUTE_MS) this.buckets.delete(k);
    // Still too many (a minute of very many users): the least recently used go first.
    for (const k of this.buckets.keys()) {
      if (this.buckets.size <= max) break;
      this.buckets.delete(k);
    }
  }

  async take(teamId: string, userId?: string): Promise<BudgetTake> {
    const now = this.now();
    this.sweep(now);
    const { perWorkspacePerMinute: wr } = this.sizes;
    const ur = userId === undefined ? 0 : this.sizes.perUserPerMinute;
    const uk = `u:${teamId}:${userId}`;
    const wk = `w:${teamId}`;
    const u = ur > 0 ? this.level(uk, ur, now) : Number.POSITIVE_INFINITY;
    const w = wr > 0 ? this.level(wk, wr, now) : Number.POSITIVE_INFINITY;
    const uWait = u < 1 ? ((1 - u) * MINUTE_MS) / ur : 0;
    const wWait = w < 1 ? ((1 - w) * MINUTE_MS) / wr : 0;
    if (uWait > 0 || wWait > 0)
      return uWait >= wWait ? refused("user", uWait, ur) : refused("workspace", wWait, wr);
    // Delete then set: the Map's order stays least recently used first.
    if (ur > 0) {
      this.buckets.delete(uk);
      this.buckets.set(uk, { tokens: u - 1, at: now });
    }
    if (wr > 0) {
      this.buckets.delete(wk);
      this.buckets.set(wk, { tokens: w - 1, at: now });
    }
    return { ok: true };
  }

  /** Buckets held (tests: bounded). */
  get size(): number {
    return this.buckets.size;
  }
}

// --- Redis ----------------------------------------------------------------------------------------

/**
 * KEYS: user bucket, workspace bucket. ARGV: user per minute, workspace per minute (0 = off).
 * Returns {1} when taken, else {0, 'user'|'workspace', wait ms}. A bucket is a hash {t = tokens,
 * at = ms}; it expires when it would be full again.
 */
const TAKE = script(`local tm = redis.call('TIME')
local now = tonumber(tm[1]) * 1000 + math.floor(tonumber(tm[2]) / 1000)
local function level(key, rate)
  if rate <= 0 then return nil end
  local v = redis.call('HMGET', key, 't', 'at')
  local t, at = tonumber(v[1]), tonumber(v[2])
  if t == nil or at == nil then return rate end
  local elapsed = now - at
  if elapsed < 0 then elapsed = 0 end
  return math.min(rate, t + elapsed * rate / 60000)
end
local function wait(l, rate)
  if l == nil or l >= 1 then return 0 end
  return math.ceil((1 - l) * 60000 / rate)
end
local ur, wr = tonumber(ARGV[1]), tonumber(ARGV[2])
local u, w = level(KEYS[1], ur), level(KEYS[2], wr)
local uw, ww = wait(u, ur), wait(w, wr)
if uw > 0 or ww > 0 then
  if uw >= ww then return {0, 'user', uw} end
  return {0, 'workspace', ww}
end
local function spend(key, l, rate)
  if l == nil then return end
  local left = l - 1
  redis.call('HSET', key, 't', tostring(left), 'at', tostring(now))
  redis.call('PEXPIRE', key, math.max(1, math.ceil((rate - left) * 60000 / rate)))
end
spend(KEYS[1], u, ur)
spend(KEYS[2], w, wr)
return {1}`);

/** At most one warn line per this interval while Redis cannot be asked. */
const FALLBACK_LOG_INTERVAL_MS = 10_000;

export class RedisReadBudget implements ReadBudget {
  readonly prefix: string;
  private readonly local: MemoryReadBudget;
  private lastWarn = Number.NEGATIVE_INFINITY;

  constructor(
    readonly sizes: BudgetSizes,
    private readonly store: Store,
    private readonly redis: RedisClient,
    private readonly logger?: Logger,
  ) {
    this.prefix = `${store.keyv.namespace ?? DEFAULT_NAMESPACE}:budget:`;
    this.local = new MemoryReadBudget(sizes);
  }

  private eval(keys: string[], args: string[]): Promise<unknown> {
    return runScript(this.redis, TAKE, keys, args);
  }

  async take(teamId: string, userId?: string): Promise<BudgetTake> {
    const { perWorkspacePerMinute: wr } = this.sizes;
    const ur = userId === undefined ? 0 : this.sizes.perUserPerMinute;
    let out: unknown;
    try {
      out = await this.store.run("read budget", () =>
        this.eval(
          [`${this.prefix}u:${teamId}:${userId ?? "-"}`, `${this.prefix}w:${teamId}`],
          [String(ur), String(wr)],
        ),
      );
    } catch (err) {
      if (!(err instanceof StoreUnavailableError)) throw err;
      const now = Date.now();
      if (now - this.lastWarn >= FALLBACK_LOG_INTERVAL_MS) {
        this.lastWarn = now;
        this.logger?.warn({ err }, "read budgets: the store is unavailable; this replica counts on its own");
      }
      return this.local.take(teamId, userId);
    }
    if (!Array.isArray(out) || Number(out[0]) === 1) return { ok: true };
    const budget: BudgetName = out[1] === "workspace" ? "workspace" : "user";
    return refused(budget, Number(out[2]) || 1, budget === "user" ? ur : wr);
  }
}

/** The budget for `store`: shared on Redis, in process otherwise; undefined when both are off. */
export function readBudgetFor(
  store: Store | undefined,
  sizes: BudgetSizes,
  logger?: Logger,
): ReadBudget | undefined {
  if (!budgetsOn(sizes)) return undefined;
  const redis = store?.backend.redis;
  return store && redis ? new RedisReadBudget(sizes, store, redis, logger) : new MemoryReadBudget(sizes);
}
