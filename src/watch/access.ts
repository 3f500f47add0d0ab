/**
 * Who among a livestream's watchers may still be told, decided again at every poll (service.ts):
 * the workspace is allowed and the livestream's profile bound to it (src/access), and for a
 * personal watch, the person is still in the workspace (dm.ts: `users.info`, cached).
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
}

/** Why a watch ends: the workspace may no longer read the livestream, or the person left it. */
export type EndReason = "access" | "gone";

export interface Verdicts {
  /** Told of this poll. */
  keep: WatchEntry[];
  /** Kept, but not told this time: a person Slack could not confirm (told at a later poll). */
  held: WatchEntry[];
  /** To end. */
  refused: Array<{ w: WatchEntry; why: EndReason }>;
}

/**
 * Sorts the watchers of one livestream whose profile is `profileId` (null: not known yet; then,
 * before a read, the workspace alone decides). Configuration first: a person is asked about only
 * when the workspace may still read the livestream.
 */
export async function judge(
  watchers: readonly WatchEntry[],
  profileId: string | null,
  read: boolean,
  access: WatchAccess,
  dms: DirectMessages,
): Promise<Verdicts> {
  const out: Verdicts = { keep: [], held: [], refused: [] };
  const verdicts = await Promise.all(
    watchers.map(async (w) => {
      const ws = { teamId: w.teamId, enterpriseId: w.enterpriseId ?? undefined };
      const ok =
        profileId === null && !read
          ? access.workspaceAllowed(ws.teamId, ws.enterpriseId)
          : access.stillBound(ws, profileId ?? undefined);
      if (!ok) return "access" as const;
      const user = dmUserOf(w.channelId);
      return user === undefined ? "member" : dms.membership(w.teamId, user);
    }),
  );
  for (const [i, w] of watchers.entries()) {
    const v = verdicts[i];
    if (v === "member") out.keep.push(w);
    else if (v === "unknown") out.held.push(w);
    else out.refused.push({ w, why: v === "gone" ? "gone" : "access" });
  }
  return out;
}
