/**
 * For sqlite.ts: the outbox tables and some statements, the connection wrapper (statements and transactions over the
 * KeyvSqlite adapter's `query()`) and the mutex that keeps the outbox's statements from
 * interleaving.
 */
/** Created if missing, one statement each (`query()` runs the first statement of a string only). */
export const SCHEMA: readonly string[] = [
  `CREATE TABLE IF NOT EXISTS outbox_items (
  id INTEGER PRIMARY KEY AUTOINCREMENT, video_key TEXT NOT NULL, team_id TEXT NOT NULL,
  received_at INTEGER NOT NULL, json TEXT NOT NULL)`,
  `CREATE INDEX IF NOT EXISTS outbox_items_video ON outbox_items (video_key, id)`,
  `CREATE INDEX IF NOT EXISTS outbox_items_received ON outbox_items (received_at)`,
  `CREATE TABLE IF NOT EXISTS outbox_schedule (
  video_key TEXT PRIMARY KEY, due_at INTEGER NOT NULL, owner TEXT, lease_until INTEGER NOT NULL DEFAULT 0)`,
  // (due_at, video_key): claimDue's ORDER BY … LIMIT reads the first due rows of this index and
  // stops, however many videos wait (on due_at alone it sorted every due row in a temp b-tree).
  `CREATE INDEX IF NOT EXISTS outbox_schedule_due_key ON outbox_schedule (due_at, video_key)`,
  `DROP INDEX IF EXISTS outbox_schedule_due`,
  `CREATE TABLE IF NOT EXISTS outbox_state (
  video_key TEXT PRIMARY KEY, json TEXT NOT NULL, expires_at INTEGER NOT NULL DEFAULT 0)`,
  `CREATE TABLE IF NOT EXISTS outbox_dedupe (key TEXT PRIMARY KEY, expires_at INTEGER NOT NULL)`,
  `CREATE INDEX IF NOT EXISTS outbox_dedupe_expiry ON outbox_dedupe (expires_at)`,
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
export async function migrateStateTable(c: Connection, keepUntil: number): Promise<void> {
  const columns = await c.all<{ name: string }>("PRAGMA table_info(outbox_state)");
  if (!columns.some((col) => col.name === "expires_at")) {
    await c.all("ALTER TABLE outbox_state ADD COLUMN expires_at INTEGER NOT NULL DEFAULT 0");
    await c.all("UPDATE outbox_state SET expires_at = ?", keepUntil);
  }
  await c.all("CREATE INDEX IF NOT EXISTS outbox_state_expiry ON outbox_state (expires_at)");
}

/** A video key's route (routeOfVideoKey in SQL): up to its second ':'. */
const ROUTE_OF_KEY = `CASE WHEN instr(substr(video_key, instr(video_key, ':') + 1), ':') = 0 THEN video_key
  ELSE substr(video_key, 1, instr(video_key, ':') + instr(substr(video_key, instr(video_key, ':') + 1), ':') - 1) END`;

/**
 * The per-route count of pending items (enqueue's quota): created with the items already there
 * counted once (a file written before the quota existed), then kept by enqueue and ack.
 */
export async function migrateRouteCounts(c: Connection): Promise<void> {
  const exists = await c.all(
    "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'outbox_route_count'",
  );
  if (exists.length > 0) return;
  await c.all("CREATE TABLE outbox_route_count (route TEXT PRIMARY KEY, n INTEGER NOT NULL)");
  await c.all(
    `INSERT INTO outbox_route_count (route, n) SELECT ${ROUTE_OF_KEY} AS r, COUNT(*) FROM outbox_items GROUP BY r`,
  );
}

/** The due videos to claim, earliest first, from the (due_at, video_key) index. Parameters: now, now, max. */
export const CLAIM_DUE = `SELECT video_key FROM outbox_schedule WHERE due_at <= ? AND (owner IS NULL OR lease_until <= ?)
  ORDER BY due_at, video_key LIMIT ?`;

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

/** The end of `owner`'s lease on a video, if live (by the outbox clock). Parameters: key, owner, now. */
export const HELD =
  "SELECT lease_until FROM outbox_schedule WHERE video_key = ? AND owner = ? AND lease_until > ?";

/** A video's state (if there is one) is kept at least until a time. Parameters: time, key. */
export const KEEP_STATE = "UPDATE outbox_state SET expires_at = MAX(expires_at, ?) WHERE video_key = ?";

/** One statement, so one consistent snapshot. */
export const STATS = `SELECT (SELECT COUNT(*) FROM outbox_items) AS depth,
  (SELECT MIN(received_at) FROM outbox_items) AS oldest,
  (SELECT COUNT(*) FROM outbox_schedule) AS scheduled, (SELECT COUNT(*) FROM outbox_dead) AS dead`;

export const placeholders = (n: number) => Array.from({ length: n }, () => "?").join(", ");
/** `(?, ?), (?, ?), …`: `rows` tuples of `width` parameters. */
export const values = (rows: number, width: number) =>
  Array.from({ length: rows }, () => `(${placeholders(width)})`).join(", ");

/**
 * The outbox's statements run on the store's own connection (the KeyvSqlite adapter's `query()`),
 * not on a second connection to the file. With node-sqlite3 every statement is a thread-pool job
 * and sqlite's busy handler sleeps inside it: with two connections in one process, a Keyv write
 * waiting for an outbox transaction's lock holds a thread, Keyv statements queued behind it hold
 * the others, and the transaction's COMMIT then waits for a thread: everything stalls until busy
 * timeouts expire and the Keyv writes fail with SQLITE_BUSY (seen in testing: 50 concurrent Keyv
 * sets + 50 enqueues took 18 s and failed; on one connection, 0.15 s). One connection has no lock
 * contention inside a process. The price: a Keyv statement issued while an outbox transaction is
 * open runs inside it, so it is committed with it (milliseconds later) and would be rolled back
 * with it. Outbox transactions only run statements on validated values, so they end in ROLLBACK
 * only when the database itself fails (disk full, I/O error), where that Keyv write fails too.
 */
export class Connection {
  constructor(private readonly query: (sql: string, ...params: unknown[]) => Promise<unknown>) {}

  /** Rows as the driver gives them (`T` describes the selected or RETURNING columns). */
  async all<T = unknown>(sql: string, ...params: unknown[]): Promise<T[]> {
    const rows = await this.query(sql, ...params);
    return Array.isArray(rows) ? (rows as T[]) : [];
  }

  /** `fn` inside BEGIN IMMEDIATE … COMMIT, rolled back on an error. */
  async transaction<T>(fn: (c: Connection) => Promise<T>): Promise<T> {
    await this.all("BEGIN IMMEDIATE");
    try {
      const result = await fn(this);
      await this.all("COMMIT");
      return result;
    } catch (err) {
      await this.all("ROLLBACK").catch(() => undefined);
      throw err;
    }
  }
}

/** Runs async functions one at a time, in call order. */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

/** Expired dedupe / once rows are deleted after this many insertions by this process. */
export const SWEEP_EVERY = 500;
/** Bound on the ids / keys put in one `IN (…)` list. */
export const MAX_LIST = 500;
