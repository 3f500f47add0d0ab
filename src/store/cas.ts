/**
 * Compare-and-set on the raw stored string, for each backend (used by `Store.cas`, see keyv.ts).
 *
 * The raw string is Keyv's envelope `{"value":…,"expires":…}` exactly as the backend holds it, so
 * "still what I read" is a string comparison: with STORE_ENCRYPTION_KEY the ciphertext (random IV)
 * is compared, which changes at every write even for the same installation.
 * More: README.md ("cas.ts").
 */
import type KeyvRedis from "@keyv/redis";
import { runScript, script } from "./lease/script.js";
import type { RedisClient } from "./redis-client.js";
import { KEYV_TABLE, type SqliteDb } from "./sqlite.js";

/** What a value is written as: Keyv's envelope (`expires`: ms since the epoch, or none). */
export interface Envelope {
  value: unknown;
  expires?: number | undefined;
}

export interface RawAccess {
  /** The raw string at `key` (repository key, without namespace), expired or not; undefined when absent. */
  get(key: string): Promise<string | undefined>;
  /**
   * Writes `next` (undefined: deletes) only if the raw string at `key` is `expected` (undefined:
   * absent). true when it wrote.
   */
  cas(
    key: string,
    expected: string | undefined,
    next: string | undefined,
    expires?: number,
  ): Promise<boolean>;
}

export function memoryRaw(map: Map<string, unknown>, namespace: string): RawAccess {
  const k = (key: string) => `${namespace}:${key}`;
  const read = (key: string): string | undefined => {
    const v = map.get(k(key));
    return typeof v === "string" ? v : undefined;
  };
  return {
    get: async (key) => read(key),
    cas: async (key, expected, next) => {
      // One synchronous step: no other operation runs between the comparison and the write.
      if (read(key) !== expected) return false;
      if (next === undefined) map.delete(k(key));
      else map.set(k(key), next);
      return true;
    },
  };
}

export function sqliteRaw(db: SqliteDb, namespace: string): RawAccess {
  const k = (key: string) => `${namespace}:${key}`;
  const read = (key: string): string | undefined => {
    const v = db.get<{ value: unknown }>(`SELECT value FROM ${KEYV_TABLE} WHERE key = ?`, k(key))?.value;
    return typeof v === "string" ? v : undefined;
  };
  return {
    get: (key) => db.read(() => read(key)),
    // Compared and written in one synchronous step of a group commit: nothing runs in between.
    cas: (key, expected, next) =>
      db.write(() => {
        if (read(key) !== expected) return false;
        if (next === undefined) db.run(`DELETE FROM ${KEYV_TABLE} WHERE key = ?`, k(key));
        else if (expected === undefined)
          db.run(`INSERT INTO ${KEYV_TABLE} (key, value) VALUES (?, ?)`, k(key), next);
        else db.run(`UPDATE ${KEYV_TABLE} SET value = ? WHERE key = ?`, next, k(key));
        return true;
      }),
  };
}

/**
 * KEYS[1] the key; ARGV: expected present ("1"/"0"), expected string, next present ("1"/"0"),
 * next string, expiry in ms since the epoch ("" for none). 1 when it wrote, 0 otherwise.
 */
const REDIS_CAS = script(`
local cur = redis.call('GET', KEYS[1])
if ARGV[1] == '1' then
  if cur ~= ARGV[2] then return 0 end
elseif cur then
  return 0
end
if ARGV[3] == '0' then
  redis.call('DEL', KEYS[1])
elseif ARGV[5] ~= '' then
  redis.call('SET', KEYS[1], ARGV[4], 'PXAT', ARGV[5])
else
  redis.call('SET', KEYS[1], ARGV[4])
end
return 1
`);

export function redisRaw(client: RedisClient, adapter: KeyvRedis<unknown>, namespace: string): RawAccess {
  const k = (key: string) => adapter.createKeyPrefix(key, namespace);
  return {
    get: async (key) => (await client.get(k(key))) ?? undefined,
    cas: async (key, expected, next, expires) => {
      const out = await runScript(
        client,
        REDIS_CAS,
        [k(key)],
        [
          expected === undefined ? "0" : "1",
          expected ?? "",
          next === undefined ? "0" : "1",
          next ?? "",
          expires === undefined ? "" : String(Math.max(1, Math.floor(expires))),
        ],
      );
      return out === 1;
    },
  };
}
