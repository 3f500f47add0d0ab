/**
 * Who among a livestream's watchers may still be told, decided again at every poll (service.ts):
 * the workspace is allowed and the livestream's profile bound to it (src/access), the app still
 * installed there (its installation, cached: an uninstall whose clean-up failed still ends its
 * watches), and for a personal watch, the person is still in the workspace (dm.ts: `users.info`,
 * cached).
 */
import type { DirectMessages } from "./dm.js";
import { dmUserOf, type WatchEntry } from "./registry.js";

/** Who may still be told (src/access's Authorizer): asked at every poll and every listing. */
export interface WatchAccess {
  /** The workspace is allowed (ALLOWED_WORKSPACES) and the profile bound to it (PROFILE_BINDINGS). */
  stillBound(
    w: { teamId: string; enterpriseId?: string | undefined },
    profileId: string | undefined,
  ): boolean;
  workspaceAllowed(teamId: string | undefined, enterpriseId?: string | undefined): boolean;
  /**
   * Why what the bot does on its own for the workspace must stop (`not_installed`: the app was
   * uninstalled there; multi-workspace mode reads its installation, cached), undefined while it
   * may go on; throws when that cannot be told (the store down). Only `not_installed` is taken
   * from it here: the configuration is `stillBound`'s, with the watch's own profile.
   */
  revoked(teamId: string, profileId: string): Promise<string | undefined>;
}

/**
 * Why a watch ends: the workspace may no longer read the livestream, the app is no longer
 * installed there (nobody to tell), or the person left it.
 */
export type EndReason = "access" | "uninstalled" | "gone";

export interface Verdicts {
  /** Told of this poll. */
  keep: WatchEntry[];
  /**
   * Kept, but not told this time: a person Slack could not confirm, or a workspace whose
   * installation could not be read (told at a later poll).
   */
  held: WatchEntry[];
  /** To end. */
  refused: Array<{ w: WatchEntry; why: EndReason }>;
}

type Installed = "installed" | "uninstalled" | "unknown";

/** Whether the app is still installed in each workspace, asked once per workspace and poll. */
function installedIn(access: WatchAccess, profileId: string | null): (teamId: string) => Promise<Installed> {
  const asked = new Map<string, Promise<Installed>>();
  return (teamId) => {
    let p = asked.get(teamId);
    if (p === undefined) {
      // The installation is looked at first, whatever the profile (not known yet: "").
      p = access.revoked(teamId, profileId ?? "").then(
        (r): Installed => (r === "not_installed" ? "uninstalled" : "installed"),
        (): Installed => "unknown",
      );
      asked.set(teamId, p);
    }
    return p;
  };
}

/**
 * Sorts the watchers of one livestream whose profile is `profileId` (null: not known yet; then,
 * before a read, the workspace alone decides). Configuration first, then the installation: a
 * person is asked about only when the workspace may still read the livestream.
 */
export async function judge(
  watchers: readonly WatchEntry[],
  profileId: string | null,
  read: boolean,
  access: WatchAccess,
  dms: DirectMessages,
): Promise<Verdicts> {
  const out: Verdicts = { keep: [], held: [], refused: [] };
  const installed = installedIn(access, profileId);
  const verdicts = await Promise.all(
    watchers.map(async (w) => {
      const ws = { teamId: w.teamId, enterpriseId: w.enterpriseId ?? undefined };
      const ok =
        profileId === null && !read
          ? access.workspaceAllowed(ws.teamId, ws.enterpriseId)
          : access.stillBound(ws, profileId ?? undefined);
      if (!ok) return "access" as const;
      const there = await installed(w.teamId);
      if (there !== "installed") return there;
      const user = dmUserOf(w.channelId);
      return user === undefined ? "member" : dms.membership(w.teamId, user);
    }),
  );
  for (const [i, w] of watchers.entries()) {
    const v = verdicts[i];
    if (v === "member") out.keep.push(w);
    else if (v === "unknown") out.held.push(w);
    else if (v !== undefined) out.refused.push({ w, why: v });
  }
  return out;
}
