/**
 * The one composition: every collaborator of the bot built from its configuration, as production
 * builds them: the store, the outbox, the platform client (with its metrics) and the one door every
 * platform read and write passes through (compose-parts.ts: the client goes nowhere else), the
 * settings, routes, activity and installation repositories, the manager policy and the authorizer, the
 * delivery ingestor, the notification worker, the live watch (compose-watch.ts), and the Bolt app
 * (src/app.ts) that receives them.
 * A stored delivery wakes the worker: that is wired here, once (the ingestor's onDelivered).
 * src/index.ts, the demo, the test harness and the benchmarks all start the bot through here, so
 * they run the same wiring.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { App } from "@slack/bolt";
import { LinkKinds } from "./access/index.js";
import { buildApp } from "./app.js";
import {
  type AppCollaborators,
  accessParts,
  notifyParts,
  slackClients,
  type Tuning,
} from "./compose-parts.js";
import { wireWatch } from "./compose-watch.js";
import type { Config } from "./config.js";
import { createIngestor } from "./deliveries/receive.js";
import type { BotDeps } from "./deps.js";
import type { DigestRunner, Digests } from "./digest/index.js";
import { healthRoutes } from "./http/health.js";
import type { Logger } from "./log.js";
import { Metrics } from "./metrics.js";
import type { NotifyWorker } from "./notify/worker.js";
import type { Outbox } from "./outbox/index.js";
import { createOutbox } from "./outbox/index.js";
import { createPlatformClient, type PlatformClient } from "./platform/index.js";
import { AcksFirst } from "./slack/acks-first.js";
import {
  ActivityRepo,
  CallbackRepo,
  InstallationRepo,
  openStore,
  SettingsRepo,
  type Store,
} from "./store/index.js";
import type { WatchService } from "./watch/service.js";

export type { AppCollaborators, Tuning } from "./compose-parts.js";

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

/** Builds the worker, the ingestor, the listeners' deps and the app from the collaborators, without listening. */
export function composeApp(config: Config, c: AppCollaborators): BuiltApp {
  const logger = c.logger;
  const metrics = c.metrics ?? new Metrics();
  metrics.observeOutbox(c.outbox);
  const slack = slackClients(config, c);
  // Requests are acknowledged before the work after other acks goes on (src/slack/acks-first.ts).
  const turns = new AcksFirst();
  const who = accessParts(config, c, metrics, slack, turns);
  const { access, managers, names, door } = who;
  const { digests, digestRunner, worker, gate } = notifyParts(config, c, metrics, slack.slackFor, who);
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
    // The schedule's reads: each charged to its watch (paid by the schedule's one read per interval).
    platform: door.livestreams((livestreamId) => ({ watch: livestreamId })),
    slackFor: slack.slackFor,
    users: slack.users,
    gate,
    access,
    digests,
    metrics: metrics.watch,
    tuning: c.tuning?.watch,
  });
  const watch = wiring.watch;
  const deps: BotDeps = {
    config,
    platform: door,
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
    slowCardMs: c.tuning?.slowCardMs,
    access,
    linkKinds: new LinkKinds(),
  };
  const bolt = buildApp(config, {
    deps,
    deliveries: ingestor,
    routes: healthRoutes({
      platform: door,
      pingStore: c.pingStore,
      metrics,
      logger,
      metricsToken: config.metricsToken,
    }),
    metrics,
    httpTimeouts: c.tuning?.http,
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
      if (!c.tuning?.worker?.manual) {
        worker.start();
        digestRunner.start();
      }
      if (!c.tuning?.watch?.manual) wiring.start();
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

/** startComposedBot's options: the store's and the outbox's, and the test knobs (`Tuning`) beside them. */
export interface ComposeOptions extends Tuning {
  /** Store key namespace (tests sharing one Redis). */
  namespace?: string | undefined;
  /** Bound on each store operation, ms (openStore's default otherwise). */
  storeOpTimeoutMs?: number | undefined;
  /** The outbox's per-profile quota of pending items (DEFAULT_PROFILE_QUOTA otherwise). */
  profileQuota?: number | undefined;
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
  if (config.slack.mode === "oauth" && config.access.allowedWorkspaces.includes("*"))
    logger.warn(
      "ALLOWED_WORKSPACES is *: every Slack workspace can install this bot and use the profiles bound to it; list the team ids (T…) or enterprise ids (E…) instead",
    );
  const { namespace, storeOpTimeoutMs, profileQuota, ...tuning } = opts;
  const store = await openStore(config.store, logger, { namespace, opTimeoutMs: storeOpTimeoutMs });
  const outbox = await createOutbox(store, logger, { profileQuota });
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
    tuning,
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
