/**
 * The digest log (src/digest/types.ts, `DigestLog`) against the memory, sqlite and Redis
 * backends, with the wall clock (Redis leases expire by Redis's own): entries once per id, the
 * bound and the left-out count, the due-time index (a claim sees due keys only, one owner at a
 * time, an expired lease is taken over), wake's "at the latest" rule while free and while leased,
 * the fenced settle, and drop.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type DigestLog, digestLogFor } from "../../../src/digest/index.js";
import { silentLogger } from "../../../src/log.js";

/** The promise (docs/notifications.md): a digest log keeps at most 500 entries. */
const LOG_BOUND = 500;

import type { Store } from "../../../src/store/index.js";
import { ALL_BACKENDS, type TestBackend } from "../../store/helpers.js";

const BACKENDS = ALL_BACKENDS;
const LEASE = 300;
const K = "T1:P1:C1";

describe.each(BACKENDS)("%s digest log", (_name, make) => {
  let backend: TestBackend;
  let store: Store;
  let log: DigestLog;
  beforeEach(async () => {
    backend = make();
    store = await backend.open(silentLogger());
    log = digestLogFor(store);
  });
  afterEach(async () => {
    if (store.backend.redis) {
      const found = await store.backend.redis.keys(`${store.keyv.namespace}:digest:*`);
      if (found.length > 0) await store.backend.redis.del(found);
    }
    await log.close();
    await store.close();
    await backend.cleanup();
  });

  const entry = (id: string) => JSON.stringify({ id, at: Date.now(), kind: "published" });

  it("keeps an entry once per id, in order, and schedules the key at the earliest due time asked", async () => {
    const now = Date.now();
    expect(await log.record(K, "a", entry("a"), now + 60_000)).toBe("stored");
    expect(await log.record(K, "a", entry("a"), now + 60_000)).toBe("duplicate");
    expect(await log.record(K, "b", entry("b"), now + 120_000)).toBe("stored");
    const read = await log.read(K);
    expect(read.entries.map((e) => JSON.parse(e.json).id)).toEqual(["a", "b"]);
    expect(read.entries[0]?.seq).toBeLessThan(read.entries[1]?.seq ?? 0);
    expect(read.leftOut).toBe(0);
    // Due in a minute: nothing to claim now; a wake for sooner brings it forward, never later.
    expect(await log.claimDue("w1", Date.now(), 10, LEASE)).toEqual([]);
    await log.wake(K, now + 600_000);
    expect(await log.claimDue("w1", now + 59_000, 10, LEASE)).toEqual([]);
    await log.wake(K, now - 1);
    expect(await log.claimDue("w1", Date.now(), 10, LEASE)).toEqual([K]);
    expect(await log.scheduled()).toBe(1);
  });

  it("bounds the log: past 500 entries are counted as left out, not kept", async () => {
    const due = Date.now() + 60_000;
    const all = Array.from({ length: LOG_BOUND + 3 }, (_, i) => `e${i}`);
    const outcomes: string[] = [];
    for (let i = 0; i < all.length; i += 50)
      outcomes.push(
        ...(await Promise.all(all.slice(i, i + 50).map((id) => log.record(K, id, entry(id), due)))),
      );
    expect(outcomes.filter((o) => o === "stored")).toHaveLength(LOG_BOUND);
    expect(outcomes.filter((o) => o === "left_out")).toHaveLength(3);
    // A duplicate of a kept entry is still a duplicate, not one more left out.
    expect(await log.record(K, "e0", entry("e0"), due)).toBe("duplicate");
    const read = await log.read(K);
    expect(read.entries).toHaveLength(LOG_BOUND);
    expect(read.leftOut).toBe(3);
  });

  it("leases a due key to one owner; the fenced steps refuse anyone else; an expired lease is taken over", async () => {
    await log.record(K, "a", entry("a"), Date.now() - 1);
    const [a, b] = await Promise.all([
      log.claimDue("w1", Date.now(), 10, LEASE),
      log.claimDue("w2", Date.now(), 10, LEASE),
    ]);
    expect([...(a ?? []), ...(b ?? [])]).toEqual([K]);
    const owner = (a ?? []).length > 0 ? "w1" : "w2";
    const other = owner === "w1" ? "w2" : "w1";
    expect(await log.setState(other, K, "{}")).toBe(false);
    expect(await log.setState(owner, K, '{"x":1}')).toBe(true);
    expect(await log.getState(K)).toBe('{"x":1}');
    expect(await log.settle(other, K, "{}", 10, 0)).toBe(false);
    expect(await log.renew(owner, K, Date.now() + LEASE)).toBe(true);
    // Its holder stops without releasing: due again at the lease's end, for another owner.
    await sleep(LEASE + 150);
    expect(await log.claimDue(other, Date.now(), 10, LEASE)).toEqual([K]);
    expect(await log.setState(owner, K, "{}")).toBe(false);
    expect(await log.renew(owner, K, Date.now() + LEASE)).toBe(false);
  });

  it("settles in one fenced step: the state written, the entries up to the seq gone, the left-out count lowered", async () => {
    const due = Date.now() - 1;
    for (const id of ["a", "b", "c"]) await log.record(K, id, entry(id), due);
    const seqs = (await log.read(K)).entries.map((e) => e.seq);
    expect(await log.claimDue("w1", Date.now(), 10, LEASE)).toEqual([K]);
    expect(await log.settle("w1", K, '{"done":1}', seqs[1] ?? 0, 0)).toBe(true);
    const read = await log.read(K);
    expect(read.entries.map((e) => JSON.parse(e.json).id)).toEqual(["c"]);
    expect(await log.getState(K)).toBe('{"done":1}');
    // Entries settled go with their ids: the same id is new again.
    expect(await log.record(K, "a", entry("a"), due)).toBe("stored");
  });

  it("remembers a wake asked while leased and applies it at release; null unschedules otherwise", async () => {
    await log.record(K, "a", entry("a"), Date.now() - 1);
    expect(await log.claimDue("w1", Date.now(), 10, LEASE)).toEqual([K]);
    // While leased, a wake (a pause's end, a new entry) is kept for the release.
    const soon = Date.now() + 200;
    await log.wake(K, soon);
    await log.release("w1", K, Date.now() + 60_000);
    expect(await log.claimDue("w2", Date.now(), 10, LEASE)).toEqual([]);
    await sleep(250);
    expect(await log.claimDue("w2", Date.now(), 10, LEASE)).toEqual([K]);
    await log.release("w2", K, null);
    expect(await log.scheduled()).toBe(0);
    expect(await log.claimDue("w2", Date.now() + 3_600_000, 10, LEASE)).toEqual([]);
  });

  it("claims only due keys, earliest first, however many wait later", async () => {
    const now = Date.now();
    for (let i = 0; i < 50; i++) await log.wake(`T1:P1:C${i}`, now + 3_600_000 + i);
    await log.wake("T1:P1:Cdue2", now - 10);
    await log.wake("T1:P1:Cdue1", now - 20);
    expect(await log.claimDue("w1", now, 10, LEASE)).toEqual(["T1:P1:Cdue1", "T1:P1:Cdue2"]);
  });

  it("drop forgets the entries, the state and the schedule", async () => {
    await log.record(K, "a", entry("a"), Date.now() - 1);
    expect(await log.claimDue("w1", Date.now(), 10, LEASE)).toEqual([K]);
    await log.setState("w1", K, "{}");
    await log.drop(K);
    expect(await log.read(K)).toEqual({ entries: [], leftOut: 0 });
    expect(await log.getState(K)).toBeUndefined();
    expect(await log.scheduled()).toBe(0);
    expect(await log.setState("w1", K, "{}")).toBe(false);
  });
});
