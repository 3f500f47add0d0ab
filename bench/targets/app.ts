/**
 * The bot alone in this process, built like src/index.ts builds it (store, outbox, metrics,
 * platform client, app) and configured from `env` with loadConfig, like production, with the
 * memory store and its notification worker at the given settings (undefined = the app's own
 * defaults). Only the bot's modules are loaded here: the platform sandbox and the Slack stand-in
 * run in the bench runner, so this process's CPU and memory are the bot's own. `stored` in the
 * counts is the work left: outbox items plus scheduled videos (0 = drained).
 */
import type { AddressInfo } from "node:net";
import { buildApp } from "../../src/app.js";
import { type Config, loadConfig } from "../../src/config.js";
import { createLogger } from "../../src/log.js";
import { Metrics } from "../../src/metrics.js";
import { createOutbox } from "../../src/notify/outbox/index.js";
import { createPlatformClient } from "../../src/platform/index.js";
import { ActivityRepo, openStore, RouteRepo, SettingsRepo } from "../../src/store/index.js";
import type { TargetSpec } from "../lib/protocol.js";
import type { RunningTarget } from "./types.js";

export async function startAppTarget(spec: Extract<TargetSpec, { kind: "app" }>): Promise<RunningTarget> {
  const base = loadConfig({ STORE_URL: "memory://", LOG_LEVEL: "info", ...spec.env });
  const config: Config = { ...base, port: 0, host: "127.0.0.1" };
  let logLines = 0;
  const logger = createLogger({
    level: "info",
    destination: {
      write: () => {
        logLines += 1;
      },
    },
  });
  const store = await openStore(config.store, logger);
  const outbox = await createOutbox(store, logger);
  const metrics = new Metrics();
  const platform = createPlatformClient(config.platform, logger, { onRequest: metrics.observePlatform });
  const w = spec.worker;
  const built = buildApp(config, {
    platform,
    outbox,
    metrics,
    pingStore: () => store.ping(),
    settings: new SettingsRepo(store, logger),
    routes: new RouteRepo(store, logger),
    activity: new ActivityRepo(store, logger),
    logger,
    worker: {
      manual: w.manual ?? false,
      postIntervalMs: w.postIntervalMs,
      coalesceMs: w.coalesceMs,
      pollMs: w.pollMs,
    },
  });
  const server = await built.start();
  const port = (server?.address() as AddressInfo | undefined)?.port ?? 0;
  return {
    url: `http://127.0.0.1:${port}`,
    path: "/slack/events",
    ownerId: "",
    counts: async () => {
      const s = await outbox.stats();
      return { stored: s.depth + s.scheduled, logLines };
    },
    close: async () => {
      await built.stop();
      await platform.close();
      await outbox.close();
      await store.close();
    },
  };
}
