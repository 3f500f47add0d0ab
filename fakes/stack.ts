/**
 * The fakes-plus-bot stack on 127.0.0.1: the platform sandbox, the Slack stand-in and the bot as
 * production composes it (src/compose.ts), each on a free port, the bot's log kept in memory.
 * The demo and the test harness start it here; the benchmarks start the fakes here and the bot in
 * a process of its own with the same variables (fakes/env.ts).
 */
import { type BuiltApp, type ComposedBot, type ComposeOptions, startComposedBot } from "../src/compose.js";
import { type Config, loadConfig } from "../src/config.js";
import { createLogger, type Logger } from "../src/log.js";
import type { Outbox } from "../src/outbox/types.js";
import type { PlatformClient } from "../src/platform/index.js";
import type { Store } from "../src/store/index.js";
import { type BotEnvOptions, botEnvForFakes } from "./env.js";
import { type Sandbox, type SandboxOptions, startSandbox } from "./platform/server.js";
import { type SlackStandin, startSlackStandin } from "./slack/index.js";

export interface Fakes {
  sandbox: Sandbox;
  slack: SlackStandin;
  close(): Promise<void>;
}

/** What the test harness and the demo hand out: the fakes and the running bot's parts. */
export interface FakesAndBotParts {
  sandbox: Sandbox;
  slack: SlackStandin;
  store: Store;
  outbox: Outbox;
  platform: PlatformClient;
  built: BuiltApp;
  config: Config;
}

/** The platform sandbox and the Slack stand-in. */
export async function startFakes(o: { sandbox?: SandboxOptions } = {}): Promise<Fakes> {
  const sandbox = await startSandbox(o.sandbox);
  try {
    const slack = await startSlackStandin();
    return {
      sandbox,
      slack,
      async close() {
        await slack.close();
        await sandbox.close();
      },
    };
  } catch (err) {
    await sandbox.close();
    throw err;
  }
}

export interface FakesStackOptions extends Omit<BotEnvOptions, "sandbox" | "slack"> {
  sandbox?: SandboxOptions;
  /** Variables on top of botEnvForFakes's. */
  env?: Record<string, string>;
  /** Adjusts the loaded configuration (port 0 and host 127.0.0.1 are set already). */
  config?: (c: Config) => Config;
  compose?: ComposeOptions;
}

export interface FakesStack extends Fakes {
  bot: ComposedBot;
  config: Config;
  logger: Logger;
  /** The bot's log lines (JSON). */
  logs: string[];
}

export async function startFakesStack(o: FakesStackOptions): Promise<FakesStack> {
  const { sandbox: sandboxOptions, env, config: adjust, compose, ...vars } = o;
  const fakes = await startFakes({ sandbox: sandboxOptions });
  const { sandbox, slack } = fakes;
  try {
    const base = loadConfig({ ...botEnvForFakes({ sandbox, slack, ...vars }), ...env });
    const loaded: Config = { ...base, port: 0, host: "127.0.0.1" };
    const config = adjust ? adjust(loaded) : loaded;
    const logs: string[] = [];
    const logger = createLogger({
      level: config.logLevel,
      destination: { write: (s: string) => void logs.push(s) },
      secrets: [
        config.platform.clientSecret,
        config.slack.signingSecret,
        config.slack.botToken,
        config.slack.clientSecret,
        config.slack.stateSecret,
        config.storeEncryptionKey,
        config.metricsToken,
      ],
    });
    const bot = await startComposedBot(config, logger, compose);
    return {
      sandbox,
      slack,
      bot,
      config,
      logger,
      logs,
      async close() {
        await bot.close();
        await fakes.close();
      },
    };
  } catch (err) {
    await fakes.close();
    throw err;
  }
}
