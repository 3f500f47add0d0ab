/**
 * Typed repositories over the store: per-workspace webhook settings and added managers (the
 * delivery routes behind `/hooks/platform/<token>` are in routes.ts).
 *
 * Data layout (keys without the store's namespace; every value carries a schema version `v`):
 *
 *   team:<T>:profiles   { v: 3, profiles: { <profileId>: ProfileSettings }, defaultProfileId: string | null }
 *   team:<T>:managers   { v: 1, managers: { <userId>: { addedBy, addedAt } } }
 *   route:<sha256hex>   { v: 1, tokenSha256: <hex>, teamId, profileId, channelId }   (routes.ts)
 *   claim:<profileId>   { v: 1, teamId, claimedAt }   (which workspace manages it: claims.ts)
 *
 * A delivery-route token is stored nowhere: a profile keeps its route id, the token's sha256 in hex
 * (the same hex as the route's key). Profiles documents of version 1 kept the token itself
 * (`callbackToken`): one is still read, converted (route id = sha256 of the token) and rewritten
 * at once, so the token leaves the store without anyone doing anything. A rewrite that fails is
 * logged and tried again on the next read. The rewrite is one more read-modify-write: a change
 * saved by another replica between this read and the rewrite would be lost (last writer wins,
 * as below), a window of one store round trip, once per workspace.
 *
 * Version 3 adds each profile's `subscriptions` (subscriptions.ts: every channel that receives its
 * notifications, with its filter); `channelId` stays the route's channel, `events` what the
 * platform carries (the union of the subscriptions' events). A version 2 document (one channel per
 * profile) is converted when read, the same way: one subscription per own-route profile (its
 * channel, all its events, no preset filter, no mention), rewritten at once (a version 1 document
 * goes through both conversions).
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
import { Documents } from "./documents.js";
import type { Store } from "./keyv.js";
import { type Subscription, subscriptionSchema } from "./subscriptions.js";

export interface ProfileSettings {
  profileId: string;
  /** null for a foreign URL */
  channelId: string | null;
  /**
   * This bot's delivery route: the sha256 of its token, in hex (RouteRepo's key), never the token.
   * null for a foreign URL.
   */
  routeId: string | null;
  foreignUrl: string | null;
  events: string[];
  /** Slack user id */
  setBy: string;
  /** ISO date-time */
  setAt: string;
  /** The channels that receive its notifications (empty for a foreign URL). */
  subscriptions: Subscription[];
}

/** What saveProfile takes: without `subscriptions`, the route's channel with all its events. */
export type ProfileInput = Omit<ProfileSettings, "subscriptions"> & { subscriptions?: Subscription[] };

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

/** A route id: the sha256 of a callback token, 64 lowercase hex digits. */
export const ROUTE_ID_RE = /^[0-9a-f]{64}$/;

export function isRouteId(routeId: unknown): routeId is string {
  return typeof routeId === "string" && ROUTE_ID_RE.test(routeId);
}

/** The sha256 of a token (32 bytes). */
export const sha256 = (token: string): Buffer => crypto.createHash("sha256").update(token, "utf8").digest();

/** The route id of a token (sha256, hex): what profiles keep and what the route is stored under. */
export function routeIdOf(token: string): string {
  return sha256(token).toString("hex");
}

/**
 * Whether `token` is the token of route `routeId`: their sha256 compared in constant time (both
 * are 32 bytes). false for a malformed token or id.
 */
export function tokenMatchesRouteId(token: string, routeId: string): boolean {
  if (!isCallbackToken(token) || !isRouteId(routeId)) return false;
  return crypto.timingSafeEqual(sha256(token), Buffer.from(routeId, "hex"));
}

// --- Schemas -------------------------------------------------------------------------------------

/** Team, profile and user ids become parts of keys or object keys: no separators, no blanks. */
const ID_RE = /^(?!__proto__$)[^\s:]{1,100}$/;
/** A team, profile or user id (also used by routes.ts). */
export const idSchema = z.string().regex(ID_RE);
const id = idSchema;
const isoDateTime = z.iso.datetime({ offset: true });

const profileFields = z.object({
  profileId: id,
  channelId: z.string().min(1).nullable(),
  foreignUrl: z.string().min(1).nullable(),
  events: z.array(z.string().min(1)),
  setBy: z.string().min(1),
  setAt: isoDateTime,
});

/** This bot's route (a channel and a route) or a foreign URL, never both. */
const ownOrForeign = (
  p: { channelId: string | null; foreignUrl: string | null },
  route: string | null,
): boolean =>
  p.foreignUrl === null ? p.channelId !== null && route !== null : p.channelId === null && route === null;

const v2ProfileSchema = profileFields
  .extend({ routeId: z.string().regex(ROUTE_ID_RE).nullable() })
  .strict()
  .refine(
    (p) => ownOrForeign(p, p.routeId),
    "either channelId and routeId (this bot's route) or foreignUrl (a foreign callback), not both",
  );

const profileSchema = profileFields
  .extend({
    routeId: z.string().regex(ROUTE_ID_RE).nullable(),
    subscriptions: z.array(subscriptionSchema).max(100),
  })
  .strict()
  .refine(
    (p) => p.foreignUrl === null || p.subscriptions.length === 0,
    "a foreign callback has no subscriptions",
  )
  .refine(
    (p) => new Set(p.subscriptions.map((x) => x.channelId)).size === p.subscriptions.length,
    "one subscription per channel",
  )
  .refine(
    (p) => ownOrForeign(p, p.routeId),
    "either channelId and routeId (this bot's route) or foreignUrl (a foreign callback), not both",
  );

/** Version 1 kept the route's token itself: read only to be converted (see the top of the file). */
const legacyProfileSchema = profileFields
  .extend({ callbackToken: z.string().regex(CALLBACK_TOKEN_RE).nullable() })
  .strict()
  .refine(
    (p) => ownOrForeign(p, p.callbackToken),
    "either channelId and callbackToken (this bot's route) or foreignUrl (a foreign callback), not both",
  );

const filedUnderOwnId = (doc: { profiles: Record<string, { profileId: string }> }): boolean =>
  Object.entries(doc.profiles).every(([k, p]) => k === p.profileId);

const profilesDocSchema = z
  .object({
    v: z.literal(3),
    profiles: z.record(z.string(), profileSchema),
    defaultProfileId: id.nullable(),
  })
  .strict()
  .refine(filedUnderOwnId, "a profile is filed under another profile id");
type ProfilesDoc = z.infer<typeof profilesDocSchema>;

const v2ProfilesDocSchema = z
  .object({
    v: z.literal(2),
    profiles: z.record(z.string(), v2ProfileSchema),
    defaultProfileId: id.nullable(),
  })
  .strict()
  .refine(filedUnderOwnId, "a profile is filed under another profile id");
type V2ProfilesDoc = z.infer<typeof v2ProfilesDocSchema>;

const legacyProfilesDocSchema = z
  .object({
    v: z.literal(1),
    profiles: z.record(z.string(), legacyProfileSchema),
    defaultProfileId: id.nullable(),
  })
  .strict()
  .refine(filedUnderOwnId, "a profile is filed under another profile id");
type LegacyProfilesDoc = z.infer<typeof legacyProfilesDocSchema>;

/** What a profiles key may hold: the current version, or versions 1 and 2 (converted when read). */
const storedProfilesDocSchema = z.discriminatedUnion("v", [
  profilesDocSchema,
  v2ProfilesDocSchema,
  legacyProfilesDocSchema,
]);

/** Version 1 → 2: each token replaced by its route id. */
function fromLegacy(doc: LegacyProfilesDoc): V2ProfilesDoc {
  const profiles: V2ProfilesDoc["profiles"] = {};
  for (const [key, { callbackToken, ...rest }] of Object.entries(doc.profiles)) {
    profiles[key] = { ...rest, routeId: callbackToken === null ? null : routeIdOf(callbackToken) };
  }
  return { v: 2, profiles, defaultProfileId: doc.defaultProfileId };
}

/** The one subscription of a profile that has none given: its route's channel, all its events. */
function firstSubscription(p: Omit<ProfileSettings, "subscriptions">): Subscription[] {
  if (p.foreignUrl !== null || p.channelId === null) return [];
  return [
    {
      channelId: p.channelId,
      events: [...p.events],
      presets: [],
      mention: null,
      setBy: p.setBy,
      setAt: p.setAt,
    },
  ];
}

/** Version 2 → 3: one subscription per own-route profile (its channel, all its events). */
function fromV2(doc: V2ProfilesDoc): ProfilesDoc {
  const profiles: ProfilesDoc["profiles"] = {};
  for (const [key, p] of Object.entries(doc.profiles))
    profiles[key] = { ...p, subscriptions: firstSubscription(p) };
  return { v: 3, profiles, defaultProfileId: doc.defaultProfileId };
}

const managersDocSchema = z
  .object({
    v: z.literal(1),
    managers: z.record(id, z.object({ addedBy: z.string().min(1), addedAt: isoDateTime }).strict()),
  })
  .strict();
type ManagersDoc = z.infer<typeof managersDocSchema>;

// --- Keys ----------------------------------------------------------------------------------------

export const keys = {
  profiles: (teamId: string) => `team:${teamId}:profiles`,
  managers: (teamId: string) => `team:${teamId}:managers`,
  /** By route id: the token's sha256 in hex. */
  route: (routeId: string) => `route:${routeId}`,
};

function checkId(what: string, value: string): void {
  if (!ID_RE.test(value)) throw new TypeError(`${what} must be 1-100 characters without blanks or ":"`);
}

// --- Settings ------------------------------------------------------------------------------------

export class SettingsRepo {
  private readonly docs: Documents;
  private readonly logger: Logger;
  /** Which workspace manages each profile (multi-workspace isolation). */
  readonly claims: ProfileClaims;

  constructor(store: Store, logger: Logger) {
    this.logger = logger.child({ component: "settings" });
    this.docs = new Documents(store, this.logger);
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
    const key = keys.profiles(teamId);
    const stored = await this.docs.read(key, storedProfilesDocSchema);
    if (stored === undefined) return { v: 3, profiles: {}, defaultProfileId: null };
    if (stored.v === 3) return stored;
    // Version 1 kept route tokens in the clear; version 2 one channel per profile: rewrite it now.
    const doc = fromV2(stored.v === 1 ? fromLegacy(stored) : stored);
    try {
      await this.saveProfilesDoc(teamId, doc);
      this.logger.info(
        { key, from: stored.v },
        "profiles document upgraded to version 3 (route ids, one subscription per channel)",
      );
    } catch (err) {
      this.logger.warn(
        { err, key, from: stored.v },
        "could not rewrite an older profiles document; tried again on the next read",
      );
    }
    return doc;
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
  async saveProfile(teamId: string, input: ProfileInput): Promise<void> {
    const p: ProfileSettings = { ...input, subscriptions: input.subscriptions ?? firstSubscription(input) };
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

/** Plain code-unit order (not locale-dependent). */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
