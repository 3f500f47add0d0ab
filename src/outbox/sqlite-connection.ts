/**
 * For sqlite.ts: the outbox tables, their upgrades and the statements (prepared once by the
 * store's connection, src/store/sqlite.ts, and kept).
 */
import type { SqliteDb } from "../store/index.js";

/**
 * Small rows keyed by text, written on every delivery: WITHOUT ROWID, so a row lives in one b-tree
 * (its primary key) instead of a rowid table plus the key's index. Columns of each.
 */
const LEAN_TABLES = {
  outbox_schedule:
    "video_key TEXT PRIMARY KEY, due_at INTEGER NOT NULL, owner TEXT, lease_until INTEGER NOT NULL DEFAULT 0",
  outbox_dedupe: "key TEXT PRIMARY KEY, expires_at INTEGER NOT NULL",
  outbox_route_count: "route TEXT PRIMARY KEY, n INTEGER NOT NULL",
} as const;

/** The indexes of the lean tables (a rebuild drops them with the old table). */
const LEAN_INDEXES = [
  "CREATE INDEX IF NOT EXISTS outbox_schedule_due_key ON outbox_schedule (due_at, video_key)",
];

/** Created if missing, one statement each. */
export const SCHEMA: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS outbox_items (
  id INTEGER PRIMARY KEY AUTOINCREMENT, video_key TEXT NOT NULL, team_id TEXT NOT NULL,
  received_at INTEGER NOT NULL, json TEXT NOT NULL)`,
  `CREATE INDEX IF NOT EXISTS outbox_items_video ON outbox_items (video_key, id)`,
  // No index on received_at: only stats() (a /metrics scrape) reads it, and it scans the pending
  // items anyway; every enqueue and ack paid for that index.
  `DROP INDEX IF EXISTS outbox_items_received`,
  `CREATE TABLE IF NOT EXISTS outbox_schedule (${LEAN_TABLES.outbox_schedule}) WITHOUT ROWID`,
  // (due_at, video_key): claimDue's ORDER BY … LIMIT reads the first due rows of this index and
  // stops, however many videos wait (on due_at alone it sorted every due row in a temp b-tree).
  `CREATE INDEX IF NOT EXISTS outbox_schedule_due_key ON outbox_schedule (due_at, video_key)`,
  `DROP INDEX IF EXISTS outbox_schedule_due`,
  `CREATE TABLE IF NOT EXISTS outbox_state (
  video_key TEXT PRIMARY KEY, json TEXT NOT NULL, expires_at INTEGER NOT NULL DEFAULT 0)`,
  `CREATE TABLE IF NOT EXISTS outbox_dedupe (${LEAN_TABLES.outbox_dedupe}) WITHOUT ROWID`,
  // No index on expires_at: every delivery wrote a page of it. The sweep walks the keys instead,
  // a bounded slice at a time (DEDUPE_SWEEP_END); a key past its expiry is taken over anyway.
  `DROP INDEX IF EXISTS outbox_dedupe_expiry`,
  `CREATE TABLE IF NOT EXISTS outbox_dead (
  id INTEGER PRIMARY KEY AUTOINCREMENT, team_id TEXT NOT NULL, at INTEGER NOT NULL,
  reason TEXT NOT NULL, json TEXT NOT NULL)`,
  `CREATE INDEX IF NOT EXISTS outbox_dead_team ON outbox_dead (team_id, id)`,
  `CREATE TABLE IF NOT EXISTS outbox_once (key TEXT PRIMARY KEY, expires_at INTEGER NOT NULL)`,
  `CREATE TABLE IF NOT EXISTS outbox_notes (key TEXT PRIMARY KEY, value TEXT NOT NULL, expires_at INTEGER NOT NULL)`,
];

/**
 * After SCHEMA, in the same transaction: a file written before states expired has `outbox_state`
 * without `expires_at`; the column is added and its states get the full retention from now (so an
 * upgrade drops nothing at once). Then the index the sweep uses.
 */
export function migrateStateTable(db: SqliteDb, keepUntil: number): void {
  const columns = db.all<{ name: string }>("PRAGMA table_info(outbox_state)");
  if (!columns.some((col) => col.name === "expires_at")) {
    db.exec("ALTER TABLE outbox_state ADD COLUMN expires_at INTEGER NOT NULL DEFAULT 0");
    db.run("UPDATE outbox_state SET expires_at = ?", keepUntil);
  }
  db.exec("CREATE INDEX IF NOT EXISTS outbox_state_expiry ON outbox_state (expires_at)");
}

/** A video key's route (profileOfVideoKey in SQL): up to its second ':'. */
const PROFILE_OF_KEY = `CASE WHEN instr(substr(video_key, instr(video_key, ':') + 1), ':') = 0 THEN video_key
  ELSE substr(video_key, 1, instr(video_key, ':') + instr(substr(video_key, instr(video_key, ':') + 1), ':') - 1) END`;

/**
 * The per-profile count of pending items (enqueue's quota): created with the items already there
 * counted once (a file written before the quota existed), then kept by enqueue and ack.
 */
export function migrateProfileCounts(db: SqliteDb): void {
  if (db.get("SELECT 1 AS one FROM sqlite_master WHERE type = 'table' AND name = 'outbox_route_count'"))
    return;
  db.exec(`CREATE TABLE outbox_route_count (${LEAN_TABLES.outbox_route_count}) WITHOUT ROWID`);
  db.exec(
    `INSERT INTO outbox_route_count (route, n) SELECT ${PROFILE_OF_KEY} AS r, COUNT(*) FROM outbox_items GROUP BY r`,
  );
}

/**
 * After the other upgrades, in the same transaction: a lean table written by an earlier version as
 * a rowid table is rebuilt WITHOUT ROWID, its rows copied as they are (the statements read and
 * write both forms alike, so an earlier version still opens the file).
 */
export function migrateLeanTables(db: SqliteDb): void {
  for (const [table, columns] of Object.entries(LEAN_TABLES)) {
    const row = db.get<{ sql: string }>(
      "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?",
      table,
    );
    if (row === undefined || /WITHOUT\s+ROWID/i.test(row.sql)) continue;
    db.exec(`CREATE TABLE ${table}_lean (${columns}) WITHOUT ROWID`);
    db.exec(`INSERT INTO ${table}_lean SELECT * FROM ${table} WHERE ${columns.split(" ")[0]} IS NOT NULL`);
    db.exec(`DROP TABLE ${table}`);
    db.exec(`ALTER TABLE ${table}_lean RENAME TO ${table}`);
  }
  for (const statement of LEAN_INDEXES) db.exec(statement);
}

/** The due videos to claim, earliest first, from the (due_at, video_key) index. Parameters: now, now, max. */
export const CLAIM_DUE = `SELECT video_key FROM outbox_schedule WHERE due_at <= ? AND (owner IS NULL OR lease_until <= ?)
  ORDER BY due_at, video_key LIMIT ?`;

/** A row when some video is due (CLAIM_DUE's test, one row). Parameters: now, now. */
export const ANY_DUE = `SELECT 1 AS one FROM outbox_schedule WHERE due_at <= ? AND (owner IS NULL OR lease_until <= ?)
  LIMIT 1`;

/** Drops up to `max` states expired by `now` whose video is neither scheduled nor leased. Parameters: now, max. */
export const SWEEP_STATES = `DELETE FROM outbox_state WHERE video_key IN (
  SELECT s.video_key FROM outbox_state s WHERE s.expires_at <= ?
  AND NOT EXISTS (SELECT 1 FROM outbox_schedule d WHERE d.video_key = s.video_key) LIMIT ?)
  RETURNING video_key`;

/** Set-if-absent with a TTL in one statement: inserts, or takes over an expired row; a row back = set. */
export const ONCE_UPSERT = `INSERT INTO outbox_once (key, expires_at) VALUES (?, ?)
  ON CONFLICT (key) DO UPDATE SET expires_at = excluded.expires_at WHERE outbox_once.expires_at <= ?
  RETURNING key`;

/** Writes a note (a new value and expiry over an old one). Parameters: key, value, expires_at. */
export const NOTE_PUT = `INSERT INTO outbox_notes (key, value, expires_at) VALUES (?, ?, ?)
  ON CONFLICT (key) DO UPDATE SET value = excluded.value, expires_at = excluded.expires_at`;

/** Writes a video's state (a new value and expiry over an old one). Parameters: key, json, expires_at. */
export const STATE_PUT = `INSERT INTO outbox_state (video_key, json, expires_at) VALUES (?, ?, ?)
  ON CONFLICT (video_key) DO UPDATE SET json = excluded.json, expires_at = excluded.expires_at`;

/**
 * Keeps the newest `n` dead letters of a team (the cut-off is the first row beyond).
 * Parameters: team, team, n.
 */
export const DEAD_TRIM = `DELETE FROM outbox_dead WHERE team_id = ? AND id <= (
  SELECT id FROM outbox_dead WHERE team_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`;

/** The end of `owner`'s lease on a video, if live (by the outbox clock). Parameters: key, owner, now. */
export const HELD =
  "SELECT lease_until FROM outbox_schedule WHERE video_key = ? AND owner = ? AND lease_until > ?";

/** A video's state (if there is one) is kept at least until a time. Parameters: time, key. */
export const KEEP_STATE = "UPDATE outbox_state SET expires_at = MAX(expires_at, ?) WHERE video_key = ?";

/** One statement, so one consistent snapshot. */
export const STATS = `SELECT (SELECT COUNT(*) FROM outbox_items) AS depth,
  (SELECT MIN(received_at) FROM outbox_items) AS oldest,
  (SELECT COUNT(*) FROM outbox_schedule) AS scheduled, (SELECT COUNT(*) FROM outbox_dead) AS dead`;

/**
 * Dedupe keys one sweep looks at, in key order from where the previous sweep of this process
 * stopped (4 per insertion between sweeps: a pass over every key takes a quarter of the
 * insertions that filled the table, so an expired key lasts about 1.25 dedupe windows at most).
 */
export const DEDUPE_SWEEP_ROWS = 2_000;

/** The last key of the next sweep's slice. Parameters: after (the previous slice's end), rows − 1. */
const DEDUPE_SWEEP_END = "SELECT key FROM outbox_dedupe WHERE key > ? ORDER BY key LIMIT 1 OFFSET ?";

/**
 * Deletes the expired among the DEDUPE_SWEEP_ROWS dedupe keys after `after` (key order); returns
 * where the next sweep goes on from ("" once the slice reached the last key: round again).
 */
export function sweepDedupeSlice(db: SqliteDb, after: string, now: number): string {
  const end = db.get<{ key: string }>(DEDUPE_SWEEP_END, after, DEDUPE_SWEEP_ROWS - 1)?.key;
  if (end === undefined) {
    db.run("DELETE FROM outbox_dedupe WHERE key > ? AND expires_at <= ?", after, now);
    return "";
  }
  db.run("DELETE FROM outbox_dedupe WHERE key > ? AND key <= ? AND expires_at <= ?", after, end, now);
  return end;
}

/** Expired dedupe / once rows are deleted after this many insertions by this process. */
export const SWEEP_EVERY = 500;
/** Bound on the videos one claim takes. */
export const MAX_LIST = 500;

/** Takes a dedupe key (new, or expired): a row back = taken. Parameters: key, expires_at, now. */
export const DEDUPE_TAKE = `INSERT INTO outbox_dedupe (key, expires_at) VALUES (?, ?)
  ON CONFLICT (key) DO UPDATE SET expires_at = excluded.expires_at WHERE outbox_dedupe.expires_at <= ?
  RETURNING key`;

/** One more pending item on a route unless it has `quota` already: a row back = counted. Parameters: route, quota. */
export const PROFILE_TAKE = `INSERT INTO outbox_route_count (route, n) VALUES (?, 1)
  ON CONFLICT (route) DO UPDATE SET n = outbox_route_count.n + 1 WHERE outbox_route_count.n < ?
  RETURNING n`;

/**
 * Schedules a video; one already scheduled keeps its due time unless it is free and more than
 * PULL_FORWARD_MS later (Outbox.enqueue). Parameters: key, dueAt, pull-forward ms.
 */
export const SCHEDULE = `INSERT INTO outbox_schedule (video_key, due_at) VALUES (?, ?)
  ON CONFLICT (video_key) DO UPDATE SET due_at = excluded.due_at
  WHERE outbox_schedule.owner IS NULL AND outbox_schedule.due_at > excluded.due_at + ?`;

/** The earliest due time scheduled (fair due times, common.ts), read from the due index. */
export const SCHEDULE_HEAD = "SELECT due_at FROM outbox_schedule ORDER BY due_at LIMIT 1";

/** Deletes the video's items whose ids are in a JSON array. Parameters: key, JSON ids. */
export const ACK_ITEMS = `DELETE FROM outbox_items WHERE video_key = ?
  AND id IN (SELECT value FROM json_each(?))`;
