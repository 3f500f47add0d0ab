/**
 * The whole bot over real HTTP on 127.0.0.1: the platform sandbox, the Slack stand-in, a store,
 * and the bot composed by src/compose.ts (through fakes/stack.ts) on a free port. Tests send
 * correctly signed Slack requests and read what the bot answered through response_url and the
 * Web API.
 */

import { type SandboxOptions, SEED } from "../../fakes/platform/server.js";
import { blockActionsBody, sendSigned, slashCommandBody } from "../../fakes/slack/index.js";
import { type FakesAndBotParts, startFakesStack } from "../../fakes/stack.js";
import { type ComposedBot, type ComposeOptions, startComposedBot, type Tuning } from "../../src/compose.js";
import type { Config, StoreUrl } from "../../src/config.js";
import type { Logger } from "../../src/log.js";
import { knownSecrets, type ScanReport, SecretLeakError, scanForSecrets } from "./secret-scan.js";
import { pollUntil } from "./wait.js";

export const SIGNING_SECRET = "test-signing-secret-0123456789abcdef";
export const PUBLIC_URL = "https://bot.example.test";

export interface HarnessOptions {
  store?: StoreUrl;
  sandbox?: SandboxOptions;
  env?: Record<string, string>;
  platformTimeouts?: Partial<Config["platform"]["timeouts"]>;
  worker?: Tuning["worker"];
  /** Live watch tuning (tick, concurrency, least time between two updates of one message). */
  watch?: Tuning["watch"];
  /** `/live status`: how long before a slow platform is announced in place (default 10 s). */
  slowCardMs?: number;
  /** The clock of the shared reads' 10 s window (default Date.now). */
  readsClock?: () => number;
  /** Store key namespace (Redis tests share one server). */
  namespace?: string;
  /** Bound on each store operation, ms (openStore's opTimeoutMs; default 2000). */
  storeOpTimeoutMs?: number;
  /** The outbox's per-profile quota (src/notify/outbox/common.ts). */
  profileQuota?: number;
  /** HTTP server time limits (src/http/timeouts.ts). */
  httpTimeouts?: Tuning["http"];
  /**
   * Multi-workspace (OAuth) mode: the client id, secret and state secret instead of a bot token,
   * and an installation store (test/oauth/helper.ts adds the install flow on top).
   */
  oauth?: { clientId: string; clientSecret: string; stateSecret: string; encryptionKey?: string };
  /**
   * The bot token an organization-wide install of this enterprise id (the stand-in's auth.test
   * says so), for tests whose requests come from several workspaces under one token; without it
   * every request is decided for the token's one workspace (src/slack/single-token.ts).
   */
  orgWide?: string;
}

export interface Harness extends FakesAndBotParts {
  logger: Logger;
  logs: string[];
  url: string;
  eventsUrl: string;
  /** Sends a signed slash command; returns the HTTP answer and the response_url to watch. */
  slash(
    command: string,
    text: string,
    opts?: { user?: string; channel?: string; team?: string },
  ): Promise<{ status: number; body: string; ms: number; responseUrl: string }>;
  /** Sends a signed block_actions payload for a button. */
  press(
    actionId: string,
    value: string,
    opts?: { user?: string; channel?: string; team?: string; home?: boolean },
  ): Promise<{ status: number; body: string; ms: number; responseUrl: string }>;
  /** Waits for the n-th (1-based) answer on a response_url. */
  answer(responseUrl: string, n?: number): Promise<Record<string, unknown>>;
  /**
   * `/webhook set <profile>` by an admin in `channel` (default C0NEWS, the newsroom profile);
   * throws unless it was confirmed in the channel. Returns the delivery URL on this bot.
   */
  configureProfile(o?: { channel?: string; profileId?: string }): Promise<string>;
  /**
   * Closes everything, then scans the captured log lines and the Slack calls people see for every
   * known secret (test/support/secret-scan.ts) and throws SecretLeakError naming the kinds found.
   */
  close(): Promise<void>;
  /** What the scan in close() looked at (set once close() ran). */
  secretScan?: ScanReport;
}

export async function waitFor<T>(
  probe: () => T | undefined | false,
  timeoutMs = 8000,
  what = "condition",
): Promise<T> {
  return pollUntil(probe, timeoutMs, what);
}

/** Like waitFor, for a probe that must ask something asynchronously. */
export async function eventually<T>(
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 8000,
  what = "condition",
): Promise<T> {
  const started = Date.now();
  for (;;) {
    const v = await probe();
    if (v !== undefined && v !== false) return v;
    if (Date.now() - started > timeoutMs)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** One bot "process" (src/compose.ts): store, outbox, platform client, app and worker. */
export type Bot = ComposedBot;

/** One bot "process": its own store connection, outbox, platform client, app and worker. */
export async function startBot(config: Config, logger: Logger, opts: HarnessOptions = {}): Promise<Bot> {
  return startComposedBot(config, logger, composeOptions(opts));
}

/** The compose options of the harness's options (the tests' short worker timings). */
function composeOptions(opts: HarnessOptions): ComposeOptions {
  return {
    namespace: opts.namespace,
    storeOpTimeoutMs: opts.storeOpTimeoutMs,
    profileQuota: opts.profileQuota,
    worker: { postIntervalMs: 50, coalesceMs: 200, pollMs: 20, ...opts.worker },
    watch: opts.watch,
    http: opts.httpTimeouts,
    slowCardMs: opts.slowCardMs,
    readsClock: opts.readsClock,
  };
}

export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const stack = await startFakesStack({
    ...(opts.sandbox ? { sandbox: opts.sandbox } : {}),
    publicUrl: PUBLIC_URL,
    signingSecret: SIGNING_SECRET,
    store: "memory://",
    logLevel: "debug",
    botToken: !opts.oauth,
    env: {
      ...(opts.oauth
        ? {
            SLACK_CLIENT_ID: opts.oauth.clientId,
            SLACK_CLIENT_SECRET: opts.oauth.clientSecret,
            SLACK_STATE_SECRET: opts.oauth.stateSecret,
            ...(opts.oauth.encryptionKey ? { STORE_ENCRYPTION_KEY: opts.oauth.encryptionKey } : {}),
          }
        : {}),
      ...opts.env,
    },
    config: (base) => ({
      ...base,
      store: opts.store ?? base.store,
      platform: { ...base.platform, timeouts: { ...base.platform.timeouts, ...opts.platformTimeouts } },
    }),
    compose: composeOptions(opts),
  });
  const { sandbox, slack, bot, config, logger, logs } = stack;
  if (opts.orgWide !== undefined) slack.installOrgWide(opts.orgWide);
  const { store, outbox, platform, built, url } = bot;
  const eventsUrl = `${url}/slack/events`;
  const team = slack.teamId;

  const harness: Harness = {
    sandbox,
    slack,
    store,
    outbox,
    platform,
    built,
    config,
    logger,
    logs,
    url,
    eventsUrl,
    async slash(command, text, o = {}) {
      const responseUrl = slack.newResponseUrl(o.channel ?? "C0GENERAL", o.user ?? "U0ADMIN");
      const body = slashCommandBody({
        command,
        text,
        userId: o.user ?? "U0ADMIN",
        teamId: o.team ?? team,
        channelId: o.channel ?? "C0GENERAL",
        responseUrl,
      });
      const res = await sendSigned(eventsUrl, body, SIGNING_SECRET);
      return { ...res, responseUrl };
    },
    async press(actionId, value, o = {}) {
      const responseUrl = slack.newResponseUrl(o.channel ?? "C0GENERAL", o.user ?? "U0ADMIN");
      const body = blockActionsBody({
        actionId,
        value,
        userId: o.user ?? "U0ADMIN",
        teamId: o.team ?? team,
        channelId: o.channel ?? "C0GENERAL",
        responseUrl,
        ...(o.home
          ? {
              container: { type: "view", view_id: "V0HOME" },
              view: { id: "V0HOME", type: "home", team_id: o.team ?? team, blocks: [] },
            }
          : {}),
      });
      const res = await sendSigned(eventsUrl, body, SIGNING_SECRET);
      return { ...res, responseUrl };
    },
    answer(responseUrl, n = 1) {
      return waitFor(() => slack.responses(responseUrl)[n - 1], 8000, `answer ${n} on ${responseUrl}`);
    },
    async configureProfile(o = {}) {
      const profileId = o.profileId ?? SEED.profiles.newsroom;
      const res = await this.slash("/webhook", `set ${profileId}`, {
        user: "U0ADMIN",
        channel: o.channel ?? "C0NEWS",
      });
      const answer = await this.answer(res.responseUrl);
      if (answer.response_type !== "in_channel")
        throw new Error(`webhook set failed: ${JSON.stringify(answer)}`);
      const url = sandbox.state.profiles.get(profileId)?.webhook.callback_url ?? "";
      if (!url.startsWith(PUBLIC_URL)) throw new Error(`profile ${profileId} does not point at the bot`);
      return `${bot.url}${url.slice(PUBLIC_URL.length)}`;
    },
    async close() {
      await stack.close();
      const report = scanForSecrets(knownSecrets({ config, sandbox, slack }), logs, slack.calls);
      harness.secretScan = report;
      if (report.leaks.length > 0) throw new SecretLeakError(report.leaks);
    },
  };
  return harness;
}
