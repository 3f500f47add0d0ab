/**
 * The bot alone in this process, built as src/index.ts builds it (src/compose.ts) and configured
 * from `env` with loadConfig, like production, with the memory store and its notification worker at the given settings (undefined = the app's own
 * defaults). Only the bot's modules are loaded here: the platform sandbox and the Slack stand-in
 * run in the bench runner, so this process's CPU and memory are the bot's own. `stored` in the
 * counts is the work left: outbox items plus scheduled videos (0 = drained).
 */
import { startComposedBot } from "../../src/compose.js";
import { type Config, loadConfig } from "../../src/config.js";
import { createLogger } from "../../src/log.js";
import type { TargetSpec } from "../lib/protocol.js";
import { stage } from "./stage.js";
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
  const w = spec.worker;
  stage("composing the bot (memory store, outbox, app; listening)");
  const bot = await startComposedBot(config, logger, {
    worker: {
      manual: w.manual ?? false,
      postIntervalMs: w.postIntervalMs,
      coalesceMs: w.coalesceMs,
      pollMs: w.pollMs,
    },
    watch: { maxWatchesPerTeam: spec.maxWatchesPerTeam },
  });
  const { outbox } = bot;
  return {
    url: bot.url,
    path: "/slack/events",
    ownerId: "",
    counts: async () => {
      const s = await outbox.stats();
      return { stored: s.depth + s.scheduled, logLines };
    },
    close: () => bot.close(),
  };
}
