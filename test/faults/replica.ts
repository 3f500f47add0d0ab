/**
 * One bot replica as a process of its own, for the scale-out tests: composed exactly as
 * src/index.ts does (src/compose.ts), listening on a free port of 127.0.0.1, its worker and live
 * watch running with the tunings given. Killed with SIGKILL by the tests (a crash), or closed
 * gracefully when its stdin ends.
 *
 * Usage: node --import tsx test/faults/replica.ts   (stdin's first line: a JSON object
 * {"env": {...variables as src/config.ts reads them}, "compose": {...ComposeOptions}}).
 * Writes {"url": "http://127.0.0.1:<port>"} on stdout once listening; log lines (JSON) on stderr.
 */
import { createInterface } from "node:readline";
import { type ComposeOptions, startComposedBot } from "../../src/compose.js";
import { loadConfig } from "../../src/config.js";
import { createLogger } from "../../src/log.js";

const lines = createInterface({ input: process.stdin });
const first = await new Promise<string>((resolve) => lines.once("line", resolve));
const { env, compose } = JSON.parse(first) as { env: Record<string, string>; compose: ComposeOptions };
const config = { ...loadConfig(env), port: 0, host: "127.0.0.1" };
const logger = createLogger({
  level: config.logLevel,
  destination: { write: (s: string) => void process.stderr.write(s) },
  secrets: [config.platform.clientSecret, config.slack.signingSecret, config.slack.botToken],
});
const bot = await startComposedBot(config, logger, compose);
process.stdout.write(`${JSON.stringify({ url: bot.url })}\n`);
await new Promise<void>((resolve) => lines.once("close", resolve));
await bot.close();
process.exit(0);
