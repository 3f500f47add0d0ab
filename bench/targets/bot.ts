/**
 * The whole bot, built exactly as the test harness builds it (`startBot`: store, outbox, platform
 * client, Bolt app on a free port of 127.0.0.1), with the notification worker NOT started, so the
 * load measures the delivery route alone: checks, parsing, durable enqueue, answer.
 *
 * Nothing outside is contacted: the Slack and platform URLs point at a closed port and are never
 * called on the ingest path. The route is registered through RouteRepo, as `/webhook set` does.
 * The logger logs at info (the production default) into a counter, so logging cost is included
 * without flooding the runner's output.
 */
import { type Config, loadConfig, type StoreUrl } from "../../src/config.js";
import { createLogger } from "../../src/log.js";
import { newCallbackToken, RouteRepo } from "../../src/store/index.js";
import { startBot } from "../../test/support/harness.js";
import type { TargetSpec } from "../lib/protocol.js";
import type { RunningTarget } from "./types.js";

/** Where nothing listens: a call there would fail fast (none is made while ingesting). */
const NOWHERE = "http://127.0.0.1:9";
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
  const base = loadConfig({
    PUBLIC_URL: "https://bot.bench.invalid",
    SLACK_SIGNING_SECRET: "bench-signing-secret-0123456789abcdef",
    SLACK_BOT_TOKEN: "xoxb-bench-0000",
    SLACK_API_URL: `${NOWHERE}/api/`,
    PLATFORM_API_URL: `${NOWHERE}/v2`,
    PLATFORM_AUTH_URL: NOWHERE,
    PLATFORM_CLIENT_ID: "bench-client",
    PLATFORM_CLIENT_SECRET: "bench-client-secret",
    STORE_URL: "memory://",
    LOG_LEVEL: "info",
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
  const bot = await startBot(config, logger, {
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
      close: () => bot.close(),
    };
  } catch (err) {
    await bot.close();
    throw err;
  }
}
