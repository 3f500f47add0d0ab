/**
 * For sqlite.ts: the outbox tables, a promise wrapper around one sqlite3 connection (run with
 * changes/lastID, all, exec, transaction) and the mutex that keeps the outbox's statements on it
 * from interleaving.
 */
import type { Database } from "sqlite3";
import sqlite3 from "sqlite3";
import type { Logger } from "../../log.js";

/** Created if missing, in one transaction (two processes may start at once). */
export const SCHEMA = `
BEGIN IMMEDIATE;
CREATE TABLE IF NOT EXISTS outbox_items (
  id INTEGER PRIMARY KEY AUTOINCREMENT, video_key TEXT NOT NULL, team_id TEXT NOT NULL,
  received_at INTEGER NOT NULL, json TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS outbox_items_video ON outbox_items (video_key, id);
CREATE INDEX IF NOT EXISTS outbox_items_received ON outbox_items (received_at);
CREATE TABLE IF NOT EXISTS outbox_schedule (
  video_key TEXT PRIMARY KEY, due_at INTEGER NOT NULL, owner TEXT, lease_until INTEGER NOT NULL DEFAULT 0);
CREATE INDEX IF NOT EXISTS outbox_schedule_due ON outbox_schedule (due_at);
CREATE TABLE IF NOT EXISTS outbox_state (video_key TEXT PRIMARY KEY, json TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS outbox_dedupe (key TEXT PRIMARY KEY, expires_at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS outbox_dedupe_expiry ON outbox_dedupe (expires_at);
CREATE TABLE IF NOT EXISTS outbox_dead (
  id INTEGER PRIMARY KEY AUTOINCREMENT, team_id TEXT NOT NULL, at INTEGER NOT NULL,
  reason TEXT NOT NULL, json TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS outbox_dead_team ON outbox_dead (team_id, id);
CREATE TABLE IF NOT EXISTS outbox_once (key TEXT PRIMARY KEY, expires_at INTEGER NOT NULL);
COMMIT;`;

export const placeholders = (n: number) => Array.from({ length: n }, () => "?").join(", ");
/** `(?, ?), (?, ?), …`: `rows` tuples of `width` parameters. */
export const values = (rows: number, width: number) =>
  Array.from({ length: rows }, () => `(${placeholders(width)})`).join(", ");

/** Promise wrapper around one sqlite3 connection. */
export class Connection {
  private constructor(private readonly db: Database) {}

  static open(file: string, busyTimeoutMs: number, logger: Logger): Promise<Connection> {
    return new Promise((resolve, reject) => {
      const db: Database = new sqlite3.Database(file, (err) => {
        if (err) return reject(err);
        db.configure("busyTimeout", busyTimeoutMs);
        resolve(new Connection(db));
      });
      db.on("error", (err) => logger.warn({ err }, "outbox sqlite connection error"));
    });
  }

  run(sql: string, ...params: unknown[]): Promise<{ changes: number; lastID: number }> {
    return new Promise((resolve, reject) => {
      this.db.run(sql, params, function (err) {
        if (err) reject(err);
        else resolve({ changes: this.changes, lastID: this.lastID });
      });
    });
  }

  /** Rows as the driver gives them; `T` describes the selected columns. */
  all<T>(sql: string, ...params: unknown[]): Promise<T[]> {
    return new Promise((resolve, reject) => {
      this.db.all<T>(sql, params, (err, rows) => (err ? reject(err) : resolve(rows)));
    });
  }

  exec(sql: string): Promise<void> {
    return new Promise((resolve, reject) => this.db.exec(sql, (err) => (err ? reject(err) : resolve())));
  }

  /** `fn` inside BEGIN IMMEDIATE … COMMIT, rolled back on any error. */
  async transaction<T>(fn: (c: Connection) => Promise<T>): Promise<T> {
    await this.exec("BEGIN IMMEDIATE");
    try {
      const result = await fn(this);
      await this.exec("COMMIT");
      return result;
    } catch (err) {
      await this.exec("ROLLBACK").catch(() => undefined);
      throw err;
    }
  }

  close(): Promise<void> {
    return new Promise((resolve, reject) => this.db.close((err) => (err ? reject(err) : resolve())));
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
