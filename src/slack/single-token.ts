/**
 * The one bot token's authorization, for an app without installations (no OAuth).
 *
 * Given the token itself, Bolt asks Slack's auth.test while the App is built and keeps that
 * answer for good: with Slack unreachable at start-up, that was an unhandled rejection, and every
 * request after it was refused until a restart. Here auth.test is asked on the first request that
 * needs it, its answer kept once Slack gave one, and asked again on the next request after a
 * failure (requests meanwhile share the one call under way).
 *
 * The workspace (and organization) every request is decided for is the token's own, from that
 * auth.test: without it Bolt takes the payload's `team_id` / `team.id`, which in a shared channel
 * names the person's own workspace, so an admin of another organization would have counted as a
 * manager of a workspace the bot is not even in (docs/security.md, "Who is asking"). A token of an
 * organization-wide install has no one workspace: the organization is the token's, the workspace
 * the payload's, within it.
 */
import type { Authorize } from "@slack/bolt";
import type { WebClient } from "@slack/web-api";

/** What auth.test says of the token, as Bolt's context takes it (absent keys: Bolt uses the payload's). */
interface Identity {
  botId: string | undefined;
  botUserId: string | undefined;
  /** The token's workspace; absent for an organization-wide install (Bolt then takes the payload's). */
  teamId?: string;
  enterpriseId?: string;
}

function identityOf(r: {
  bot_id?: string;
  user_id?: string;
  team_id?: string;
  enterprise_id?: string;
  is_enterprise_install?: boolean;
}): Identity {
  const teamId = r.is_enterprise_install === true ? undefined : r.team_id || undefined;
  const enterpriseId = r.enterprise_id || undefined;
  return {
    botId: r.bot_id,
    botUserId: r.user_id,
    ...(teamId !== undefined ? { teamId } : {}),
    ...(enterpriseId !== undefined ? { enterpriseId } : {}),
  };
}

/** What Bolt puts in every request's context: only these fields, no open-ended record. */
interface SingleTokenAuthorization extends Identity {
  isEnterpriseInstall: boolean;
  botToken: string;
}

export function singleTokenAuthorize(client: WebClient, token: string): Authorize<boolean> {
  let identity: Promise<Identity> | undefined;
  return async ({ isEnterpriseInstall }): Promise<SingleTokenAuthorization> => {
    identity ??= client.auth.test({ token }).then(identityOf);
    const asked = identity;
    try {
      return { isEnterpriseInstall, botToken: token, ...(await asked) };
    } catch (err) {
      // Not kept: the next request asks again.
      if (identity === asked) identity = undefined;
      throw err;
    }
  };
}
