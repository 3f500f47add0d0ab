/**
 * Where a delivery's sqlite time goes, without HTTP: the outbox's enqueue statements
 * (src/outbox/sqlite-connection.ts, the schema and statements the bot runs) against the durable
 * floor's one insert (bench/targets/floor.ts), in a WAL file, N deliveries in commits of B, as the
 * group commit makes them. Prints µs of CPU per delivery for each statement and for the commit,
 * and the WAL frames (pages) each commit writes: the pages a commit dirties are what it costs.
 *
 *   npx tsx bench/scripts/sqlite-commit.ts [--deliveries 20000] [--batch 2] [--checkpoint 1000]
 *
 * --checkpoint: sqlite's wal_autocheckpoint in pages (0: none, frames then counted from the WAL's size).
 */
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import type Database from "better-sqlite3";
import * as C from "../../src/outbox/sqlite-connection.js";
import type { SqliteDb } from "../../src/store/index.js";

const BINDING = Number(process.versions.node.split(".")[0]) >= 22 ? "better-sqlite3-napi" : "better-sqlite3";
const Sqlite = createRequire(import.meta.url)(BINDING) as typeof Database;

const { values } = parseArgs({
  options: {
    deliveries: { type: "string", default: "20000" },
    batch: { type: "string", default: "2" },
    checkpoint: { type: "string", default: "1000" },
  },
});
const N = Number(values.deliveries);
const B = Math.max(1, Number(values.batch));
const CHECKPOINT = Number(values.checkpoint);
const FRAME = 4096 + 24;
const dir = mkdtempSync(path.join(tmpdir(), "sqlite-commit-"));
const body = JSON.stringify({ type: "video.encoding.progress", timestamp: 0, data: {} }).padEnd(300, " ");

function open(name: string): Database.Database {
  const db = new Sqlite(path.join(dir, name));
  db.pragma("journal_mode = WAL");
  db.pragma("synchronous = NORMAL");
  db.pragma(`wal_autocheckpoint = ${CHECKPOINT}`);
  return db;
}

/** Runs `deliveries` in commits of B; `parts` are timed by name; returns µs per delivery and frames. */
function measure(db: Database.Database, file: string, each: (i: number, time: Timer) => void) {
  const begin = db.prepare("BEGIN IMMEDIATE");
  const commit = db.prepare("COMMIT");
  const spent = new Map<string, bigint>();
  const time: Timer = (name, fn) => {
    const t = process.hrtime.bigint();
    const r = fn();
    spent.set(name, (spent.get(name) ?? 0n) + process.hrtime.bigint() - t);
    return r;
  };
  const walBefore = statSync(`${file}-wal`).size;
  for (let i = 0; i < N; i += B) {
    time("begin", () => begin.run());
    for (let j = i; j < Math.min(N, i + B); j++) each(j, time);
    time("commit", () => commit.run());
  }
  const parts = [...spent.entries()].map(([k, v]) => `${k} ${(Number(v) / 1000 / N).toFixed(1)}`);
  const frames =
    CHECKPOINT === 0
      ? ((statSync(`${file}-wal`).size - walBefore) / FRAME / Math.ceil(N / B)).toFixed(1)
      : "–";
  return `${parts.join(", ")} µs a delivery; WAL frames a commit: ${frames}`;
}
type Timer = <T>(name: string, fn: () => T) => T;

const key = (i: number) => createHash("sha256").update(`${body}${i}`);
{
  const db = open("floor.sqlite");
  db.exec("CREATE TABLE deliveries(hash BLOB PRIMARY KEY, body TEXT NOT NULL) WITHOUT ROWID");
  const insert = db.prepare("INSERT OR IGNORE INTO deliveries(hash, body) VALUES (?, ?)");
  console.log(
    `floor:  ${measure(db, path.join(dir, "floor.sqlite"), (i, time) => time("insert", () => insert.run(key(i).digest(), body)))}`,
  );
  db.close();
}
{
  const db = open("bot.sqlite");
  const like = {
    exec: (sql: string) => db.exec(sql),
    all: (sql: string, ...p: unknown[]) => {
      const s = db.prepare(sql);
      if (s.reader) return s.all(...p);
      s.run(...p);
      return [];
    },
    get: (sql: string, ...p: unknown[]) => db.prepare(sql).get(...p),
    run: (sql: string, ...p: unknown[]) => db.prepare(sql).run(...p).changes,
  } as unknown as SqliteDb;
  for (const s of C.SCHEMA) db.exec(s);
  C.migrateStateTable(like, 0);
  C.migrateProfileCounts(like);
  C.migrateLeanTables(like);
  const dedupe = db.prepare(C.DEDUPE_TAKE);
  const profile = db.prepare(C.PROFILE_TAKE);
  const item = db.prepare(
    "INSERT INTO outbox_items (video_key, team_id, received_at, json) VALUES (?, ?, ?, ?)",
  );
  const head = db.prepare(C.SCHEDULE_HEAD);
  const schedule = db.prepare(C.SCHEDULE);
  const now = Date.now();
  // As the bench's load: 36 deliveries per video, one profile.
  console.log(
    `bot:    ${measure(db, path.join(dir, "bot.sqlite"), (i, time) => {
      const video = `T0BENCH:x2bench:xv${Math.floor(i / 36)}`;
      time("dedupe", () => dedupe.get(`T0BENCH:x2bench:${key(i).digest("hex")}`, now + 86_400_000 + i, now));
      time("profile count", () => profile.get("T0BENCH:x2bench", 1_000_000));
      time("item", () => item.run(video, "T0BENCH", now + i, body));
      time("schedule", () => {
        head.get();
        schedule.run(video, now + i, 1_000);
      });
    })}`,
  );
  db.close();
}
rmSync(dir, { recursive: true, force: true });
