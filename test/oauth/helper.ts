/**
 * The bot in multi-workspace (OAuth) mode over real HTTP on 127.0.0.1: the shared harness
 * (test/support/harness.ts: platform sandbox, Slack stand-in, store, the leak check at close) in
 * OAuth mode, plus the install flow. Workspace A (the stand-in's team) installs through the real
 * OAuth flow (the stand-in implements oauth.v2.access for the code "good-code"); `addWorkspace`
 * stores another workspace's installation directly (the stand-in issues tokens for its own team
 * only), with the stand-in's default bot token.
 */
import type { Installation } from "@slack/bolt";
import { request } from "undici";
import { SEED } from "../../fakes/platform/server.js";
import { eventBody, STANDIN, sendSigned } from "../../fakes/slack/index.js";
import type { StoreUrl } from "../../src/config.js";
import type { InstallationRepo } from "../../src/store/index.js";
import {
  type Harness,
  type HarnessOptions,
  PUBLIC_URL,
  SIGNING_SECRET,
  startHarness,
} from "../support/harness.js";

export { PUBLIC_URL, SIGNING_SECRET };
export const CLIENT_ID = "1111.2222";
export const CLIENT_SECRET = "oauth-client-secret-abcdef";
export const STATE_SECRET = "oauth-state-secret-0123456789abcdef";
export const ENCRYPTION_KEY = "test-store-encryption-key-0123456789abcdefgh";

export interface OAuthBot extends Harness {
  installations: InstallationRepo;
  /** GET /slack/install: the redirect and the state cookie. */
  beginInstall(): Promise<{ status: number; location: string; state: string; cookie: string }>;
  /** GET /slack/oauth_redirect with the given query and cookie. */
  redirect(query: Record<string, string>, cookie?: string): Promise<{ status: number; body: string }>;
  /**
   * The whole flow with the good code, for the stand-in's workspace or (teamId) another one the
   * stand-in then issues a token for; resolves with the page.
   */
  install(teamId?: string): Promise<{ status: number; body: string }>;
  /** Stores an installation for another workspace, using the stand-in's default bot token. */
  addWorkspace(teamId: string): Promise<void>;
  event(event: Record<string, unknown>, teamId: string): Promise<{ status: number }>;
}

/** The workspaces the OAuth suites use, and the seeded profiles both may read and change. */
export const OAUTH_ENV = {
  ALLOWED_WORKSPACES: "T0STANDIN,T0BETA",
  PROFILE_BINDINGS: `T0STANDIN=${SEED.profiles.newsroom},${SEED.profiles.studio};T0BETA=${SEED.profiles.newsroom},${SEED.profiles.studio}`,
};

export async function startOAuthBot(
  opts: {
    encryptionKey?: string;
    namespace?: string;
    manualWorker?: boolean;
    env?: Record<string, string>;
    /** Default memory://; a sqlite file lets a test restart the bot on the same store. */
    store?: StoreUrl;
    /** Live watch tuning (`manual`: the poller is not started with the app). */
    watch?: HarnessOptions["watch"];
    /** The clock of the shared reads' 10 s window (default Date.now). */
    readsClock?: HarnessOptions["readsClock"];
  } = {},
): Promise<OAuthBot> {
  const h = await startHarness({
    env: { ...OAUTH_ENV, ...opts.env },
    ...(opts.store ? { store: opts.store } : {}),
    oauth: {
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      stateSecret: STATE_SECRET,
      ...(opts.encryptionKey ? { encryptionKey: opts.encryptionKey } : {}),
    },
    ...(opts.namespace ? { namespace: opts.namespace } : {}),
    ...(opts.watch ? { watch: opts.watch } : {}),
    ...(opts.readsClock ? { readsClock: opts.readsClock } : {}),
    worker: { postIntervalMs: 20, coalesceMs: 100, pollMs: 20, manual: opts.manualWorker },
  });
  const installations = h.built.deps.installations;
  if (!installations) throw new Error("the harness did not build an installation store");
  const { slack } = h;

  const get = async (path: string, headers: Record<string, string> = {}) => {
    const res = await request(`${h.url}${path}`, { method: "GET", headers });
    return { status: res.statusCode, headers: res.headers, body: await res.body.text() };
  };

  const extra: Omit<OAuthBot, keyof Harness> = {
    installations,
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
    async install(teamId) {
      const b = await bot.beginInstall();
      const code = teamId ? `${STANDIN.goodCode}:${teamId}` : STANDIN.goodCode;
      return bot.redirect({ code, state: b.state }, b.cookie);
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
    async event(event, teamId) {
      const res = await sendSigned(h.eventsUrl, eventBody({ event, teamId }), SIGNING_SECRET);
      return { status: res.status };
    },
  };
  const bot: OAuthBot = Object.assign(h, extra);
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
