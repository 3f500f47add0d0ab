/**
 * The watch registry on Redis, shared by every replica. Keys under `${namespace}:watch:` (apart
 * from Keyv's `${namespace}::…`, next to the schedule's `sched` and `lease:<id>`):
 *   index          SET of the watched livestreams (LIVE_WATCH_MAX counts its members)
 *   team:<T>       HASH `<livestream>:<channel>` → {enterpriseId, by, at}: the workspace's watches
 *   ls:<id>        HASH `<team>:<channel>` → {enterpriseId, by, at}: the livestream's watchers
 *   profiles       HASH livestream → its profile id (while watched)
 * (`<channel>` is `@<user>` for a person's DM watch: registry.ts's `dmKey`.)
 * More: README.md ("registry-redis.ts").
 */
import { z } from "zod";
import { DEFAULT_NAMESPACE, type RedisClient, type Store, StoreCorruptError } from "../store/index.js";
import { runScript, type Script, script } from "../store/lease/index.js";
import {
  type AddOutcome,
  byAge,
  dmUserOf,
  livestreamField,
  teamField,
  type WatchCaps,
  type WatchEntry,
  type WatchKey,
  type WatchRegistry,
} from "./registry.js";

/**
 * KEYS: index, team, ls, profiles. ARGV: team field, ls field, value, livestream, profile ('' =
 * unknown), perTeam, total, perUser ('' = none), ':<channel>' (the end of every team field of the
 * same watcher: a person's DM watches). → 1 added, 0 exists, -1 workspace cap, -2 cap in all,
 * -3 the person's cap. The person's watches are counted over the workspace's fields (at most
 * perTeam of them).
 */
const ADD = script(`local known = redis.call('HEXISTS', KEYS[2], ARGV[1]) == 1
if not known then
  if ARGV[8] ~= '' then
    local n, suffix = 0, ARGV[9]
    for _, f in ipairs(redis.call('HKEYS', KEYS[2])) do
      if #f > #suffix and string.sub(f, -#suffix) == suffix then n = n + 1 end
    end
    if n >= tonumber(ARGV[8]) then return -3 end
  end
  if redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[6]) then return -1 end
  if redis.call('SISMEMBER', KEYS[1], ARGV[4]) == 0 and redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[7]) then
    return -2
  end
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[3])
  redis.call('HSET', KEYS[3], ARGV[2], ARGV[3])
  redis.call('SADD', KEYS[1], ARGV[4])
end
if ARGV[5] ~= '' then redis.call('HSET', KEYS[4], ARGV[4], ARGV[5]) end
if known then return 0 end
return 1`);

/** KEYS: index, team, ls, profiles. ARGV: team field, ls field, livestream. → {removed, left}. */
const REMOVE = script(`local removed = redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[2])
local left = redis.call('HLEN', KEYS[3])
if left == 0 then
  redis.call('SREM', KEYS[1], ARGV[3])
  redis.call('HDEL', KEYS[4], ARGV[3])
end
return {removed, left}`);

/** KEYS: index, team, profiles. ARGV: team, ls key prefix. → {livestream, left, …}. */
const REMOVE_TEAM = script(`local order, left = {}, {}
for _, f in ipairs(redis.call('HKEYS', KEYS[2])) do
  local sep = string.find(f, ':', 1, true)
  if sep then
    local ls = string.sub(f, 1, sep - 1)
    local lk = ARGV[2] .. ls
    redis.call('HDEL', lk, ARGV[1] .. ':' .. string.sub(f, sep + 1))
    local n = redis.call('HLEN', lk)
    if n == 0 then
      redis.call('SREM', KEYS[1], ls)
      redis.call('HDEL', KEYS[3], ls)
    end
    if left[ls] == nil then order[#order + 1] = ls end
    left[ls] = n
  end
end
redis.call('DEL', KEYS[2])
local out = {}
for _, ls in ipairs(order) do
  out[#out + 1] = ls
  out[#out + 1] = left[ls]
end
return out`);

/** KEYS: index, profiles. ARGV: livestream, profile. Only while watched. */
const SET_PROFILE = script(`if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then
  redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
end
return 1`);

const valueSchema = z.strictObject({
  enterpriseId: z.string().nullable(),
  by: z.string().min(1),
  at: z.string().min(1),
});

export class RedisWatchRegistry implements WatchRegistry {
  private readonly prefix: string;

  constructor(
    private readonly store: Store,
    private readonly redis: RedisClient,
  ) {
    this.prefix = `${store.keyv.namespace ?? DEFAULT_NAMESPACE}:watch:`;
  }

  private get index(): string {
    return `${this.prefix}index`;
  }
  private get profiles(): string {
    return `${this.prefix}profiles`;
  }
  private team(teamId: string): string {
    return `${this.prefix}team:${teamId}`;
  }
  private ls(livestreamId: string): string {
    return `${this.prefix}ls:${livestreamId}`;
  }

  private eval(s: Script, keys: string[], args: string[]): Promise<unknown> {
    return runScript(this.redis, s, keys, args);
  }

  private parse(key: string, raw: string): z.infer<typeof valueSchema> {
    let json: unknown;
    try {
      json = JSON.parse(raw);
    } catch (err) {
      throw new StoreCorruptError(key, "a watch that is not JSON", { cause: err });
    }
    const v = valueSchema.safeParse(json);
    if (!v.success) throw new StoreCorruptError(key, "a watch of an unexpected shape", { cause: v.error });
    return v.data;
  }

  add(w: WatchEntry, caps: WatchCaps): Promise<AddOutcome> {
    return this.store.run("watch add", async () => {
      const value = JSON.stringify({ enterpriseId: w.enterpriseId, by: w.by, at: w.at });
      const out = Number(
        await this.eval(
          ADD,
          [this.index, this.team(w.teamId), this.ls(w.livestreamId), this.profiles],
          [
            teamField(w),
            livestreamField(w),
            value,
            w.livestreamId,
            w.profileId ?? "",
            String(caps.perTeam),
            String(caps.total),
            caps.perUser !== undefined && dmUserOf(w.channelId) !== undefined ? String(caps.perUser) : "",
            `:${w.channelId}`,
          ],
        ),
      );
      const outcomes: Record<number, AddOutcome> = {
        1: "added",
        0: "exists",
        [-1]: "team_full",
        [-2]: "all_full",
        [-3]: "user_full",
      };
      return outcomes[out] ?? "all_full";
    });
  }

  remove(k: WatchKey): Promise<{ removed: boolean; left: number }> {
    return this.store.run("watch remove", async () => {
      const out = await this.eval(
        REMOVE,
        [this.index, this.team(k.teamId), this.ls(k.livestreamId), this.profiles],
        [teamField(k), livestreamField(k), k.livestreamId],
      );
      const [removed, left] = Array.isArray(out) ? out.map(Number) : [0, 0];
      return { removed: removed === 1, left: left ?? 0 };
    });
  }

  removeTeam(teamId: string): Promise<Array<{ livestreamId: string; left: number }>> {
    return this.store.run("watch remove workspace", async () => {
      const out = await this.eval(
        REMOVE_TEAM,
        [this.index, this.team(teamId), this.profiles],
        [teamId, this.ls("")],
      );
      const flat = Array.isArray(out) ? out : [];
      const result: Array<{ livestreamId: string; left: number }> = [];
      for (let i = 0; i + 1 < flat.length; i += 2)
        result.push({ livestreamId: String(flat[i]), left: Number(flat[i + 1]) });
      return result;
    });
  }

  setProfile(livestreamId: string, profileId: string): Promise<void> {
    return this.store.run("watch profile", async () => {
      await this.eval(SET_PROFILE, [this.index, this.profiles], [livestreamId, profileId]);
    });
  }

  listTeam(teamId: string): Promise<WatchEntry[]> {
    return this.store.run("watch list workspace", async () => {
      const rows = Object.entries(await this.redis.hGetAll(this.team(teamId)));
      const ids = [...new Set(rows.map(([f]) => f.slice(0, f.indexOf(":"))))];
      const profiles = ids.length > 0 ? await this.redis.hmGet(this.profiles, ids) : [];
      const profileOf = new Map(ids.map((id, i) => [id, profiles[i] ?? null]));
      return rows
        .map(([f, raw]) => {
          const sep = f.indexOf(":");
          const livestreamId = f.slice(0, sep);
          const v = this.parse(`watch:team:${teamId}`, raw);
          return {
            teamId,
            channelId: f.slice(sep + 1),
            livestreamId,
            profileId: profileOf.get(livestreamId) ?? null,
            ...v,
          };
        })
        .sort(byAge);
    });
  }

  watchers(livestreamId: string): Promise<WatchEntry[]> {
    return this.store.run("watch list watchers", async () => {
      const rows = Object.entries(await this.redis.hGetAll(this.ls(livestreamId)));
      if (rows.length === 0) return [];
      const profileId = (await this.redis.hGet(this.profiles, livestreamId)) ?? null;
      return rows
        .map(([f, raw]) => {
          const sep = f.indexOf(":");
          return {
            teamId: f.slice(0, sep),
            channelId: f.slice(sep + 1),
            livestreamId,
            profileId,
            ...this.parse(`watch:ls:${livestreamId}`, raw),
          };
        })
        .sort(byAge);
    });
  }

  livestreams(): Promise<string[]> {
    return this.store.run("watch index", () => this.redis.sMembers(this.index));
  }
}
