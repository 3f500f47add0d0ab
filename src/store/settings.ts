/**
 * Typed repositories over the store: per-workspace webhook settings and added managers (the
 * delivery routes behind `/hooks/platform/<token>` are in callbacks.ts).
 * More: README.md ("settings.ts").
 */
import type { Logger } from "../log.js";
import { ProfileClaims } from "./claims.js";
import { Documents, KEEP, type Next, REMOVE } from "./documents.js";
import type { Store } from "./keyv.js";
import {
  checkedProfile,
  current,
  emptyProfiles,
  ID_RE,
  type Manager,
  type ManagersDoc,
  managersDocSchema,
  type ProfileInput,
  type ProfileSettings,
  type ProfilesDoc,
  storedProfilesDocSchema,
} from "./profiles-doc.js";

export {
  CALLBACK_ID_RE,
  CALLBACK_TOKEN_RE,
  callbackIdOf,
  isCallbackId,
  isCallbackToken,
  newCallbackToken,
  sha256,
  tokenMatchesCallbackId,
} from "./crypto.js";
export { idSchema, type Manager, type ProfileInput, type ProfileSettings } from "./profiles-doc.js";

// --- Keys ----------------------------------------------------------------------------------------

export const keys = {
  profiles: (teamId: string) => `team:${teamId}:profiles`,
  managers: (teamId: string) => `team:${teamId}:managers`,
  /** A callback by its id (the token's sha256 in hex); the key keeps its first name, `route:`, so stored data reads. */
  callback: (callbackId: string) => `route:${callbackId}`,
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
    const { value: stored, raw } = await this.docs.snapshot(key, storedProfilesDocSchema);
    if (stored === undefined) return emptyProfiles();
    if (stored.v === 4) return stored;
    // Version 1 kept callback tokens in the clear, version 2 one channel per profile, version 3 the
    // callback id as `routeId`: rewrite it now,
    // unless another writer changed it meanwhile (its write converted it, or the next one will).
    const doc = current(stored);
    try {
      if (await this.docs.replace(key, raw, doc)) this.upgraded(key, stored.v);
    } catch (err) {
      this.logger.warn(
        { err, key, from: stored.v },
        "could not rewrite an older profiles document; tried again on the next read",
      );
    }
    return doc;
  }

  private upgraded(key: string, from: number): void {
    this.logger.info(
      { key, from },
      "profiles document upgraded to version 4 (callback ids, one subscription per channel)",
    );
  }

  /**
   * Changes the workspace's profiles document by compare-and-set (see the top of the file): `fn`
   * changes the document it is given and returns whether it did; an older version is converted
   * (and written) on the way. An empty document is removed.
   */
  private async changeProfiles(
    teamId: string,
    fn: (doc: ProfilesDoc) => boolean | Promise<boolean>,
  ): Promise<void> {
    checkId("teamId", teamId);
    const key = keys.profiles(teamId);
    let from: number | undefined;
    const wrote = await this.docs.update(
      key,
      storedProfilesDocSchema,
      async (stored): Promise<Next<ProfilesDoc>> => {
        from = stored?.v;
        const doc = stored === undefined ? emptyProfiles() : current(stored);
        if (!(await fn(doc)) && stored?.v === 4) return KEEP;
        return Object.keys(doc.profiles).length === 0 && doc.defaultProfileId === null ? REMOVE : doc;
      },
    );
    if (wrote && from !== undefined && from !== 3) this.upgraded(key, from);
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
    const checked = checkedProfile(input);
    await this.changeProfiles(teamId, (doc) => {
      doc.profiles[checked.profileId] = checked;
      return true;
    });
  }

  /**
   * Changes one profile from its current settings, by compare-and-set: `fn` gets the profile as
   * stored now (undefined when not configured) and returns its new settings, or undefined to leave
   * it as is. When another writer changed the workspace's profiles in between, `fn` runs again on
   * what is stored then. Resolves with the settings stored when it returns. Throws TypeError (and
   * writes nothing) for settings it could not read back, or for another profile id.
   */
  async updateProfile(
    teamId: string,
    profileId: string,
    fn: (
      current: ProfileSettings | undefined,
    ) => ProfileInput | undefined | Promise<ProfileInput | undefined>,
  ): Promise<ProfileSettings | undefined> {
    checkId("profileId", profileId);
    let result: ProfileSettings | undefined;
    await this.changeProfiles(teamId, async (doc) => {
      result = Object.hasOwn(doc.profiles, profileId) ? doc.profiles[profileId] : undefined;
      const input = await fn(result);
      if (input === undefined) return false;
      if (input.profileId !== profileId)
        throw new TypeError(`settings of ${input.profileId} given for ${profileId}`);
      result = checkedProfile(input);
      doc.profiles[profileId] = result;
      return true;
    });
    return result;
  }

  /** Also clears the explicit default when it named this profile. */
  async removeProfile(teamId: string, profileId: string): Promise<void> {
    await this.changeProfiles(teamId, (doc) => {
      if (!Object.hasOwn(doc.profiles, profileId)) return false;
      delete doc.profiles[profileId];
      if (doc.defaultProfileId === profileId) doc.defaultProfileId = null;
      return true;
    });
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
    await this.changeProfiles(teamId, (doc) => {
      if (doc.defaultProfileId === profileId) return false;
      doc.defaultProfileId = profileId;
      return true;
    });
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

  /** Idempotent: adding a manager again keeps who added them first and when. Compare-and-set. */
  async addManager(teamId: string, userId: string, addedBy: string, now: Date): Promise<void> {
    checkId("teamId", teamId);
    checkId("userId", userId);
    checkId("addedBy", addedBy);
    await this.docs.update(keys.managers(teamId), managersDocSchema, (stored) => {
      const doc = stored ?? { v: 1, managers: {} };
      if (Object.hasOwn(doc.managers, userId)) return KEEP;
      doc.managers[userId] = { addedBy, addedAt: now.toISOString() };
      return doc;
    });
  }

  /** true when the user was an added manager. Compare-and-set. */
  async removeManager(teamId: string, userId: string): Promise<boolean> {
    checkId("teamId", teamId);
    let was = false;
    await this.docs.update(keys.managers(teamId), managersDocSchema, (doc) => {
      was = doc !== undefined && Object.hasOwn(doc.managers, userId);
      if (!doc || !was) return KEEP;
      delete doc.managers[userId];
      return Object.keys(doc.managers).length === 0 ? REMOVE : doc;
    });
    return was;
  }
}

/** Plain code-unit order (not locale-dependent). */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
