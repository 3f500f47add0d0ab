/**
 * A claim costs the same whatever the backlog: the memory outbox looks only at the videos that
 * are due (a heap by due time, counted through `claimVisits`), sqlite reads them from the
 * (due_at, video_key) index and stops at the LIMIT (its query plan: no sort of every due row).
 */
import { afterEach, describe, expect, it } from "vitest";
import { MemoryOutbox } from "../../../src/outbox/memory.js";
import { CLAIM_DUE } from "../../../src/outbox/sqlite-connection.js";
import type { Store } from "../../../src/store/index.js";
import { newItem, sqliteOutboxBackend } from "./harness.js";

const WAITING = 5_000;
const HOUR = 3600_000;

describe("memory outbox claims", () => {
  it("look at the due videos only, not at the thousands scheduled later", async () => {
    let t = 1_000_000;
    const o = new MemoryOutbox(() => t, { backlogSpacingMs: 0 });
    for (let i = 0; i < WAITING; i++) {
      expect(await o.enqueue(newItem(`T1:P1:later${i}`, i, t), `l${i}`, t + HOUR + i)).toBe("stored");
    }
    for (let i = 0; i < 3; i++) await o.enqueue(newItem(`T1:P1:now${i}`, i, t), `n${i}`, t - i);
    const before = o.claimVisits;
    expect(await o.claimDue("W", t, 10, 30_000)).toEqual(["T1:P1:now2", "T1:P1:now1", "T1:P1:now0"]);
    expect(o.claimVisits - before).toBe(3);
    // A worker's steady cycle on one video (claim, release to a later time, due again) next to
    // the waiting thousands: a few entries per claim (the current one, maybe a stale one).
    const cycles = 200;
    const start = o.claimVisits;
    for (let i = 0; i < cycles; i++) {
      t += 10;
      await o.release("W", "T1:P1:now0", t + 5);
      t += 5;
      expect(await o.claimDue("W", t, 1, 30_000)).toEqual(["T1:P1:now0"]);
    }
    expect(o.claimVisits - start).toBeLessThanOrEqual(2 * cycles);
    // Nothing due: nothing looked at.
    const idle = o.claimVisits;
    expect(await o.claimDue("W", t, 10, 30_000)).toEqual([]);
    expect(o.claimVisits - idle).toBe(0);
  });

  it("still gives every video in due order once the later ones come due", async () => {
    let t = 0;
    const o = new MemoryOutbox(() => t, { backlogSpacingMs: 0 });
    for (let i = 0; i < 50; i++) await o.enqueue(newItem(`T1:P1:v${i}`, i, t), `k${i}`, 1000 - i);
    // Rescheduled several times (stale heap entries left behind): claimed once, at its last time.
    expect(await o.claimDue("W", 2000, 1, 10)).toEqual(["T1:P1:v49"]);
    t = 2000;
    await o.release("W", "T1:P1:v49", 5000);
    t = 3000;
    const got = await o.claimDue("W", 3000, 100, 100_000);
    expect(got).toEqual(Array.from({ length: 49 }, (_, i) => `T1:P1:v${48 - i}`));
    expect(await o.claimDue("W", 4999, 100, 100_000)).toEqual([]);
    expect(await o.claimDue("W", 5000, 100, 100_000)).toEqual(["T1:P1:v49"]);
  });
});

describe("sqlite outbox claims", () => {
  const b = sqliteOutboxBackend();
  afterEach(async () => {
    await b.cleanup();
  });

  it("read the due videos from the (due_at, video_key) index, with no sort of the backlog", async () => {
    const o = await b.open();
    // The store behind the outbox: its sqlite adapter runs EXPLAIN on the same file.
    const store = (o as unknown as { store: Store }).store;
    const sqlite = store.backend.sqlite;
    if (!sqlite) throw new Error("no sqlite adapter");
    const plan = (await sqlite.query(`EXPLAIN QUERY PLAN ${CLAIM_DUE}`, 0, 0, 10)) as Array<{
      detail: string;
    }>;
    const details = plan.map((r) => r.detail).join("\n");
    expect(details).toMatch(/outbox_schedule_due_key/);
    expect(details).not.toMatch(/TEMP B-TREE/);
  });
});
