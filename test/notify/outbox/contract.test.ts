/**
 * One contract (src/outbox/types.ts, `Outbox`) run against the memory, sqlite and Redis outboxes.
 * Times come from the backend's test clock: fake for memory/sqlite, wall time for Redis (whose
 * leases and TTLs expire by Redis's clock), hence the short leases and TTLs below.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/log.js";
import { PULL_FORWARD_MS } from "../../../src/outbox/common.js";
import { createOutbox } from "../../../src/outbox/index.js";
import type { Outbox, OutboxItem } from "../../../src/outbox/types.js";
import { openStore, StoreUnavailableError } from "../../../src/store/index.js";
import {
  BACKENDS,
  newItem,
  nOf,
  type OutboxBackend,
  redisOutboxBackend,
  sqliteOutboxBackend,
  uniqueNamespace,
} from "./harness.js";

const TTL = 250;
const LEASE = 250;

describe.each(BACKENDS)("%s outbox", (_name, make) => {
  let b: OutboxBackend;
  let o: Outbox;
  let t: () => number;
  beforeEach(async () => {
    b = make();
    // Due times as asked (fair due times have their own test below).
    o = await b.open({ dedupeTtlMs: TTL, backlogSpacingMs: 0 });
    t = b.clock.now;
  });
  afterEach(async () => {
    await b.cleanup();
  });

  const enqueue = (video: string, n: number, dueAt = t(), receivedAt = t()) =>
    o.enqueue(newItem(video, n, receivedAt), `d-${video}-${n}`, dueAt);

  it("stores an item once per dedupe key within the TTL, and again after it", async () => {
    expect(await o.enqueue(newItem("v1", 1, t()), "k1", t())).toBe("stored");
    expect(await o.enqueue(newItem("v1", 2, t()), "k1", t())).toBe("duplicate");
    expect(await o.enqueue(newItem("v1", 3, t()), "k2", t())).toBe("stored");
    await b.clock.advance(TTL + 50);
    expect(await o.enqueue(newItem("v1", 4, t()), "k1", t())).toBe("stored");
    expect((await o.pending("v1", 10)).map(nOf)).toEqual([1, 3, 4]);
    // The same delivery arriving several times at once is stored once.
    const racing = await Promise.all([5, 6, 7].map((n) => o.enqueue(newItem("v2", n, t()), "k3", t())));
    expect(racing.sort()).toEqual(["duplicate", "duplicate", "stored"]);
    expect(await o.pending("v2", 10)).toHaveLength(1);
  });

  it("bounds each route's pending items (profileQuota): full beyond it, room again once acknowledged", async () => {
    const q = await b.open({ dedupeTtlMs: TTL, profileQuota: 3 });
    const put = (video: string, n: number) => q.enqueue(newItem(video, n, t()), `q-${video}-${n}`, t());
    // One route (T1:P1) over two videos: three stored, the fourth is refused.
    expect(await put("T1:P1:a", 1)).toBe("stored");
    expect(await put("T1:P1:a", 2)).toBe("stored");
    expect(await put("T1:P1:b", 3)).toBe("stored");
    expect(await put("T1:P1:b", 4)).toBe("full");
    // A duplicate is still a duplicate; another route has its own quota.
    expect(await put("T1:P1:a", 1)).toBe("duplicate");
    expect(await put("T1:P2:a", 1)).toBe("stored");
    // Concurrent enqueues never overshoot.
    const racing = await Promise.all([5, 6, 7, 8].map((n) => put("T1:P3:c", n)));
    expect(racing.filter((r) => r === "stored")).toHaveLength(3);
    expect((await q.pending("T1:P1:b", 10)).map(nOf)).toEqual([3]);
    // Acknowledged items free their places; the refused delivery's dedupe key was not kept.
    expect(await q.claimDue("A", t(), 10, 100_000)).toContain("T1:P1:a");
    const ids = (await q.pending("T1:P1:a", 10)).map((i) => i.id);
    expect(await q.ack("A", "T1:P1:a", ids)).toBe(true);
    expect(await put("T1:P1:b", 4)).toBe("stored");
    expect(await put("T1:P1:b", 9)).toBe("stored");
    expect(await put("T1:P1:b", 10)).toBe("full");
    // Acknowledging ids that are gone frees nothing more.
    expect(await q.ack("A", "T1:P1:a", ids)).toBe(true);
    expect(await put("T1:P1:b", 11)).toBe("full");
  });

  it("fair due times: a video comes due behind its own route's backlog, another route's at once", async () => {
    const f = await b.open({ dedupeTtlMs: TTL, backlogSpacingMs: 5 });
    const now = t();
    const put = (video: string, n: number) => f.enqueue(newItem(video, n, now), `f-${video}-${n}`, now);
    // Route T1:PA is flooded: 100 videos, each one 5 ms behind the items already waiting.
    for (let i = 0; i < 100; i++) expect(await put(`T1:PA:v${i}`, i)).toBe("stored");
    // Another route's video, delivered after the flood, is due at once.
    expect(await put("T1:PB:other", 1)).toBe("stored");
    expect(await f.claimDue("W", now, 10, 100_000)).toEqual(["T1:PA:v0", "T1:PB:other"]);
    // The flood's 100th video is due 99 × 5 ms later, not before.
    expect(await f.claimDue("W", now + 99 * 5 - 1, 200, 100_000)).toHaveLength(98);
    expect(await f.claimDue("W", now + 99 * 5, 10, 100_000)).toEqual(["T1:PA:v99"]);
  });

  it("fair due times when the worker lags: a route with nothing waiting is next, before the lagging flood", async () => {
    const f = await b.open({ dedupeTtlMs: 60_000, backlogSpacingMs: 5 });
    const start = t();
    const put = (video: string, n: number, at: number) =>
      f.enqueue(newItem(video, n, at), `g-${video}-${n}`, at);
    for (let i = 0; i < 50; i++) expect(await put(`T1:PA:v${i}`, i, start)).toBe("stored");
    // A second later the worker has claimed nothing yet: the flood's 50 videos are all due, late.
    await b.clock.advance(1_000);
    const later = t();
    expect(await put("T1:PB:other", 1, later)).toBe("stored");
    // The quiet route's video comes right after the head of the schedule, not behind the lag.
    expect(await f.claimDue("W", later, 2, 100_000)).toEqual(["T1:PA:v0", "T1:PB:other"]);
    // A flooded route's new video queues behind its own backlog, from the head too.
    expect(await put("T1:PA:late", 1, later)).toBe("stored");
    const rest = await f.claimDue("W", later, 100, 100_000);
    expect(rest).toHaveLength(50);
    expect(rest.at(-1)).toBe("T1:PA:late");
  });

  it("keeps an existing due time when a video is enqueued again (earlier or later)", async () => {
    const now = t();
    await enqueue("late", 1, now + 5000);
    await enqueue("late", 2, now);
    await enqueue("early", 1, now);
    await enqueue("early", 2, now + 5000);
    expect(await o.claimDue("A", now, 10, 100_000)).toEqual(["early"]);
    expect(await o.claimDue("B", now + 4999, 10, LEASE)).toEqual([]);
    expect(await o.claimDue("B", now + 5000, 10, LEASE)).toEqual(["late"]);
  });

  it("brings forward a free video due far later (a post turn minutes away), never a leased one", async () => {
    const now = t();
    const far = now + PULL_FORWARD_MS + 60_000;
    await enqueue("waiting", 1, far);
    await enqueue("waiting", 2, now);
    expect(await o.claimDue("A", now, 10, 100_000)).toEqual(["waiting"]);
    // Leased: a new delivery leaves its due time (the lease end) alone...
    await enqueue("waiting", 3, now);
    expect(await o.claimDue("B", now, 10, LEASE)).toEqual([]);
    // ...and the release far away is "now" instead, as that item arrived meanwhile.
    await o.release("A", "waiting", far);
    expect(await o.claimDue("B", t(), 10, 100_000)).toEqual(["waiting"]);
    const ids = (await o.pending("waiting", 10)).map((i) => i.id);
    expect(await o.ack("B", "waiting", ids)).toBe(true);
    // Nothing left: it waits for its time, until the next delivery brings it forward.
    await o.release("B", "waiting", far);
    expect(await o.claimDue("C", now, 10, LEASE)).toEqual([]);
    await enqueue("waiting", 4, t());
    expect(await o.claimDue("C", t(), 10, LEASE)).toEqual(["waiting"]);
  });

  it("claims due videos only, earliest first, at most max, each once while leased", async () => {
    const now = t();
    await enqueue("v1", 1, now + 30);
    await enqueue("v2", 1, now + 10);
    await enqueue("v3", 1, now + 20);
    await enqueue("v4", 1, now + 10_000);
    expect(await o.claimDue("A", now, 10, LEASE)).toEqual([]);
    expect(await o.claimDue("A", now + 100, 2, LEASE)).toEqual(["v2", "v3"]);
    expect(await o.claimDue("B", now + 100, 10, LEASE)).toEqual(["v1"]);
    expect(await o.claimDue("C", now + 100, 10, LEASE)).toEqual([]);
    expect(await o.claimDue("C", now + 100, 0, LEASE)).toEqual([]);
    expect((await o.stats()).scheduled).toBe(4);
  });

  it("lets no one else claim or act on a leased video until the lease expires", async () => {
    await enqueue("v1", 1);
    await enqueue("v1", 2);
    const now = t();
    expect(await o.claimDue("A", now, 5, LEASE)).toEqual(["v1"]);
    expect(await o.claimDue("B", now, 5, LEASE)).toEqual([]);
    expect(await o.claimDue("B", now + LEASE - 1, 5, LEASE)).toEqual([]);
    const [first] = await o.pending("v1", 1);
    if (!first) throw new Error("no item");
    expect(await o.ack("B", "v1", [first.id])).toBe(false);
    expect(await o.setState("B", "v1", { by: "B" })).toBe(false);
    expect(await o.renew("B", "v1", t() + 10_000)).toBe(false);
    await o.release("B", "v1", null); // not B's: nothing happens
    expect(await o.claimDue("B", t(), 5, LEASE)).toEqual([]);
    expect(await o.ack("A", "v1", [first.id])).toBe(true);
    expect(await o.setState("A", "v1", { by: "A" })).toBe(true);
    expect(await o.getState("v1")).toEqual({ by: "A" });
    expect((await o.pending("v1", 10)).map(nOf)).toEqual([2]);

    await b.clock.advance(LEASE + 30);
    expect(await o.claimDue("B", t(), 5, LEASE)).toEqual(["v1"]);
    const [second] = await o.pending("v1", 1);
    if (!second) throw new Error("no item");
    expect(await o.ack("A", "v1", [second.id])).toBe(false);
    expect(await o.setState("A", "v1", { by: "A again" })).toBe(false);
    expect(await o.renew("A", "v1", t() + 10_000)).toBe(false);
    await o.release("A", "v1", t() + 60_000); // not A's any more: ignored
    expect(await o.ack("B", "v1", [second.id])).toBe(true);
    expect(await o.getState("v1")).toEqual({ by: "A" });
  });

  it("settle writes the state and acknowledges the items in one step, only for the lease's owner", async () => {
    const q = await b.open({ dedupeTtlMs: TTL, profileQuota: 2 });
    await q.enqueue(newItem("T1:P1:v1", 1, t()), "s-1", t());
    await q.enqueue(newItem("T1:P1:v1", 2, t()), "s-2", t());
    expect(await q.claimDue("A", t(), 5, LEASE)).toEqual(["T1:P1:v1"]);
    const [first, second] = await q.pending("T1:P1:v1", 10);
    if (!first || !second) throw new Error("no items");
    // Another owner: nothing written, nothing acknowledged.
    expect(await q.settle("B", "T1:P1:v1", { by: "B" }, [first.id, second.id])).toBe(false);
    expect(await q.getState("T1:P1:v1")).toBeUndefined();
    expect(await q.pending("T1:P1:v1", 10)).toHaveLength(2);
    expect(await q.settle("A", "T1:P1:v1", { step: 1 }, [first.id])).toBe(true);
    expect(await q.getState("T1:P1:v1")).toEqual({ step: 1 });
    expect((await q.pending("T1:P1:v1", 10)).map(nOf)).toEqual([2]);
    // The route's quota counts the acknowledged item off: room for one more.
    expect(await q.enqueue(newItem("T1:P1:v2", 3, t()), "s-3", t())).toBe("stored");
    expect(await q.enqueue(newItem("T1:P1:v2", 4, t()), "s-4", t())).toBe("full");
    // No state given: the stored one is left as it is.
    expect(await q.settle("A", "T1:P1:v1", undefined, [second.id])).toBe(true);
    expect(await q.getState("T1:P1:v1")).toEqual({ step: 1 });
    expect(await q.pending("T1:P1:v1", 10)).toEqual([]);
    await b.clock.advance(LEASE + 30);
    expect(await q.settle("A", "T1:P1:v1", { step: 2 }, [])).toBe(false);
    expect(await q.getState("T1:P1:v1")).toEqual({ step: 1 });
  });

  it("renew extends the lease of its owner", async () => {
    await enqueue("v1", 1);
    expect(await o.claimDue("A", t(), 1, LEASE)).toEqual(["v1"]);
    expect(await o.renew("A", "v1", t() + 10_000)).toBe(true);
    await b.clock.advance(LEASE + 30);
    expect(await o.claimDue("B", t(), 1, LEASE)).toEqual([]);
    expect(await o.setState("A", "v1", 1)).toBe(true);
  });

  it("release reschedules at a time, now when items remain, or unschedules", async () => {
    await enqueue("v1", 1);
    expect(await o.claimDue("A", t(), 1, LEASE)).toEqual(["v1"]);
    const at = t() + 500;
    await o.release("A", "v1", at);
    expect(await o.claimDue("A", at - 1, 1, LEASE)).toEqual([]);
    expect(await o.claimDue("A", at, 1, LEASE)).toEqual(["v1"]);
    expect(await o.setState("A", "v1", "x")).toBe(true);

    // Nothing acked: still pending, so due again now.
    await o.release("A", "v1", null);
    expect(await o.claimDue("B", t(), 1, LEASE)).toEqual(["v1"]);
    const items = await o.pending("v1", 10);
    expect(
      await o.ack(
        "B",
        "v1",
        items.map((i) => i.id),
      ),
    ).toBe(true);
    await enqueue("v1", 2); // arrives while leased: the lease's schedule is kept
    expect(await o.claimDue("C", t(), 1, LEASE)).toEqual([]);
    await o.release("B", "v1", null);
    expect(await o.claimDue("C", t(), 1, LEASE)).toEqual(["v1"]);
    const more = await o.pending("v1", 10);
    expect(more.map(nOf)).toEqual([2]);
    expect(
      await o.ack(
        "C",
        "v1",
        more.map((i) => i.id),
      ),
    ).toBe(true);
    await o.release("C", "v1", null);
    expect((await o.stats()).scheduled).toBe(0);
    expect(await o.claimDue("C", t() + 1e9, 1, LEASE)).toEqual([]);
    expect(await o.getState("v1")).toBe("x"); // state outlives the schedule

    await enqueue("v1", 3, t() + 100);
    expect(await o.claimDue("C", t() + 100, 1, LEASE)).toEqual(["v1"]);
  });

  it("lists pending items oldest first, up to limit, with ids increasing per video", async () => {
    const now = t();
    for (let n = 0; n < 5; n++) {
      await enqueue("v1", n, now, now + n);
      await enqueue("v2", 100 + n);
    }
    const all = await o.pending("v1", 100);
    expect(all.map(nOf)).toEqual([0, 1, 2, 3, 4]);
    const ids = all.map((i) => Number(i.id));
    for (let i = 1; i < ids.length; i++) expect(ids[i]).toBeGreaterThan(ids[i - 1] ?? Infinity);
    expect((await o.pending("v1", 3)).map(nOf)).toEqual([0, 1, 2]);
    expect(await o.pending("v1", 0)).toEqual([]);
    expect(await o.pending("nothing", 5)).toEqual([]);
    const first = all[0];
    if (!first) throw new Error("no item");
    expect(first).toEqual({ ...newItem("v1", 0, now), id: first.id } satisfies OutboxItem);
    expect(new Set([...ids, ...(await o.pending("v2", 100)).map((i) => Number(i.id))]).size).toBe(10);
  });

  it("reports depth, oldest receivedAt, scheduled videos and dead letters", async () => {
    expect(await o.stats()).toEqual({ depth: 0, oldestReceivedAt: null, scheduled: 0, dead: 0 });
    await enqueue("v1", 1, t(), 500);
    await enqueue("v2", 2, t(), 300);
    await enqueue("v1", 3, t(), 400);
    expect(await o.stats()).toEqual({ depth: 3, oldestReceivedAt: 300, scheduled: 2, dead: 0 });
    expect(await o.claimDue("A", t(), 5, LEASE)).toHaveLength(2);
    const [v2item] = await o.pending("v2", 1);
    if (!v2item) throw new Error("no item");
    await o.ack("A", "v2", [v2item.id, "999999", "not-an-id"]);
    await o.release("A", "v2", null);
    await o.deadLetter(v2item, "channel_not_found", t());
    expect(await o.stats()).toEqual({ depth: 2, oldestReceivedAt: 400, scheduled: 1, dead: 1 });
  });

  it("keeps the newest 1,000 dead letters per workspace", async () => {
    const item = (team: string, n: number): OutboxItem => ({ ...newItem("v", n, n, team), id: String(n) });
    for (let n = 0; n < 1005; n++) await o.deadLetter(item("T1", n), `r${n}`, n);
    for (let n = 0; n < 3; n++) await o.deadLetter(item("T2", n), "x", n);
    const t1 = await o.listDead("T1", 5000);
    expect(t1).toHaveLength(1000);
    expect(t1[0]).toEqual({ item: item("T1", 1004), reason: "r1004", at: 1004 });
    expect(t1[999]?.at).toBe(5);
    expect((await o.listDead("T2", 2)).map((d) => d.at)).toEqual([2, 1]);
    expect(await o.listDead("T3", 10)).toEqual([]);
    expect((await o.stats()).dead).toBe(1003);
  });

  it("once() is true the first time within its TTL", async () => {
    expect(await o.once("report:a", TTL)).toBe(true);
    expect(await o.once("report:a", TTL)).toBe(false);
    expect(await o.once("report:b", TTL)).toBe(true);
    await b.clock.advance(TTL + 50);
    expect(await o.once("report:a", TTL)).toBe(true);
  });

  it("a note is read back until its TTL, overwritten by a later put, and seen by another connection", async () => {
    expect(await o.getNote("title:a")).toBeUndefined();
    await o.putNote("title:a", '{"title":"First"}', TTL);
    await o.putNote("title:b", "b", TTL * 40);
    expect(await o.getNote("title:a")).toBe('{"title":"First"}');
    await o.putNote("title:a", '{"title":"Second"}', TTL);
    expect(await o.getNote("title:a")).toBe('{"title":"Second"}');
    if (b.persistent)
      expect(await (await b.open({ dedupeTtlMs: TTL })).getNote("title:a")).toBe('{"title":"Second"}');
    await b.clock.advance(TTL + 50);
    expect(await o.getNote("title:a")).toBeUndefined();
    expect(await o.getNote("title:b")).toBe("b");
  });

  it("never hands a video to two owners at once and loses nothing under concurrency", async () => {
    // Persistent backends: the claimers share two outboxes (two connections / clients).
    const other = b.persistent ? await b.open({ dedupeTtlMs: TTL }) : o;
    const holders = new Map<string, string>();
    const violations: string[] = [];
    const acked: number[] = [];
    let enqueued = false;
    const enqueues = Promise.all(
      Array.from({ length: 20 }, (_, n) => enqueue(`v${n % 4}`, n).then((r) => expect(r).toBe("stored"))),
    ).then(() => {
      enqueued = true;
    });
    const claimer = async (owner: string, box: Outbox) => {
      for (let round = 0; round < 2000 && !(enqueued && acked.length >= 20); round++) {
        const keys = await box.claimDue(owner, t(), 2, 10_000);
        await Promise.all(
          keys.map(async (key) => {
            const holder = holders.get(key);
            if (holder !== undefined) violations.push(`${key}: ${owner} while ${holder}`);
            holders.set(key, owner);
            const items = await box.pending(key, 3);
            await new Promise((r) => setTimeout(r, Math.random() * 2));
            expect(
              await box.ack(
                owner,
                key,
                items.map((i) => i.id),
              ),
            ).toBe(true);
            acked.push(...items.map(nOf));
            holders.delete(key);
            await box.release(owner, key, null);
          }),
        );
        if (keys.length === 0) await new Promise((r) => setTimeout(r, 1));
      }
    };
    await Promise.all([enqueues, ...[0, 1, 2, 3, 4].map((i) => claimer(`W${i}`, i % 2 ? other : o))]);
    expect(violations).toEqual([]);
    expect(acked.sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, n) => n));
    expect(await o.stats()).toMatchObject({ depth: 0, scheduled: 0 });
  });

  it("keeps items, leases, state, dedupe and dead letters across close and reopen", async ({ skip }) => {
    if (!b.persistent) skip();
    await b.closeAll();
    o = await b.open({ dedupeTtlMs: 60_000 });
    await enqueue("v1", 1, t(), 100);
    await enqueue("v1", 2, t(), 200);
    await enqueue("v2", 3, t(), 300);
    expect(await o.claimDue("A", t(), 1, LEASE)).toEqual(["v1"]);
    expect(await o.setState("A", "v1", { step: 1 })).toBe(true);
    const [dead] = await o.pending("v2", 1);
    if (!dead) throw new Error("no item");
    await o.deadLetter(dead, "gone", 7);
    const before = await o.stats();
    await b.closeAll();

    const again = await b.open({ dedupeTtlMs: 60_000 });
    expect(await again.stats()).toEqual(before);
    expect((await again.pending("v1", 10)).map(nOf)).toEqual([1, 2]);
    expect(await again.getState("v1")).toEqual({ step: 1 });
    expect(await again.listDead("T1", 10)).toEqual([{ item: dead, reason: "gone", at: 7 }]);
    expect(await again.enqueue(newItem("v1", 1, t()), "d-v1-1", t())).toBe("duplicate");
    expect(await again.claimDue("B", t(), 5, LEASE)).toEqual(["v2"]); // v1 is still A's
    await b.clock.advance(LEASE + 30);
    // v1's lease has expired; so has B's on v2, which B may take again.
    expect(await again.claimDue("B", t(), 5, LEASE)).toEqual(["v1", "v2"]);
    expect(await again.ack("A", "v1", ["1"])).toBe(false);
  });
});

describe("sqlite outbox specifics", () => {
  it("shares the store's connection with Keyv: both write at once without stalling, in WAL mode", async () => {
    const b = sqliteOutboxBackend();
    const store = await openStore(
      { kind: "sqlite", path: b.file, url: `sqlite://${b.file}` },
      silentLogger(),
    );
    try {
      const o = await createOutbox(store, silentLogger());
      const started = Date.now();
      await Promise.all([
        ...Array.from({ length: 50 }, (_, n) => store.keyv.set(`k${n}`, n)),
        ...Array.from({ length: 50 }, (_, n) => o.enqueue(newItem(`v${n % 5}`, n, n), `d${n}`, 0)),
        ...Array.from({ length: 50 }, (_, n) => store.keyv.get(`k${n}`)),
      ]);
      expect(Date.now() - started).toBeLessThan(1500);
      expect(await store.keyv.get("k49")).toBe(49);
      expect((await o.stats()).depth).toBe(50);
      expect(await store.backend.sqlite?.query("PRAGMA journal_mode")).toEqual([{ journal_mode: "wal" }]);
      await o.close();
      expect(await store.keyv.get("k1")).toBe(1); // closing the outbox leaves the store open
    } finally {
      await store.close();
      await b.cleanup();
    }
  });
});

describe("redis outbox specifics", () => {
  it("skips a due video whose lease Redis still holds, whatever the caller's clock says", async () => {
    const b = redisOutboxBackend();
    try {
      const o = await b.open();
      await o.enqueue(newItem("v1", 1, Date.now()), "k", Date.now());
      await o.enqueue(newItem("v2", 1, Date.now()), "k2", Date.now() + 1);
      expect(await o.claimDue("A", Date.now(), 1, LEASE)).toEqual(["v1"]);
      // B's clock runs far ahead: v1's due time has passed for B but the lease has not.
      expect(await o.claimDue("B", Date.now() + 60_000, 5, LEASE)).toEqual(["v2"]);
      await b.clock.advance(LEASE + 30);
      expect(await o.claimDue("C", Date.now() + 60_000, 5, LEASE)).toEqual(["v1", "v2"]);
    } finally {
      await b.cleanup();
    }
  });

  it("rejects quickly with StoreUnavailableError when Redis is down", async () => {
    const logger = silentLogger();
    const store = await openStore({ kind: "redis", url: "redis://127.0.0.1:6390" }, logger, {
      opTimeoutMs: 300,
      namespace: uniqueNamespace(),
    });
    try {
      const o = await createOutbox(store, logger);
      const item: OutboxItem = { ...newItem("v", 1, 1), id: "1" };
      const calls: Array<() => Promise<unknown>> = [
        () => o.enqueue(item, "k", 1),
        () => o.claimDue("A", 1, 1, 1000),
        () => o.renew("A", "v", 2),
        () => o.pending("v", 1),
        () => o.ack("A", "v", ["1"]),
        () => o.release("A", "v", null),
        () => o.getState("v"),
        () => o.setState("A", "v", 1),
        () => o.deadLetter(item, "x", 1),
        () => o.listDead("T1", 1),
        () => o.once("k", 1000),
        () => o.stats(),
      ];
      for (const call of calls) {
        const started = Date.now();
        await expect(call()).rejects.toBeInstanceOf(StoreUnavailableError);
        expect(Date.now() - started).toBeLessThan(1000);
      }
    } finally {
      await store.close();
    }
  });
});
