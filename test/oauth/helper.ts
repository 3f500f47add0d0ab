/**
 * The bot in multi-workspace (OAuth) mode over real HTTP on 127.0.0.1: the platform sandbox, the
 * Slack stand-in (which implements oauth.v2.access for the code "good-code"), a store, and the
 * app built by buildApp with an installation store. Workspace A (the stand-in's team) installs
 * through the real OAuth flow; `addWorkspace` stores another workspace's installation directly
 * (the stand-in issues tokens for its own team only), with the stand-in's default bot token.
 */
import type { AddressInfo } from "node:net";
import type { Installation } from "@slack/bolt";
import { request } from "undici";
import { type BuiltApp, buildApp } from "../../src/app.js";
import { type Config, loadConfig } from "../../src/config.js";
import { createLogger, type Logger } from "../../src/log.js";
import { Metrics } from "../../src/metrics.js";
import { createOutbox } from "../../src/notify/outbox/index.js";
import type { Outbox } from "../../src/notify/types.js";
import { createPlatformClient, type PlatformClient } from "../../src/platform/index.js";
import { type Sandbox, startSandbox } from "../../src/sandbox/server.js";
import {
  blockActionsBody,
  eventBody,
  type SlackStandin,
  STANDIN,
  sendSigned,
  slashCommandBody,
  startSlackStandin,
} from "../../src/standin/index.js";
import {
  ActivityRepo,
  InstallationRepo,
  openStore,
  RouteRepo,
  SettingsRepo,
  type Store,
} from "../../src/store/index.js";
import { waitFor } from "../support/harness.js";

export const SIGNING_SECRET = "oauth-test-signing-secret-0123456789";
export const PUBLIC_URL = "https://bot.example.test";
export const CLIENT_ID = "1111.2222";
export const CLIENT_SECRET = "oauth-client-secret-abcdef";
export const STATE_SECRET = "oauth-state-secret-0123456789abcdef";
export const ENCRYPTION_KEY = "test-store-encryption-key-0123456789abcdefgh";

export interface OAuthBot {
  sandbox: Sandbox;
  slack: SlackStandin;
  store: Store;
  outbox: Outbox;
  platform: PlatformClient;
  installations: InstallationRepo;
  built: BuiltApp;
  config: Config;
  logs: string[];
  url: string;
  /** GET /slack/install: the redirect and the state cookie. */
  beginInstall(): Promise<{ status: number; location: string; state: string; cookie: string }>;
  /** GET /slack/oauth_redirect with the given query and cookie. */
  redirect(query: Record<string, string>, cookie?: string): Promise<{ status: number; body: string }>;
  /** The whole flow for the stand-in's workspace with the good code; resolves with the page. */
  install(): Promise<{ status: number; body: string }>;
  /** Stores an installation for another workspace, using the stand-in's default bot token. */
  addWorkspace(teamId: string): Promise<void>;
  slash(
    command: string,
    text: string,
    o: { team: string; user: string; channel: string },
  ): Promise<{ status: number; responseUrl: string }>;
  press(
    actionId: string,
    value: string,
    o: { team: string; user: string; channel: string },
  ): Promise<{ status: number; responseUrl: string }>;
  event(event: Record<string, unknown>, teamId: string): Promise<{ status: number }>;
  answer(responseUrl: string, n?: number): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export async function startOAuthBot(
  opts: { encryptionKey?: string; namespace?: string; manualWorker?: boolean } = {},
): Promise<OAuthBot> {
  const sandbox = await startSandbox();
  const slack = await startSlackStandin();
  const base = loadConfig({
    PUBLIC_URL,
    SLACK_SIGNING_SECRET: SIGNING_SECRET,
    SLACK_CLIENT_ID: CLIENT_ID,
    SLACK_CLIENT_SECRET: CLIENT_SECRET,
    SLACK_STATE_SECRET: STATE_SECRET,
    SLACK_API_URL: slack.apiUrl,
    PLATFORM_API_URL: sandbox.apiUrl,
    PLATFORM_AUTH_URL: sandbox.url,
    PLATFORM_CLIENT_ID: sandbox.clientId,
    PLATFORM_CLIENT_SECRET: sandbox.clientSecret,
    STORE_URL: "memory://",
    LOG_LEVEL: "debug",
    ...(opts.encryptionKey ? { STORE_ENCRYPTION_KEY: opts.encryptionKey } : {}),
  });
  const config: Config = { ...base, port: 0, host: "127.0.0.1" };
  const logs: string[] = [];
  const logger: Logger = createLogger({
    level: "debug",
    destination: { write: (s: string) => void logs.push(s) },
    secrets: [config.platform.clientSecret, config.slack.signingSecret, CLIENT_SECRET, STATE_SECRET],
  });
  const store = await openStore(config.store, logger, opts.namespace ? { namespace: opts.namespace } : {});
  const outbox = await createOutbox(store, logger);
  const metrics = new Metrics();
  const platform = createPlatformClient(config.platform, logger);
  const installations = new InstallationRepo(store, logger, { encryptionKey: config.storeEncryptionKey });
  const built = buildApp(config, {
    platform,
    outbox,
    metrics,
    pingStore: () => store.ping(),
    worker: { postIntervalMs: 20, coalesceMs: 100, pollMs: 20, manual: opts.manualWorker },
    settings: new SettingsRepo(store, logger),
    routes: new RouteRepo(store, logger),
    activity: new ActivityRepo(store, logger),
    installations,
    logger,
  });
  const server = await built.start();
  const url = `http://127.0.0.1:${(server?.address() as AddressInfo | undefined)?.port ?? 0}`;
  const eventsUrl = `${url}/slack/events`;

  const get = async (path: string, headers: Record<string, string> = {}) => {
    const res = await request(`${url}${path}`, { method: "GET", headers });
    return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
  };

  const bot: OAuthBot = {
    sandbox,
    slack,
    store,
    outbox,
    platform,
    installations,
    built,
    config,
    logs,
    url,
    async beginInstall() {
      const r = await get("/slack/install");
      const location = String(r.headers.location ?? "");
      const setCookie = [r.headers["set-cookie"] ?? []].flat().join("\n");
      const state = new URL(location || "https://invalid/").searchParams.get("state") ?? "";
      const cookie = /slack-app-oauth-state=([^;]+)/.exec(setCookie)?.[0] ?? "";
      return { status: r.status, location, state, cookie: cookie || setCookie };
    },
    async redirect(query, cookie) {
      const r = await get(
        `/slack/oauth_redirect?${new URLSearchParams(query).toString()}`,
        cookie ? { cookie } : {},
      );
      return { status: r.status, body: r.body };
    },
    async install() {
      const b = await bot.beginInstall();
      return bot.redirect({ code: STANDIN.goodCode, state: b.state }, b.cookie);
    },
    async addWorkspace(teamId) {
      const installation: Installation = {
        team: { id: teamId, name: `Workspace ${teamId}` },
        enterprise: undefined,
        user: { id: `U0${teamId.slice(1)}ADM`, token: undefined, scopes: undefined },
        bot: {
          token: slack.botToken,
          scopes: STANDIN.scope.split(","),
          userId: STANDIN.botUserId,
          id: STANDIN.botId,
        },
        isEnterpriseInstall: false,
        appId: STANDIN.appId,
        tokenType: "bot",
        authVersion: "v2",
      };
      await installations.storeInstallation(installation);
    },
    async slash(command, text, o) {
      const responseUrl = slack.newResponseUrl(o.channel, o.user);
      const body = slashCommandBody({
        command,
        text,
        userId: o.user,
        teamId: o.team,
        channelId: o.channel,
        responseUrl,
      });
      const res = await sendSigned(eventsUrl, body, SIGNING_SECRET);
      return { status: res.status, responseUrl };
    },
    async press(actionId, value, o) {
      const responseUrl = slack.newResponseUrl(o.channel, o.user);
      const body = blockActionsBody({
        actionId,
        value,
        userId: o.user,
        teamId: o.team,
        channelId: o.channel,
        responseUrl,
      });
      const res = await sendSigned(eventsUrl, body, SIGNING_SECRET);
      return { status: res.status, responseUrl };
    },
    async event(event, teamId) {
      const res = await sendSigned(eventsUrl, eventBody({ event, teamId }), SIGNING_SECRET);
      return { status: res.status };
    },
    answer(responseUrl, n = 1) {
      return waitFor(() => slack.responses(responseUrl)[n - 1], 8000, `answer ${n} on ${responseUrl}`);
    },
    async close() {
      await built.stop();
      await platform.close();
      await outbox.close();
      await store.close();
      await slack.close();
      await sandbox.close();
    },
  };
  return bot;
}

/** The platform-facing callback URL's path on this bot (PUBLIC_URL replaced by the local URL). */
export function localHook(bot: OAuthBot, callbackUrl: string): string {
  return `${bot.url}${callbackUrl.slice(PUBLIC_URL.length)}`;
}

/** A `video.created` delivery for `profileId` to the callback the platform has for it; the status. */
export async function deliverCreated(bot: OAuthBot, profileId: string, videoId: string): Promise<number> {
  const url = bot.sandbox.state.profiles.get(profileId)?.webhook.callback_url ?? "";
  const res = await request(localHook(bot, url), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      type: "video.created",
      timestamp: Date.now(),
      data: { owner_id: profileId, video_id: videoId },
    }),
  });
  await res.body.dump();
  return res.statusCode;
}
