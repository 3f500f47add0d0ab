/**
 * The Keyv store behind the bot's state: `sqlite://PATH` (embedded default), `redis://…` (shared by
 * replicas) or `memory://` (tests).
 *
 * Every value is JSON: Keyv's envelope `{"value":…,"expires":…}` serialized with `JSON.stringify`.
 * The deserializer is strict: a value that is not JSON or not an envelope throws
 * `StoreCorruptError` out of `keyv.get()` (Keyv's default would hand back `undefined` for, say,
 * `"null"`, i.e. silently treat a damaged value as absent).
 * More: README.md ("keyv.ts").
 */
import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { type DeserializedData, Keyv } from "keyv";
import type { StoreUrl } from "../config.js";
import type { Logger } from "../log.js";
import { type Envelope, memoryRaw, type RawAccess, redisRaw, sqliteRaw } from "./cas.js";
import { StoreCorruptError, StoreUnavailableError } from "./errors.js";
import { SqliteDb, SqliteKeyvAdapter } from "./sqlite.js";

export type { Envelope } from "./cas.js";

export const DEFAULT_OP_TIMEOUT_MS = 2000;
export const DEFAULT_NAMESPACE = "bot";
/** At most one warn line per store for 'error' events / failed operations in this interval. */
export const ERROR_LOG_INTERVAL_MS = 10_000;
/** Longest wait between two reconnection attempts to Redis. */
const MAX_RECONNECT_DELAY_MS = 2000;
/** Commands waiting on a connected but unresponsive Redis beyond which new ones are refused. */
const REDIS_QUEUE_MAX = 10_000;

import type { RedisClient } from "./redis-client.js";

export type { RedisClient };

export interface Store {
  kind: "sqlite" | "redis" | "memory";
  /** Namespace "bot" (unless `OpenStoreOptions.namespace`); values JSON-serialized. */
  keyv: Keyv<unknown>;
  /** Bound on each operation run through `run()`, milliseconds. */
  readonly opTimeoutMs: number;
  /** Resolves when the backend answers; rejects with StoreUnavailableError otherwise. */
  ping(): Promise<void>;
  /**
   * Runs one store operation with the `opTimeoutMs` bound: every error or timeout becomes
   * `StoreUnavailableError` (naming `op`); `StoreCorruptError` is passed through. Rejects at once
   * once the store is closed.
   */
  run<T>(op: string, fn: () => Promise<T>): Promise<T>;
  /**
   * The raw stored string at `key` (Keyv's envelope as the backend holds it, expired or not), or
   * undefined. Bounded and failing like `run()`.
   */
  getRaw(key: string): Promise<string | undefined>;
  /**
   * Compare-and-set: writes `next` (undefined deletes) only if the raw string at `key` is still
   * `expected` (undefined: no value); true when it wrote, false when the value was another.
   * `next.expires` is kept in the envelope (and, on Redis, as the key's expiry). Bounded and
   * failing like `run()`: after a timeout the write may or may not have happened.
   */
  cas(key: string, expected: string | undefined, next: Envelope | undefined): Promise<boolean>;
  /** Idempotent. */
  close(): Promise<void>;
  /** Raw backend handles for later primitives (Redis SET NX, sqlite transactions). */
  backend: {
    /** The node-redis client given to @keyv/redis (keys are `${namespace}::${key}`). */
    redis?: RedisClient;
    /**
     * The sqlite connection (sqlite.ts) under Keyv, compare-and-set, the outbox and the watch
     * registry; Keyv's table is `keyv`, keys `${namespace}:${key}`.
     */
    sqlite?: SqliteDb;
  };
}

export interface OpenStoreOptions {
  /** Bound on each operation and on opening, milliseconds. Default 2000. */
  opTimeoutMs?: number;
  /** Key namespace. Default "bot"; tests use a unique one to share a Redis safely. */
  namespace?: string;
}

const errorMessage = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/** `redis://user:secret@host` → `redis://user:***@host`. */
export function maskUrl(url: string): string {
  return url.replace(/^([a-z]+:\/\/[^:/@]*):[^@/]*@/i, "$1:***@");
}

function serialize<Value>(data: DeserializedData<Value>): string {
  return JSON.stringify(data);
}

/** The raw string Keyv stores for an envelope (what `Store.getRaw` answers). */
export function encodeEnvelope(e: Envelope): string {
  return serialize({ value: e.value, expires: e.expires });
}

/** A raw stored string read back; throws StoreCorruptError like `keyv.get()` does. */
export function decodeEnvelope(raw: string): Envelope {
  const { value, expires } = deserialize<unknown>(raw);
  return { value, expires };
}

/** Strict: only a JSON object with a `value` and an optional numeric `expires` is a value. */
function deserialize<Value>(raw: string): DeserializedData<Value> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (err) {
    throw new StoreCorruptError("", "not JSON", { cause: err });
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed) || !("value" in parsed)) {
    throw new StoreCorruptError("", "not a Keyv envelope {value, expires}");
  }
  const expires = "expires" in parsed ? parsed.expires : undefined;
  if (expires !== undefined && expires !== null && typeof expires !== "number") {
    throw new StoreCorruptError("", "envelope has a non-numeric expires");
  }
  return {
    value: parsed.value as Value,
    expires: typeof expires === "number" ? expires : undefined,
  };
}

/** Logs at warn at most once per interval, reporting how many were held back. */
function rateLimitedWarn(logger: Logger, intervalMs: number): (err: unknown, msg: string) => void {
  let last = Number.NEGATIVE_INFINITY;
  let suppressed = 0;
  return (err, msg) => {
    try {
      const now = Date.now();
      if (now - last < intervalMs) {
        suppressed++;
        return;
      }
      last = now;
      logger.warn({ err: err instanceof Error ? err : new Error(String(err)), suppressed }, msg);
      suppressed = 0;
    } catch {
      // A logging failure must not turn into an exception inside an event emitter.
    }
  };
}

function redisReconnectDelay(retries: number): number {
  return Math.min(100 * 2 ** Math.min(retries, 5), MAX_RECONNECT_DELAY_MS) + Math.floor(Math.random() * 100);
}

/** Resolves a promise's outcome within `ms`, or rejects with a timeout error; never leaves a rejection unhandled. */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolvePromise(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

interface Backend {
  kind: Store["kind"];
  keyv: Keyv<unknown>;
  /** Resolves true once the backend is first usable, false if it gave up; never rejects. */
  opened: Promise<boolean>;
  ping: () => Promise<unknown>;
  close: () => Promise<void>;
  backend: Store["backend"];
  raw: RawAccess;
}

function keyvOptions(namespace: string) {
  return { namespace, serialize, deserialize, throwOnErrors: true };
}

function memoryBackend(namespace: string): Backend {
  const map = new Map<string, unknown>();
  const keyv = new Keyv<unknown>(map, keyvOptions(namespace));
  return {
    kind: "memory",
    keyv,
    opened: Promise.resolve(true),
    ping: async () => undefined,
    close: async () => undefined,
    backend: {},
    raw: memoryRaw(map, namespace),
  };
}

function sqliteBackend(
  path: string,
  namespace: string,
  opTimeoutMs: number,
  onError: (err: unknown) => void,
): Backend {
  // Relative paths are relative to the working directory; ":memory:" is sqlite's in-memory db.
  const file = path === ":memory:" ? path : resolve(path);
  if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
  const db = new SqliteDb(file, opTimeoutMs);
  db.on("error", onError);
  const keyv = new Keyv<unknown>(new SqliteKeyvAdapter(db), keyvOptions(namespace));
  return {
    kind: "sqlite",
    keyv,
    opened: Promise.resolve(true),
    ping: () => db.read(() => db.get("SELECT 1 AS one")),
    close: () => db.close(),
    backend: { sqlite: db },
    raw: sqliteRaw(db, namespace),
  };
}

/**
 * Loaded only when the store is Redis: the Redis client is a fifth of a small bot's memory, and
 * most installations run on the embedded store.
 */
async function redisBackend(
  url: string,
  namespace: string,
  opTimeoutMs: number,
  onError: (err: unknown) => void,
): Promise<Backend> {
  const { default: KeyvRedis, createClient } = await import("@keyv/redis");
  const client: RedisClient = createClient({
    url,
    disableOfflineQueue: true,
    commandsQueueMaxLength: REDIS_QUEUE_MAX,
    socket: { connectTimeout: opTimeoutMs, reconnectStrategy: redisReconnectDelay },
  });
  // A listener before anything can fail: an EventEmitter 'error' without one kills the process.
  client.on("error", onError);
  const adapter = new KeyvRedis<unknown>(client, {
    namespace,
    throwOnErrors: true,
    throwOnConnectError: true,
  });
  // @keyv/redis prefixes keys itself (`ns::key`); Keyv must not add its own prefix on top.
  const keyv = new Keyv<unknown>(adapter, { ...keyvOptions(namespace), useKeyPrefix: false });
  // Connects in the background and keeps retrying (see the reconnect strategy); until then every
  // command is rejected at once because the offline queue is disabled. The promise settles when
  // the first connection is ready (or when the client is closed before that).
  const opened = client.connect().then(
    () => client.isReady,
    (err: unknown) => {
      onError(err);
      return false;
    },
  );
  return {
    kind: "redis",
    keyv,
    opened,
    ping: () => client.ping(),
    close: async () => {
      if (!client.isOpen) return;
      if (!client.isReady) {
        client.destroy();
        return;
      }
      // close() waits for pending replies: bounded, then forced.
      await withTimeout(client.close(), opTimeoutMs).catch(() => {
        if (client.isOpen) client.destroy();
      });
    },
    backend: { redis: client },
    raw: redisRaw(client, adapter, namespace),
  };
}

/** The backend `url` names; StoreUnavailableError when it cannot be opened. */
async function openBackend(
  url: StoreUrl,
  namespace: string,
  opTimeoutMs: number,
  onError: (err: unknown) => void,
): Promise<Backend> {
  try {
    switch (url.kind) {
      case "memory":
        return memoryBackend(namespace);
      case "sqlite":
        return sqliteBackend(url.path, namespace, opTimeoutMs, onError);
      case "redis":
        return await redisBackend(url.url, namespace, opTimeoutMs, onError);
    }
  } catch (err) {
    throw new StoreUnavailableError(`cannot open store ${maskUrl(url.url)}: ${errorMessage(err)}`, {
      cause: err,
    });
  }
}

/**
 * The Store over a backend: every operation bounded by `opTimeoutMs`, its failures (other than
 * corrupt values) logged and turned into StoreUnavailableError; refused once closed.
 */
function storeOver(b: Backend, opTimeoutMs: number, warn: (err: unknown, msg: string) => void): Store {
  let closed = false;
  const run = async <T>(op: string, fn: () => Promise<T>): Promise<T> => {
    if (closed) throw new StoreUnavailableError(`store unavailable: ${op}: the store is closed`);
    try {
      return await withTimeout(Promise.resolve().then(fn), opTimeoutMs);
    } catch (err) {
      if (err instanceof StoreCorruptError || err instanceof StoreUnavailableError) throw err;
      warn(err, `store operation failed: ${op}`);
      throw new StoreUnavailableError(`store unavailable: ${op}: ${errorMessage(err)}`, { cause: err });
    }
  };

  return {
    kind: b.kind,
    keyv: b.keyv,
    opTimeoutMs,
    ping: async () => {
      await run("ping", b.ping);
    },
    run,
    getRaw: (key) => run(`get ${key}`, () => b.raw.get(key)),
    cas: (key, expected, next) =>
      run(`compare-and-set ${key}`, () =>
        b.raw.cas(key, expected, next === undefined ? undefined : encodeEnvelope(next), next?.expires),
      ),
    close: async () => {
      if (closed) return;
      closed = true;
      await b.close().catch((err: unknown) => warn(err, "error while closing the store"));
    },
    backend: b.backend,
  };
}

/**
 * Opens the store named by `url`. sqlite: creates the parent folder, opens (or creates) the file
 * and rejects with `StoreUnavailableError` if it cannot. redis: resolves within about `opTimeoutMs`,
 * connected or not (see the module comment). memory: a Map.
 */
export async function openStore(url: StoreUrl, logger: Logger, opts: OpenStoreOptions = {}): Promise<Store> {
  const opTimeoutMs = opts.opTimeoutMs ?? DEFAULT_OP_TIMEOUT_MS;
  const namespace = opts.namespace ?? DEFAULT_NAMESPACE;
  const log = logger.child({ component: "store", store: url.kind });
  const warn = rateLimitedWarn(log, ERROR_LOG_INTERVAL_MS);
  const onError = (err: unknown) => warn(err, `store backend error (${maskUrl(url.url)})`);

  const b = await openBackend(url, namespace, opTimeoutMs, onError);
  b.keyv.on("error", onError);
  const store = storeOver(b, opTimeoutMs, warn);

  let connected = true;
  if (b.kind === "redis") {
    // Give the first connection up to opTimeoutMs, so that a Redis that is up is usable as soon as
    // openStore() resolves; past that, resolve anyway and keep connecting in the background.
    connected = await withTimeout(b.opened, opTimeoutMs).catch(() => false);
    if (!connected) {
      log.warn(
        { url: maskUrl(url.url) },
        "Redis is not reachable yet; store operations fail until it is, the client keeps reconnecting",
      );
    }
  }
  if (b.kind === "sqlite") {
    // The file is open (the constructor threw otherwise); one read proves it answers.
    try {
      await store.ping();
    } catch (err) {
      await store.close();
      throw new StoreUnavailableError(`cannot open store ${maskUrl(url.url)}: ${errorMessage(err)}`, {
        cause: err,
      });
    }
  }
  log.info({ url: maskUrl(url.url), namespace, connected }, "store opened");
  return store;
}
