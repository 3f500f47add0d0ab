/**
 * The sqlite outbox's upgrade to its lean tables: a file whose schedule, dedupe and route-count
 * tables were written as rowid tables (earlier versions) opens with every row kept, the tables
 * rebuilt WITHOUT ROWID and the received_at index gone.
 */
import { describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/log.js";
import { encodeItem } from "../../../src/outbox/common.js";
import { openStore } from "../../../src/store/index.js";
import { newItem, nOf, sqliteOutboxBackend } from "./harness.js";

describe("sqlite outbox lean tables", () => {
  it("an earlier file's rows survive the rebuild and keep working", async () => {
    const b = sqliteOutboxBackend();
    try {
      const old = await openStore(
        { kind: "sqlite", path: b.file, url: `sqlite://${b.file}` },
        silentLogger(),
      );
      const q = old.backend.sqlite?.query.bind(old.backend.sqlite);
      if (!q) throw new Error("no sqlite");
      await q(`CREATE TABLE outbox_items (
        id INTEGER PRIMARY KEY AUTOINCREMENT, video_key TEXT NOT NULL, team_id TEXT NOT NULL,
        received_at INTEGER NOT NULL, json TEXT NOT NULL)`);
      await q("CREATE INDEX outbox_items_received ON outbox_items (received_at)");
      await q(`CREATE TABLE outbox_schedule (
        video_key TEXT PRIMARY KEY, due_at INTEGER NOT NULL, owner TEXT, lease_until INTEGER NOT NULL DEFAULT 0)`);
      await q("CREATE TABLE outbox_dedupe (key TEXT PRIMARY KEY, expires_at INTEGER NOT NULL)");
      await q("CREATE TABLE outbox_route_count (route TEXT PRIMARY KEY, n INTEGER NOT NULL)");
      const item = newItem("T1:P1:v1", 7, 1_000);
      await q(
        "INSERT INTO outbox_items (video_key, team_id, received_at, json) VALUES (?, ?, ?, ?)",
        "T1:P1:v1",
        "T1",
        1_000,
        encodeItem(item),
      );
      await q("INSERT INTO outbox_schedule (video_key, due_at) VALUES ('T1:P1:v1', 0)");
      await q("INSERT INTO outbox_dedupe (key, expires_at) VALUES ('k1', ?)", Number.MAX_SAFE_INTEGER);
      await q("INSERT INTO outbox_route_count (route, n) VALUES ('T1:P1', 1)");
      await old.close();

      const o = await b.open();
      const check = await openStore(
        { kind: "sqlite", path: b.file, url: `sqlite://${b.file}` },
        silentLogger(),
      );
      try {
        const rows = (await check.backend.sqlite?.query(
          "SELECT name, sql FROM sqlite_master WHERE name IN ('outbox_schedule', 'outbox_dedupe', 'outbox_route_count', 'outbox_items_received') ORDER BY name",
        )) as Array<{ name: string; sql: string }>;
        expect(rows.map((r) => r.name)).toEqual(["outbox_dedupe", "outbox_route_count", "outbox_schedule"]);
        for (const r of rows) expect(r.sql).toMatch(/WITHOUT ROWID/);
      } finally {
        await check.close();
      }
      expect(await o.enqueue(newItem("T1:P1:v1", 8, 2_000), "k1", 0)).toBe("duplicate");
      expect((await o.stats()).depth).toBe(1);
      expect(await o.claimDue("w1", b.clock.now(), 10, 60_000)).toEqual(["T1:P1:v1"]);
      const pending = await o.pending("T1:P1:v1", 10);
      expect(pending.map(nOf)).toEqual([7]);
      expect(await o.settle("w1", "T1:P1:v1", { done: true }, [pending[0]?.id ?? ""])).toBe(true);
      expect((await o.stats()).depth).toBe(0);
      // Opening again finds the lean tables and changes nothing.
      await b.closeAll();
      const again = await b.open();
      expect(await again.getState("T1:P1:v1")).toEqual({ done: true });
      expect(await again.enqueue(newItem("T1:P1:v2", 9, 3_000), "k2", 0)).toBe("stored");
    } finally {
      await b.cleanup();
    }
  });
});
