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

/**
 * Multi-workspace mode: from the workspace's installation, read through the installations' one
 * cache (`InstallationRepo.cached`, at most `ttlMs` old; this process's changes seen at once).
 */
export function installedWorkspaces(installations: InstallationRepo, ttlMs?: number): WorkspaceOf {
  return async (teamId) => {
    const installation = await installations.cached(teamId, ttlMs);
    return installation ? { enterpriseId: installation.enterprise?.id } : null;
  };
}

/** Whether some allowed or bound id is an organization's (E…): only then is the organization asked. */
export function needsOrganization(config: {
  access: Pick<Config["access"], "allowedWorkspaces" | "profileBindings">;
}): boolean {
  return [...config.access.allowedWorkspaces, ...Object.keys(config.access.profileBindings)].some((id) =>
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
