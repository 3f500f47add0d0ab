/**
 * buildApp(config, deps): the Bolt app with its receiver, routes and listeners, without listening.
 * `src/index.ts` listens; tests build the app with a sandbox platform, a memory or Redis store
 * and a Slack stand-in, and talk to it over real HTTP.
 */
import type { Server } from "node:http";
import { App, HTTPReceiver, SocketModeReceiver } from "@slack/bolt";
import { WebClient } from "@slack/web-api";
import { Authorizer } from "./access/index.js";
import type { Config } from "./config.js";
import { frontListener } from "./deliveries/front.js";
import { createIngestor } from "./deliveries/receive.js";
import { healthRoutes } from "./http/health.js";
import { applyServerTimeouts, type ServerTimeouts } from "./http/timeouts.js";
import type { Logger } from "./log.js";
import { Metrics } from "./metrics.js";
import { ChannelGate } from "./notify/gate.js";
import type { Outbox } from "./notify/types.js";
import { NotifyWorker, type WorkerOptions } from "./notify/worker.js";
import type { PlatformClient } from "./platform/index.js";
import { boltLogger } from "./slack/bolt-logger.js";
import type { BotDeps } from "./slack/context.js";
import { LIVE_SUBCOMMANDS, WEBHOOK_SUBCOMMANDS } from "./slack/grammar.js";
import { registerListeners } from "./slack/listeners/index.js";
import { ManagerPolicy } from "./slack/managers.js";
import { oauthReceiverOptions, workerClientOptions, workspaceClients } from "./slack/oauth.js";
import { TokenRotation } from "./slack/rotation.js";
import type { ActivityRepo, InstallationRepo, RouteRepo, SettingsRepo, Store } from "./store/index.js";
import { WatchService, type WatchServiceOptions } from "./watch/service.js";

export interface AppCollaborators {
  platform: PlatformClient;
  settings: SettingsRepo;
  routes: RouteRepo;
  outbox: Outbox;
  /** Per-profile counters shown on the App Home. */
  activity?: ActivityRepo;
  /** Multi-workspace (OAuth) mode: where installations are kept (required in that mode). */
  installations?: InstallationRepo;
  /** Prometheus metrics served at /metrics (a fresh registry when not given). */
  metrics?: Metrics;
  /** Resolves when the settings store answers (for /readyz). */
  pingStore?: () => Promise<void>;
  logger: Logger;
  now?: () => Date;
  /** Worker tuning (tests shorten the coalescing window and the channel pace). */
  worker?: Partial<Pick<WorkerOptions, "coalesceMs" | "pollMs" | "leaseMs" | "concurrency" | "owner">> & {
    postIntervalMs?: number;
    /** Do not start the worker with the app (tests drive it with drain()). */
    manual?: boolean;
  };
  /** HTTP server time limits (src/http/timeouts.ts; tests shorten them). */
  httpTimeouts?: Partial<ServerTimeouts>;
  /** users.info cache lifetime (tests shorten it). */
  managerCacheTtlMs?: number;
  /** The store the live watches live in; without it `/live watch` answers that watching is off. */
  store?: Store;
  /** Live watch tuning (tests and the benchmark); `manual`: not started with the app. */
  watch?: Partial<
    Pick<WatchServiceOptions, "tickMs" | "concurrency" | "minUpdateIntervalMs" | "maxWatchesPerTeam">
  > & {
    manual?: boolean;
  };
}

export interface BuiltApp {
  app: App;
  deps: BotDeps;
  metrics: Metrics;
  worker: NotifyWorker;
  /** The live-watch poller (undefined without a store). */
  watch: WatchService | undefined;
  /** Starts listening on config.port/host (0 = a free port); resolves with the HTTP server. */
  start(): Promise<Server | undefined>;
  stop(): Promise<void>;
}

/** Bounded label values for the commands metric. */
const KNOWN_SUBCOMMANDS = new Set<string>([...LIVE_SUBCOMMANDS, ...WEBHOOK_SUBCOMMANDS]);

export function buildApp(config: Config, c: AppCollaborators): BuiltApp {
  const logger = c.logger;
  const installations = config.slack.mode === "oauth" ? c.installations : undefined;
  if (config.slack.mode === "oauth") {
    if (!installations) throw new Error("multi-workspace (OAuth) mode needs AppCollaborators.installations");
    if (!installations.encrypted)
      logger.warn(
        "STORE_ENCRYPTION_KEY is not set: the workspaces' bot tokens are stored unencrypted; set it (openssl rand -base64 32) to encrypt them at rest",
      );
  }
  const metrics = c.metrics ?? new Metrics();
  metrics.watchOutbox(c.outbox);
  const ingestor = createIngestor({
    routes: c.routes,
    outbox: c.outbox,
    logger,
    allowedIps: config.webhookAllowedIps,
    trustProxy: config.trustProxy,
    onResult: (r) => metrics.received(r.status, r.reason),
  });
  // The worker paces each channel itself: no client-side retries or queue-wide pauses. One client
  // per workspace from its installation (OAuth), or the one bot token.
  const workerClient = new WebClient(config.slack.botToken, workerClientOptions(config.slack.apiUrl));
  // Token rotation (multi-workspace mode): expiring bot tokens are refreshed before use.
  const rotation =
    installations && config.slack.clientId && config.slack.clientSecret
      ? new TokenRotation({
          installations,
          apiUrl: config.slack.apiUrl,
          clientId: config.slack.clientId,
          clientSecret: config.slack.clientSecret,
          logger,
        })
      : undefined;
  const slackFor = installations
    ? workspaceClients(installations, config.slack.apiUrl, undefined, rotation)
    : async () => workerClient;
  const worker = new NotifyWorker({
    outbox: c.outbox,
    slackFor,
    settings: c.settings,
    activity: c.activity,
    gate: new ChannelGate({ postIntervalMs: c.worker?.postIntervalMs }),
    logger: logger.child({ component: "notify" }),
    managerUserIds: config.managerUserIds,
    videoUrlTemplate: config.videoUrlTemplate,
    coalesceMs: c.worker?.coalesceMs,
    pollMs: c.worker?.pollMs,
    leaseMs: c.worker?.leaseMs,
    concurrency: c.worker?.concurrency,
    owner: c.worker?.owner,
    onPosted: (kind) => metrics.deliveries.inc({ stage: "posted", result: kind }),
    onFailed: (code) => metrics.deliveries.inc({ stage: "failed", result: code }),
    onRateLimited: (_channel, seconds) => {
      metrics.slackRateLimited.inc();
      metrics.slackRateLimitWaitSeconds.inc(seconds);
    },
  });
  // Live watch: the same per-workspace clients as the worker (paced by the service itself).
  const watch = c.store
    ? new WatchService({
        store: c.store,
        logger,
        platform: c.platform,
        slackFor,
        intervalMs: config.live.watchIntervalMs,
        graceMs: config.live.offAirGraceMs,
        metrics: metrics.watch,
        ...(c.watch?.tickMs ? { tickMs: c.watch.tickMs } : {}),
        ...(c.watch?.concurrency ? { concurrency: c.watch.concurrency } : {}),
        ...(c.watch?.maxWatchesPerTeam ? { maxWatchesPerTeam: c.watch.maxWatchesPerTeam } : {}),
        ...(c.watch?.minUpdateIntervalMs !== undefined
          ? { minUpdateIntervalMs: c.watch.minUpdateIntervalMs }
          : {}),
      })
    : undefined;
  // The watch starts in the background: a store that is down at start-up (/readyz says so) is
  // retried every interval instead of keeping the app from listening.
  let watchRetry: NodeJS.Timeout | undefined;
  let watchStopped = false;
  let watchStarting: Promise<void> | undefined;
  const startWatch = (): void => {
    if (!watch || watchStopped) return;
    watchStarting = watch.start().catch((err: unknown) => {
      logger.warn({ err }, "live watch could not start (store unavailable?); retrying");
      if (watchStopped) return;
      watchRetry = setTimeout(startWatch, Math.min(config.live.watchIntervalMs, 30_000));
      watchRetry.unref?.();
    });
  };
  const startBackground = async () => {
    if (!c.worker?.manual) worker.start();
    if (!c.watch?.manual) startWatch();
  };
  const managers = new ManagerPolicy({
    managerUserIds: config.managerUserIds,
    settings: c.settings,
    logger,
    cacheTtlMs: c.managerCacheTtlMs,
  });
  const deps: BotDeps = {
    config,
    platform: c.platform,
    settings: c.settings,
    routes: c.routes,
    outbox: c.outbox,
    activity: c.activity,
    installations,
    metrics,
    ingest: async (token, body) => {
      const r = await ingestor.ingest(token, body);
      worker.kick();
      return r;
    },
    logger,
    now: c.now ?? (() => new Date()),
    managers,
    watch,
    access: new Authorizer({
      config,
      managers,
      claims: c.settings.claims,
      platform: c.platform,
      logger: logger.child({ component: "access" }),
    }),
  };
  const blogger = boltLogger(logger);
  const deliveryRoute = ingestor.route;
  // The delivery route first: Bolt matches custom routes in order, compiling each pattern per
  // request, so the hot route should be the first one it tries.
  const customRoutes = [
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
    ...healthRoutes({
      platform: c.platform,
      pingStore: c.pingStore,
      metrics,
      logger,
      metricsToken: config.metricsToken,
    }),
  ];
  const clientOptions = {
    slackApiUrl: config.slack.apiUrl,
    // Bounded: a Web API call never keeps a listener for minutes.
    timeout: 10_000,
    retryConfig: { retries: 2, factor: 2, minTimeout: 500, maxTimeout: 5_000 },
  };

  // OAuth: Bolt's installer serves /slack/install and /slack/oauth_redirect and authorizes each
  // request with its workspace's installation; otherwise the one bot token.
  const oauth = installations
    ? oauthReceiverOptions(
        config,
        installations,
        logger.child({ component: "oauth" }),
        (team, enterprise) => deps.access.workspaceAllowed(team, enterprise),
        rotation,
      )
    : undefined;
  const token = oauth ? undefined : config.slack.botToken;
  // The HTTP side in both modes: deliveries, health, metrics and (OAuth) the install pages, on
  // config.port/host. In Socket Mode Slack's requests come over the WebSocket instead: the HTTP
  // side serves no /slack/events and has nothing to verify (no signing secret used).
  const socketMode = config.slack.appToken !== undefined;
  const http = new HTTPReceiver({
    signingSecret: socketMode ? "" : config.slack.signingSecret,
    signatureVerification: !socketMode,
    endpoints: socketMode ? [] : "/slack/events",
    customRoutes,
    logger: blogger,
    processBeforeResponse: false,
    ...oauth,
  });
  // Deliveries are answered before Bolt's router (src/deliveries/front.ts); the rest goes on to it.
  http.requestListener = frontListener(http.requestListener, {
    delivery: (req, res, token) => void ingestor.handle(req, res, token).then(() => worker.kick()),
  });
  let app: App;
  let start: () => Promise<Server | undefined>;
  let stopHttp = async () => {};
  if (config.slack.appToken) {
    const receiver = new SocketModeReceiver({
      appToken: config.slack.appToken,
      logger: blogger,
      // apps.connections.open goes to SLACK_API_URL, like every other Web API call.
      installerOptions: { clientOptions: { slackApiUrl: config.slack.apiUrl, timeout: 10_000 } },
    });
    // OAuth: the HTTP side's installer authorizes each workspace's requests.
    app = new App({ receiver, token, authorize: http.installer?.authorize, logger: blogger, clientOptions });
    start = async () => {
      const server = await http.start({ port: config.port, host: config.host });
      applyServerTimeouts(server, c.httpTimeouts);
      stopHttp = () => http.stop();
      try {
        // Resolves on Slack's hello; a refused app token (invalid_auth...) rejects at once.
        await app.start();
      } catch (err) {
        await stopHttp().catch(() => {});
        stopHttp = async () => {};
        throw err;
      }
      await startBackground();
      return server;
    };
  } else {
    app = new App({ receiver: http, token, logger: blogger, clientOptions });
    start = async () => {
      const server = await http.start({ port: config.port, host: config.host });
      applyServerTimeouts(server, c.httpTimeouts);
      await startBackground();
      return server;
    };
  }

  // Counts every slash command and button press by name.
  app.use(async ({ body, next }) => {
    const b = body as {
      command?: string;
      text?: string;
      type?: string;
      actions?: Array<{ action_id?: string }>;
      view?: { callback_id?: string };
    };
    const sub = (b.text ?? "").trim().split(/\s+/)[0]?.toLowerCase() || "help";
    const name = b.command
      ? `${b.command.slice(0, 20)} ${KNOWN_SUBCOMMANDS.has(sub) ? sub : "other"}`
      : b.type === "block_actions"
        ? `action:${(b.actions?.[0]?.action_id ?? "?").slice(0, 40)}`
        : b.type === "view_submission"
          ? `view:${(b.view?.callback_id ?? "?").slice(0, 40)}`
          : undefined;
    try {
      await next();
      if (name) metrics.commands.inc({ name, outcome: "handled" });
    } catch (err) {
      if (name) metrics.commands.inc({ name, outcome: "error" });
      throw err;
    }
  });

  app.error(async (err) => {
    logger.error({ err }, "unhandled error in a Slack listener");
  });
  registerListeners(app, deps);
  let stopped = false;

  return {
    app,
    deps,
    metrics,
    worker,
    watch,
    start,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      // The watch first: its polls under way finish and its leases are handed back.
      watchStopped = true;
      if (watchRetry) clearTimeout(watchRetry);
      await watchStarting;
      await watch?.stop();
      await worker.stop();
      await app.stop();
      await stopHttp();
    },
  };
}
