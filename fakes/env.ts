/**
 * The environment that points a bot at the fakes: the platform sandbox (fakes/platform) and the
 * Slack stand-in (fakes/slack). The demo, the test harness, the benchmarks and the tests that
 * start the bot as a process all build their variables here, then add their own on top.
 */
import type { Sandbox } from "./platform/server.js";
import type { SlackStandin } from "./slack/index.js";

export interface BotEnvOptions {
  sandbox: Pick<Sandbox, "url" | "apiUrl" | "clientId" | "clientSecret">;
  slack: Pick<SlackStandin, "apiUrl" | "botToken">;
  /** PUBLIC_URL: the address the platform is told to call. */
  publicUrl: string;
  signingSecret: string;
  /** STORE_URL (left unset when not given: the bot's default). */
  store?: string;
  /** LOG_LEVEL (left unset when not given). */
  logLevel?: string;
  /** false: no SLACK_BOT_TOKEN (multi-workspace OAuth mode, Socket Mode tests). Default true. */
  botToken?: boolean;
}

export function botEnvForFakes(o: BotEnvOptions): Record<string, string> {
  return {
    PUBLIC_URL: o.publicUrl,
    SLACK_SIGNING_SECRET: o.signingSecret,
    ...(o.botToken === false ? {} : { SLACK_BOT_TOKEN: o.slack.botToken }),
    SLACK_API_URL: o.slack.apiUrl,
    PLATFORM_API_URL: o.sandbox.apiUrl,
    PLATFORM_AUTH_URL: o.sandbox.url,
    PLATFORM_CLIENT_ID: o.sandbox.clientId,
    PLATFORM_CLIENT_SECRET: o.sandbox.clientSecret,
    ...(o.store ? { STORE_URL: o.store } : {}),
    ...(o.logLevel ? { LOG_LEVEL: o.logLevel } : {}),
  };
}
