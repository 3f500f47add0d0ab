/**
 * Watches stored by earlier versions, moved into the registry at start.
 * More: README.md ("legacy.ts").
 */
import { z } from "zod";
import type { Logger } from "../log.js";
import { DEFAULT_NAMESPACE, Documents, type Store } from "../store/index.js";
import { watchIdSchema } from "./live-docs.js";
import type { WatchEntry, WatchRegistry } from "./registry.js";

const isoDateTime = z.iso.datetime({ offset: true });
const lsDocSchema = z.strictObject({
  v: z.literal(1),
  watchers: z.array(
    z.strictObject({
      teamId: watchIdSchema,
      channelId: watchIdSchema,
      by: z.string().min(1),
      at: isoDateTime,
    }),
  ),
});
const teamDocSchema = z.strictObject({
  v: z.literal(1),
  watches: z.array(
    z.strictObject({
      livestreamId: watchIdSchema,
      channelId: watchIdSchema,
      by: z.string().min(1),
      at: isoDateTime,
    }),
  ),
});

export const LEGACY_PREFIXES = ["watch:ls:", "watch:team:"] as const;
export const LEGACY_INDEX = "watch:index";

const NO_CAP = { perTeam: Number.MAX_SAFE_INTEGER, total: Number.MAX_SAFE_INTEGER };

const globEscape = (s: string) => s.replace(/[*?[\]\\]/g, "\\$&");

/** The repository keys (no namespace) of every legacy watch document in the store. */
export async function legacyKeys(store: Store): Promise<string[]> {
  const ns = store.keyv.namespace ?? DEFAULT_NAMESPACE;
  const redis = store.backend.redis;
  const sqlite = store.backend.sqlite;
  const found: string[] = [];
  if (redis) {
    const raw = `${ns}::`;
    for (const prefix of [...LEGACY_PREFIXES, LEGACY_INDEX]) {
      const match = `${globEscape(raw + prefix)}${prefix === LEGACY_INDEX ? "" : "*"}`;
      let cursor = "0";
      do {
        const r = await store.run("watch legacy scan", () =>
          redis.scan(cursor, { MATCH: match, COUNT: 1000 }),
        );
        cursor = String(r.cursor);
        for (const k of r.keys) found.push(String(k).slice(raw.length));
      } while (cursor !== "0");
    }
  } else if (sqlite) {
    const raw = `${ns}:`;
    for (const prefix of [...LEGACY_PREFIXES, LEGACY_INDEX]) {
      const like = raw + prefix;
      const rows = await store.run("watch legacy scan", () =>
        sqlite.read(() =>
          prefix === LEGACY_INDEX
            ? sqlite.all("SELECT key FROM keyv WHERE key = ?", like)
            : sqlite.all("SELECT key FROM keyv WHERE substr(key, 1, ?) = ?", like.length, like),
        ),
      );
      for (const r of rows) {
        const key = (r as { key?: unknown }).key;
        if (typeof key === "string") found.push(key.slice(raw.length));
      }
    }
  } else {
    const map: unknown = store.keyv.store;
    if (map instanceof Map) {
      for (const k of map.keys()) {
        const key = String(k).slice(ns.length + 1);
        if (key === LEGACY_INDEX || LEGACY_PREFIXES.some((p) => key.startsWith(p))) found.push(key);
      }
    }
  }
  return [...new Set(found)];
}

/** Moves every legacy watch into `registry` and deletes the documents; the number of watches added. */
export async function migrateLegacyWatches(
  store: Store,
  registry: WatchRegistry,
  logger: Logger,
): Promise<number> {
  const keys = await legacyKeys(store);
  if (keys.length === 0) return 0;
  const log = logger.child({ component: "watch-migration" });
  const docs = new Documents(store, log);
  let added = 0;
  const add = async (w: WatchEntry) => {
    if ((await registry.add(w, NO_CAP)) === "added") added += 1;
  };
  for (const key of keys) {
    if (key.startsWith("watch:ls:")) {
      const livestreamId = key.slice("watch:ls:".length);
      const doc = await docs.read(key, lsDocSchema);
      for (const x of doc?.watchers ?? [])
        await add({ ...x, livestreamId, enterpriseId: null, profileId: null });
    } else if (key.startsWith("watch:team:")) {
      const teamId = key.slice("watch:team:".length);
      const doc = await docs.read(key, teamDocSchema);
      for (const x of doc?.watches ?? []) await add({ ...x, teamId, enterpriseId: null, profileId: null });
    }
    if (key !== LEGACY_INDEX) await docs.remove(key);
  }
  if (keys.includes(LEGACY_INDEX)) await docs.remove(LEGACY_INDEX);
  log.info({ documents: keys.length, added }, "watches moved from the legacy documents into the registry");
  return added;
}
