/**
 * Multi-workspace (OAuth) mode: the options of Bolt's installer (install page, redirect, state
 * cookie, installation store), the pages a person sees after installing, and the notification
 * worker's Web API client per workspace.
 * More: README.md ("oauth.ts").
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { HTTPReceiverOptions, Installation } from "@slack/bolt";
import { WebClient, type WebClientOptions, LogLevel as WebLogLevel } from "@slack/web-api";
import type { Config } from "../config.js";
import type { Logger } from "../log.js";
import { slackFetch } from "../posting/index.js";
import { InstallationMissingError, type InstallationRepo } from "../store/index.js";
import { rotatingInstallationStore, type TokenRotation } from "./rotation.js";

/** The bot scopes of manifest.yml (oauth_config.scopes.bot); a test keeps the two equal. */
type InstallerOptions = NonNullable<HTTPReceiverOptions["installerOptions"]>;
type CallbackOptions = NonNullable<InstallerOptions["callbackOptions"]>;

export const BOT_SCOPES = [
  "commands",
  "chat:write",
  "chat:write.public",
  "im:write",
  "users:read",
  "links:read",
  "links:write",
  "channels:history",
  "groups:history",
];
export const INSTALL_PATH = "/slack/install";
export const REDIRECT_PATH = "/slack/oauth_redirect";

/** Web API client options of the notification worker: it paces and retries per channel itself. */
export function workerClientOptions(apiUrl: string): WebClientOptions {
  return {
    slackApiUrl: apiUrl,
    fetch: slackFetch,
    timeout: 10_000,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    logLevel: WebLogLevel.ERROR,
  };
}

function escapeHtml(s: string): string {
  return s.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );
}

function page(res: ServerResponse, status: number, title: string, body: string): void {
  const html = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#1d1c1d}code{background:#f4f4f4;padding:0 .25em;border-radius:3px}</style>
</head><body><h1>${escapeHtml(title)}</h1>
${body}
</body></html>`;
  res.writeHead(status, {
    "content-type": "text/html; charset=utf-8",
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    "content-security-policy": "default-src 'none'; style-src 'unsafe-inline'",
  });
  res.end(html);
}

/** Why an install failed, in words, from Bolt's error code. */
function failureText(code: string | undefined): string {
  switch (code) {
    case "slack_oauth_invalid_state":
    case "slack_oauth_missing_state":
      return "This installation link has expired or was opened in another browser. Start again from the install page, in the same browser.";
    case "slack_oauth_installer_authorization_error":
      return "The installation was cancelled or not authorized. Start again from the install page if you meant to install the app.";
    case "slack_oauth_missing_code":
      return "Slack did not send an authorization code. Start again from the install page.";
    default:
      return "Slack did not accept the installation (the authorization code may have expired or been used already). Start again from the install page; if it keeps failing, tell the bot's operator (the details are in the bot's logs).";
  }
}

/** Whether a workspace may install (ALLOWED_WORKSPACES); the same rule as src/access. */
export type InstallAllowed = (teamId: string | undefined, enterpriseId: string | undefined) => boolean;

/** Revokes a token Slack issued (auth.revoke): a refused installation's, which nothing keeps. */
export type RevokeToken = (token: string) => Promise<void>;

export function callbackOptions(
  logger: Logger,
  allowed: InstallAllowed = () => true,
  revoke?: RevokeToken,
): CallbackOptions {
  return {
    // Runs after oauth.v2.access and before the installation store is written: answering false
    // (with the page written here) makes Bolt's installer return without storing anything.
    afterInstallation: async (installation, _options, _req, res) => {
      const teamId = installation.team?.id;
      const enterpriseId = installation.enterprise?.id;
      if (allowed(teamId, enterpriseId)) return true;
      logger.warn(
        { team: teamId, enterprise: enterpriseId, installer: installation.user?.id },
        "installation refused: the workspace is not in ALLOWED_WORKSPACES; nothing stored",
      );
      // Slack issued tokens before the refusal: revoked at once, so none stays valid unkept.
      for (const token of [installation.bot?.token, installation.user?.token]) {
        if (!token || !revoke) continue;
        await revoke(token).catch((err: unknown) =>
          logger.warn({ err, team: teamId }, "could not revoke the refused installation's token"),
        );
      }
      const name = installation.team?.name ?? installation.enterprise?.name ?? "This workspace";
      const id = teamId ?? enterpriseId ?? "unknown";
      page(
        res,
        403,
        "Installation refused",
        `<p><strong>${escapeHtml(name)}</strong> (<code>${escapeHtml(id)}</code>) is not allowed to install this app: the bot's operator has not listed this workspace in <code>ALLOWED_WORKSPACES</code>.</p>
<p>Nothing was stored and the app is not active in this workspace. If it should be, ask the bot's operator to add <code>${escapeHtml(id)}</code> to <code>ALLOWED_WORKSPACES</code>, then install again.</p>`,
      );
      return false;
    },
    success: (installation: Installation, _options, _req: IncomingMessage, res: ServerResponse) => {
      const org = installation.isEnterpriseInstall === true;
      logger.info(
        {
          team: installation.team?.id,
          enterprise: installation.enterprise?.id,
          orgWide: org,
          installer: installation.user?.id,
          scopes: installation.bot?.scopes,
        },
        "app installed",
      );
      const where = installation.team?.name ?? installation.enterprise?.name ?? "your workspace";
      page(
        res,
        200,
        "Installed",
        `<p>The app is installed in <strong>${escapeHtml(where)}</strong>. You can close this page and go back to Slack.</p>
<p>Next: in the channel that should get the notifications, run <code>/webhook set &lt;profile_id&gt;</code>
(a workspace admin or owner, or a manager they add). <code>/live status &lt;livestream id&gt;</code> works for everyone;
<code>/webhook help</code> lists the rest.</p>`,
      );
    },
    failure: (error, _options, _req: IncomingMessage, res: ServerResponse) => {
      logger.warn({ code: error.code, reason: error.message }, "app installation failed");
      page(
        res,
        400,
        "Installation did not complete",
        `<p>${escapeHtml(failureText(error.code))}</p><p><a href="${INSTALL_PATH}">Install page</a></p>`,
      );
    },
  };
}

/** The OAuth part of the receiver's options (HTTP or Socket Mode). */
export function oauthReceiverOptions(
  config: Config,
  installations: InstallationRepo,
  logger: Logger,
  allowed?: InstallAllowed,
  rotation?: TokenRotation,
): Pick<
  HTTPReceiverOptions,
  "clientId" | "clientSecret" | "stateSecret" | "scopes" | "installationStore" | "redirectUri"
> & { installerOptions: InstallerOptions } {
  return {
    clientId: config.slack.clientId,
    clientSecret: config.slack.clientSecret,
    stateSecret: config.slack.stateSecret,
    scopes: BOT_SCOPES,
    // Fetching an installation refreshes its bot token first when it is about to expire.
    installationStore: rotatingInstallationStore(installations, rotation),
    redirectUri: `${config.publicUrl}${REDIRECT_PATH}`,
    installerOptions: {
      installPath: INSTALL_PATH,
      redirectUriPath: REDIRECT_PATH,
      directInstall: true,
      // oauth.v2.access and auth.test go to SLACK_API_URL, like every other Web API call.
      clientOptions: { slackApiUrl: config.slack.apiUrl, fetch: slackFetch, timeout: 10_000 },
      callbackOptions: callbackOptions(logger, allowed, async (token) => {
        await new WebClient(token, workerClientOptions(config.slack.apiUrl)).auth.revoke();
      }),
    },
  };
}

/**
 * The worker's client per workspace, built from its installation's bot token, read through the
 * installations' one cache (`InstallationRepo.cached`: at most `ttlMs` old, so a reinstall's new
 * token is picked up by then; at once when this process stores or deletes the installation). An
 * expiring token is refreshed first (token rotation); one client is kept per workspace while its
 * token stays the same. Throws InstallationMissingError without an installation.
 */
export function workspaceClients(
  installations: InstallationRepo,
  apiUrl: string,
  ttlMs?: number,
  rotation?: TokenRotation,
): (teamId: string) => Promise<WebClient> {
  const clients = new Map<string, { token: string; client: WebClient }>();
  return async (teamId) => {
    const found = await installations.cached(teamId, ttlMs);
    const installation = found && rotation ? await rotation.fresh(found) : found;
    // Refreshed by another replica (nothing stored by this one): read again next time.
    if (installation !== found) installations.forget(teamId);
    const token = installation?.bot?.token;
    if (!token) {
      clients.delete(teamId);
      throw new InstallationMissingError(`workspace ${teamId}`);
    }
    const hit = clients.get(teamId);
    if (hit?.token === token) return hit.client;
    const client = new WebClient(token, workerClientOptions(apiUrl));
    clients.set(teamId, { token, client });
    return client;
  };
}
