/** For the token rotation tests: oauth.v2.access on the Slack stand-in, and an installation from its answer. */
import type { Installation } from "@slack/bolt";
import { request } from "undici";
import { type SlackStandin, STANDIN } from "../../fakes/slack/index.js";
import { CLIENT_ID, CLIENT_SECRET } from "./helper.js";

/** oauth.v2.access on the stand-in, as Slack's client would call it; the JSON answer. */
export async function oauthAccess(
  slack: SlackStandin,
  form: Record<string, string>,
): Promise<Record<string, unknown>> {
  const res = await request(`${slack.apiUrl}oauth.v2.access`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ client_id: CLIENT_ID, client_secret: CLIENT_SECRET, ...form }).toString(),
  });
  return (await res.body.json()) as Record<string, unknown>;
}

/** The stand-in workspace's installation with a freshly granted rotating pair (rotation must be on). */
export async function grantedInstallation(slack: SlackStandin): Promise<Installation> {
  const granted = await oauthAccess(slack, { code: STANDIN.goodCode });
  if (granted.ok !== true) throw new Error(`oauth.v2.access refused: ${JSON.stringify(granted)}`);
  return {
    team: { id: slack.teamId, name: STANDIN.teamName },
    enterprise: undefined,
    user: { id: STANDIN.installingUser, token: undefined, scopes: undefined },
    bot: {
      token: String(granted.access_token),
      refreshToken: String(granted.refresh_token),
      expiresAt: Math.floor(Date.now() / 1000) + Number(granted.expires_in),
      scopes: STANDIN.scope.split(","),
      userId: STANDIN.botUserId,
      id: STANDIN.botId,
    },
    isEnterpriseInstall: false,
    appId: STANDIN.appId,
    tokenType: "bot",
    authVersion: "v2",
  };
}
