/** openStore(): backends, namespace and serialization, the operation wrapper, errors and closing. */
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, describe, expect, it } from "vitest";
import {
  openStore,
  SettingsRepo,
  type Store,
  StoreCorruptError,
  StoreUnavailableError,
} from "../../src/store/index.js";
import { captureLogger, REDIS_URL, watchProcessFailures } from "./helpers.js";

const tmp = mkdtempSync(join(tmpdir(), "store-open-"));
const process_ = watchProcessFailures();
afterAll(() => {
  rmSync(tmp, { recursive: true, force: true });
  process_.stop();
  expect(process_.failures).toEqual([]);
});

const sqliteUrl = (path: string) => ({ kind: "sqlite" as const, path, url: `sqlite://${path}` });

async function rejection(p: Promise<unknown>): Promise<unknown> {
  return p.then(
    () => undefined,
    (e: unknown) => e,
  );
}

describe("memory", () => {
  it("is a Keyv Map under namespace bot, values JSON-serialized", async () => {
    const { logger } = captureLogger();
    const store = await openStore({ kind: "memory", url: "memory://" }, logger);
    expect(store.kind).toBe("memory");
    expect(store.keyv.namespace).toBe("bot");
    expect(store.keyv.throwOnErrors).toBe(true);
    await store.ping();
    await store.keyv.set("k", { a: 1, s: ":colon" });
    const map: unknown = store.keyv.store;
    expect(map).toBeInstanceOf(Map);
    expect(map instanceof Map && map.get("bot:k")).toBe('{"value":{"a":1,"s":":colon"}}');
    expect(await store.keyv.get("k")).toEqual({ a: 1, s: ":colon" });
    await store.close();
  });
});

describe("sqlite", () => {
  it("creates the parent folders and the file, with values JSON-serialized under bot:", async () => {
    const file = join(tmp, "a", "b", "c", "bot.sqlite");
    const { logger } = captureLogger();
    const store = await openStore(sqliteUrl(file), logger);
    expect(store.kind).toBe("sqlite");
    expect(existsSync(file)).toBe(true);
    await store.keyv.set("k", ["x", 2]);
    const rows: unknown = await store.backend.sqlite?.query("SELECT key, value FROM keyv");
    expect(rows).toEqual([{ key: "bot:k", value: '{"value":["x",2]}' }]);
    await store.close();
  });

  it("resolves a relative path against the working directory", async () => {
    const cwd = process.cwd();
    const base = join(tmp, "cwd");
    mkdirSync(base);
    process.chdir(base);
    try {
      const { logger } = captureLogger();
      const store = await openStore(sqliteUrl("./data/rel.sqlite"), logger);
      await store.close();
    } finally {
      process.chdir(cwd);
    }
    expect(existsSync(join(base, "data", "rel.sqlite"))).toBe(true);
    expect(existsSync(join(cwd, "data", "rel.sqlite"))).toBe(false);
  });

  it("rejects with StoreUnavailableError when the file cannot be opened", async () => {
    const { logger } = captureLogger();
    const dir = join(tmp, "is-a-folder");
    mkdirSync(dir);
    const err1 = await rejection(openStore(sqliteUrl(dir), logger));
    expect(err1).toBeInstanceOf(StoreUnavailableError);
    expect(err1).toMatchObject({ code: "STORE_UNAVAILABLE" });

    const fileAsParent = join(tmp, "plain-file");
    writeFileSync(fileAsParent, "x");
    const err2 = await rejection(openStore(sqliteUrl(join(fileAsParent, "bot.sqlite")), logger));
    expect(err2).toBeInstanceOf(StoreUnavailableError);
  });

  it("Keyv throws instead of answering undefined when the backend fails", async () => {
    const { logger, lines } = captureLogger();
    const store = await openStore(sqliteUrl(join(tmp, "fails.sqlite")), logger);
    await store.keyv.set("team:T1:profiles", { v: 1, profiles: {}, defaultProfileId: "x1" });
    // Close the database under Keyv's feet.
    await store.backend.sqlite?.close();
    await expect(store.keyv.get("team:T1:profiles")).rejects.toThrow();
    const repo = new SettingsRepo(store, logger);
    const err = await rejection(repo.listProfiles("T1"));
    expect(err).toBeInstanceOf(StoreUnavailableError);
    expect(String((err as Error).message)).toContain("team:T1:profiles");
    expect(lines.some((l) => l.level === "warn")).toBe(true);
    await store.close();
  });
});

describe("redis", () => {
  it("uses namespace bot by default, keys bot::<key>, values JSON-serialized", async () => {
    const { logger } = captureLogger();
    const store = await openStore({ kind: "redis", url: REDIS_URL }, logger);
    const key = `test-ns-${randomBytes(6).toString("hex")}`;
    try {
      expect(store.kind).toBe("redis");
      await store.ping();
      await store.keyv.set(key, { a: 1 });
      expect(await store.backend.redis?.get(`bot::${key}`)).toBe('{"value":{"a":1}}');
      expect(await store.keyv.get(key)).toEqual({ a: 1 });
    } finally {
      await store.keyv.delete(key);
      expect(await store.backend.redis?.exists(`bot::${key}`)).toBe(0);
      await store.close();
    }
  });

  it("honours the database index of the URL", async () => {
    const { logger } = captureLogger();
    const store = await openStore({ kind: "redis", url: `${REDIS_URL}/3` }, logger, {
      namespace: "db-index-test",
    });
    const key = `k-${randomBytes(6).toString("hex")}`;
    const other = await openStore({ kind: "redis", url: `${REDIS_URL}/0` }, logger, {
      namespace: "db-index-test",
    });
    try {
      await store.keyv.set(key, 1);
      expect(await store.keyv.get(key)).toBe(1);
      expect(await other.keyv.get(key)).toBeUndefined();
    } finally {
      await store.keyv.delete(key);
      await store.close();
      await other.close();
    }
  });
});

describe("Store.run", () => {
  let store: Store;
  const open = async (opTimeoutMs = 300) => {
    const cap = captureLogger();
    store = await openStore({ kind: "memory", url: "memory://" }, cap.logger, { opTimeoutMs });
    return cap;
  };

  it("turns a timeout into StoreUnavailableError after opTimeoutMs", async () => {
    await open(300);
    const started = Date.now();
    const err = await rejection(store.run("hang", () => new Promise<never>(() => undefined)));
    const elapsed = Date.now() - started;
    expect(err).toBeInstanceOf(StoreUnavailableError);
    expect(String((err as Error).message)).toContain("hang");
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(1500);
    await store.close();
  });

  it("turns any error into StoreUnavailableError, keeping the cause; passes StoreCorruptError through", async () => {
    await open();
    const boom = new Error("boom");
    const err = await rejection(
      store.run("fail", async () => {
        throw boom;
      }),
    );
    expect(err).toBeInstanceOf(StoreUnavailableError);
    expect((err as Error).cause).toBe(boom);
    const sync = await rejection(
      store.run("sync-throw", () => {
        throw boom;
      }),
    );
    expect(sync).toBeInstanceOf(StoreUnavailableError);
    const corrupt = new StoreCorruptError("k", "bad");
    expect(await rejection(store.run("c", () => Promise.reject(corrupt)))).toBe(corrupt);
    expect(await store.run("ok", async () => 42)).toBe(42);
    await store.close();
  });

  it("a late rejection after the timeout is not an unhandled rejection", async () => {
    await open(100);
    const err = await rejection(
      store.run("late", async () => {
        await sleep(300);
        throw new Error("late failure");
      }),
    );
    expect(err).toBeInstanceOf(StoreUnavailableError);
    await sleep(400);
    expect(process_.failures).toEqual([]);
    await store.close();
  });

  it("refuses every operation once the store is closed; close is idempotent", async () => {
    await open();
    await store.close();
    await store.close();
    expect(await rejection(store.ping())).toBeInstanceOf(StoreUnavailableError);
    expect(
      await rejection(new SettingsRepo(store, captureLogger().logger).listManagers("T1")),
    ).toBeInstanceOf(StoreUnavailableError);
  });
});

describe("'error' events", () => {
  it("never crash the process and are logged at warn, rate-limited", async () => {
    const { logger, lines } = captureLogger();
    const sqlite = await openStore(sqliteUrl(join(tmp, "events.sqlite")), logger);
    const redis = await openStore({ kind: "redis", url: REDIS_URL }, logger, { namespace: "events-test" });
    try {
      // Node EventEmitters throw on an 'error' without a listener.
      for (let i = 0; i < 5; i++) {
        expect(() => sqlite.backend.sqlite?.emit("error", new Error(`sqlite boom ${i}`))).not.toThrow();
        expect(() => redis.backend.redis?.emit("error", new Error(`redis boom ${i}`))).not.toThrow();
        expect(() => sqlite.keyv.emit("error", new Error(`keyv boom ${i}`))).not.toThrow();
      }
      const warns = lines.filter((l) => l.level === "warn");
      // One line per store for the burst (the limiter holds back the rest).
      expect(warns).toHaveLength(2);
      expect(JSON.stringify(warns)).toContain("sqlite boom 0");
      expect(JSON.stringify(warns)).toContain("redis boom 0");
      await redis.ping();
    } finally {
      await sqlite.close();
      await redis.close();
    }
  });
});
