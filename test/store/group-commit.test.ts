/**
 * The sqlite connection's group commit (src/store/sqlite.ts) on a real file: the writes of one
 * turn share one transaction; one that throws fails alone, its own changes undone, the others
 * committed and answered.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteDb } from "../../src/store/sqlite.js";

let dir: string;
let db: SqliteDb;

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "group-commit-"));
  db = new SqliteDb(path.join(dir, "store.sqlite"), 2_000);
  db.exec("CREATE TABLE t (k TEXT PRIMARY KEY, v INTEGER NOT NULL)");
});

afterEach(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

const rows = () => db.all<{ k: string; v: number }>("SELECT k, v FROM t ORDER BY k");

describe("group commit", () => {
  it("commits the writes of one turn together and answers each with its value", async () => {
    const answers = await Promise.all([
      db.write(() => db.run("INSERT INTO t VALUES ('a', 1)")),
      db.write(() => db.run("INSERT INTO t VALUES ('b', 2)")),
      db.write(() => db.get<{ n: number }>("SELECT count(*) AS n FROM t")?.n),
    ]);
    // The third write sees the first two: one transaction, in the order written.
    expect(answers).toEqual([1, 1, 2]);
    expect(rows()).toEqual([
      { k: "a", v: 1 },
      { k: "b", v: 2 },
    ]);
  });

  it("a write that throws fails alone: its changes undone, the others committed", async () => {
    const boom = new Error("boom");
    const settled = await Promise.allSettled([
      db.write(() => db.run("INSERT INTO t VALUES ('a', 1)")),
      db.write(() => {
        db.run("INSERT INTO t VALUES ('half', 9)");
        throw boom;
      }),
      // A constraint failure from sqlite itself, after a change of its own.
      db.write(() => {
        db.run("INSERT INTO t VALUES ('c', 3)");
        db.run("INSERT INTO t VALUES ('a', 4)");
      }),
      db.write(() => db.run("INSERT INTO t VALUES ('d', 4)")),
    ]);
    expect(settled.map((s) => s.status)).toEqual(["fulfilled", "rejected", "rejected", "fulfilled"]);
    expect((settled[1] as PromiseRejectedResult).reason).toBe(boom);
    expect(String((settled[2] as PromiseRejectedResult).reason)).toMatch(/UNIQUE constraint failed/);
    expect(rows()).toEqual([
      { k: "a", v: 1 },
      { k: "d", v: 4 },
    ]);
  });

  it("a write alone that throws leaves nothing behind, and the next turn commits", async () => {
    await expect(
      db.write(() => {
        db.run("INSERT INTO t VALUES ('x', 1)");
        throw new Error("no");
      }),
    ).rejects.toThrow("no");
    await db.write(() => db.run("INSERT INTO t VALUES ('y', 2)"));
    expect(rows()).toEqual([{ k: "y", v: 2 }]);
  });

  it("after a failure, the batch runs again from the rolled-back state (each write sees only committed rows)", async () => {
    const seen: number[] = [];
    await Promise.allSettled([
      db.write(() => {
        seen.push(db.get<{ n: number }>("SELECT count(*) AS n FROM t")?.n ?? -1);
        db.run("INSERT INTO t VALUES ('a', 1)");
      }),
      db.write(() => {
        throw new Error("fails");
      }),
    ]);
    // Run twice (the optimistic pass, then the isolated one), each time on an empty table.
    expect(seen).toEqual([0, 0]);
    expect(rows()).toEqual([{ k: "a", v: 1 }]);
  });
});
