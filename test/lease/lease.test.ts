/**
 * The shared lease (src/store/lease/) as its users see it, on memory and on a real Redis: the
 * outbox (videos) and the watch schedule (livestreams). Redis leases expire by Redis's clock, so
 * its cases use short leases and sleep; memory ones move the clock.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/log.js";
import { MemoryOutbox, RedisOutbox } from "../../src/outbox/index.js";
import type { Outbox } from "../../src/outbox/types.js";
import { openStore, type Store } from "../../src/store/index.js";
import { runScript, script } from "../../src/store/lease/index.js";
import { MemorySchedule, RedisSchedule, type WatchSchedule } from "../../src/watch/schedule.js";
import { deleteRedisNamespace, newItem, REDIS_URL, uniqueNamespace } from "../notify/outbox/harness.js";

const LEASE = 150;
const opened: Array<{ store: Store; namespace: string }> = [];

async function redisStore(): Promise<Store> {
  const namespace = uniqueNamespace();
  const store = await openStore({ kind: "redis", url: REDIS_URL }, silentLogger(), { namespace });
  opened.push({ store, namespace });
  return store;
}

afterEach(async () => {
  for (const { store, namespace } of opened.splice(0)) {
    await store.close();
    await deleteRedisNamespace(namespace);
  }
});

interface Leased {
  /** Schedules `key` due at `at`. */
  add(key: string, at: number): Promise<void>;
  claim(owner: string, now: number, max: number): Promise<string[]>;
  /** Gives the lease back, the key due at once. */
  release(owner: string, key: string, now: number): Promise<void>;
  now(): number;
  /** Past the end of a lease taken now. */
  expire(): Promise<void>;
}

function outboxLeased(outbox: Outbox, clock: { now(): number; advance(ms: number): Promise<void> }): Leased {
  let n = 0;
  return {
    add: async (key, at) => {
      await outbox.enqueue(newItem(key, ++n, at), `d${n}`, at);
    },
    claim: (owner, now, max) => outbox.claimDue(owner, now, max, LEASE),
    release: (owner, key) => outbox.release(owner, key, null),
    now: clock.now,
    expire: () => clock.advance(LEASE + 50),
  };
}

function scheduleLeased(
  s: WatchSchedule,
  clock: { now(): number; advance(ms: number): Promise<void> },
): Leased {
  return {
    add: (key, at) => s.add(key, at),
    claim: (owner, now, max) => s.claimDue(owner, now, max, LEASE),
    release: (owner, key, now) => s.releaseAll(owner, [key], now),
    now: clock.now,
    expire: () => clock.advance(LEASE + 50),
  };
}

function fakeClock() {
  let t = 1_000_000;
  return {
    now: () => t,
    advance: async (ms: number) => {
      t += ms;
    },
  };
}
const wallClock = { now: () => Date.now(), advance: (ms: number) => sleep(ms) };

const CASES: ReadonlyArray<readonly [string, () => Promise<Leased>]> = [
  [
    "memory outbox",
    async () => {
      const clock = fakeClock();
      return outboxLeased(new MemoryOutbox(clock.now), clock);
    },
  ],
  [
    "redis outbox",
    async () => outboxLeased(new RedisOutbox(await redisStore(), { now: wallClock.now }), wallClock),
  ],
  ["memory watch schedule", async () => scheduleLeased(new MemorySchedule(), fakeClock())],
  [
    "redis watch schedule",
    async () => {
      const store = await redisStore();
      const redis = store.backend.redis;
      if (!redis) throw new Error("not a redis store");
      return scheduleLeased(new RedisSchedule(store, redis), wallClock);
    },
  ],
];

describe.each(CASES)("lease: %s", (name, make) => {
  it("claims due keys earliest first, up to max, and not the ones not due", async () => {
    const l = await make();
    const now = l.now();
    await l.add("v3", now - 10);
    await l.add("v1", now - 30);
    await l.add("v2", now - 20);
    await l.add("later", now + 60_000);
    expect(await l.claim("A", now, 2)).toEqual(["v1", "v2"]);
    expect(await l.claim("A", now, 10)).toEqual(["v3"]);
  });

  it("a claim is exclusive while its lease lasts", async () => {
    const l = await make();
    const now = l.now();
    await l.add("v", now);
    expect(await l.claim("A", now, 5)).toEqual(["v"]);
    expect(await l.claim("B", l.now(), 5)).toEqual([]);
    expect(await l.claim("A", l.now(), 5)).toEqual([]);
  });

  it("an expired lease is claimed again", async () => {
    const l = await make();
    await l.add("v", l.now());
    expect(await l.claim("A", l.now(), 5)).toEqual(["v"]);
    await l.expire();
    expect(await l.claim("B", l.now(), 5)).toEqual(["v"]);
  });

  it.skipIf(name === "memory watch schedule")(
    "a released lease is due at once for another owner",
    async () => {
      const l = await make();
      await l.add("v", l.now());
      expect(await l.claim("A", l.now(), 5)).toEqual(["v"]);
      await l.release("B", "v", l.now()); // not B's lease: nothing changes
      expect(await l.claim("B", l.now(), 5)).toEqual([]);
      await l.release("A", "v", l.now());
      expect(await l.claim("B", l.now(), 5)).toEqual(["v"]);
    },
  );
});

describe("lease fencing: settle and renew only by the holder", () => {
  it.each([
    ["memory", async () => new MemoryOutbox(Date.now)],
    ["redis", async () => new RedisOutbox(await redisStore())],
  ] as const)("%s outbox", async (_name, make) => {
    const outbox = await make();
    const now = Date.now();
    await outbox.enqueue(newItem("v", 1, now), "d1", now);
    expect(await outbox.claimDue("A", now, 1, 60_000)).toEqual(["v"]);
    const [item] = await outbox.pending("v", 10);
    if (!item) throw new Error("no item");
    expect(await outbox.settle("B", "v", { s: 1 }, [item.id])).toBe(false);
    expect(await outbox.renew("B", "v", Date.now() + 60_000)).toBe(false);
    expect(await outbox.pending("v", 10)).toHaveLength(1);
    expect(await outbox.settle("A", "v", { s: 1 }, [item.id])).toBe(true);
    expect(await outbox.pending("v", 10)).toEqual([]);
    expect(await outbox.getState("v")).toEqual({ s: 1 });
  });

  it("watch schedule: reschedule and holds only for the lease holder (redis)", async () => {
    const store = await redisStore();
    const s = new RedisSchedule(store, store.backend.redis as NonNullable<typeof store.backend.redis>);
    await s.add("ls", Date.now());
    expect(await s.claimDue("A", Date.now(), 5, 60_000)).toEqual(["ls"]);
    expect(await s.holds("A", "ls")).toBe(true);
    expect(await s.holds("B", "ls")).toBe(false);
    expect(await s.reschedule("B", "ls", Date.now(), Date.now() + 60_000)).toBe(false);
    expect(await s.reschedule("A", "ls", Date.now(), Date.now() + 60_000)).toBe(true);
  });
});

describe("script runner", () => {
  it("loads the script again after SCRIPT FLUSH (NOSCRIPT), and the lease users go on", async () => {
    const store = await redisStore();
    const redis = store.backend.redis;
    if (!redis) throw new Error("not a redis store");
    const s = script(`return ARGV[1] .. '${uniqueNamespace()}'`);
    await redis.scriptFlush();
    await expect(redis.evalSha(s.sha, { keys: [], arguments: ["x"] })).rejects.toThrow(/NOSCRIPT/);
    expect(String(await runScript(redis, s, [], ["x"]))).toMatch(/^x/);
    // Loaded by the fallback: EVALSHA alone works now.
    expect(String(await redis.evalSha(s.sha, { keys: [], arguments: ["y"] }))).toMatch(/^y/);

    const outbox = new RedisOutbox(store);
    await outbox.enqueue(newItem("v", 1, Date.now()), "d1", Date.now());
    await redis.scriptFlush();
    expect(await outbox.claimDue("A", Date.now(), 1, 60_000)).toEqual(["v"]);
    const schedule = new RedisSchedule(store, redis);
    await schedule.add("ls", Date.now());
    await redis.scriptFlush();
    expect(await schedule.claimDue("A", Date.now(), 1, 60_000)).toEqual(["ls"]);
  });

  it("throws any other error as it is", async () => {
    const store = await redisStore();
    const redis = store.backend.redis;
    if (!redis) throw new Error("not a redis store");
    await expect(runScript(redis, script("return redis.call('NOSUCHCOMMAND')"), [], [])).rejects.toThrow(
      /Unknown Redis command|unknown command/i,
    );
  });
});
