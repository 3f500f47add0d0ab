/**
 * The digest log in the store's sqlite file, in tables of its own, on the store's connection
 * (`SqliteQuery`: one statement at a time; why one connection: `Connection` in
 * src/outbox/sqlite-connection.ts):
 *
 *   digest_entries (seq AUTOINCREMENT, dkey, eid, json), UNIQUE (dkey, eid)
 *   digest_keys    (dkey PRIMARY KEY, due_at, want, owner, lease_until, left_out, state),
 *                  indexed by (due_at, dkey): a claim reads the first due rows of the index
 * More: README.md ("log-sqlite.ts").
 */
import type { DigestKey } from "../domain/index.js";
import type { Store } from "../store/index.js";
import { DIGEST_LOG_BOUND, type DigestLog, type RecordOutcome, type StoredEntry } from "./types.js";

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS digest_entries (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, dkey TEXT NOT NULL, eid TEXT NOT NULL, json TEXT NOT NULL,
  UNIQUE (dkey, eid))`,
  `CREATE TABLE IF NOT EXISTS digest_keys (
  dkey TEXT PRIMARY KEY, due_at INTEGER, want INTEGER, owner TEXT, lease_until INTEGER NOT NULL DEFAULT 0,
  left_out INTEGER NOT NULL DEFAULT 0, state TEXT)`,
  "CREATE INDEX IF NOT EXISTS digest_keys_due ON digest_keys (due_at, dkey)",
];

// Anonymous `?` parameters only (the same statements then run on either sqlite binding).

/** key, dueAt, now, now: due at dueAt at the latest, or remembered in `want` while leased. */
const WAKE = `INSERT INTO digest_keys (dkey, due_at) VALUES (?, ?)
ON CONFLICT (dkey) DO UPDATE SET
  due_at = CASE WHEN owner IS NOT NULL AND lease_until > ? THEN due_at
    WHEN due_at IS NULL OR due_at > excluded.due_at THEN excluded.due_at ELSE due_at END,
  want = CASE WHEN owner IS NOT NULL AND lease_until > ? THEN
    (CASE WHEN want IS NULL OR want > excluded.due_at THEN excluded.due_at ELSE want END) ELSE want END`;

/** key, entry id, json, key, bound. A row back: stored. */
const INSERT = `INSERT INTO digest_entries (dkey, eid, json) SELECT ?, ?, ?
WHERE (SELECT COUNT(*) FROM digest_entries WHERE dkey = ?) < ?
ON CONFLICT (dkey, eid) DO NOTHING RETURNING seq`;

/** key, key, entry id: counted as left out unless it is a duplicate. A row back: left out. */
const LEFT_OUT = `INSERT INTO digest_keys (dkey, left_out) SELECT ?, 1
WHERE NOT EXISTS (SELECT 1 FROM digest_entries WHERE dkey = ? AND eid = ?)
ON CONFLICT (dkey) DO UPDATE SET left_out = left_out + 1 RETURNING dkey`;

/** owner, lease end, lease end, now, owner, now, max. */
const CLAIM = `UPDATE digest_keys SET owner = ?, lease_until = ?, due_at = ?, want = NULL
WHERE dkey IN (SELECT dkey FROM digest_keys WHERE due_at <= ? AND (owner IS NULL OR owner = ? OR lease_until <= ?)
  ORDER BY due_at, dkey LIMIT ?)
RETURNING dkey`;

/** The fence of a statement on digest_keys, its last parameters: key, owner, now. */
const HELD = "dkey = ? AND owner = ? AND lease_until > ?";

/** One statement on the store's sqlite connection, with positional parameters. */
export type SqliteQuery = (sql: string, ...params: unknown[]) => Promise<unknown>;

const rowsOf = (rows: unknown): unknown[] => (Array.isArray(rows) ? rows : []);

function field(row: unknown, name: string): unknown {
  return typeof row === "object" && row !== null
    ? Object.getOwnPropertyDescriptor(row, name)?.value
    : undefined;
}

export class SqliteDigestLog implements DigestLog {
  readonly kind = "sqlite" as const;
  private ready: Promise<void> | undefined;

  constructor(
    private readonly store: Store,
    /** Runs one statement on the store's connection; its rows (SELECT, RETURNING). */
    private readonly query: SqliteQuery,
    private readonly now: () => number = Date.now,
  ) {}

  private async all(sql: string, ...params: unknown[]): Promise<unknown[]> {
    return rowsOf(await this.query(sql, ...params));
  }

  /** Creates the tables on first use (again after a failure). */
  private run<T>(op: string, fn: () => Promise<T>): Promise<T> {
    return this.store.run(`digest.${op}`, async () => {
      if (this.ready === undefined) {
        this.ready = (async () => {
          for (const s of SCHEMA) await this.all(s);
        })();
        this.ready.catch(() => {
          this.ready = undefined;
        });
      }
      await this.ready;
      return fn();
    });
  }

  async record(key: DigestKey, entryId: string, json: string, dueAt: number): Promise<RecordOutcome> {
    return this.run("record", async () => {
      let outcome: RecordOutcome = "stored";
      if ((await this.all(INSERT, key, entryId, json, key, DIGEST_LOG_BOUND)).length === 0)
        outcome = (await this.all(LEFT_OUT, key, key, entryId)).length > 0 ? "left_out" : "duplicate";
      if (outcome !== "duplicate") await this.all(WAKE, key, dueAt, this.now(), this.now());
      return outcome;
    });
  }

  async wake(key: DigestKey, dueAt: number): Promise<void> {
    const now = this.now();
    await this.run("wake", () => this.all(WAKE, key, dueAt, now, now));
  }

  async claimDue(owner: string, now: number, max: number, leaseMs: number): Promise<DigestKey[]> {
    const until = now + leaseMs;
    const rows = await this.run("claim", () => this.all(CLAIM, owner, until, until, now, owner, now, max));
    return rows.map((r) => String(field(r, "dkey"))).sort();
  }

  async renew(owner: string, key: DigestKey, until: number): Promise<boolean> {
    const rows = await this.run("renew", () =>
      this.all(
        `UPDATE digest_keys SET lease_until = ?, due_at = ? WHERE ${HELD} RETURNING dkey`,
        until,
        until,
        key,
        owner,
        this.now(),
      ),
    );
    return rows.length > 0;
  }

  async read(key: DigestKey): Promise<{ entries: StoredEntry[]; leftOut: number }> {
    return this.run("read", async () => {
      const rows = await this.all("SELECT seq, json FROM digest_entries WHERE dkey = ? ORDER BY seq", key);
      const meta = await this.all("SELECT left_out FROM digest_keys WHERE dkey = ?", key);
      return {
        entries: rows.map((r) => ({ seq: Number(field(r, "seq")), json: String(field(r, "json")) })),
        leftOut: Number(field(meta[0], "left_out") ?? 0),
      };
    });
  }

  async getState(key: DigestKey): Promise<string | undefined> {
    const rows = await this.run("state", () => this.all("SELECT state FROM digest_keys WHERE dkey = ?", key));
    const state = field(rows[0], "state");
    return typeof state === "string" ? state : undefined;
  }

  async setState(owner: string, key: DigestKey, state: string): Promise<boolean> {
    const rows = await this.run("setState", () =>
      this.all(
        `UPDATE digest_keys SET state = ? WHERE ${HELD} RETURNING dkey`,
        state,
        key,
        owner,
        this.now(),
      ),
    );
    return rows.length > 0;
  }

  async settle(
    owner: string,
    key: DigestKey,
    state: string,
    upTo: number,
    leftOut: number,
  ): Promise<boolean> {
    return this.run("settle", async () => {
      const rows = await this.all(
        `UPDATE digest_keys SET state = ?, left_out = MAX(0, left_out - ?) WHERE ${HELD} RETURNING dkey`,
        state,
        leftOut,
        key,
        owner,
        this.now(),
      );
      if (rows.length === 0) return false;
      await this.all("DELETE FROM digest_entries WHERE dkey = ? AND seq <= ?", key, upTo);
      return true;
    });
  }

  async release(owner: string, key: DigestKey, dueAt: number | null): Promise<void> {
    await this.run("release", () =>
      this.all(
        `UPDATE digest_keys SET owner = NULL, lease_until = 0, want = NULL,
          due_at = CASE WHEN ? IS NULL THEN want WHEN want IS NULL OR want > ? THEN ? ELSE want END
        WHERE dkey = ? AND owner = ?`,
        dueAt,
        dueAt,
        dueAt,
        key,
        owner,
      ),
    );
  }

  async drop(key: DigestKey): Promise<void> {
    await this.run("drop", async () => {
      await this.all("DELETE FROM digest_keys WHERE dkey = ?", key);
      await this.all("DELETE FROM digest_entries WHERE dkey = ?", key);
    });
  }

  async scheduled(): Promise<number> {
    const rows = await this.run("scheduled", () =>
      this.all("SELECT COUNT(*) AS n FROM digest_keys WHERE due_at IS NOT NULL"),
    );
    return Number(field(rows[0], "n") ?? 0);
  }

  async close(): Promise<void> {}
}
