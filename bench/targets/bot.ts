/**
 * The whole bot, built exactly as production builds it (src/compose.ts: store, outbox, platform
 * client, Bolt app on a free port of 127.0.0.1), with the notification worker NOT started, so the
 * load measures the delivery route alone: checks, parsing, durable enqueue, answer.
 *
 * Like the harness, the process also runs the Slack stand-in (Bolt calls auth.test when it starts)
 * and the platform sandbox; both sit idle during the load, as nothing on the ingest path calls
 * them. The route is registered through RouteRepo, as `/webhook set` does.
 * The logger logs at info (the production default) into a counter, so logging cost is included
 * without flooding the runner's output.
 */

import { botEnvForFakes } from "../../fakes/env.js";
import { type Sandbox, startSandbox } from "../../fakes/platform/server.js";
import { type SlackStandin, startSlackStandin } from "../../fakes/slack/index.js";
import { startComposedBot } from "../../src/compose.js";
import { type Config, loadConfig, type StoreUrl } from "../../src/config.js";
import { createLogger } from "../../src/log.js";
import { newCallbackToken, RouteRepo } from "../../src/store/index.js";
import type { TargetSpec } from "../lib/protocol.js";
import type { RunningTarget } from "./types.js";

export const BENCH_ROUTE = { teamId: "T0BENCH", profileId: "x2bench", channelId: "C0BENCH" } as const;

function storeUrl(spec: Extract<TargetSpec, { kind: "bot" }>): StoreUrl {
  switch (spec.store) {
    case "memory":
      return { kind: "memory", url: "memory://" };
    case "sqlite": {
      if (!spec.sqlitePath) throw new Error("the sqlite target needs sqlitePath");
      return { kind: "sqlite", path: spec.sqlitePath, url: `sqlite://${spec.sqlitePath}` };
    }
    case "redis":
      if (!spec.redisUrl) throw new Error("the redis target needs redisUrl");
      return { kind: "redis", url: spec.redisUrl };
  }
}

export async function startBotTarget(spec: Extract<TargetSpec, { kind: "bot" }>): Promise<RunningTarget> {
  const sandbox = await startSandbox();
  const slack = await startSlackStandin();
  const closeAround = async () => {
    await slack.close();
    await sandbox.close();
  };
  try {
    return await startBotWith(spec, sandbox, slack, closeAround);
  } catch (err) {
    await closeAround();
    throw err;
  }
}

async function startBotWith(
  spec: Extract<TargetSpec, { kind: "bot" }>,
  sandbox: Sandbox,
  slack: SlackStandin,
  closeAround: () => Promise<void>,
): Promise<RunningTarget> {
  const base = loadConfig({
    ...botEnvForFakes({
      sandbox,
      slack,
      publicUrl: "https://bot.bench.invalid",
      signingSecret: "bench-signing-secret-0123456789abcdef",
      store: "memory://",
      logLevel: "info",
    }),
  });
  const config: Config = { ...base, port: 0, host: "127.0.0.1", store: storeUrl(spec) };
  let logLines = 0;
  const logger = createLogger({
    level: "info",
    destination: {
      write: () => {
        logLines += 1;
      },
    },
  });
  const bot = await startComposedBot(config, logger, {
    worker: { manual: true },
    ...(spec.namespace ? { namespace: spec.namespace } : {}),
  });
  try {
    const token = newCallbackToken();
    await new RouteRepo(bot.store, logger).put(token, { ...BENCH_ROUTE });
    return {
      url: bot.url,
      path: `/hooks/platform/${token}`,
      ownerId: BENCH_ROUTE.profileId,
      counts: async () => ({ stored: (await bot.outbox.stats()).depth, logLines }),
      close: async () => {
        await bot.close();
        await closeAround();
      },
    };
  } catch (err) {
    await bot.close();
    throw err;
  }
}
