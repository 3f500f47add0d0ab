/**
 * The watch registry in the store's sqlite file: one row per watch in a table of its own (next to
 * Keyv's `keyv` and the outbox's tables), on the store's one synchronous connection
 * (src/store/sqlite.ts).
 *
 *   watch_entries (team_id, channel_id, livestream_id) PRIMARY KEY, enterprise_id, profile_id,
 *                 by_user, at; indexed by livestream_id
 * More: README.md ("registry-sqlite.ts").
 */
import { z } from "zod";
import { type SqliteDb, type Store, StoreCorruptError } from "../store/index.js";
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
 * Named parameters: team, channel, livestream, enterprise, profile, by, at, perTeam, total, perUser
 * (NULL: no such cap). A person's DM watches all have the key `@<user>` in channel_id, so their
 * count is the workspace's rows with that channel_id.
 */
const ADD = `INSERT INTO watch_entries (team_id, channel_id, livestream_id, enterprise_id, profile_id, by_user, at)
SELECT @team, @channel, @livestream, @enterprise,
  COALESCE(@profile, (SELECT profile_id FROM watch_entries WHERE livestream_id = @livestream AND profile_id IS NOT NULL LIMIT 1)),
  @by, @at
WHERE (SELECT COUNT(*) FROM watch_entries WHERE team_id = @team) < @perTeam
  AND (@perUser IS NULL OR (SELECT COUNT(*) FROM watch_entries WHERE team_id = @team AND channel_id = @channel) < @perUser)
  AND (EXISTS (SELECT 1 FROM watch_entries WHERE livestream_id = @livestream)
    OR (SELECT COUNT(DISTINCT livestream_id) FROM watch_entries) < @total)
ON CONFLICT (team_id, channel_id, livestream_id) DO NOTHING
RETURNING livestream_id`;

/** Named parameters: team, channel, livestream. */
const FOUND = `SELECT EXISTS (SELECT 1 FROM watch_entries WHERE team_id = @team AND channel_id = @channel
  AND livestream_id = @livestream) AS known, (SELECT COUNT(*) FROM watch_entries WHERE team_id = @team) AS team,
  (SELECT COUNT(*) FROM watch_entries WHERE team_id = @team AND channel_id = @channel) AS mine`;

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
  private ready = false;

  constructor(
    private readonly store: Store,
    private readonly db: SqliteDb,
  ) {}

  /** Creates the table on first use (again after a failure). */
  private schema(): void {
    if (this.ready) return;
    for (const s of SCHEMA) this.db.exec(s);
    this.ready = true;
  }

  /** A read, now. */
  private read<T>(op: string, fn: () => T): Promise<T> {
    return this.store.run(op, () => {
      this.schema();
      return this.db.read(fn);
    });
  }

  /** A change, in the connection's next write transaction. */
  private write<T>(op: string, fn: () => T): Promise<T> {
    return this.store.run(op, () => {
      this.schema();
      return this.db.write(fn);
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
    return this.write("watch add", (): AddOutcome => {
      const db = this.db;
      const key = { team: w.teamId, channel: w.channelId, livestream: w.livestreamId };
      const inserted = db.all(ADD, {
        ...key,
        enterprise: w.enterpriseId,
        profile: w.profileId,
        by: w.by,
        at: w.at,
        perTeam: caps.perTeam,
        total: caps.total,
        perUser,
      });
      if (inserted.length === 0) {
        const row = db.get<{ known: number; team: number; mine: number }>(FOUND, key);
        if (!row?.known) {
          if (perUser !== null && (row?.mine ?? 0) >= perUser) return "user_full";
          return (row?.team ?? 0) >= caps.perTeam ? "team_full" : "all_full";
        }
      }
      if (w.profileId !== null) {
        db.run(
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
    return this.write("watch remove", () => {
      const removed =
        this.db.run(
          "DELETE FROM watch_entries WHERE team_id = ? AND channel_id = ? AND livestream_id = ?",
          k.teamId,
          k.channelId,
          k.livestreamId,
        ) > 0;
      return { removed, left: this.watcherCount(k.livestreamId) };
    });
  }

  private watcherCount(livestreamId: string): number {
    return (
      this.db.get<{ n: number }>(
        "SELECT COUNT(*) AS n FROM watch_entries WHERE livestream_id = ?",
        livestreamId,
      )?.n ?? 0
    );
  }

  removeTeam(teamId: string): Promise<Array<{ livestreamId: string; left: number }>> {
    return this.write("watch remove workspace", () => {
      const gone = this.db.all<{ livestream_id: string }>(
        "DELETE FROM watch_entries WHERE team_id = ? RETURNING livestream_id",
        teamId,
      );
      const ids = [...new Set(gone.map((r) => r.livestream_id))];
      return ids.map((livestreamId) => ({ livestreamId, left: this.watcherCount(livestreamId) }));
    });
  }

  setProfile(livestreamId: string, profileId: string): Promise<void> {
    return this.write("watch profile", () => {
      this.db.run("UPDATE watch_entries SET profile_id = ? WHERE livestream_id = ?", profileId, livestreamId);
    });
  }

  listTeam(teamId: string): Promise<WatchEntry[]> {
    return this.read("watch list workspace", () =>
      this.entries(
        this.db.all(
          `SELECT ${COLUMNS} FROM watch_entries WHERE team_id = ? ORDER BY at, livestream_id, channel_id`,
          teamId,
        ),
      ),
    );
  }

  watchers(livestreamId: string): Promise<WatchEntry[]> {
    return this.read("watch list watchers", () =>
      this.entries(
        this.db.all(
          `SELECT ${COLUMNS} FROM watch_entries WHERE livestream_id = ? ORDER BY at, team_id, channel_id`,
          livestreamId,
        ),
      ),
    );
  }

  livestreams(): Promise<string[]> {
    return this.read("watch index", () =>
      this.db
        .all<{ livestream_id: string }>("SELECT DISTINCT livestream_id FROM watch_entries")
        .map((r) => r.livestream_id),
    );
  }
}
