/**
 * Shared by the store tests: the three backends behind one interface (with raw access to what a
 * backend holds, to plant corrupt values), a pino logger captured into an array, and a private
 * redis-server child process that can be killed, paused and restarted.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createConnection, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { StoreUrl } from "../../src/config.js";
import { createLogger, type Logger } from "../../src/log.js";
import { type OpenStoreOptions, openStore, type Store } from "../../src/store/index.js";

export const REDIS_URL = "redis://127.0.0.1:6379";

export interface LogLine {
  level: string;
  msg: string;
  [k: string]: unknown;
}

export function captureLogger(level: "debug" | "info" | "warn" = "debug"): {
  logger: Logger;
  lines: LogLine[];
} {
  const lines: LogLine[] = [];
  const logger = createLogger({
    level,
    destination: { write: (s: string) => void lines.push(JSON.parse(s) as LogLine) },
  });
  return { logger, lines };
}

export type BackendName = "memory" | "sqlite" | "redis";

export interface TestBackend {
  name: BackendName;
  /** Opens a store on the same data each time (except memory: a fresh Map each time). */
  open(logger: Logger, opts?: OpenStoreOptions): Promise<Store>;
  /** Whether a second open() sees what the first one wrote. */
  persistent: boolean;
  /** Writes `raw` as the backend's stored string for `key` (repository key, no namespace). */
  writeRaw(store: Store, key: string, raw: string): Promise<void>;
  /** The backend's stored string for `key`, or undefined. */
  readRaw(store: Store, key: string): Promise<string | undefined>;
  /** Removes everything this backend created (files, Redis keys). */
  cleanup(): Promise<void>;
}

function memoryMap(store: Store): Map<string, unknown> {
  const map: unknown = store.keyv.store;
  if (!(map instanceof Map)) throw new Error("the memory store is not a Map");
  return map;
}

function sqliteOf(store: Store) {
  const sqlite = store.backend.sqlite;
  if (!sqlite) throw new Error("not a sqlite store");
  return sqlite;
}

function redisOf(store: Store) {
  const redis = store.backend.redis;
  if (!redis) throw new Error("not a redis store");
  return redis;
}

export function memoryBackend(): TestBackend {
  return {
    name: "memory",
    persistent: false,
    open: (logger, opts) => openStore({ kind: "memory", url: "memory://" }, logger, opts),
    writeRaw: async (store, key, raw) => void memoryMap(store).set(`bot:${key}`, raw),
    readRaw: async (store, key) => {
      const v = memoryMap(store).get(`bot:${key}`);
      return typeof v === "string" ? v : undefined;
    },
    cleanup: async () => undefined,
  };
}

export function sqliteBackend(): TestBackend & { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), "store-test-"));
  // A nested folder that does not exist yet: openStore must create it.
  const file = join(dir, "nested", "deeper", "bot.sqlite");
  const url: StoreUrl = { kind: "sqlite", path: file, url: `sqlite://${file}` };
  return {
    name: "sqlite",
    dir,
    file,
    persistent: true,
    open: (logger, opts) => openStore(url, logger, opts),
    writeRaw: async (store, key, raw) => {
      await sqliteOf(store).query(
        "INSERT INTO keyv (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        `bot:${key}`,
        raw,
      );
    },
    readRaw: async (store, key) => {
      const rows: unknown = await sqliteOf(store).query("SELECT value FROM keyv WHERE key = ?", `bot:${key}`);
      if (!Array.isArray(rows) || rows.length === 0) return undefined;
      const row: unknown = rows[0];
      return typeof row === "object" && row !== null && "value" in row && typeof row.value === "string"
        ? row.value
        : undefined;
    },
    cleanup: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A unique namespace per test run, so runs sharing the Redis on 6379 never meet; removed after. */
export function redisBackend(url = REDIS_URL): TestBackend & { namespace: string } {
  const namespace = `bot-test-${process.pid}-${randomBytes(4).toString("hex")}`;
  return {
    name: "redis",
    namespace,
    persistent: true,
    open: (logger, opts) => openStore({ kind: "redis", url }, logger, { namespace, ...opts }),
    writeRaw: async (store, key, raw) => {
      await redisOf(store).set(`${namespace}::${key}`, raw);
    },
    readRaw: async (store, key) => (await redisOf(store).get(`${namespace}::${key}`)) ?? undefined,
    cleanup: async () => {
      const store = await openStore({ kind: "redis", url }, captureLogger().logger, { namespace });
      try {
        const client = redisOf(store);
        const found = await client.keys(`${namespace}::*`);
        if (found.length > 0) await client.del(found);
        const left = await client.keys(`${namespace}::*`);
        if (left.length > 0) throw new Error(`redis keys left behind: ${left.join(", ")}`);
      } finally {
        await store.close();
      }
    },
  };
}

/** A TCP port nothing listens on right now (bound then released). */
/** The three stores, for `describe.each`: each entry's name and the backend it makes. */
export const ALL_BACKENDS: Array<[BackendName, () => TestBackend]> = [
  ["memory", memoryBackend],
  ["sqlite", sqliteBackend],
  ["redis", redisBackend],
];

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** true when a Redis answers PING on 127.0.0.1:`port` within `timeoutMs`. */
export function redisAnswers(port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: "127.0.0.1", port });
    let data = "";
    const done = (ok: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.on("connect", () => socket.write("PING\r\n"));
    socket.on("data", (chunk) => {
      data += chunk.toString();
      if (data.includes("+PONG")) done(true);
    });
    socket.on("error", () => done(false));
  });
}

/** Polls `check` until it returns true, every `everyMs`, for at most `timeoutMs`. */
export async function waitFor(
  check: () => Promise<boolean>,
  timeoutMs: number,
  everyMs = 100,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await sleep(everyMs);
  }
}

/** A private `redis-server` (no persistence) on its own port. */
export class RedisChild {
  private child: ChildProcess | undefined;
  constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    if (this.child) throw new Error("already running");
    const child = spawn(
      "redis-server",
      [
        "--port",
        String(this.port),
        "--bind",
        "127.0.0.1",
        "--save",
        "",
        "--appendonly",
        "no",
        "--daemonize",
        "no",
      ],
      { stdio: "ignore" },
    );
    child.on("error", () => undefined);
    this.child = child;
    if (!(await waitFor(() => redisAnswers(this.port), 10_000))) {
      await this.kill();
      throw new Error(`redis-server did not start on port ${this.port}`);
    }
  }

  /** SIGKILL (also works on a paused process) and wait for the exit. */
  async kill(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill("SIGKILL");
    await Promise.race([exited, sleep(5000)]);
  }

  /** Freezes the server: connections stay open, nothing is answered. */
  pause(): void {
    this.child?.kill("SIGSTOP");
  }

  resume(): void {
    this.child?.kill("SIGCONT");
  }
}

/** Records unhandled rejections and uncaught exceptions while a test file runs. */
export function watchProcessFailures(): { failures: unknown[]; stop: () => void } {
  const failures: unknown[] = [];
  const onRejection = (reason: unknown) => void failures.push(reason);
  const onException = (err: unknown) => void failures.push(err);
  process.on("unhandledRejection", onRejection);
  process.on("uncaughtException", onException);
  return {
    failures,
    stop: () => {
      process.off("unhandledRejection", onRejection);
      process.off("uncaughtException", onException);
    },
  };
}
