/**
 * The store's sqlite file on ONE synchronous connection (better-sqlite3), shared by Keyv's table,
 * compare-and-set (cas.ts), the outbox (src/outbox/sqlite.ts) and the watch registry.
 *
 * Why synchronous: with the asynchronous binding every statement was a thread-pool job (a hop to a
 * thread and back per statement), and a Keyv statement issued while an outbox transaction was open
 * ran inside it. Here a statement is a plain call (prepared once, kept), and a transaction is a
 * synchronous block: nothing else can run a statement in the middle of it.
 * More: README.md ("sqlite.ts").
 */
import { EventEmitter } from "node:events";
import { closeSync, fsync, fsyncSync, openSync } from "node:fs";
import { createRequire } from "node:module";
import type Database from "better-sqlite3";
import type { KeyvStoreAdapter, StoredData } from "keyv";

/**
 * The binding for this Node. better-sqlite3 12 (compiled at install) is built on Node's raw
 * ObjectWrap, whose destructor aborts the process on Node 24 when the garbage collector frees a
 * statement or a database at the wrong moment ("Assertion failed: (env) != nullptr"); 13 is a
 * Node-API addon without that problem, shipped prebuilt, but does not run on Node 20. The two
 * have the same API: 13 (the `better-sqlite3-napi` alias) from Node 22 on, 12 before.
 */
const BINDING = Number(process.versions.node.split(".")[0]) >= 22 ? "better-sqlite3-napi" : "better-sqlite3";
let binding: typeof Database | undefined;
/** The binding, loaded on the first database opened (a bot on memory or Redis never loads it). */
function sqlite(): typeof Database {
  binding ??= createRequire(import.meta.url)(BINDING) as typeof Database;
  return binding;
}

type Statement = Database.Statement<unknown[]>;
export type Row = Record<string, unknown>;

/** Keyv's table, exactly as @keyv/sqlite created it (files written by earlier versions open as they are). */
export const KEYV_TABLE = "keyv";
const CREATE_KEYV = `CREATE TABLE IF NOT EXISTS ${KEYV_TABLE}(key VARCHAR(255) PRIMARY KEY, value TEXT )`;

/** A write's outcome in its group commit: its value, or what it threw. */
type Settled = { ok: true; value: unknown } | { ok: false; value: unknown };

interface QueuedWrite {
  fn: () => unknown;
  /** Date.now() past which its caller gave up (store.run's bound): skipped, not run late. */
  deadline: number;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

export class SqliteDb extends EventEmitter {
  readonly file: string;
  private readonly db: Database.Database;
  private readonly statements = new Map<string, Statement>();
  private queue: QueuedWrite[] = [];
  private flushing = false;
  private closed = false;
  /** The WAL file, opened on the first commit (sqlite creates it with the first write). */
  private walFd: number | undefined;
  /** Answers of committed writes waiting for the next WAL sync. */
  private unsynced: Array<() => void> = [];
  private unsyncedFailures: Array<(err: unknown) => void> = [];
  /** The WAL sync in flight, if any. */
  private syncing: Promise<void> | undefined;

  /** The group commit's own statements, prepared once. */
  private readonly control: Record<
    "begin" | "savepoint" | "release" | "rollbackTo" | "rollback" | "commit",
    Statement
  >;

  constructor(file: string, busyTimeoutMs: number) {
    super();
    this.file = file;
    const Sqlite = sqlite();
    this.db = new Sqlite(file, { timeout: busyTimeoutMs });
    try {
      if (file !== ":memory:") this.db.pragma("journal_mode = WAL");
      // NORMAL: the WAL sync of each commit is done by syncWal(), off the event loop.
      this.db.pragma(`synchronous = ${file === ":memory:" ? "FULL" : "NORMAL"}`);
      this.db.exec(CREATE_KEYV);
      this.control = {
        begin: this.db.prepare("BEGIN IMMEDIATE"),
        savepoint: this.db.prepare("SAVEPOINT w"),
        release: this.db.prepare("RELEASE w"),
        rollbackTo: this.db.prepare("ROLLBACK TO w"),
        rollback: this.db.prepare("ROLLBACK"),
        commit: this.db.prepare("COMMIT"),
      };
    } catch (err) {
      this.db.close();
      throw err;
    }
  }

  /** The journal mode in force ("wal" for a file). */
  journalMode(): string {
    return String(this.db.pragma("journal_mode", { simple: true }));
  }

  /** The prepared statement for `sql` (prepared on first use, then kept). */
  prepare(sql: string): Statement {
    let s = this.statements.get(sql);
    if (s === undefined) {
      s = this.db.prepare(sql);
      this.statements.set(sql, s);
    }
    return s;
  }

  /** Whether writes wait for the next group commit (not yet visible to reads). */
  writesQueued(): boolean {
    return this.queue.length > 0;
  }

  /** Rows of a statement that returns some (SELECT, RETURNING, PRAGMA); [] for one that does not. */
  all<T = Row>(sql: string, ...params: unknown[]): T[] {
    const s = this.prepare(sql);
    if (s.reader) return s.all(...params) as T[];
    s.run(...params);
    return [];
  }

  /** The first row, or undefined. */
  get<T = Row>(sql: string, ...params: unknown[]): T | undefined {
    return this.prepare(sql).get(...params) as T | undefined;
  }

  /** Runs a statement that returns no rows; how many rows it changed. */
  run(sql: string, ...params: unknown[]): number {
    return this.prepare(sql).run(...params).changes;
  }

  /** Runs several statements (schema), unprepared. */
  exec(sql: string): void {
    this.db.exec(sql);
  }

  /** Runs `fn` now (reads see what is committed). */
  read<T>(fn: () => T): Promise<T> {
    try {
      return Promise.resolve(fn());
    } catch (err) {
      return Promise.reject(err);
    }
  }

  /**
   * Runs `fn` in the next group commit (see the module comment); resolves with its result once
   * committed. `deadline`: a Date.now() past which it is skipped (its caller has given up).
   */
  write<T>(fn: () => T, deadline = Number.POSITIVE_INFINITY): Promise<T> {
    if (this.closed) return Promise.reject(new Error("the sqlite database is closed"));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ fn, deadline, resolve: resolve as (v: unknown) => void, reject });
      this.scheduleFlush();
    });
  }

  /**
   * The next group commit runs at the end of this turn, or once the WAL sync in flight is done:
   * its writes could not be answered before the next sync anyway, and waiting makes one commit
   * (and one sync) of everything written meanwhile.
   */
  private scheduleFlush(): void {
    if (this.flushing || this.syncing !== undefined || this.queue.length === 0) return;
    this.flushing = true;
    setImmediate(this.flush);
  }

  /**
   * Compatibility with the adapter this replaced (tests, one-off tools): one statement; a reader
   * is run at once, any other in the next group commit.
   */
  query(sql: string, ...params: unknown[]): Promise<Row[]> {
    try {
      if (this.prepare(sql).reader && !/^\s*(insert|update|delete|replace)\b/i.test(sql))
        return this.read(() => this.all(sql, ...params));
    } catch (err) {
      return Promise.reject(err);
    }
    return this.write(() => this.all(sql, ...params));
  }

  private readonly flush = (): void => {
    this.flushing = false;
    const batch = this.queue;
    this.queue = [];
    const now = Date.now();
    let results: Settled[];
    try {
      // Optimistic: the writes run one after the other with no savepoint between them (two
      // statements fewer per write). Should one throw, the transaction is rolled back and the
      // batch run again, each write in its own savepoint, so that one failure fails only itself.
      results = this.commitBatch(batch, now, false) ?? (this.commitBatch(batch, now, true) as Settled[]);
    } catch (err) {
      if (this.db.inTransaction) {
        try {
          this.control.rollback.run();
        } catch {
          // The connection is gone: nothing was committed either way.
        }
      }
      for (const w of batch) w.reject(err);
      return;
    }
    const answer = () => {
      for (const [i, w] of batch.entries()) {
        const r = results[i];
        if (r?.ok) w.resolve(r.value);
        else w.reject(r?.value);
      }
    };
    if (this.file === ":memory:") {
      answer();
      return;
    }
    this.unsynced.push(answer);
    this.unsyncedFailures.push((err) => {
      for (const w of batch) w.reject(err);
    });
    if (this.syncing === undefined) this.syncing = this.syncWal();
  };

  /**
   * One transaction of `batch`, committed; each write's outcome. Writes whose caller gave up are
   * skipped. Without `isolated`, the first write that throws rolls everything back and the answer
   * is undefined (run it again isolated); with it, each write runs in a savepoint, and one that
   * throws is rolled back alone and fails alone.
   */
  private commitBatch(batch: readonly QueuedWrite[], now: number, isolated: boolean): Settled[] | undefined {
    const results: Settled[] = [];
    this.control.begin.run();
    for (const w of batch) {
      if (w.deadline < now) {
        results.push({ ok: false, value: new Error("gave up waiting for the sqlite connection") });
        continue;
      }
      if (!isolated) {
        try {
          results.push({ ok: true, value: w.fn() });
        } catch {
          // Some failures (a full disk) end the transaction themselves.
          if (this.db.inTransaction) this.control.rollback.run();
          return undefined;
        }
        continue;
      }
      this.control.savepoint.run();
      try {
        results.push({ ok: true, value: w.fn() });
        this.control.release.run();
      } catch (err) {
        results.push({ ok: false, value: err });
        this.control.rollbackTo.run();
        this.control.release.run();
      }
    }
    this.control.commit.run();
    return results;
  }

  /**
   * fsyncs the WAL (thread pool), then answers the commits made before it began; again while
   * more are waiting. A failed sync fails those callers: their writes may not be on disk.
   */
  private async syncWal(): Promise<void> {
    while (this.unsynced.length > 0) {
      const answers = this.unsynced;
      const failures = this.unsyncedFailures;
      this.unsynced = [];
      this.unsyncedFailures = [];
      try {
        this.walFd ??= openSync(`${this.file}-wal`, "r");
        const fd = this.walFd;
        await new Promise<void>((resolve, reject) => fsync(fd, (err) => (err ? reject(err) : resolve())));
      } catch (err) {
        this.emit("error", err);
        for (const fail of failures) fail(err);
        continue;
      }
      for (const done of answers) done();
    }
    this.syncing = undefined;
    this.scheduleFlush();
  }

  /** Commits what is queued, then closes. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.queue.length > 0) this.flush();
    while (this.syncing) await this.syncing;
    this.statements.clear();
    this.db.close();
    if (this.walFd !== undefined) {
      try {
        fsyncSync(this.walFd);
      } finally {
        closeSync(this.walFd);
        this.walFd = undefined;
      }
    }
  }
}

/**
 * Keyv's storage adapter on `keyv(key, value)`, the layout of @keyv/sqlite: keys
 * `${namespace}:${key}` (Keyv adds the prefix), values Keyv's serialized envelope.
 */
export class SqliteKeyvAdapter extends EventEmitter implements KeyvStoreAdapter {
  readonly opts = { dialect: "sqlite", table: KEYV_TABLE };
  namespace?: string | undefined;

  constructor(private readonly db: SqliteDb) {
    super();
  }

  get<Value>(key: string): Promise<StoredData<Value> | undefined> {
    return this.db.read(
      () => this.db.get<{ value: string }>(`SELECT value FROM ${KEYV_TABLE} WHERE key = ?`, key)?.value,
    ) as Promise<StoredData<Value> | undefined>;
  }

  getMany<Value>(keys: string[]): Promise<Array<StoredData<Value | undefined>>> {
    return this.db.read(() =>
      keys.map(
        (k) => this.db.get<{ value: string }>(`SELECT value FROM ${KEYV_TABLE} WHERE key = ?`, k)?.value,
      ),
    ) as Promise<Array<StoredData<Value | undefined>>>;
  }

  has(key: string): Promise<boolean> {
    return this.db.read(
      () => this.db.get(`SELECT 1 AS one FROM ${KEYV_TABLE} WHERE key = ?`, key) !== undefined,
    );
  }

  set(key: string, value: unknown): Promise<void> {
    return this.db.write(() => {
      this.db.run(
        `INSERT INTO ${KEYV_TABLE} (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`,
        key,
        value,
      );
    });
  }

  delete(key: string): Promise<boolean> {
    return this.db.write(() => this.db.run(`DELETE FROM ${KEYV_TABLE} WHERE key = ?`, key) > 0);
  }

  deleteMany(keys: string[]): Promise<boolean> {
    return this.db.write(() => {
      let n = 0;
      for (const k of keys) n += this.db.run(`DELETE FROM ${KEYV_TABLE} WHERE key = ?`, k);
      return n > 0;
    });
  }

  clear(): Promise<void> {
    const like = this.namespace ? `${this.namespace.replace(/[\\%_]/g, "\\$&")}:%` : "%";
    return this.db.write(() => {
      this.db.run(`DELETE FROM ${KEYV_TABLE} WHERE key LIKE ? ESCAPE '\\'`, like);
    });
  }

  disconnect(): Promise<void> {
    return this.db.close();
  }
}
