/**
 * Digests and pauses: a channel whose subscription is a digest, or is paused, gets no live
 * messages; what happens is recorded (record.ts) in the digest log (types.ts: memory, sqlite,
 * Redis) and posted once per period, or once when the pause ends (runner.ts, render.ts).
 */
import type { Store } from "../store/index.js";
import { MemoryDigestLog } from "./log-memory.js";
import { RedisDigestLog } from "./log-redis.js";
import { SqliteDigestLog } from "./log-sqlite.js";
import type { DigestLog } from "./types.js";

export { type DigestMessages, type DigestView, renderDigest } from "../messages/index.js";
export { type BroadcastRecord, Digests, type DigestsOptions, entryOfMilestone } from "./record.js";
export { DigestRunner, type DigestRunnerOptions } from "./runner.js";
export {
  type BroadcastSummary,
  DIGEST_LOG_BOUND,
  type DigestEntry,
  type DigestLog,
  type DigestState,
} from "./types.js";
export { MemoryDigestLog, RedisDigestLog, SqliteDigestLog };

/** The digest log on the store's backend (its clock for sqlite and memory leases). */
export function digestLogFor(store: Store, now: () => number = Date.now): DigestLog {
  if (store.backend.redis) return new RedisDigestLog(store, now);
  const sqlite = store.backend.sqlite;
  if (sqlite) return new SqliteDigestLog(store, (sql, ...params) => sqlite.query(sql, ...params), now);
  return new MemoryDigestLog(now);
}
