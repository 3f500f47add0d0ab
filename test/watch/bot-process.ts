/**
 * One bot as a process of its own, for the multi-process watch tests: composed exactly as
 * src/index.ts does (src/compose.ts), on the store and namespace given, listening on a free port
 * of 127.0.0.1; the live watch is not started (the tests look at the registry, not at polls).
 * Writes {"url": "http://127.0.0.1:<port>"} once listening, then runs until its stdin ends.
 *
 * Usage: node --import tsx test/watch/bot-process.ts <namespace>   (the environment: its stdin's
 * first line, a JSON object of variables, as src/config.ts reads them)
 */
import { createInterface } from "node:readline";
import { startComposedBot } from "../../src/compose.js";
import { loadConfig } from "../../src/config.js";
import { createLogger } from "../../src/log.js";

const [namespace = ""] = process.argv.slice(2);
const lines = createInterface({ input: process.stdin });
const first = await new Promise<string>((resolve) => lines.once("line", resolve));
const env = JSON.parse(first) as Record<string, string>;
const config = { ...loadConfig(env), port: 0, host: "127.0.0.1" };
const logger = createLogger({
  level: "warn",
  destination: { write: (s: string) => void process.stderr.write(s) },
  secrets: [config.platform.clientSecret, config.slack.signingSecret, config.slack.botToken],
});
const bot = await startComposedBot(config, logger, { namespace, watch: { manual: true } });
process.stdout.write(`${JSON.stringify({ url: bot.url })}\n`);
await new Promise<void>((resolve) => lines.once("close", resolve));
await bot.close();
process.exit(0);
