/**
 * Start-up only: read the configuration, build the collaborators and the app, listen, and shut
 * down cleanly on SIGTERM/SIGINT.
 */
import type { AddressInfo } from "node:net";
import { startComposedBot } from "./compose.js";
import { readConfigOrExit } from "./config.js";
import { createLogger } from "./log.js";

const config = readConfigOrExit();
const logger = createLogger({
  level: config.logLevel,
  secrets: [
    config.platform.clientSecret,
    config.slack.signingSecret,
    config.slack.botToken,
    config.slack.appToken,
    config.slack.clientSecret,
    config.slack.stateSecret,
    config.storeEncryptionKey,
    config.metricsToken,
  ],
});

process.on("unhandledRejection", (reason) => logger.error({ err: reason }, "unhandled promise rejection"));

const bot = await startComposedBot(config, logger);
const { server } = bot;
const address = server?.address() as AddressInfo | null | undefined;
logger.info(
  {
    port: address?.port ?? config.port,
    host: config.host,
    store: config.store.kind,
    mode: config.slack.appToken ? "socket" : "http",
  },
  "bot listening",
);
// One token at start-up, so the log says now (once, from the platform client) what the bot works
// without: a key without video.read names videos by their id, and how to grant it.
bot.platform
  .checkToken()
  .catch((err: unknown) =>
    logger.warn({ err }, "no platform access token at start-up; /readyz reports it until one is obtained"),
  );

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, "shutting down");
  const force = setTimeout(() => {
    logger.error("shutdown took longer than 10 s; exiting");
    process.exit(1);
  }, 10_000);
  force.unref();
  // Keep-alive connections would hold the server open for as long as a sender keeps using them
  // (and idle ones until their timeout): from now on each closes after the request it carries.
  server?.prependListener("request", (_req, res) => {
    res.setHeader("connection", "close");
  });
  server?.closeIdleConnections();
  try {
    await bot.close();
    logger.info("stopped");
    process.exit(0);
  } catch (err) {
    logger.error({ err }, "error while shutting down");
    process.exit(1);
  }
}
process.on("SIGTERM", () => void shutdown("SIGTERM"));
process.on("SIGINT", () => void shutdown("SIGINT"));
