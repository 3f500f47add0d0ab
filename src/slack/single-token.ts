/**
 * The one bot token's authorization, for an app without installations (no OAuth).
 *
 * Given the token itself, Bolt asks Slack's auth.test while the App is built and keeps that
 * answer for good: with Slack unreachable at start-up, that was an unhandled rejection, and every
 * request after it was refused until a restart. Here auth.test is asked on the first request that
 * needs it, its answer kept once Slack gave one, and asked again on the next request after a
 * failure (requests meanwhile share the one call under way).
 */
import type { Authorize } from "@slack/bolt";
import type { WebClient } from "@slack/web-api";

interface Identity {
  botId: string | undefined;
  botUserId: string | undefined;
}

/** What Bolt puts in every request's context: only these fields, no open-ended record. */
interface SingleTokenAuthorization extends Identity {
  isEnterpriseInstall: boolean;
  botToken: string;
}

export function singleTokenAuthorize(client: WebClient, token: string): Authorize<boolean> {
  let identity: Promise<Identity> | undefined;
  return async ({ isEnterpriseInstall }): Promise<SingleTokenAuthorization> => {
    identity ??= client.auth.test({ token }).then((r) => ({ botId: r.bot_id, botUserId: r.user_id }));
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
