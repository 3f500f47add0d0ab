/**
 * The watch registry: who watches which livestream, changed atomically on every backend (several
 * replicas never lose each other's watch or unwatch, and the caps hold under concurrency).
 * More: README.md ("registry.ts").
 */
export interface WatchEntry {
  teamId: string;
  /** The watcher's enterprise (Enterprise Grid), when Slack named one. */
  enterpriseId: string | null;
  /** The channel told, or `@<user id>` for a personal watch told by DM (`dmKey`). */
  channelId: string;
  livestreamId: string;
  /** The livestream's profile when last read; null when not known yet. */
  profileId: string | null;
  /** Slack user who asked. */
  by: string;
  /** ISO date-time. */
  at: string;
}

export type WatchKey = Pick<WatchEntry, "teamId" | "channelId" | "livestreamId">;

export interface WatchCaps {
  /** Watches (livestream × channel) per workspace. */
  perTeam: number;
  /** Watched livestreams in all (LIVE_WATCH_MAX). */
  total: number;
  /** DM watches per person in a workspace (checked only for a watch whose key is a person's). */
  perUser?: number;
}

/** `exists`: nothing changed; `user_full` / `team_full` / `all_full`: refused by a cap, nothing changed. */
export type AddOutcome = "added" | "exists" | "user_full" | "team_full" | "all_full";

/** The key of a person's DM watch, in place of a channel id. */
export const dmKey = (userId: string) => `@${userId}`;
/** The person a DM watch tells; undefined for a channel's watch. */
export const dmUserOf = (channelId: string): string | undefined =>
  channelId.startsWith("@") && channelId.length > 1 ? channelId.slice(1) : undefined;

export interface WatchRegistry {
  /** Adds the watch unless it exists or a cap refuses it; sets the livestream's profile when given. */
  add(w: WatchEntry, caps: WatchCaps): Promise<AddOutcome>;
  /** Removes the watch; whether it existed and how many watchers the livestream has left. */
  remove(k: WatchKey): Promise<{ removed: boolean; left: number }>;
  /** Removes every watch of the workspace; each livestream it watched, with the watchers left. */
  removeTeam(teamId: string): Promise<Array<{ livestreamId: string; left: number }>>;
  /** The livestream's profile (kept only while it is watched). */
  setProfile(livestreamId: string, profileId: string): Promise<void>;
  /** The workspace's watches, oldest first. */
  listTeam(teamId: string): Promise<WatchEntry[]>;
  /** Every watch of the livestream. */
  watchers(livestreamId: string): Promise<WatchEntry[]>;
  /** Every watched livestream (start-up: fills the schedule). */
  livestreams(): Promise<string[]>;
}

/** The field of a watch in its workspace's list and in its livestream's list (ids carry no ':'). */
export const teamField = (k: Pick<WatchKey, "livestreamId" | "channelId">) =>
  `${k.livestreamId}:${k.channelId}`;
export const livestreamField = (k: Pick<WatchKey, "teamId" | "channelId">) => `${k.teamId}:${k.channelId}`;

export const byAge = (a: WatchEntry, b: WatchEntry) =>
  a.at < b.at ? -1 : a.at > b.at ? 1 : teamField(a) < teamField(b) ? -1 : 1;

type Stored = Omit<WatchEntry, "profileId">;

export class MemoryWatchRegistry implements WatchRegistry {
  /** team → teamField → watch */
  private readonly teams = new Map<string, Map<string, Stored>>();
  /** livestream → livestreamField → watch */
  private readonly streams = new Map<string, Map<string, Stored>>();
  private readonly profiles = new Map<string, string>();

  private withProfile(w: Stored): WatchEntry {
    return { ...w, profileId: this.profiles.get(w.livestreamId) ?? null };
  }

  async add(w: WatchEntry, caps: WatchCaps): Promise<AddOutcome> {
    const team = this.teams.get(w.teamId) ?? new Map<string, Stored>();
    const known = team.has(teamField(w));
    if (!known) {
      if (caps.perUser !== undefined && dmUserOf(w.channelId) !== undefined) {
        const mine = [...team.values()].filter((x) => x.channelId === w.channelId).length;
        if (mine >= caps.perUser) return "user_full";
      }
      if (team.size >= caps.perTeam) return "team_full";
      if (!this.streams.has(w.livestreamId) && this.streams.size >= caps.total) return "all_full";
      const { profileId: _, ...stored } = w;
      team.set(teamField(w), stored);
      this.teams.set(w.teamId, team);
      const stream = this.streams.get(w.livestreamId) ?? new Map<string, Stored>();
      stream.set(livestreamField(w), stored);
      this.streams.set(w.livestreamId, stream);
    }
    if (w.profileId !== null) this.profiles.set(w.livestreamId, w.profileId);
    return known ? "exists" : "added";
  }

  async remove(k: WatchKey): Promise<{ removed: boolean; left: number }> {
    const team = this.teams.get(k.teamId);
    const removed = team?.delete(teamField(k)) ?? false;
    if (team?.size === 0) this.teams.delete(k.teamId);
    const stream = this.streams.get(k.livestreamId);
    stream?.delete(livestreamField(k));
    const left = stream?.size ?? 0;
    if (left === 0) {
      this.streams.delete(k.livestreamId);
      this.profiles.delete(k.livestreamId);
    }
    return { removed, left };
  }

  async removeTeam(teamId: string): Promise<Array<{ livestreamId: string; left: number }>> {
    const team = this.teams.get(teamId);
    const out = new Map<string, number>();
    for (const w of team?.values() ?? []) out.set(w.livestreamId, (await this.remove(w)).left);
    return [...out].map(([livestreamId, left]) => ({ livestreamId, left }));
  }

  async setProfile(livestreamId: string, profileId: string): Promise<void> {
    if (this.streams.has(livestreamId)) this.profiles.set(livestreamId, profileId);
  }

  async listTeam(teamId: string): Promise<WatchEntry[]> {
    return [...(this.teams.get(teamId)?.values() ?? [])].map((w) => this.withProfile(w)).sort(byAge);
  }

  async watchers(livestreamId: string): Promise<WatchEntry[]> {
    return [...(this.streams.get(livestreamId)?.values() ?? [])].map((w) => this.withProfile(w)).sort(byAge);
  }

  async livestreams(): Promise<string[]> {
    return [...this.streams.keys()];
  }
}
