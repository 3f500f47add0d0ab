/**
 * Profile ownership across workspaces: the bot has one platform API key for every workspace that
 * installs it, so without a claim the manager of one workspace could repoint or remove a profile's
 * webhook that another workspace configured.
 *
 *   claim:<profileId>   { v: 1, teamId, claimedAt }
 * More: README.md ("claims.ts").
 */
import { z } from "zod";
import { type Documents, KEEP, REMOVE } from "./documents.js";
import { ProfileClaimedError } from "./errors.js";

const ID_RE = /^(?!__proto__$)[^\s:]{1,100}$/;
const claimSchema = z
  .object({ v: z.literal(1), teamId: z.string().regex(ID_RE), claimedAt: z.iso.datetime({ offset: true }) })
  .strict();

export const claimKey = (profileId: string) => `claim:${profileId}`;

function checkId(what: string, value: string): void {
  if (!ID_RE.test(value)) throw new TypeError(`${what} must be 1-100 characters without blanks or ":"`);
}

export class ProfileClaims {
  constructor(private readonly docs: Documents) {}

  /** The workspace holding the profile, or undefined when it is free. */
  async owner(profileId: string): Promise<string | undefined> {
    checkId("profileId", profileId);
    return (await this.docs.read(claimKey(profileId), claimSchema))?.teamId;
  }

  /** Throws ProfileClaimedError when another workspace holds the profile. */
  async check(profileId: string, teamId: string): Promise<void> {
    const owner = await this.owner(profileId);
    if (owner !== undefined && owner !== teamId) throw new ProfileClaimedError(profileId);
  }

  /**
   * Takes the profile for `teamId`. Returns true when it was free (taken now), false when the team
   * already held it; throws ProfileClaimedError when another workspace holds it.
   */
  async take(profileId: string, teamId: string, now: Date): Promise<boolean> {
    checkId("profileId", profileId);
    checkId("teamId", teamId);
    return this.docs.update(claimKey(profileId), claimSchema, (claim) => {
      if (claim?.teamId === teamId) return KEEP;
      if (claim !== undefined) throw new ProfileClaimedError(profileId);
      return { v: 1 as const, teamId, claimedAt: now.toISOString() };
    });
  }

  /** Releases the claim if `teamId` still holds it; a claim of another workspace stays. */
  async release(profileId: string, teamId: string): Promise<void> {
    checkId("profileId", profileId);
    await this.docs.update(claimKey(profileId), claimSchema, (claim) =>
      claim?.teamId === teamId ? REMOVE : KEEP,
    );
  }
}
