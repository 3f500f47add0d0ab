/**
 * The three outbox backends behind one test interface, each with a clock:
 *  - memory / sqlite: a fake clock (`advance` moves it; leases and TTLs follow it, no sleeping);
 *  - redis: wall time (`advance` sleeps), since leases, dedupe and once keys expire by Redis's
 *    own clock (PX). Redis tests therefore use short leases and TTLs.
 */

import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { VideoKey } from "../../../src/domain/index.js";
import { type Logger, silentLogger } from "../../../src/log.js";
import { createOutbox, type OutboxOptions } from "../../../src/outbox/index.js";
import type { NewOutboxItem, Outbox } from "../../../src/outbox/types.js";
import { openStore, type Store } from "../../../src/store/index.js";

export const REDIS_URL = "redis://127.0.0.1:6379";

export type BackendName = "memory" | "sqlite" | "redis";

export interface TestClock {
  now(): number;
  advance(ms: number): Promise<void>;
}

export interface OutboxBackend {
  name: BackendName;
  clock: TestClock;
  /** Whether a later open() sees what an earlier one wrote. */
  persistent: boolean;
  /** A new outbox (and store) on this backend's data (memory: a fresh one each time). */
  open(opts?: Omit<OutboxOptions, "now">): Promise<Outbox>;
  /** Closes every outbox and store opened so far (the data stays). */
  closeAll(): Promise<void>;
  /** closeAll, then removes the data (files, Redis keys). */
  cleanup(): Promise<void>;
}

function fakeClock(start = 1_000_000): TestClock {
  let t = start;
  return {
    now: () => t,
    advance: async (ms) => {
      t += ms;
    },
  };
}

const wallClock: TestClock = { now: () => Date.now(), advance: (ms) => sleep(ms) };

function tracked(
  name: BackendName,
  clock: TestClock,
  persistent: boolean,
  openStoreFn: (logger: Logger) => Promise<Store>,
  removeData: () => Promise<void>,
): OutboxBackend {
  const opened: Array<{ outbox: Outbox; store: Store }> = [];
  const closeAll = async () => {
    for (const { outbox, store } of opened.splice(0)) {
      await outbox.close();
      await store.close();
    }
  };
  return {
    name,
    clock,
    persistent,
    open: async (opts = {}) => {
      const logger = silentLogger();
      const store = await openStoreFn(logger);
      const outbox = await createOutbox(store, logger, { ...opts, now: clock.now });
      opened.push({ outbox, store });
      return outbox;
    },
    closeAll,
    cleanup: async () => {
      await closeAll();
      await removeData();
    },
  };
}

export function memoryOutboxBackend(): OutboxBackend {
  return tracked(
    "memory",
    fakeClock(),
    false,
    (logger) => openStore({ kind: "memory", url: "memory://" }, logger),
    async () => undefined,
  );
}

export function sqliteOutboxBackend(): OutboxBackend & { file: string } {
  const dir = mkdtempSync(join(tmpdir(), "outbox-test-"));
  const file = join(dir, "bot.sqlite");
  const backend = tracked(
    "sqlite",
    fakeClock(),
    true,
    (logger) => openStore({ kind: "sqlite", path: file, url: `sqlite://${file}` }, logger),
    async () => rmSync(dir, { recursive: true, force: true }),
  );
  return { ...backend, file };
}

export const uniqueNamespace = () => `outbox-test-${process.pid}-${randomBytes(4).toString("hex")}`;

/** Deletes every key of `namespace` (Keyv's `ns::…` and the outbox's `ns:outbox:…`). */
export async function deleteRedisNamespace(namespace: string): Promise<void> {
  const store = await openStore({ kind: "redis", url: REDIS_URL }, silentLogger(), { namespace });
  try {
    const client = store.backend.redis;
    if (!client) throw new Error("not a redis store");
    const keys = await client.keys(`${namespace}:*`);
    if (keys.length > 0) await client.del(keys);
  } finally {
    await store.close();
  }
}

export function redisOutboxBackend(namespace = uniqueNamespace()): OutboxBackend {
  return tracked(
    "redis",
    wallClock,
    true,
    (logger) => openStore({ kind: "redis", url: REDIS_URL }, logger, { namespace }),
    () => deleteRedisNamespace(namespace),
  );
}

export const BACKENDS: ReadonlyArray<readonly [BackendName, () => OutboxBackend]> = [
  ["memory", memoryOutboxBackend],
  ["sqlite", sqliteOutboxBackend],
  ["redis", redisOutboxBackend],
];

/** A delivery for `video` carrying `n` (so tests can tell items apart). */
export function newItem(video: VideoKey, n: number, receivedAt: number, teamId = "T1"): NewOutboxItem {
  return {
    teamId,
    profileId: "P1",
    channelId: "C1",
    videoKey: video,
    delivery: { type: "test.event", timestamp: n, data: { n, text: 'é ✓ "quoted"' }, known: false },
    receivedAt,
  };
}

export const nOf = (item: { delivery: { data: Record<string, unknown> } }): number =>
  Number(item.delivery.data.n);
