/**
 * The sqlite outbox's dedupe sweep (src/outbox/sqlite.ts, `sweep`): with no index on expiry, each
 * sweep (every SWEEP_EVERY insertions) walks the next DEDUPE_SWEEP_ROWS keys and deletes the
 * expired among them, going on from where the last stopped: bounded work per sweep, and every
 * expired key gone after a pass. Deduplication itself never waits for the sweep.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/log.js";
import { DEDUPE_SWEEP_ROWS, SWEEP_EVERY } from "../../../src/outbox/sqlite-connection.js";
import type { Outbox } from "../../../src/outbox/types.js";
import { openStore } from "../../../src/store/index.js";
import { newItem, type OutboxBackend, sqliteOutboxBackend } from "./harness.js";

const TTL = 10_000;
const OLD = 5_000;

let b: OutboxBackend & { file: string };
let o: Outbox;

beforeEach(async () => {
  b = sqliteOutboxBackend();
  o = await b.open({ dedupeTtlMs: TTL, profileQuota: 1_000_000 });
});

afterEach(async () => {
  await b.cleanup();
});

/** `n` deliveries with new dedupe keys `${prefix}-i`, stored as one group commit per 500. */
async function enqueue(prefix: string, n: number): Promise<void> {
  for (let i = 0; i < n; i += 500) {
    const outcomes = await Promise.all(
      Array.from({ length: Math.min(500, n - i) }, (_, j) =>
        o.enqueue(
          newItem(`T1:P1:v${(i + j) % 50}`, i + j, b.clock.now()),
          `${prefix}-${i + j}`,
          b.clock.now(),
        ),
      ),
    );
    expect(new Set(outcomes)).toEqual(new Set(["stored"]));
  }
}

/** Rows of the dedupe table: all, and those expired by the outbox clock. */
async function rows(): Promise<{ all: number; expired: number }> {
  const check = await openStore({ kind: "sqlite", path: b.file, url: `sqlite://${b.file}` }, silentLogger());
  try {
    const db = check.backend.sqlite;
    if (!db) throw new Error("not a sqlite store");
    const [r] = (await db.query(
      "SELECT count(*) AS n, coalesce(sum(expires_at <= ?), 0) AS expired FROM outbox_dedupe",
      b.clock.now(),
    )) as Array<{ n: number; expired: number }>;
    return { all: Number(r?.n), expired: Number(r?.expired) };
  } finally {
    await check.close();
  }
}

describe("sqlite outbox dedupe sweep", () => {
  it("sweeps a bounded slice at a time, and every expired key within a pass", async () => {
    expect(SWEEP_EVERY).toBe(500);
    await enqueue("old", OLD);
    expect(await rows()).toEqual({ all: OLD, expired: 0 });
    await b.clock.advance(TTL + 1);
    expect(await rows()).toEqual({ all: OLD, expired: OLD });

    // One sweep (the next SWEEP_EVERY insertions): some expired keys go, never more than a slice.
    await enqueue("new", SWEEP_EVERY);
    const one = await rows();
    const swept = OLD - one.expired;
    expect(swept).toBeGreaterThan(0);
    expect(swept).toBeLessThanOrEqual(DEDUPE_SWEEP_ROWS);
    expect(one.all).toBe(OLD + SWEEP_EVERY - swept);

    // Then a sweep per SWEEP_EVERY insertions until none is left: a pass over the table takes
    // at most one sweep per slice of its keys, plus one where it wraps round to the first key.
    let sweeps = 0;
    while ((await rows()).expired > 0 && sweeps <= 10) {
      await enqueue(`more${sweeps}`, SWEEP_EVERY);
      sweeps++;
    }
    const after = await rows();
    expect(after).toEqual({ all: SWEEP_EVERY * (1 + sweeps), expired: 0 });
    expect(sweeps).toBeLessThanOrEqual(Math.ceil((OLD + SWEEP_EVERY * (1 + sweeps)) / DEDUPE_SWEEP_ROWS) + 1);
  });

  it("deduplicates by expiry, not by the sweep: an expired key is taken again, a live one is not", async () => {
    await enqueue("k", 10);
    expect(await o.enqueue(newItem("T1:P1:v1", 1, b.clock.now()), "k-3", b.clock.now())).toBe("duplicate");
    await b.clock.advance(TTL + 1);
    // Not swept yet (fewer than SWEEP_EVERY insertions), still taken again once expired.
    expect((await rows()).expired).toBe(10);
    expect(await o.enqueue(newItem("T1:P1:v1", 2, b.clock.now()), "k-3", b.clock.now())).toBe("stored");
    expect(await o.enqueue(newItem("T1:P1:v1", 3, b.clock.now()), "k-3", b.clock.now())).toBe("duplicate");
  });

  it("drops the expiry index an earlier version made", async () => {
    await b.closeAll();
    const old = await openStore({ kind: "sqlite", path: b.file, url: `sqlite://${b.file}` }, silentLogger());
    await old.backend.sqlite?.query("CREATE INDEX outbox_dedupe_expiry ON outbox_dedupe (expires_at)");
    await old.close();
    o = await b.open({ dedupeTtlMs: TTL });
    const check = await openStore(
      { kind: "sqlite", path: b.file, url: `sqlite://${b.file}` },
      silentLogger(),
    );
    try {
      const indexes = (await check.backend.sqlite?.query(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'outbox_dedupe'",
      )) as Array<{ name: string }>;
      expect(indexes.map((r) => r.name)).not.toContain("outbox_dedupe_expiry");
    } finally {
      await check.close();
    }
  });
});
