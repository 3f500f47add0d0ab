/**
 * The durable outbox of the notification path, on the same backend as the store:
 * memory:// → MemoryOutbox, sqlite:// → SqliteOutbox (own tables in the store's file),
 * redis:// → RedisOutbox (keys under `${namespace}:outbox:`).
 */
import type { Logger } from "../log.js";
import type { Store } from "../store/index.js";
import type { OutboxOptions } from "./common.js";
import { MemoryOutbox } from "./memory.js";
import { RedisOutbox } from "./redis.js";
import { SqliteOutbox } from "./sqlite.js";
import type { Outbox } from "./types.js";

export {
  type Clock,
  DEAD_LETTERS_PER_TEAM,
  DEFAULT_DEDUPE_TTL_MS,
  DEFAULT_PROFILE_QUOTA,
  type OutboxOptions,
  PULL_FORWARD_MS,
} from "./common.js";
export { MemoryOutbox } from "./memory.js";
export { RedisOutbox } from "./redis.js";
export { SqliteOutbox } from "./sqlite.js";
export type {
  DeadLetter,
  EnqueueOutcome,
  NewOutboxItem,
  Outbox,
  OutboxItem,
  OutboxStats,
} from "./types.js";

/**
 * Builds the outbox for `store`. sqlite: opens a connection to the store's file and creates the
 * tables (rejects with StoreUnavailableError if it cannot). Redis: never contacts Redis here, so a
 * Redis that is down at start-up does not stop the process (calls fail until it is back).
 * `close()` of the outbox does not close the store.
 */
export async function createOutbox(store: Store, logger: Logger, opts: OutboxOptions = {}): Promise<Outbox> {
  const log = logger.child({ component: "outbox", store: store.kind });
  switch (store.kind) {
    case "memory":
      return new MemoryOutbox(opts.now, opts);
    case "sqlite":
      return SqliteOutbox.open(store, log, opts);
    case "redis":
      return new RedisOutbox(store, opts);
  }
}
