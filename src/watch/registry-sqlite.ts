/**
 * The watch registry in the store's sqlite file: one row per watch in a table of its own (next to
 * Keyv's `keyv` and the outbox's tables), on the store's own connection (the KeyvSqlite adapter's
 * `query()`; why one connection: see `Connection` in src/notify/outbox/sqlite-connection.ts).
 *
 *   watch_entries (team_id, channel_id, livestream_id) PRIMARY KEY, enterprise_id, profile_id,
 *                 by_user, at; indexed by livestream_id
 *
 * The workspace lists, the livestream lists and the index are all read from these rows, so they
 * can never disagree. Each change is ONE statement, atomic by itself: add inserts only when the
 * workspace has fewer than `perTeam` watches and the livestream is watched already or fewer than
 * `total` livestreams are (the caps are checked by the statement that writes). One statement
 * rather than BEGIN IMMEDIATE … COMMIT: the connection is shared with the outbox, whose
 * transactions a second BEGIN on it would collide with; a single statement needs no BEGIN and,
 * issued while an outbox transaction is open, commits with it (like Keyv's statements).
 * What add reports when it inserted nothing (exists, or which cap) is read afterwards.
 */
import type { KeyvSqlite } from "@keyv/sqlite";
import { z } from "zod";
import { type Store, StoreCorruptError } from "../store/index.js";
import {
  type AddOutcome,
  dmUserOf,
  type WatchCaps,
  type WatchEntry,
  type WatchKey,
  type WatchRegistry,
} from "./registry.js";

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS watch_entries (
  team_id TEXT NOT NULL, channel_id TEXT NOT NULL, livestream_id TEXT NOT NULL,
  enterprise_id TEXT, profile_id TEXT, by_user TEXT NOT NULL, at TEXT NOT NULL,
  PRIMARY KEY (team_id, channel_id, livestream_id))`,
  "CREATE INDEX IF NOT EXISTS watch_entries_livestream ON watch_entries (livestream_id)",
];

/**
 * ?1 team, ?2 channel, ?3 livestream, ?4 enterprise, ?5 profile, ?6 by, ?7 at, ?8 perTeam, ?9 total,
 * ?10 perUser (NULL: no such cap). A person's DM watches all have the key `@<user>` in channel_id,
 * so their count is the workspace's rows with that channel_id.
 */
const ADD = `INSERT INTO watch_entries (team_id, channel_id, livestream_id, enterprise_id, profile_id, by_user, at)
SELECT ?1, ?2, ?3, ?4,
  COALESCE(?5, (SELECT profile_id FROM watch_entries WHERE livestream_id = ?3 AND profile_id IS NOT NULL LIMIT 1)),
  ?6, ?7
WHERE (SELECT COUNT(*) FROM watch_entries WHERE team_id = ?1) < ?8
  AND (?10 IS NULL OR (SELECT COUNT(*) FROM watch_entries WHERE team_id = ?1 AND channel_id = ?2) < ?10)
  AND (EXISTS (SELECT 1 FROM watch_entries WHERE livestream_id = ?3)
    OR (SELECT COUNT(DISTINCT livestream_id) FROM watch_entries) < ?9)
ON CONFLICT (team_id, channel_id, livestream_id) DO NOTHING
RETURNING livestream_id`;

const COLUMNS = "team_id, channel_id, livestream_id, enterprise_id, profile_id, by_user, at";

const rowSchema = z.object({
  team_id: z.string(),
  channel_id: z.string(),
  livestream_id: z.string(),
  enterprise_id: z.string().nullable(),
  profile_id: z.string().nullable(),
  by_user: z.string(),
  at: z.string(),
});

export class SqliteWatchRegistry implements WatchRegistry {
  private ready: Promise<void> | undefined;

  constructor(
    private readonly store: Store,
    private readonly adapter: KeyvSqlite,
  ) {}

  private async all<T = unknown>(sql: string, ...params: unknown[]): Promise<T[]> {
    const rows: unknown = await this.adapter.query(sql, ...params);
    return Array.isArray(rows) ? (rows as T[]) : [];
  }

  /** Creates the table on first use (again after a failure). */
  private run<T>(op: string, fn: () => Promise<T>): Promise<T> {
    return this.store.run(op, async () => {
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

  private entries(rows: unknown[]): WatchEntry[] {
    return rows.map((r) => {
      const v = rowSchema.safeParse(r);
      if (!v.success) throw new StoreCorruptError("watch_entries", "a row of an unexpected shape");
      const x = v.data;
      return {
        teamId: x.team_id,
        channelId: x.channel_id,
        livestreamId: x.livestream_id,
        enterpriseId: x.enterprise_id,
        profileId: x.profile_id,
        by: x.by_user,
        at: x.at,
      };
    });
  }

  add(w: WatchEntry, caps: WatchCaps): Promise<AddOutcome> {
    const perUser = caps.perUser !== undefined && dmUserOf(w.channelId) !== undefined ? caps.perUser : null;
    return this.run("watch add", async () => {
      const inserted = await this.all(
        ADD,
        w.teamId,
        w.channelId,
        w.livestreamId,
        w.enterpriseId,
        w.profileId,
        w.by,
        w.at,
        caps.perTeam,
        caps.total,
        perUser,
      );
      if (inserted.length === 0) {
        const [row] = await this.all<{ known: number; team: number; mine: number }>(
          `SELECT EXISTS (SELECT 1 FROM watch_entries WHERE team_id = ?1 AND channel_id = ?2 AND livestream_id = ?3) AS known,
            (SELECT COUNT(*) FROM watch_entries WHERE team_id = ?1) AS team,
            (SELECT COUNT(*) FROM watch_entries WHERE team_id = ?1 AND channel_id = ?2) AS mine`,
          w.teamId,
          w.channelId,
          w.livestreamId,
        );
        if (!row?.known) {
          if (perUser !== null && (row?.mine ?? 0) >= perUser) return "user_full";
          return (row?.team ?? 0) >= caps.perTeam ? "team_full" : "all_full";
        }
      }
      if (w.profileId !== null) {
        await this.all(
          "UPDATE watch_entries SET profile_id = ? WHERE livestream_id = ? AND profile_id IS NOT ?",
          w.profileId,
          w.livestreamId,
          w.profileId,
        );
      }
      return inserted.length > 0 ? "added" : "exists";
    });
  }

  remove(k: WatchKey): Promise<{ removed: boolean; left: number }> {
    return this.run("watch remove", async () => {
      const gone = await this.all(
        "DELETE FROM watch_entries WHERE team_id = ? AND channel_id = ? AND livestream_id = ? RETURNING 1",
        k.teamId,
        k.channelId,
        k.livestreamId,
      );
      const [row] = await this.all<{ n: number }>(
        "SELECT COUNT(*) AS n FROM watch_entries WHERE livestream_id = ?",
        k.livestreamId,
      );
      return { removed: gone.length > 0, left: row?.n ?? 0 };
    });
  }

  removeTeam(teamId: string): Promise<Array<{ livestreamId: string; left: number }>> {
    return this.run("watch remove workspace", async () => {
      const gone = await this.all<{ livestream_id: string }>(
        "DELETE FROM watch_entries WHERE team_id = ? RETURNING livestream_id",
        teamId,
      );
      const ids = [...new Set(gone.map((r) => r.livestream_id))];
      const out: Array<{ livestreamId: string; left: number }> = [];
      for (const livestreamId of ids) {
        const [row] = await this.all<{ n: number }>(
          "SELECT COUNT(*) AS n FROM watch_entries WHERE livestream_id = ?",
          livestreamId,
        );
        out.push({ livestreamId, left: row?.n ?? 0 });
      }
      return out;
    });
  }

  setProfile(livestreamId: string, profileId: string): Promise<void> {
    return this.run("watch profile", async () => {
      await this.all(
        "UPDATE watch_entries SET profile_id = ? WHERE livestream_id = ?",
        profileId,
        livestreamId,
      );
    });
  }

  listTeam(teamId: string): Promise<WatchEntry[]> {
    return this.run("watch list workspace", async () =>
      this.entries(
        await this.all(
          `SELECT ${COLUMNS} FROM watch_entries WHERE team_id = ? ORDER BY at, livestream_id, channel_id`,
          teamId,
        ),
      ),
    );
  }

  watchers(livestreamId: string): Promise<WatchEntry[]> {
    return this.run("watch list watchers", async () =>
      this.entries(
        await this.all(
          `SELECT ${COLUMNS} FROM watch_entries WHERE livestream_id = ? ORDER BY at, team_id, channel_id`,
          livestreamId,
        ),
      ),
    );
  }

  livestreams(): Promise<string[]> {
    return this.run("watch index", async () =>
      (await this.all<{ livestream_id: string }>("SELECT DISTINCT livestream_id FROM watch_entries")).map(
        (r) => r.livestream_id,
      ),
    );
  }
}
