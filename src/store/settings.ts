/**
 * Typed repositories over the store: per-workspace webhook settings, added managers, and the
 * delivery routes behind `/hooks/platform/<token>`.
 *
 * Data layout (keys without the store's namespace; every value carries a schema version `v`):
 *
 *   team:<T>:profiles   { v: 1, profiles: { <profileId>: ProfileSettings }, defaultProfileId: string | null }
 *   team:<T>:managers   { v: 1, managers: { <userId>: { addedBy, addedAt } } }
 *   route:<sha256hex>   { v: 1, tokenSha256: <hex>, teamId, profileId, channelId }
 *   claim:<profileId>   { v: 1, teamId, claimedAt }   (which workspace manages it: claims.ts)
 *
 * Nothing half-written: each operation writes exactly one key (a whole document), so a crash or an
 * unavailable store leaves either the old or the new document.
 *
 * Concurrency: operations on a workspace document are read-modify-write without a lock or a
 * compare-and-set. Two concurrent writers on the same workspace (two replicas, two managers at the
 * same second) → the last writer wins and the other change is lost. This is accepted: these are
 * human-driven configuration commands, rare and per workspace; routes are write-once per token.
 * (The raw backend handles on `Store.backend` allow a CAS later if that ever matters.)
 *
 * Reading: every value is validated with zod. A value that is not JSON, has another shape or
 * another version raises `StoreCorruptError` (with the key) and logs one error line; it is never
 * treated as absent, and writes that would need it refuse rather than overwrite it. Other
 * workspaces are unaffected since each has its own keys. Store failures and timeouts raise
 * `StoreUnavailableError` (see `Store.run`).
 */
import crypto from "node:crypto";
import { z } from "zod";
import type { Logger } from "../log.js";
import { ProfileClaims } from "./claims.js";
import { type Store, StoreCorruptError } from "./keyv.js";

export interface ProfileSettings {
  profileId: string;
  /** null for a foreign URL */
  channelId: string | null;
  /** null for a foreign URL */
  callbackToken: string | null;
  foreignUrl: string | null;
  events: string[];
  /** Slack user id */
  setBy: string;
  /** ISO date-time */
  setAt: string;
}

export interface Route {
  teamId: string;
  profileId: string;
  channelId: string;
}

export interface Manager {
  userId: string;
  addedBy: string;
  addedAt: string;
}

/** 32 to 64 characters of base64url: what `newCallbackToken()` makes (32), with room to grow. */
export const CALLBACK_TOKEN_RE = /^[A-Za-z0-9_-]{32,64}$/;

/** A fresh delivery-route token: 24 random bytes (192 bits), base64url → 32 characters. */
export function newCallbackToken(): string {
  return crypto.randomBytes(24).toString("base64url");
}

export function isCallbackToken(token: unknown): token is string {
  return typeof token === "string" && CALLBACK_TOKEN_RE.test(token);
}

// --- Schemas -------------------------------------------------------------------------------------

/** Team, profile and user ids become parts of keys or object keys: no separators, no blanks. */
const ID_RE = /^(?!__proto__$)[^\s:]{1,100}$/;
const id = z.string().regex(ID_RE);
const isoDateTime = z.iso.datetime({ offset: true });

const profileSchema = z
  .object({
    profileId: id,
    channelId: z.string().min(1).nullable(),
    callbackToken: z.string().regex(CALLBACK_TOKEN_RE).nullable(),
    foreignUrl: z.string().min(1).nullable(),
    events: z.array(z.string().min(1)),
    setBy: z.string().min(1),
    setAt: isoDateTime,
  })
  .strict()
  .refine(
    (p) =>
      p.foreignUrl === null
        ? p.channelId !== null && p.callbackToken !== null
        : p.channelId === null && p.callbackToken === null,
    "either channelId and callbackToken (this bot's route) or foreignUrl (a foreign callback), not both",
  );

const profilesDocSchema = z
  .object({
    v: z.literal(1),
    profiles: z.record(z.string(), profileSchema),
    defaultProfileId: id.nullable(),
  })
  .strict()
  .refine(
    (doc) => Object.entries(doc.profiles).every(([k, p]) => k === p.profileId),
    "a profile is filed under another profile id",
  );
type ProfilesDoc = z.infer<typeof profilesDocSchema>;

const managersDocSchema = z
  .object({
    v: z.literal(1),
    managers: z.record(id, z.object({ addedBy: z.string().min(1), addedAt: isoDateTime }).strict()),
  })
  .strict();
type ManagersDoc = z.infer<typeof managersDocSchema>;

const routeDocSchema = z
  .object({
    v: z.literal(1),
    tokenSha256: z.string().regex(/^[0-9a-f]{64}$/),
    teamId: id,
    profileId: id,
    channelId: z.string().min(1),
  })
  .strict();
type RouteDoc = z.infer<typeof routeDocSchema>;

// --- Keys ----------------------------------------------------------------------------------------

export const keys = {
  profiles: (teamId: string) => `team:${teamId}:profiles`,
  managers: (teamId: string) => `team:${teamId}:managers`,
  route: (tokenSha256Hex: string) => `route:${tokenSha256Hex}`,
};

function checkId(what: string, value: string): void {
  if (!ID_RE.test(value)) throw new TypeError(`${what} must be 1-100 characters without blanks or ":"`);
}

const sha256 = (token: string): Buffer => crypto.createHash("sha256").update(token, "utf8").digest();

// --- Reading and writing one document ------------------------------------------------------------

export class Documents {
  constructor(
    private readonly store: Store,
    private readonly logger: Logger,
  ) {}

  /** The validated document at `key`, or undefined when there is none. */
  async read<S extends z.ZodType>(key: string, schema: S): Promise<z.output<S> | undefined> {
    let raw: unknown;
    try {
      raw = await this.store.run(`get ${key}`, () => this.store.keyv.get(key));
    } catch (err) {
      if (err instanceof StoreCorruptError) throw this.corrupt(key, err.reason, err);
      throw err;
    }
    if (raw === undefined) return undefined;
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      const reason = parsed.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join(".") || "(value)"}: ${i.message}`)
        .join("; ");
      throw this.corrupt(key, `unexpected shape (${reason})`, parsed.error);
    }
    return parsed.data;
  }

  async write(key: string, value: unknown): Promise<void> {
    await this.store.run(`set ${key}`, async () => {
      await this.store.keyv.set(key, value);
    });
  }

  async remove(key: string): Promise<void> {
    await this.store.run(`delete ${key}`, async () => {
      await this.store.keyv.delete(key);
    });
  }

  private corrupt(key: string, reason: string, cause: unknown): StoreCorruptError {
    this.logger.error({ key, reason }, "store value is corrupt; it is left as is for inspection");
    return new StoreCorruptError(key, reason, { cause });
  }
}

// --- Settings ------------------------------------------------------------------------------------

export class SettingsRepo {
  private readonly docs: Documents;
  /** Which workspace manages each profile (multi-workspace isolation). */
  readonly claims: ProfileClaims;

  constructor(store: Store, logger: Logger) {
    this.docs = new Documents(store, logger.child({ component: "settings" }));
    this.claims = new ProfileClaims(this.docs);
  }

  /** Forgets the workspace's profiles and added managers (the app was uninstalled). */
  async removeTeam(teamId: string): Promise<void> {
    checkId("teamId", teamId);
    await this.docs.remove(keys.profiles(teamId));
    await this.docs.remove(keys.managers(teamId));
  }

  private async profilesDoc(teamId: string): Promise<ProfilesDoc> {
    checkId("teamId", teamId);
    return (
      (await this.docs.read(keys.profiles(teamId), profilesDocSchema)) ?? {
        v: 1,
        profiles: {},
        defaultProfileId: null,
      }
    );
  }

  private async saveProfilesDoc(teamId: string, doc: ProfilesDoc): Promise<void> {
    const key = keys.profiles(teamId);
    if (Object.keys(doc.profiles).length === 0 && doc.defaultProfileId === null) await this.docs.remove(key);
    else await this.docs.write(key, doc);
  }

  /** Sorted by profileId. */
  async listProfiles(teamId: string): Promise<ProfileSettings[]> {
    const doc = await this.profilesDoc(teamId);
    return Object.values(doc.profiles).sort((a, b) => compare(a.profileId, b.profileId));
  }

  async getProfile(teamId: string, profileId: string): Promise<ProfileSettings | undefined> {
    const doc = await this.profilesDoc(teamId);
    return Object.hasOwn(doc.profiles, profileId) ? doc.profiles[profileId] : undefined;
  }

  /** Creates or replaces the profile's settings. Throws TypeError for settings it could not read back. */
  async saveProfile(teamId: string, p: ProfileSettings): Promise<void> {
    const checked = profileSchema.safeParse(p);
    if (!checked.success) throw new TypeError(`invalid profile settings: ${z.prettifyError(checked.error)}`);
    const doc = await this.profilesDoc(teamId);
    doc.profiles[checked.data.profileId] = checked.data;
    await this.saveProfilesDoc(teamId, doc);
  }

  /** Also clears the explicit default when it named this profile. */
  async removeProfile(teamId: string, profileId: string): Promise<void> {
    const doc = await this.profilesDoc(teamId);
    if (!Object.hasOwn(doc.profiles, profileId)) return;
    delete doc.profiles[profileId];
    if (doc.defaultProfileId === profileId) doc.defaultProfileId = null;
    await this.saveProfilesDoc(teamId, doc);
  }

  /** The explicit default if set and still configured, else the only configured profile, else undefined. */
  async defaultProfileId(teamId: string): Promise<string | undefined> {
    const doc = await this.profilesDoc(teamId);
    const configured = Object.keys(doc.profiles);
    if (doc.defaultProfileId !== null && configured.includes(doc.defaultProfileId))
      return doc.defaultProfileId;
    return configured.length === 1 ? configured[0] : undefined;
  }

  /** null clears it. A profile not configured (yet) may be named; it counts once it is. */
  async setDefaultProfile(teamId: string, profileId: string | null): Promise<void> {
    if (profileId !== null) checkId("profileId", profileId);
    const doc = await this.profilesDoc(teamId);
    if (doc.defaultProfileId === profileId) return;
    doc.defaultProfileId = profileId;
    await this.saveProfilesDoc(teamId, doc);
  }

  private async managersDoc(teamId: string): Promise<ManagersDoc> {
    checkId("teamId", teamId);
    return (await this.docs.read(keys.managers(teamId), managersDocSchema)) ?? { v: 1, managers: {} };
  }

  /** The managers added for this workspace (not the admins/owners or MANAGER_USER_IDS), by userId. */
  async listManagers(teamId: string): Promise<Manager[]> {
    const doc = await this.managersDoc(teamId);
    return Object.entries(doc.managers)
      .map(([userId, m]) => ({ userId, addedBy: m.addedBy, addedAt: m.addedAt }))
      .sort((a, b) => compare(a.userId, b.userId));
  }

  /** Idempotent: adding a manager again keeps who added them first and when. */
  async addManager(teamId: string, userId: string, addedBy: string, now: Date): Promise<void> {
    checkId("userId", userId);
    checkId("addedBy", addedBy);
    const doc = await this.managersDoc(teamId);
    if (Object.hasOwn(doc.managers, userId)) return;
    doc.managers[userId] = { addedBy, addedAt: now.toISOString() };
    await this.docs.write(keys.managers(teamId), doc);
  }

  /** true when the user was an added manager. */
  async removeManager(teamId: string, userId: string): Promise<boolean> {
    const doc = await this.managersDoc(teamId);
    if (!Object.hasOwn(doc.managers, userId)) return false;
    delete doc.managers[userId];
    const key = keys.managers(teamId);
    if (Object.keys(doc.managers).length === 0) await this.docs.remove(key);
    else await this.docs.write(key, doc);
    return true;
  }
}

// --- Routes --------------------------------------------------------------------------------------

/**
 * Delivery routes: callback token → (workspace, profile, channel). The token itself is never
 * stored: the key is derived from sha256(token), so looking up a guessed token costs the same
 * whatever part of it is right (the store compares hashes, not the token), and the record keeps
 * the token's sha256, compared with `crypto.timingSafeEqual` before the route is trusted.
 */
/** How long a route lookup is remembered by default (per store connection, so per process). */
export const ROUTE_CACHE_TTL_MS = 5_000;
const ROUTE_CACHE_MAX = 10_000;

interface RouteCache {
  entries: Map<string, { route: Route | undefined; at: number }>;
  /** Bumped by every put and delete: a lookup that started before one is not remembered. */
  epoch: number;
}

/** Shared by every RouteRepo over the same store connection. */
const routeCaches = new WeakMap<Store, RouteCache>();

export interface RouteRepoOptions {
  /** How long a lookup (found or not) is remembered; 0 = never (default ROUTE_CACHE_TTL_MS). */
  cacheTtlMs?: number;
  now?: () => number;
}

/**
 * Lookups are remembered for a few seconds, so the delivery route does not read and validate the
 * same document for every delivery. put() and delete() forget the token at once for every
 * RouteRepo over the same store connection (a removed route stops accepting at once on this
 * replica); another replica, with its own connection, may accept it until its entry is
 * `cacheTtlMs` old.
 */
export class RouteRepo {
  private readonly docs: Documents;
  private readonly cache: RouteCache;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(store: Store, logger: Logger, opts: RouteRepoOptions = {}) {
    this.docs = new Documents(store, logger.child({ component: "routes" }));
    let cache = routeCaches.get(store);
    if (!cache) {
      cache = { entries: new Map(), epoch: 0 };
      routeCaches.set(store, cache);
    }
    this.cache = cache;
    this.ttlMs = opts.cacheTtlMs ?? ROUTE_CACHE_TTL_MS;
    this.now = opts.now ?? Date.now;
  }

  private forget(hashHex: string): void {
    this.cache.epoch += 1;
    this.cache.entries.delete(hashHex);
  }

  async put(token: string, route: Route): Promise<void> {
    if (!isCallbackToken(token)) throw new TypeError("a callback token is 32-64 characters of base64url");
    const hash = sha256(token);
    const doc: RouteDoc = { v: 1, tokenSha256: hash.toString("hex"), ...route };
    const checked = routeDocSchema.safeParse(doc);
    if (!checked.success) throw new TypeError(`invalid route: ${z.prettifyError(checked.error)}`);
    try {
      await this.docs.write(keys.route(doc.tokenSha256), checked.data);
    } finally {
      this.forget(doc.tokenSha256);
    }
  }

  /** undefined for an unknown token, and for a malformed one without asking the store. */
  async get(token: string): Promise<Route | undefined> {
    if (!isCallbackToken(token)) return undefined;
    const hash = sha256(token);
    const hex = hash.toString("hex");
    const hit = this.cache.entries.get(hex);
    if (hit && this.now() - hit.at < this.ttlMs) return hit.route && { ...hit.route };
    const epoch = this.cache.epoch;
    const doc = await this.docs.read(keys.route(hex), routeDocSchema);
    // The schema guarantees 64 hex digits, hence 32 bytes like `hash`.
    const route =
      doc !== undefined && crypto.timingSafeEqual(Buffer.from(doc.tokenSha256, "hex"), hash)
        ? { teamId: doc.teamId, profileId: doc.profileId, channelId: doc.channelId }
        : undefined;
    if (this.ttlMs > 0 && epoch === this.cache.epoch) {
      if (this.cache.entries.size >= ROUTE_CACHE_MAX) this.cache.entries.clear();
      this.cache.entries.set(hex, { route, at: this.now() });
    }
    return route && { ...route };
  }

  /** No-op for an unknown or malformed token. */
  async delete(token: string): Promise<void> {
    if (!isCallbackToken(token)) return;
    const hex = sha256(token).toString("hex");
    try {
      await this.docs.remove(keys.route(hex));
    } finally {
      this.forget(hex);
    }
  }
}

/** Plain code-unit order (not locale-dependent). */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
