/**
 * buildApp(config, deps): the Bolt app with its receiver, routes and listeners, without listening.
 * `src/index.ts` listens; tests build the app with a sandbox platform, a memory or Redis store
 * and a Slack stand-in, and talk to it over real HTTP.
 */
import type { Server } from "node:http";
import { App, type CustomRoute, HTTPReceiver, SocketModeReceiver } from "@slack/bolt";
import type { Config } from "./config.js";
import type { Logger } from "./log.js";
import type { PlatformClient } from "./platform/index.js";
import { boltLogger } from "./slack/bolt-logger.js";
import type { BotDeps } from "./slack/context.js";
import { registerListeners } from "./slack/listeners/index.js";
import { ManagerPolicy } from "./slack/managers.js";
import type { RouteRepo, SettingsRepo } from "./store/index.js";

export interface AppCollaborators {
  platform: PlatformClient;
  settings: SettingsRepo;
  routes: RouteRepo;
  logger: Logger;
  now?: () => Date;
  /** users.info cache lifetime (tests shorten it). */
  managerCacheTtlMs?: number;
}

export interface BuiltApp {
  app: App;
  deps: BotDeps;
  /** Starts listening on config.port/host (0 = a free port); resolves with the HTTP server. */
  start(): Promise<Server | undefined>;
  stop(): Promise<void>;
}

function healthRoutes(): CustomRoute[] {
  return [
    {
      path: "/healthz",
      method: ["GET"],
      handler: (_req, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ status: "ok" }));
      },
    },
  ];
}

export function buildApp(config: Config, c: AppCollaborators): BuiltApp {
  if (config.slack.mode === "oauth") {
    throw new Error(
      "Multi-workspace (OAuth) mode is not available in this version yet; set SLACK_BOT_TOKEN for single-workspace mode",
    );
  }
  const logger = c.logger;
  const deps: BotDeps = {
    config,
    platform: c.platform,
    settings: c.settings,
    routes: c.routes,
    logger,
    now: c.now ?? (() => new Date()),
    managers: new ManagerPolicy({
      managerUserIds: config.managerUserIds,
      settings: c.settings,
      logger,
      cacheTtlMs: c.managerCacheTtlMs,
    }),
  };
  const blogger = boltLogger(logger);
  const customRoutes = healthRoutes();
  const clientOptions = {
    slackApiUrl: config.slack.apiUrl,
    // Bounded: a Web API call never keeps a listener for minutes.
    timeout: 10_000,
    retryConfig: { retries: 2, factor: 2, minTimeout: 500, maxTimeout: 5_000 },
  };

  let app: App;
  let start: () => Promise<Server | undefined>;
  if (config.slack.appToken) {
    const receiver = new SocketModeReceiver({
      appToken: config.slack.appToken,
      logger: blogger,
      customRoutes,
      installerOptions: { port: config.port },
    });
    app = new App({ receiver, token: config.slack.botToken, logger: blogger, clientOptions });
    start = async () => {
      await app.start();
      return undefined;
    };
  } else {
    const receiver = new HTTPReceiver({
      signingSecret: config.slack.signingSecret,
      endpoints: "/slack/events",
      customRoutes,
      logger: blogger,
      processBeforeResponse: false,
    });
    app = new App({ receiver, token: config.slack.botToken, logger: blogger, clientOptions });
    start = () => receiver.start({ port: config.port, host: config.host });
  }

  app.error(async (err) => {
    logger.error({ err }, "unhandled error in a Slack listener");
  });
  registerListeners(app, deps);

  return {
    app,
    deps,
    start,
    stop: () => app.stop().then(() => undefined),
  };
}
