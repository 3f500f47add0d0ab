/**
 * The profiles and managers documents of settings.ts: their types, schemas (every stored
 * version) and the conversions of older versions (a profile keeps its route's id, the sha256 of
 * the token, never the token: crypto.ts).
 */
import { z } from "zod";
import { CALLBACK_ID_RE, CALLBACK_TOKEN_RE, callbackIdOf } from "./crypto.js";
import { type Subscription, subscriptionSchema } from "./subscriptions.js";

export interface ProfileSettings {
  profileId: string;
  /** null for a foreign URL */
  channelId: string | null;
  /**
   * This bot's delivery route: the sha256 of its token, in hex (CallbackRepo's key), never the token.
   * null for a foreign URL.
   */
  callbackId: string | null;
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

// --- Schemas -------------------------------------------------------------------------------------

/** Team, profile and user ids become parts of keys or object keys: no separators, no blanks. */
export const ID_RE = /^(?!__proto__$)[^\s:]{1,100}$/;
/** A team, profile or user id (also used by callbacks.ts). */
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

/** Versions 2 and 3 stored the callback id as `routeId` (its first name). */
const v2ProfileSchema = profileFields
  .extend({ routeId: z.string().regex(CALLBACK_ID_RE).nullable() })
  .strict()
  .refine(
    (p) => ownOrForeign(p, p.routeId),
    "either channelId and routeId (this bot's callback) or foreignUrl (a foreign callback), not both",
  );

const v3ProfileSchema = profileFields
  .extend({
    routeId: z.string().regex(CALLBACK_ID_RE).nullable(),
    subscriptions: z.array(subscriptionSchema).max(100),
  })
  .strict()
  .refine(
    (p) => ownOrForeign(p, p.routeId),
    "either channelId and routeId (this bot's callback) or foreignUrl (a foreign callback), not both",
  );

export const profileSchema = profileFields
  .extend({
    callbackId: z.string().regex(CALLBACK_ID_RE).nullable(),
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
    (p) => ownOrForeign(p, p.callbackId),
    "either channelId and callbackId (this bot's callback) or foreignUrl (a foreign callback), not both",
  );

/** Version 1 kept the callback token itself: read only to be converted (see the top of the file). */
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
    v: z.literal(4),
    profiles: z.record(z.string(), profileSchema),
    defaultProfileId: id.nullable(),
  })
  .strict()
  .refine(filedUnderOwnId, "a profile is filed under another profile id");
export type ProfilesDoc = z.infer<typeof profilesDocSchema>;

const v3ProfilesDocSchema = z
  .object({
    v: z.literal(3),
    profiles: z.record(z.string(), v3ProfileSchema),
    defaultProfileId: id.nullable(),
  })
  .strict()
  .refine(filedUnderOwnId, "a profile is filed under another profile id");
type V3ProfilesDoc = z.infer<typeof v3ProfilesDocSchema>;

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
export const storedProfilesDocSchema = z.discriminatedUnion("v", [
  profilesDocSchema,
  v3ProfilesDocSchema,
  v2ProfilesDocSchema,
  legacyProfilesDocSchema,
]);

/** Version 1 → 2: each token replaced by its callback id. */
function fromLegacy(doc: LegacyProfilesDoc): V2ProfilesDoc {
  const profiles: V2ProfilesDoc["profiles"] = {};
  for (const [key, { callbackToken, ...rest }] of Object.entries(doc.profiles)) {
    profiles[key] = { ...rest, routeId: callbackToken === null ? null : callbackIdOf(callbackToken) };
  }
  return { v: 2, profiles, defaultProfileId: doc.defaultProfileId };
}

/** The one subscription of a profile that has none given: its route's channel, all its events. */
export function firstSubscription(p: Omit<ProfileSettings, "subscriptions">): Subscription[] {
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
function fromV2(doc: V2ProfilesDoc): V3ProfilesDoc {
  const profiles: V3ProfilesDoc["profiles"] = {};
  for (const [key, p] of Object.entries(doc.profiles))
    profiles[key] = { ...p, subscriptions: firstSubscription({ ...p, callbackId: p.routeId }) };
  return { v: 3, profiles, defaultProfileId: doc.defaultProfileId };
}

/** Version 3 → 4: `routeId` is named `callbackId`. */
function fromV3(doc: V3ProfilesDoc): ProfilesDoc {
  const profiles: ProfilesDoc["profiles"] = {};
  for (const [key, { routeId, ...rest }] of Object.entries(doc.profiles))
    profiles[key] = { ...rest, callbackId: routeId };
  return { v: 4, profiles, defaultProfileId: doc.defaultProfileId };
}

/** Any stored version as the current one. */
export function current(stored: z.output<typeof storedProfilesDocSchema>): ProfilesDoc {
  if (stored.v === 4) return stored;
  if (stored.v === 3) return fromV3(stored);
  return fromV3(fromV2(stored.v === 1 ? fromLegacy(stored) : stored));
}

export const emptyProfiles = (): ProfilesDoc => ({ v: 4, profiles: {}, defaultProfileId: null });

/** Settings as stored (without subscriptions: the route's channel with all its events); TypeError otherwise. */
export function checkedProfile(input: ProfileInput): ProfileSettings {
  const p: ProfileSettings = { ...input, subscriptions: input.subscriptions ?? firstSubscription(input) };
  const checked = profileSchema.safeParse(p);
  if (!checked.success) throw new TypeError(`invalid profile settings: ${z.prettifyError(checked.error)}`);
  return checked.data;
}

export const managersDocSchema = z
  .object({
    v: z.literal(1),
    managers: z.record(id, z.object({ addedBy: z.string().min(1), addedAt: isoDateTime }).strict()),
  })
  .strict();
export type ManagersDoc = z.infer<typeof managersDocSchema>;
