/**
 * buildApp(config, deps): the Bolt app with its receiver, routes and listeners, without listening.
 * `src/index.ts` listens; tests build the app with a sandbox platform, a memory or Redis store
 * and a Slack stand-in, and talk to it over real HTTP.
 */
import type { Server } from "node:http";
import { App, type CustomRoute, HTTPReceiver, SocketModeReceiver } from "@slack/bolt";
import { WebClient, LogLevel as WebLogLevel } from "@slack/web-api";
import type { Config } from "./config.js";
import type { Logger } from "./log.js";
import { ChannelGate } from "./notify/gate.js";
import type { Outbox } from "./notify/types.js";
import { NotifyWorker, type WorkerOptions } from "./notify/worker.js";
import type { PlatformClient } from "./platform/index.js";
import { boltLogger } from "./slack/bolt-logger.js";
import type { BotDeps } from "./slack/context.js";
import { registerListeners } from "./slack/listeners/index.js";
import { ManagerPolicy } from "./slack/managers.js";
import type { ActivityRepo, RouteRepo, SettingsRepo } from "./store/index.js";
import { createIngestor } from "./webhooks/receive.js";

export interface AppCollaborators {
  platform: PlatformClient;
  settings: SettingsRepo;
  routes: RouteRepo;
  outbox: Outbox;
  /** Per-profile counters shown on the App Home. */
  activity?: ActivityRepo;
  logger: Logger;
  now?: () => Date;
  /** Worker tuning (tests shorten the coalescing window and the channel pace). */
  worker?: Partial<Pick<WorkerOptions, "coalesceMs" | "pollMs" | "leaseMs" | "concurrency" | "owner">> & {
    postIntervalMs?: number;
    /** Do not start the worker with the app (tests drive it with drain()). */
    manual?: boolean;
  };
  /** users.info cache lifetime (tests shorten it). */
  managerCacheTtlMs?: number;
}

export interface BuiltApp {
  app: App;
  deps: BotDeps;
  worker: NotifyWorker;
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
  const ingestor = createIngestor({
    routes: c.routes,
    outbox: c.outbox,
    logger,
    allowedIps: config.webhookAllowedIps,
    trustProxy: config.trustProxy,
  });
  const workerClient = new WebClient(config.slack.botToken, {
    slackApiUrl: config.slack.apiUrl,
    timeout: 10_000,
    // The worker paces each channel itself: no client-side retries or queue-wide pauses.
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    logLevel: WebLogLevel.ERROR,
  });
  const worker = new NotifyWorker({
    outbox: c.outbox,
    slackFor: async () => workerClient,
    settings: c.settings,
    activity: c.activity,
    gate: new ChannelGate({ postIntervalMs: c.worker?.postIntervalMs }),
    logger: logger.child({ component: "notify" }),
    managerUserIds: config.managerUserIds,
    coalesceMs: c.worker?.coalesceMs,
    pollMs: c.worker?.pollMs,
    leaseMs: c.worker?.leaseMs,
    concurrency: c.worker?.concurrency,
    owner: c.worker?.owner,
  });
  const deps: BotDeps = {
    config,
    platform: c.platform,
    settings: c.settings,
    routes: c.routes,
    outbox: c.outbox,
    activity: c.activity,
    ingest: async (token, body) => {
      const r = await ingestor.ingest(token, body);
      worker.kick();
      return r;
    },
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
  const deliveryRoute = ingestor.route;
  const customRoutes = [
    ...healthRoutes(),
    {
      ...deliveryRoute,
      handler: (
        req: Parameters<typeof deliveryRoute.handler>[0],
        res: Parameters<typeof deliveryRoute.handler>[1],
      ) => {
        res.on("finish", () => worker.kick());
        deliveryRoute.handler(req, res);
      },
    },
  ];
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
      if (!c.worker?.manual) worker.start();
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
    start = async () => {
      const server = await receiver.start({ port: config.port, host: config.host });
      if (!c.worker?.manual) worker.start();
      return server;
    };
  }

  app.error(async (err) => {
    logger.error({ err }, "unhandled error in a Slack listener");
  });
  registerListeners(app, deps);
  let stopped = false;

  return {
    app,
    deps,
    worker,
    start,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await worker.stop();
      await app.stop();
    },
  };
}
