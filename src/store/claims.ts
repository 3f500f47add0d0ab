/**
 * Profile ownership across workspaces: the bot has one platform API key for every workspace that
 * installs it, so without a claim the manager of one workspace could repoint or remove a profile's
 * webhook that another workspace configured.
 *
 *   claim:<profileId>   { v: 1, teamId, claimedAt }
 *
 * `/webhook set` takes the claim before it changes the platform; another workspace's claim makes
 * it refuse (ProfileClaimedError) and nothing changes. Removing the webhook, or uninstalling the
 * app, releases it. A profile nobody claimed (configured outside the bot, or before claims
 * existed) is free: the first workspace that sets it through the bot claims it.
 *
 * Take is read-then-write (no compare-and-set): two workspaces claiming the same free profile in
 * the same instant could both succeed, the later write keeping the claim. This is accepted for a
 * human-driven, rare command; the loser's next change is refused.
 */
import { z } from "zod";
import type { Documents } from "./documents.js";
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
    checkId("teamId", teamId);
    const owner = await this.owner(profileId);
    if (owner === teamId) return false;
    if (owner !== undefined) throw new ProfileClaimedError(profileId);
    await this.docs.write(claimKey(profileId), { v: 1, teamId, claimedAt: now.toISOString() });
    return true;
  }

  /** Releases the claim if `teamId` holds it; a claim of another workspace stays. */
  async release(profileId: string, teamId: string): Promise<void> {
    if ((await this.owner(profileId)) === teamId) await this.docs.remove(claimKey(profileId));
  }
}
