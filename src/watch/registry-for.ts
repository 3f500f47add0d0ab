/** The watch registry on the store's backend (registry.ts). */
import type { Store } from "../store/index.js";
import { MemoryWatchRegistry, type WatchRegistry } from "./registry.js";
import { RedisWatchRegistry } from "./registry-redis.js";
import { SqliteWatchRegistry } from "./registry-sqlite.js";

export function registryFor(store: Store): WatchRegistry {
  if (store.backend.redis) return new RedisWatchRegistry(store, store.backend.redis);
  if (store.backend.sqlite) return new SqliteWatchRegistry(store, store.backend.sqlite);
  return new MemoryWatchRegistry();
}
