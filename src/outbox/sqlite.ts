/**
 * Outbox in the store's sqlite file, in its own tables (`outbox_*`, next to Keyv's `keyv` table),
 * on the store's one synchronous connection (src/store/sqlite.ts: WAL, each commit answered only
 * once the WAL is fsynced, so an answered enqueue survives a power cut). Another process on the same file waits up to the
 * store's busy timeout (`opTimeoutMs`) for the write lock.
 * More: README.md ("sqlite.ts").
 */
import { profileOfVideoKey, type VideoKey } from "../domain/index.js";
import type { Logger } from "../log.js";
import type { SqliteDb, Store } from "../store/index.js";
import {
  backlogSpacingOf,
  type Clock,
  DEAD_LETTERS_PER_TEAM,
  DEFAULT_DEDUPE_TTL_MS,
  decodeItem,
  encodeItem,
  encodeState,
  fairDue,
  type OutboxOptions,
  PULL_FORWARD_MS,
  parseJson,
  positiveMs,
  profileQuotaOf,
  type Retention,
  retentionOf,
  STATE_SWEEP_EVERY_MS,
  STATE_SWEEP_MAX,
} from "./common.js";
import {
  ACK_ITEMS,
  ANY_DUE,
  CLAIM_DUE,
  DEAD_TRIM,
  DEDUPE_TAKE,
  HELD,
  KEEP_STATE,
  MAX_LIST,
  migrateLeanTables,
  migrateProfileCounts,
  migrateStateTable,
  NOTE_PUT,
  ONCE_UPSERT,
  PROFILE_TAKE,
  SCHEDULE,
  SCHEDULE_HEAD,
  SCHEMA,
  STATE_PUT,
  STATS,
  SWEEP_EVERY,
  SWEEP_STATES,
  sweepDedupeSlice,
} from "./sqlite-connection.js";
import type { DeadLetter, EnqueueOutcome, NewOutboxItem, Outbox, OutboxItem, OutboxStats } from "./types.js";

export class SqliteOutbox implements Outbox {
  readonly kind = "sqlite" as const;
  private readonly now: Clock;
  private readonly dedupeTtlMs: number;
  private insertions = 0;
  private readonly retention: Retention;
  private readonly profileQuota: number;
  private readonly spacingMs: number;
  private nextStateSweepAt = 0;
  /** Where the last dedupe sweep stopped (the last key it looked at; "" from the start). */
  private dedupeSweptTo = "";
  private closed = false;

  private constructor(
    private readonly store: Store,
    private readonly db: SqliteDb,
    opts: OutboxOptions,
  ) {
    this.now = opts.now ?? Date.now;
    this.dedupeTtlMs = positiveMs(opts.dedupeTtlMs ?? DEFAULT_DEDUPE_TTL_MS);
    this.retention = retentionOf(opts);
    this.profileQuota = profileQuotaOf(opts);
    this.spacingMs = backlogSpacingOf(opts);
  }

  /** Uses the store's connection (already in WAL mode): the tables created if missing. */
  static async open(store: Store, logger: Logger, opts: OutboxOptions = {}): Promise<SqliteOutbox> {
    const db = store.backend.sqlite;
    if (!db) throw new Error("SqliteOutbox needs a sqlite store");
    return store.run("outbox.open", async () => {
      const mode = db.journalMode();
      if (mode !== "wal" && db.file !== ":memory:") {
        logger.warn({ journalMode: mode }, "could not switch the sqlite file to WAL mode");
      }
      await db.write(() => {
        for (const statement of SCHEMA) db.exec(statement);
        migrateStateTable(db, (opts.now ?? Date.now)() + retentionOf(opts).normal);
        migrateProfileCounts(db);
        migrateLeanTables(db);
      });
      return new SqliteOutbox(store, db, opts);
    });
  }

  /**
   * Dedupe first (a key seen within the window: "duplicate"), then the profile's quota ("full":
   * the dedupe key is given back), then the item and its video's schedule. Enqueues of one turn
   * share one transaction (group commit, src/store/sqlite.ts).
   */
  enqueue(item: NewOutboxItem, dedupeKey: string, dueAt: number): Promise<EnqueueOutcome> {
    const json = encodeItem(item);
    return this.write("enqueue", (): EnqueueOutcome => {
      const db = this.db;
      const now = this.now();
      this.sweep("outbox_dedupe", now);
      if (db.get(DEDUPE_TAKE, dedupeKey, now + this.dedupeTtlMs, now) === undefined) return "duplicate";
      const taken = db.get<{ n: number }>(PROFILE_TAKE, profileOfVideoKey(item.videoKey), this.profileQuota);
      if (taken === undefined) {
        db.run("DELETE FROM outbox_dedupe WHERE key = ?", dedupeKey);
        return "full";
      }
      db.run(
        "INSERT INTO outbox_items (video_key, team_id, received_at, json) VALUES (?, ?, ?, ?)",
        item.videoKey,
        item.teamId,
        item.receivedAt,
        json,
      );
      const head = this.spacingMs > 0 ? db.get<{ due_at: number }>(SCHEDULE_HEAD)?.due_at : undefined;
      db.run(
        SCHEDULE,
        item.videoKey,
        fairDue(dueAt, taken.n - 1, this.spacingMs, head, now),
        PULL_FORWARD_MS,
      );
      return "stored";
    });
  }

  claimDue(owner: string, now: number, max: number, leaseMs: number): Promise<VideoKey[]> {
    // Nothing due and no state sweep due: answered from what is committed, without a write (the
    // worker asks after every delivery; most of those asks find nothing due). Not while writes
    // wait for the next commit: one of them may schedule a video.
    if (this.now() < this.nextStateSweepAt && !this.closed && !this.db.writesQueued()) {
      try {
        if (this.db.get(ANY_DUE, now, now) === undefined) return Promise.resolve([]);
      } catch {
        // Let the write path report it.
      }
    }
    return this.write("claimDue", () => {
      const db = this.db;
      if (this.now() >= this.nextStateSweepAt) {
        this.nextStateSweepAt = this.now() + STATE_SWEEP_EVERY_MS;
        db.all(SWEEP_STATES, this.now(), STATE_SWEEP_MAX);
      }
      const keys = db
        .all<{ video_key: string }>(CLAIM_DUE, now, now, Math.max(0, Math.min(max, MAX_LIST)))
        .map((r) => r.video_key);
      // due_at = lease end: not due for anyone else while leased; the state is kept at least
      // until the lease ends plus the final retention.
      const until = now + leaseMs;
      const keep = until + this.retention.final;
      for (const key of keys) {
        db.run(
          "UPDATE outbox_schedule SET owner = ?, lease_until = ?, due_at = ? WHERE video_key = ?",
          owner,
          until,
          until,
          key,
        );
        db.run(KEEP_STATE, keep, key);
      }
      return keys;
    });
  }

  renew(owner: string, key: VideoKey, until: number): Promise<boolean> {
    return this.write("renew", () => {
      const changed = this.db.run(
        `UPDATE outbox_schedule SET lease_until = ?, due_at = ?
         WHERE video_key = ? AND owner = ? AND lease_until > ?`,
        until,
        until,
        key,
        owner,
        this.now(),
      );
      if (changed === 1) this.db.run(KEEP_STATE, until + this.retention.final, key);
      return changed === 1;
    });
  }

  pending(key: VideoKey, limit: number): Promise<OutboxItem[]> {
    return this.read("pending", () =>
      this.db
        .all<{ id: number; json: string }>(
          "SELECT id, json FROM outbox_items WHERE video_key = ? ORDER BY id LIMIT ?",
          key,
          Math.max(0, limit),
        )
        .map((r) => decodeItem(String(r.id), r.json, key)),
    );
  }

  ack(owner: string, key: VideoKey, ids: readonly string[]): Promise<boolean> {
    return this.write("ack", () => this.held(owner, key) !== undefined && this.ackHeld(key, ids));
  }

  settle(
    owner: string,
    key: VideoKey,
    state: unknown,
    ids: readonly string[],
    opts?: { final?: boolean },
  ): Promise<boolean> {
    const json = state === undefined ? null : encodeState(state);
    return this.write("settle", () => {
      const leaseEnd = this.held(owner, key);
      if (leaseEnd === undefined) return false;
      if (json !== null) this.writeState(key, json, leaseEnd, opts?.final === true);
      return this.ackHeld(key, ids);
    });
  }

  /** Deletes the items and counts them off their profile (the lease was checked). */
  private ackHeld(key: VideoKey, ids: readonly string[]): true {
    const numeric = ids.map(Number).filter(Number.isSafeInteger);
    const removed = numeric.length === 0 ? 0 : this.db.run(ACK_ITEMS, key, JSON.stringify(numeric));
    if (removed > 0) {
      this.db.run(
        "UPDATE outbox_route_count SET n = MAX(0, n - ?) WHERE route = ?",
        removed,
        profileOfVideoKey(key),
      );
    }
    return true;
  }

  release(owner: string, key: VideoKey, dueAt: number | null): Promise<void> {
    return this.write("release", () => {
      const db = this.db;
      if (this.held(owner, key) === undefined) return;
      let due = dueAt;
      const now = this.now();
      if (due === null || due > now + PULL_FORWARD_MS) {
        if (db.get("SELECT 1 AS one FROM outbox_items WHERE video_key = ? LIMIT 1", key))
          due = now; // arrived meanwhile: see Outbox.release
        else if (due === null) {
          db.run("DELETE FROM outbox_schedule WHERE video_key = ?", key);
          return;
        }
      }
      db.run(
        "UPDATE outbox_schedule SET due_at = ?, owner = NULL, lease_until = 0 WHERE video_key = ?",
        due,
        key,
      );
    });
  }

  wake(key: VideoKey, at: number): Promise<void> {
    return this.write("wake", () => {
      this.db.run(
        "UPDATE outbox_schedule SET due_at = ? WHERE video_key = ? AND due_at > ? AND (owner IS NULL OR lease_until <= ?)",
        at,
        key,
        at,
        this.now(),
      );
    });
  }

  getState(key: VideoKey): Promise<unknown> {
    return this.read("getState", () => {
      const row = this.db.get<{ json: string }>("SELECT json FROM outbox_state WHERE video_key = ?", key);
      return row === undefined ? undefined : parseJson(`outbox state ${key}`, row.json);
    });
  }

  setState(owner: string, key: VideoKey, state: unknown, opts?: { final?: boolean }): Promise<boolean> {
    const json = encodeState(state);
    return this.write("setState", () => {
      const leaseEnd = this.held(owner, key);
      if (leaseEnd === undefined) return false;
      this.writeState(key, json, leaseEnd, opts?.final === true);
      return true;
    });
  }

  private writeState(key: VideoKey, json: string | undefined, leaseEnd: number, final: boolean): void {
    if (json === undefined) this.db.run("DELETE FROM outbox_state WHERE video_key = ?", key);
    else this.db.run(STATE_PUT, key, json, leaseEnd + (final ? this.retention.final : this.retention.normal));
  }

  sweepStates(max: number): Promise<number> {
    return this.write("sweepStates", () => this.db.all(SWEEP_STATES, this.now(), Math.max(0, max)).length);
  }

  deadLetter(item: OutboxItem, reason: string, at: number): Promise<void> {
    const json = JSON.stringify(item);
    return this.write("deadLetter", () => {
      this.db.run(
        "INSERT INTO outbox_dead (team_id, at, reason, json) VALUES (?, ?, ?, ?)",
        item.teamId,
        at,
        reason,
        json,
      );
      // Keep the newest DEAD_LETTERS_PER_TEAM of this team (the cut-off is the first row beyond).
      this.db.run(DEAD_TRIM, item.teamId, item.teamId, DEAD_LETTERS_PER_TEAM);
    });
  }

  /** Newest first. */
  listDead(teamId: string, limit: number): Promise<DeadLetter[]> {
    return this.read("listDead", () =>
      this.db
        .all<{ at: number; reason: string; json: string }>(
          "SELECT at, reason, json FROM outbox_dead WHERE team_id = ? ORDER BY id DESC LIMIT ?",
          teamId,
          Math.max(0, limit),
        )
        .map((r) => ({
          item: parseJson("dead letter", r.json) as OutboxItem,
          reason: r.reason,
          at: r.at,
        })),
    );
  }

  once(key: string, ttlMs: number): Promise<boolean> {
    return this.write("once", () => {
      const now = this.now();
      this.sweep("outbox_once", now);
      return this.db.get(ONCE_UPSERT, key, now + positiveMs(ttlMs), now) !== undefined;
    });
  }

  putNote(key: string, value: string, ttlMs: number): Promise<void> {
    return this.write("putNote", () => {
      const now = this.now();
      this.sweep("outbox_notes", now);
      this.db.run(NOTE_PUT, key, value, now + positiveMs(ttlMs));
    });
  }

  getNote(key: string): Promise<string | undefined> {
    return this.read("getNote", () => {
      const sql = "SELECT value FROM outbox_notes WHERE key = ? AND expires_at > ?";
      return this.db.get<{ value: string }>(sql, key, this.now())?.value;
    });
  }

  stats(): Promise<OutboxStats> {
    return this.read("stats", () => {
      const r = this.db.get<{ depth: number; oldest: number | null; scheduled: number; dead: number }>(STATS);
      return {
        depth: r?.depth ?? 0,
        oldestReceivedAt: r?.oldest ?? null,
        scheduled: r?.scheduled ?? 0,
        dead: r?.dead ?? 0,
      };
    });
  }

  /** Stops this outbox (what is queued still commits); the store stays open. */
  async close(): Promise<void> {
    this.closed = true;
  }

  /** The end of `owner`'s lease on the video if it is live (by the outbox clock), else undefined. */
  private held(owner: string, key: VideoKey): number | undefined {
    return this.db.get<{ lease_until: number }>(HELD, key, owner, this.now())?.lease_until;
  }

  /**
   * Deletes expired rows of a TTL table now and then (each process counts its own insertions).
   * The dedupe table, the large one, a slice of DEDUPE_SWEEP_ROWS keys at a time, each sweep
   * going on from where the last stopped, round and round: it has no index on expiry to find
   * them by (each delivery would write a page of it).
   */
  private sweep(table: "outbox_dedupe" | "outbox_once" | "outbox_notes", now: number): void {
    if (++this.insertions % SWEEP_EVERY !== 0) return;
    if (table !== "outbox_dedupe") {
      this.db.run(`DELETE FROM ${table} WHERE expires_at <= ?`, now);
      return;
    }
    this.dedupeSweptTo = sweepDedupeSlice(this.db, this.dedupeSweptTo, now);
  }

  /** A read, now, bounded by `store.run()`. */
  private read<T>(name: string, fn: () => T): Promise<T> {
    return this.store.run(`outbox.${name}`, () => {
      if (this.closed) throw new Error("the outbox is closed");
      return this.db.read(fn);
    });
  }

  /** A write in the connection's next group commit, bounded by `store.run()`. */
  private write<T>(name: string, fn: () => T): Promise<T> {
    const deadline = Date.now() + this.store.opTimeoutMs;
    return this.store.run(`outbox.${name}`, () => {
      if (this.closed) throw new Error("the outbox is closed");
      return this.db.write(fn, deadline);
    });
  }
}
