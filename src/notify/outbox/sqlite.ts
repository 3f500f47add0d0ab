/**
 * Outbox in the store's sqlite file, in its own tables (`outbox_*`, next to Keyv's `keyv` table),
 * on the store's own connection (why not a second one: see `Connection` in sqlite-connection.ts).
 * The file is switched to WAL mode (readers never wait for the writer; `synchronous` stays at its
 * FULL default, so a committed enqueue survives a power cut). Another process on the same file
 * waits up to the store's busy timeout (`opTimeoutMs`) for the write lock.
 *
 * Atomicity:
 *  - Every outbox operation runs under a JS-side mutex, so two outbox callers never interleave
 *    statements (one's statements would otherwise land in the other's transaction).
 *  - Multi-statement operations (enqueue, claimDue, ack, release, setState, deadLetter) run in
 *    `BEGIN IMMEDIATE … COMMIT`: the write lock is taken up front, so the checks they make (lease
 *    owner, dedupe) cannot be invalidated by another process before their writes, and they never
 *    hit a deadlock-style SQLITE_BUSY on lock upgrade. Single statements (renew, once, reads) are
 *    atomic by themselves; their effect is read with RETURNING. Concurrent enqueues share one
 *    transaction (group commit, see enqueue).
 *  - Each operation is bounded by `store.run()` (→ StoreUnavailableError). An operation still
 *    waiting for the mutex when its caller has given up is skipped rather than run late.
 */
import type { Logger } from "../../log.js";
import type { Store } from "../../store/index.js";
import {
  type DeadLetter,
  type EnqueueOutcome,
  type NewOutboxItem,
  type Outbox,
  type OutboxItem,
  type OutboxStats,
  routeOfVideoKey,
  type VideoKey,
} from "../types.js";
import {
  type Clock,
  DEAD_LETTERS_PER_TEAM,
  DEFAULT_DEDUPE_TTL_MS,
  decodeItem,
  encodeItem,
  encodeState,
  type OutboxOptions,
  PULL_FORWARD_MS,
  parseJson,
  positiveMs,
  type Retention,
  retentionOf,
  routeQuotaOf,
  STATE_SWEEP_EVERY_MS,
  STATE_SWEEP_MAX,
} from "./common.js";
import {
  CLAIM_DUE,
  Connection,
  HELD,
  KEEP_STATE,
  MAX_LIST,
  Mutex,
  migrateRouteCounts,
  migrateStateTable,
  NOTE_PUT,
  ONCE_UPSERT,
  placeholders,
  SCHEMA,
  STATS,
  SWEEP_EVERY,
  SWEEP_STATES,
  values,
} from "./sqlite-connection.js";

interface QueuedEnqueue {
  item: NewOutboxItem;
  json: string;
  dedupeKey: string;
  dueAt: number;
  /** When its caller's store.run() gives up. */
  deadline: number;
  settle: (result: EnqueueOutcome) => void;
  fail: (err: unknown) => void;
}

export class SqliteOutbox implements Outbox {
  readonly kind = "sqlite" as const;
  private readonly mutex = new Mutex();
  private readonly now: Clock;
  private readonly dedupeTtlMs: number;
  private insertions = 0;
  private readonly retention: Retention;
  private readonly routeQuota: number;
  private nextStateSweepAt = 0;
  private readonly queued: QueuedEnqueue[] = [];
  private flushQueued = false;
  private closed = false;
  private closing: Promise<void> | undefined;

  private constructor(
    private readonly store: Store,
    private readonly conn: Connection,
    opts: OutboxOptions,
  ) {
    this.now = opts.now ?? Date.now;
    this.dedupeTtlMs = positiveMs(opts.dedupeTtlMs ?? DEFAULT_DEDUPE_TTL_MS);
    this.retention = retentionOf(opts);
    this.routeQuota = routeQuotaOf(opts);
  }

  /** Uses the store's connection: WAL mode, and the tables created if missing. */
  static async open(store: Store, logger: Logger, opts: OutboxOptions = {}): Promise<SqliteOutbox> {
    const adapter = store.backend.sqlite;
    if (!adapter) throw new Error("SqliteOutbox needs a sqlite store");
    const conn = new Connection((sql, ...params) => adapter.query(sql, ...params));
    return store.run("outbox.open", async () => {
      const [mode] = await conn.all<{ journal_mode: string }>("PRAGMA journal_mode = WAL");
      if (mode?.journal_mode !== "wal" && adapter.opts.db !== ":memory:") {
        logger.warn({ journalMode: mode?.journal_mode }, "could not switch the sqlite file to WAL mode");
      }
      await conn.transaction(async (c) => {
        for (const statement of SCHEMA) await c.all(statement);
        await migrateStateTable(c, (opts.now ?? Date.now)() + retentionOf(opts).normal);
        await migrateRouteCounts(c);
      });
      return new SqliteOutbox(store, conn, opts);
    });
  }

  /**
   * Group commit: enqueues that arrive while the connection is busy wait in `queued` and are
   * written together in the next transaction (one fsync for many deliveries). Each one is still
   * all-or-nothing, and each caller is answered only after the COMMIT that holds its item.
   */
  enqueue(item: NewOutboxItem, dedupeKey: string, dueAt: number): Promise<EnqueueOutcome> {
    const json = encodeItem(item);
    const deadline = Date.now() + this.store.opTimeoutMs;
    return this.store.run(
      "outbox.enqueue",
      () =>
        new Promise<EnqueueOutcome>((settle, fail) => {
          this.queued.push({ item, json, dedupeKey, dueAt, deadline, settle, fail });
          this.flushSoon();
        }),
    );
  }

  private flushSoon(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    void this.mutex.run(async () => {
      this.flushQueued = false;
      // Callers that gave up (store.run timed out) were told it failed: do not store theirs.
      const batch = this.queued.splice(0, MAX_LIST).filter((e) => e.deadline >= Date.now());
      if (this.queued.length > 0) this.flushSoon();
      if (batch.length === 0) return;
      try {
        if (this.closed) throw new Error("the outbox is closed");
        const results = await this.conn.transaction((c) => this.enqueueBatch(c, batch));
        for (const [i, e] of batch.entries()) e.settle(results[i] ?? "stored");
      } catch (err) {
        for (const e of batch) e.fail(err);
      }
    });
  }

  /**
   * A few statements for the whole batch: the dedupe upsert returns the keys it inserted or took
   * over (a key twice in one batch: its second row conflicts with its first, so only the first is
   * stored); the routes' pending counts are read, and the fresh items that would pass their route's
   * quota are kept, in arrival order ("full" for the rest, whose dedupe keys are given back); then
   * the new items in arrival order, the counts, and their videos' schedule (a video already
   * scheduled or leased keeps its due time, unless free and due far later: Outbox.enqueue).
   */
  private async enqueueBatch(c: Connection, batch: QueuedEnqueue[]): Promise<EnqueueOutcome[]> {
    const now = this.now();
    await this.sweep(c, "outbox_dedupe", now);
    const rows = await c.all<{ key: string }>(
      `INSERT INTO outbox_dedupe (key, expires_at) VALUES ${values(batch.length, 2)}
       ON CONFLICT (key) DO UPDATE SET expires_at = excluded.expires_at WHERE outbox_dedupe.expires_at <= ?
       RETURNING key`,
      ...batch.flatMap((e) => [e.dedupeKey, now + this.dedupeTtlMs]),
      now,
    );
    const fresh = new Set(rows.map((r) => r.key));
    const candidates = batch.filter((e) => fresh.delete(e.dedupeKey));
    const outcome = new Map<QueuedEnqueue, EnqueueOutcome>();
    const stored: QueuedEnqueue[] = [];
    if (candidates.length > 0) {
      const routes = [...new Set(candidates.map((e) => routeOfVideoKey(e.item.videoKey)))];
      const counts = new Map<string, number>();
      for (const r of await c.all<{ route: string; n: number }>(
        `SELECT route, n FROM outbox_route_count WHERE route IN (${placeholders(routes.length)})`,
        ...routes,
      )) {
        counts.set(r.route, r.n);
      }
      const added = new Map<string, number>();
      const refused: string[] = [];
      for (const e of candidates) {
        const route = routeOfVideoKey(e.item.videoKey);
        const n = (counts.get(route) ?? 0) + (added.get(route) ?? 0);
        if (n >= this.routeQuota) {
          outcome.set(e, "full");
          refused.push(e.dedupeKey);
        } else {
          outcome.set(e, "stored");
          added.set(route, (added.get(route) ?? 0) + 1);
          stored.push(e);
        }
      }
      if (refused.length > 0) {
        await c.all(`DELETE FROM outbox_dedupe WHERE key IN (${placeholders(refused.length)})`, ...refused);
      }
      if (added.size > 0) {
        await c.all(
          `INSERT INTO outbox_route_count (route, n) VALUES ${values(added.size, 2)}
           ON CONFLICT (route) DO UPDATE SET n = outbox_route_count.n + excluded.n`,
          ...[...added].flat(),
        );
      }
    }
    if (stored.length > 0) {
      await c.all(
        `INSERT INTO outbox_items (video_key, team_id, received_at, json) VALUES ${values(stored.length, 4)}`,
        ...stored.flatMap((e) => [e.item.videoKey, e.item.teamId, e.item.receivedAt, e.json]),
      );
      // A video already scheduled keeps its due time, unless it is free and more than
      // PULL_FORWARD_MS later than this item's (see Outbox.enqueue); a leased one keeps it.
      await c.all(
        `INSERT INTO outbox_schedule (video_key, due_at) VALUES ${values(stored.length, 2)}
         ON CONFLICT (video_key) DO UPDATE SET due_at = excluded.due_at
         WHERE outbox_schedule.owner IS NULL AND outbox_schedule.due_at > excluded.due_at + ?`,
        ...stored.flatMap((e) => [e.item.videoKey, e.dueAt]),
        PULL_FORWARD_MS,
      );
    }
    return batch.map((e) => outcome.get(e) ?? "duplicate");
  }

  claimDue(owner: string, now: number, max: number, leaseMs: number): Promise<VideoKey[]> {
    return this.tx("claimDue", async (c) => {
      if (this.now() >= this.nextStateSweepAt) {
        this.nextStateSweepAt = this.now() + STATE_SWEEP_EVERY_MS;
        await c.all(SWEEP_STATES, this.now(), STATE_SWEEP_MAX);
      }
      // Select and update in one IMMEDIATE transaction: no other connection can claim in between.
      const rows = await c.all<{ video_key: string }>(
        CLAIM_DUE,
        now,
        now,
        Math.max(0, Math.min(max, MAX_LIST)),
      );
      const keys = rows.map((r) => r.video_key);
      if (keys.length === 0) return keys;
      const inKeys = `video_key IN (${placeholders(keys.length)})`;
      // due_at = lease end: not due for anyone else while leased.
      const until = now + leaseMs;
      await c.all(
        `UPDATE outbox_schedule SET owner = ?, lease_until = ?, due_at = ? WHERE ${inKeys}`,
        owner,
        until,
        until,
        ...keys,
      );
      // A claimed video's state is kept at least until the lease ends plus the final retention.
      const keep = until + this.retention.final;
      await c.all(`UPDATE outbox_state SET expires_at = MAX(expires_at, ?) WHERE ${inKeys}`, keep, ...keys);
      return keys;
    });
  }

  renew(owner: string, key: VideoKey, until: number): Promise<boolean> {
    return this.tx("renew", async (c) => {
      const r = await c.all(
        `UPDATE outbox_schedule SET lease_until = ?, due_at = ?
         WHERE video_key = ? AND owner = ? AND lease_until > ? RETURNING video_key`,
        until,
        until,
        key,
        owner,
        this.now(),
      );
      if (r.length === 1) await c.all(KEEP_STATE, until + this.retention.final, key);
      return r.length === 1;
    });
  }

  pending(key: VideoKey, limit: number): Promise<OutboxItem[]> {
    return this.op("pending", async (c) => {
      const rows = await c.all<{ id: number; json: string }>(
        "SELECT id, json FROM outbox_items WHERE video_key = ? ORDER BY id LIMIT ?",
        key,
        Math.max(0, limit),
      );
      return rows.map((r) => decodeItem(String(r.id), r.json, key));
    });
  }

  ack(owner: string, key: VideoKey, ids: readonly string[]): Promise<boolean> {
    return this.tx("ack", async (c) => {
      if (!(await this.held(c, owner, key))) return false;
      const numeric = ids.map(Number).filter(Number.isSafeInteger);
      let removed = 0;
      for (let i = 0; i < numeric.length; i += MAX_LIST) {
        const chunk = numeric.slice(i, i + MAX_LIST);
        const gone = await c.all(
          `DELETE FROM outbox_items WHERE video_key = ? AND id IN (${placeholders(chunk.length)}) RETURNING id`,
          key,
          ...chunk,
        );
        removed += gone.length;
      }
      if (removed > 0) {
        await c.all(
          "UPDATE outbox_route_count SET n = MAX(0, n - ?) WHERE route = ?",
          removed,
          routeOfVideoKey(key),
        );
      }
      return true;
    });
  }

  release(owner: string, key: VideoKey, dueAt: number | null): Promise<void> {
    return this.tx("release", async (c) => {
      if (!(await this.held(c, owner, key))) return;
      let due = dueAt;
      const now = this.now();
      if (due === null || due > now + PULL_FORWARD_MS) {
        const left = await c.all("SELECT 1 FROM outbox_items WHERE video_key = ? LIMIT 1", key);
        if (left.length > 0)
          due = now; // arrived meanwhile: see Outbox.release
        else if (due === null) {
          await c.all("DELETE FROM outbox_schedule WHERE video_key = ?", key);
          return;
        }
      }
      await c.all(
        "UPDATE outbox_schedule SET due_at = ?, owner = NULL, lease_until = 0 WHERE video_key = ?",
        due,
        key,
      );
    });
  }

  getState(key: VideoKey): Promise<unknown> {
    return this.op("getState", async (c) => {
      const rows = await c.all<{ json: string }>("SELECT json FROM outbox_state WHERE video_key = ?", key);
      const row = rows[0];
      return row === undefined ? undefined : parseJson(`outbox state ${key}`, row.json);
    });
  }

  setState(owner: string, key: VideoKey, state: unknown, opts?: { final?: boolean }): Promise<boolean> {
    return this.tx("setState", async (c) => {
      const leaseEnd = await this.held(c, owner, key);
      if (leaseEnd === undefined) return false;
      const json = encodeState(state);
      if (json === undefined) await c.all("DELETE FROM outbox_state WHERE video_key = ?", key);
      else {
        await c.all(
          `INSERT INTO outbox_state (video_key, json, expires_at) VALUES (?, ?, ?)
           ON CONFLICT (video_key) DO UPDATE SET json = excluded.json, expires_at = excluded.expires_at`,
          key,
          json,
          leaseEnd + (opts?.final ? this.retention.final : this.retention.normal),
        );
      }
      return true;
    });
  }

  sweepStates(max: number): Promise<number> {
    return this.op(
      "sweepStates",
      async (c) => (await c.all(SWEEP_STATES, this.now(), Math.max(0, max))).length,
    );
  }

  deadLetter(item: OutboxItem, reason: string, at: number): Promise<void> {
    return this.tx("deadLetter", async (c) => {
      await c.all(
        "INSERT INTO outbox_dead (team_id, at, reason, json) VALUES (?, ?, ?, ?)",
        item.teamId,
        at,
        reason,
        JSON.stringify(item),
      );
      // Keep the newest DEAD_LETTERS_PER_TEAM of this team (the cut-off is the first row beyond).
      await c.all(
        `DELETE FROM outbox_dead WHERE team_id = ? AND id <= (
           SELECT id FROM outbox_dead WHERE team_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`,
        item.teamId,
        item.teamId,
        DEAD_LETTERS_PER_TEAM,
      );
    });
  }

  /** Newest first. */
  listDead(teamId: string, limit: number): Promise<DeadLetter[]> {
    return this.op("listDead", async (c) => {
      const rows = await c.all<{ at: number; reason: string; json: string }>(
        "SELECT at, reason, json FROM outbox_dead WHERE team_id = ? ORDER BY id DESC LIMIT ?",
        teamId,
        Math.max(0, limit),
      );
      return rows.map((r) => ({
        item: parseJson("dead letter", r.json) as OutboxItem,
        reason: r.reason,
        at: r.at,
      }));
    });
  }

  once(key: string, ttlMs: number): Promise<boolean> {
    return this.op("once", async (c) => {
      const now = this.now();
      await this.sweep(c, "outbox_once", now);
      return (await c.all(ONCE_UPSERT, key, now + positiveMs(ttlMs), now)).length === 1;
    });
  }

  putNote(key: string, value: string, ttlMs: number): Promise<void> {
    return this.op("putNote", async (c) => {
      const now = this.now();
      await this.sweep(c, "outbox_notes", now);
      await c.all(NOTE_PUT, key, value, now + positiveMs(ttlMs));
    });
  }

  getNote(key: string): Promise<string | undefined> {
    return this.op("getNote", async (c) => {
      const sql = "SELECT value FROM outbox_notes WHERE key = ? AND expires_at > ?";
      return (await c.all<{ value: string }>(sql, key, this.now()))[0]?.value;
    });
  }

  stats(): Promise<OutboxStats> {
    return this.op("stats", async (c) => {
      const rows = await c.all<{ depth: number; oldest: number | null; scheduled: number; dead: number }>(
        STATS,
      );
      const r = rows[0];
      return {
        depth: r?.depth ?? 0,
        oldestReceivedAt: r?.oldest ?? null,
        scheduled: r?.scheduled ?? 0,
        dead: r?.dead ?? 0,
      };
    });
  }

  /** Stops this outbox once the operations already queued are done; the store stays open. */
  close(): Promise<void> {
    this.closing ??= this.mutex
      .run(async () => {
        this.closed = true;
      })
      .catch(() => undefined);
    return this.closing;
  }

  /** The end of `owner`'s lease on the video if it is live (by the outbox clock), else undefined. */
  private async held(c: Connection, owner: string, key: VideoKey): Promise<number | undefined> {
    return (await c.all<{ lease_until: number }>(HELD, key, owner, this.now()))[0]?.lease_until;
  }

  /** Deletes expired rows of a TTL table now and then (each process counts its own insertions). */
  private async sweep(
    c: Connection,
    table: "outbox_dedupe" | "outbox_once" | "outbox_notes",
    now: number,
  ): Promise<void> {
    if (++this.insertions % SWEEP_EVERY === 0) await c.all(`DELETE FROM ${table} WHERE expires_at <= ?`, now);
  }

  /** One operation on the connection, under the mutex, bounded by `store.run()`. */
  private op<T>(name: string, fn: (c: Connection) => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.store.opTimeoutMs;
    return this.store.run(`outbox.${name}`, () =>
      this.mutex.run(async () => {
        if (this.closed) throw new Error("the outbox is closed");
        if (Date.now() > deadline) throw new Error("gave up waiting for the outbox connection");
        return fn(this.conn);
      }),
    );
  }

  /** Like `op`, inside BEGIN IMMEDIATE … COMMIT (rolled back on an error). */
  private tx<T>(name: string, fn: (c: Connection) => Promise<T>): Promise<T> {
    return this.op(name, (c) => c.transaction(fn));
  }
}
