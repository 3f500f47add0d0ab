/**
 * The one composition: every collaborator of the bot built from its configuration, as production
 * builds them: the store, the outbox, the platform client (with its metrics), the settings,
 * routes, activity and installation repositories, the manager policy and the authorizer, the
 * delivery ingestor, the notification worker, the live watch (compose-watch.ts), and the Bolt app
 * (src/app.ts) that receives them.
 * A stored delivery wakes the worker: that is wired here, once (the ingestor's onDelivered).
 * src/index.ts, the demo, the test harness and the benchmarks all start the bot through here, so
 * they run the same wiring.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { App } from "@slack/bolt";
import { WebClient } from "@slack/web-api";
import { Authorizer, ManagerPolicy, readBudgetFor } from "./access/index.js";
import { buildApp } from "./app.js";
import { type WatchTuning, wireWatch } from "./compose-watch.js";
import type { Config } from "./config.js";
import { createIngestor } from "./deliveries/receive.js";
import { healthRoutes } from "./http/health.js";
import type { ServerTimeouts } from "./http/timeouts.js";
import type { Logger } from "./log.js";
import { Metrics } from "./metrics.js";
import {
  type DigestLog,
  DigestRunner,
  Digests,
  digestLogFor,
  MemoryDigestLog,
} from "./notify/digest/index.js";
import { createOutbox } from "./notify/outbox/index.js";
import { ChannelGate } from "./notify/pacing.js";
import type { Outbox } from "./notify/types.js";
import { NotifyWorker, type WorkerOptions } from "./notify/worker.js";
import { createPlatformClient, type PlatformClient, PlatformNames } from "./platform/index.js";
import { AcksFirst } from "./slack/acks-first.js";
import type { BotDeps } from "./slack/context.js";
import { workerClientOptions, workspaceClients } from "./slack/oauth.js";
import { TokenRotation } from "./slack/rotation.js";
import { installedWorkspaces, needsOrganization, tokenWorkspace } from "./slack/workspaces.js";
import {
  ActivityRepo,
  CallbackRepo,
  InstallationRepo,
  openStore,
  SettingsRepo,
  type Store,
} from "./store/index.js";
import type { WatchService } from "./watch/service.js";

export interface AppCollaborators {
  platform: PlatformClient;
  settings: SettingsRepo;
  callbacks: CallbackRepo;
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
  /** `/live status`: how long before a slow platform is announced in place (default 10 s). */
  slowCardMs?: number;
  /** The store the live watches live in; without it `/live watch` answers that watching is off. */
  store?: Store;
  /** Where digests and pauses keep what they will summarise (default: on `store`, else in memory). */
  digestLog?: DigestLog;
  /** Live watch tuning (tests and the benchmark); `manual`: not started with the app. */
  watch?: WatchTuning;
}

export interface BuiltApp {
  app: App;
  deps: BotDeps;
  metrics: Metrics;
  worker: NotifyWorker;
  /** The live-watch poller (undefined without a store). */
  watch: WatchService | undefined;
  /** Digests and pauses: what is recorded for them (`recordBroadcast` for the live watch). */
  digests: Digests;
  /** Posts the digests and catch-ups when due. */
  digestRunner: DigestRunner;
  /** Starts listening on config.port/host (0 = a free port), then the worker and the watch; resolves with the HTTP server. */
  start(): Promise<Server | undefined>;
  stop(): Promise<void>;
}

/** The Slack side of the collaborators: installations (OAuth), token rotation, a client per workspace. */
function slackClients(config: Config, c: AppCollaborators) {
  const logger = c.logger;
  const installations = config.slack.mode === "oauth" ? c.installations : undefined;
  if (config.slack.mode === "oauth") {
    if (!installations) throw new Error("multi-workspace (OAuth) mode needs AppCollaborators.installations");
    if (!installations.encrypted)
      logger.warn(
        "STORE_ENCRYPTION_KEY is not set: the workspaces' bot tokens are stored unencrypted; set it (openssl rand -base64 32) to encrypt them at rest",
      );
  }
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
  return { installations, workerClient, rotation, slackFor };
}

/** Who may do what: managers, the read budgets and the one authorization function. */
function accessParts(
  config: Config,
  c: AppCollaborators,
  metrics: Metrics,
  slack: ReturnType<typeof slackClients>,
  turns: AcksFirst,
) {
  const logger = c.logger;
  const managers = new ManagerPolicy({
    managerUserIds: config.managerUserIds,
    settings: c.settings,
    logger,
    cacheTtlMs: c.managerCacheTtlMs,
  });
  // Shared on Redis, in process on memory/sqlite; undefined when both variables are 0.
  const budget = readBudgetFor(c.store, config.readBudgets, logger.child({ component: "access" }));
  // The one authorization function; what the bot does on its own asks it again (`revoked`).
  const access = new Authorizer({
    config,
    managers,
    claims: c.settings.claims,
    platform: c.platform,
    workspaceOf: slack.installations
      ? installedWorkspaces(slack.installations)
      : tokenWorkspace(slack.workerClient, needsOrganization(config)),
    logger: logger.child({ component: "access" }),
    budget,
    onBudgetRefused: (budget) => metrics.readBudgetRefused.inc({ budget }),
    onLivestreamRead: (outcome) => metrics.livestreamReads.inc({ outcome }),
    afterRead: () => turns.turn(),
  });
  return { managers, budget, access };
}

/** Notifications: digests and their runner, and the outbox worker. */
function notifyParts(
  config: Config,
  c: AppCollaborators,
  metrics: Metrics,
  slackFor: ReturnType<typeof slackClients>["slackFor"],
  who: ReturnType<typeof accessParts>,
  names: PlatformNames,
) {
  const { logger } = c;
  const { access, managers, budget } = who;
  const gate = new ChannelGate({ postIntervalMs: c.worker?.postIntervalMs });
  const revoked = (teamId: string, profileId: string) => access.revoked(teamId, profileId);
  // Digests and pauses: recorded by the worker (and the live watch), posted by the runner.
  const digestLogger = logger.child({ component: "digests" });
  const digests = new Digests({
    log: c.digestLog ?? (c.store ? digestLogFor(c.store) : new MemoryDigestLog()),
    settings: c.settings,
    periodMs: config.digestPeriodMs,
    logger: digestLogger,
  });
  const digestRunner = new DigestRunner({
    log: digests.log,
    settings: c.settings,
    slackFor,
    revoked,
    gate,
    logger: digestLogger,
    names,
    outbox: c.outbox,
    periodMs: config.digestPeriodMs,
    videoUrlTemplate: config.videoUrlTemplate,
    pollMs: c.worker?.pollMs === undefined ? undefined : Math.max(50, c.worker.pollMs),
    leaseMs: c.worker?.leaseMs,
    owner: c.worker?.owner === undefined ? undefined : `${c.worker.owner}-digests`,
    onPosted: () => metrics.deliveries.inc({ stage: "posted", result: "digest" }),
  });
  const worker = new NotifyWorker({
    outbox: c.outbox,
    slackFor,
    settings: c.settings,
    revoked,
    activity: c.activity,
    names,
    // Title reads are charged to the callback's workspace (WORKSPACE_READS_PER_MINUTE).
    titleBudget: budget,
    digests,
    gate,
    logger: logger.child({ component: "notify" }),
    managersOf: (teamId) => managers.named(teamId),
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
  return { digests, digestRunner, worker };
}

/** Builds the worker, the ingestor, the listeners' deps and the app from the collaborators, without listening. */
export function composeApp(config: Config, c: AppCollaborators): BuiltApp {
  const logger = c.logger;
  const metrics = c.metrics ?? new Metrics();
  metrics.observeOutbox(c.outbox);
  const slack = slackClients(config, c);
  // Requests are acknowledged before the work after other acks goes on (src/slack/acks-first.ts).
  const turns = new AcksFirst();
  const who = accessParts(config, c, metrics, slack, turns);
  const { access, managers } = who;
  // Names instead of ids (profile labels, managed profiles, video titles): one instance for all.
  const names = new PlatformNames({ client: c.platform, logger: logger.child({ component: "names" }) });
  const { digests, digestRunner, worker } = notifyParts(config, c, metrics, slack.slackFor, who, names);
  const ingestor = createIngestor({
    callbacks: c.callbacks,
    outbox: c.outbox,
    logger,
    allowedIps: config.webhookAllowedIps,
    trustProxy: config.trustProxy,
    onResult: (r) => metrics.received(r.status, r.reason),
    // The one place a delivery wakes the worker (the HTTP route and `/webhook test` alike).
    onDelivered: () => worker.kick(),
  });
  const wiring = wireWatch(config, {
    store: c.store,
    logger,
    platform: c.platform,
    slackFor: slack.slackFor,
    access,
    digests,
    metrics: metrics.watch,
    tuning: c.watch,
  });
  const watch = wiring.watch;
  const deps: BotDeps = {
    config,
    platform: c.platform,
    names,
    settings: c.settings,
    callbacks: c.callbacks,
    outbox: c.outbox,
    activity: c.activity,
    installations: slack.installations,
    metrics,
    ingest: ingestor.ingest,
    logger,
    now: c.now ?? (() => new Date()),
    managers,
    watch,
    digests,
    ...(c.slowCardMs ? { slowCardMs: c.slowCardMs } : {}),
    access,
  };
  const bolt = buildApp(config, {
    deps,
    deliveries: ingestor,
    routes: healthRoutes({
      platform: c.platform,
      pingStore: c.pingStore,
      metrics,
      logger,
      metricsToken: config.metricsToken,
    }),
    metrics,
    ...(c.httpTimeouts ? { httpTimeouts: c.httpTimeouts } : {}),
    rotation: slack.rotation,
    turns,
  });
  return withLifecycle(
    c,
    { app: bolt.app, deps, metrics, worker, watch, digests, digestRunner },
    bolt,
    wiring,
  );
}

/** The built app with its start (listen, then the worker, digests and the watch) and its stop. */
function withLifecycle(
  c: AppCollaborators,
  parts: Omit<BuiltApp, "start" | "stop">,
  bolt: { start(): Promise<Server | undefined>; stop(): Promise<void> },
  wiring: { start(): void; stop(): Promise<void> },
): BuiltApp {
  const { worker, digestRunner } = parts;
  let stopped = false;
  return {
    ...parts,
    start: async () => {
      const server = await bolt.start();
      if (!c.worker?.manual) {
        worker.start();
        digestRunner.start();
      }
      if (!c.watch?.manual) wiring.start();
      return server;
    },
    stop: async () => {
      if (stopped) return;
      stopped = true;
      // The watch first: its polls under way finish and its leases are handed back.
      await wiring.stop();
      await digestRunner.stop();
      await worker.stop();
      await bolt.stop();
    },
  };
}

export interface ComposeOptions {
  worker?: AppCollaborators["worker"];
  /** Store key namespace (tests sharing one Redis). */
  namespace?: string;
  /** Bound on each store operation, ms (openStore's default otherwise). */
  storeOpTimeoutMs?: number;
  /** The outbox's per-profile quota of pending items (DEFAULT_PROFILE_QUOTA otherwise). */
  profileQuota?: number;
  httpTimeouts?: AppCollaborators["httpTimeouts"];
  watch?: AppCollaborators["watch"];
  slowCardMs?: number;
}

export interface ComposedBot {
  store: Store;
  outbox: Outbox;
  platform: PlatformClient;
  metrics: Metrics;
  installations: InstallationRepo;
  built: BuiltApp;
  /** Listening (config.port/host); undefined when the receiver has no HTTP server. */
  server: Server | undefined;
  /** http://host:port of the listener. */
  url: string;
  /** Graceful stop: the watch hands its leases back, the worker finishes its current video, then the app, client, outbox, store. */
  close(): Promise<void>;
}

/** Opens the store, builds the bot and starts listening. */
export async function startComposedBot(
  config: Config,
  logger: Logger,
  opts: ComposeOptions = {},
): Promise<ComposedBot> {
  if (config.slack.mode === "oauth" && config.allowedWorkspaces.includes("*"))
    logger.warn(
      "ALLOWED_WORKSPACES is *: every Slack workspace can install this bot and use the profiles bound to it; list the team ids (T…) or enterprise ids (E…) instead",
    );
  const store = await openStore(config.store, logger, {
    ...(opts.namespace ? { namespace: opts.namespace } : {}),
    ...(opts.storeOpTimeoutMs ? { opTimeoutMs: opts.storeOpTimeoutMs } : {}),
  });
  const outbox = await createOutbox(
    store,
    logger,
    opts.profileQuota ? { profileQuota: opts.profileQuota } : {},
  );
  const metrics = new Metrics();
  const platform = createPlatformClient(config.platform, logger, { onRequest: metrics.observePlatform });
  const installations = new InstallationRepo(store, logger, { encryptionKey: config.storeEncryptionKey });
  const built = composeApp(config, {
    platform,
    outbox,
    metrics,
    pingStore: () => store.ping(),
    settings: new SettingsRepo(store, logger),
    callbacks: new CallbackRepo(store, logger),
    activity: new ActivityRepo(store, logger),
    installations,
    store,
    logger,
    ...(opts.watch ? { watch: opts.watch } : {}),
    ...(opts.slowCardMs ? { slowCardMs: opts.slowCardMs } : {}),
    ...(opts.worker ? { worker: opts.worker } : {}),
    ...(opts.httpTimeouts ? { httpTimeouts: opts.httpTimeouts } : {}),
  });
  const server = await built.start();
  const port = (server?.address() as AddressInfo | null | undefined)?.port ?? config.port;
  return {
    store,
    outbox,
    platform,
    metrics,
    installations,
    built,
    server,
    url: `http://${config.host === "0.0.0.0" ? "127.0.0.1" : config.host}:${port}`,
    async close() {
      await built.stop();
      await platform.close();
      await outbox.close();
      await store.close();
    },
  };
}
