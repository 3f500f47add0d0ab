/**
 * The bot's collaborators built from its configuration, as production builds them: the store,
 * the outbox, the platform client (with its metrics), the settings, routes, activity and
 * installation repositories, and the app. src/index.ts, the demo, the test harness and the
 * benchmarks all start the bot through here, so they run the same wiring.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type AppCollaborators, type BuiltApp, buildApp } from "./app.js";
import type { Config } from "./config.js";
import type { Logger } from "./log.js";
import { Metrics } from "./metrics.js";
import { createOutbox } from "./notify/outbox/index.js";
import type { Outbox } from "./notify/types.js";
import { createPlatformClient, type PlatformClient } from "./platform/index.js";
import {
  ActivityRepo,
  InstallationRepo,
  openStore,
  RouteRepo,
  SettingsRepo,
  type Store,
} from "./store/index.js";

export interface ComposeOptions {
  worker?: AppCollaborators["worker"];
  /** Store key namespace (tests sharing one Redis). */
  namespace?: string;
  /** Bound on each store operation, ms (openStore's default otherwise). */
  storeOpTimeoutMs?: number;
  /** The outbox's per-route quota of pending items (DEFAULT_ROUTE_QUOTA otherwise). */
  routeQuota?: number;
  httpTimeouts?: AppCollaborators["httpTimeouts"];
  watch?: AppCollaborators["watch"];
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

/** Builds the bot and starts listening. */
export async function startComposedBot(
  config: Config,
  logger: Logger,
  o: ComposeOptions = {},
): Promise<ComposedBot> {
  if (config.slack.mode === "oauth" && config.allowedWorkspaces.includes("*"))
    logger.warn(
      "ALLOWED_WORKSPACES is *: any Slack workspace can install this bot and use the profiles bound to it; list the team ids (T…) or enterprise ids (E…) instead",
    );
  const store = await openStore(config.store, logger, {
    ...(o.namespace ? { namespace: o.namespace } : {}),
    ...(o.storeOpTimeoutMs ? { opTimeoutMs: o.storeOpTimeoutMs } : {}),
  });
  const outbox = await createOutbox(store, logger, o.routeQuota ? { routeQuota: o.routeQuota } : {});
  const metrics = new Metrics();
  const platform = createPlatformClient(config.platform, logger, { onRequest: metrics.observePlatform });
  const installations = new InstallationRepo(store, logger, { encryptionKey: config.storeEncryptionKey });
  const built = buildApp(config, {
    platform,
    outbox,
    metrics,
    pingStore: () => store.ping(),
    settings: new SettingsRepo(store, logger),
    routes: new RouteRepo(store, logger),
    activity: new ActivityRepo(store, logger),
    installations,
    store,
    logger,
    ...(o.watch ? { watch: o.watch } : {}),
    ...(o.worker ? { worker: o.worker } : {}),
    ...(o.httpTimeouts ? { httpTimeouts: o.httpTimeouts } : {}),
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
