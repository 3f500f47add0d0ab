/**
 * Who a workspace is when the bot acts for it on its own (a delivery's fan-out, a claim's holder),
 * with no request of it carrying Bolt's context: whether the app is installed there, and the
 * Enterprise Grid organization it belongs to, so ALLOWED_WORKSPACES and PROFILE_BINDINGS by
 * enterprise id (E…) apply to it as they do to its requests (src/access `revoked`).
 * More: README.md ("workspaces.ts").
 */
import type { WebClient } from "@slack/web-api";
import type { WorkspaceOf } from "../access/index.js";
import type { Config } from "../config.js";
import type { InstallationRepo } from "../store/index.js";

const MAX_CACHED = 10_000;

/** Multi-workspace mode: from the workspace's installation, cached `ttlMs`. */
export function installedWorkspaces(installations: InstallationRepo, ttlMs = 30_000): WorkspaceOf {
  const cache = new Map<string, { at: number; found: { enterpriseId: string | undefined } | null }>();
  installations.onChange((teamId) => {
    if (teamId === undefined) cache.clear();
    else cache.delete(teamId);
  });
  return async (teamId) => {
    const hit = cache.get(teamId);
    if (hit && Date.now() - hit.at < ttlMs) return hit.found;
    const installation = await installations.find({ teamId });
    const found = installation ? { enterpriseId: installation.enterprise?.id } : null;
    cache.delete(teamId);
    if (cache.size >= MAX_CACHED) {
      const oldest = cache.keys().next().value;
      if (oldest !== undefined) cache.delete(oldest);
    }
    cache.set(teamId, { at: Date.now(), found });
    return found;
  };
}

/** Whether some allowed or bound id is an organization's (E…): only then is the organization asked. */
export function needsOrganization(config: Pick<Config, "allowedWorkspaces" | "profileBindings">): boolean {
  return [...config.allowedWorkspaces, ...Object.keys(config.profileBindings)].some((id) =>
    id.startsWith("E"),
  );
}

/** Single-workspace mode: installed; the organization of the bot token's workspace when asked for. */
export function tokenWorkspace(client: WebClient, askOrganization: boolean): WorkspaceOf {
  let own: Promise<{ teamId: string | undefined; enterpriseId: string | undefined }> | undefined;
  return async (teamId) => {
    if (!askOrganization) return { enterpriseId: undefined };
    const pending =
      own ??
      client.auth.test().then((r) => ({ teamId: r.team_id, enterpriseId: r.enterprise_id || undefined }));
    own = pending;
    try {
      const t = await pending;
      return { enterpriseId: t.teamId === teamId ? t.enterpriseId : undefined };
    } catch (err) {
      // Asked again next time; meanwhile the caller retries (nothing is decided on a failure).
      if (own === pending) own = undefined;
      throw err;
    }
  };
}
