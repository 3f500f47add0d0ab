/**
 * The whole bot, built exactly as production builds it (src/compose.ts: store, outbox, platform
 * client, Bolt app on a free port of 127.0.0.1). With `worker` its notification worker runs at
 * the app's settings and posts to the Slack stand-in (one new post per second per channel, so the
 * load's videos pile up behind it, as they do for a user); without, the load measures the
 * delivery route alone: checks, parsing, durable enqueue, answer. `backlog` stores that many
 * videos (one delivery each) before the load, and waits until the worker has only their posts
 * left, so the load meets a channel with thousands of videos waiting.
 *
 * The platform sandbox and the Slack stand-in run in the runner (`env` holds their addresses), as
 * remote services do: the worker reads each new video's title from the one and posts to the other,
 * and the work of answering is theirs, not the bot's, so it is not in this process's CPU.
 * The route is registered through CallbackRepo, as `/webhook set` does.
 * The logger logs at info (the production default) into a counter, so logging cost is included
 * without flooding the runner's output.
 */

import { type ComposedBot, startComposedBot } from "../../src/compose.js";
import { type Config, loadConfig, type StoreUrl } from "../../src/config.js";
import { createLogger } from "../../src/log.js";
import { outboxItemOf } from "../../src/notify/item.js";
import { parseDelivery } from "../../src/platform/index.js";
import { CallbackRepo, newCallbackToken } from "../../src/store/index.js";
import type { TargetSpec } from "../lib/protocol.js";
import { BENCH_OWNER, SEED_VIDEO_PREFIX } from "./owner.js";
import { stage } from "./stage.js";
import type { RunningTarget } from "./types.js";

/**
 * The load's route: the Slack stand-in's workspace and a channel the bot is in
 * (fakes/slack/seed.ts), and the sandbox's profile, so that the worker's title reads and posts
 * succeed as they do for a user, rather than take an error path on every video.
 */
export const BENCH_ROUTE = { teamId: "T0STANDIN", profileId: BENCH_OWNER, channelId: "C0GENERAL" } as const;

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
  const base = loadConfig({ ...spec.env, STORE_URL: "memory://", LOG_LEVEL: "info" });
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
  stage(`composing the bot (${spec.store} store, outbox, app; listening)`);
  const bot = await startComposedBot(config, logger, {
    worker: spec.worker ? {} : { manual: true },
    namespace: spec.namespace,
    // A saturating load on one route passes the per-profile quota of waiting items (20,000) in
    // 2–3 s and is then answered 429, cheaply: raised here so that the load measures storing.
    profileQuota: 1_000_000,
  });
  stage("registering the delivery route");
  try {
    const token = newCallbackToken();
    await new CallbackRepo(bot.store, logger).put(token, { ...BENCH_ROUTE });
    if (spec.backlog) {
      stage(`storing a backlog of ${spec.backlog} videos${spec.worker ? " and folding it" : ""}`);
      await seed(bot, spec.backlog, spec.worker === true);
    }
    // Deliveries the load got stored (the worker acknowledges them, so the depth would not tell).
    let stored = 0;
    const enqueue = bot.outbox.enqueue.bind(bot.outbox);
    bot.outbox.enqueue = async (...args) => {
      const r = await enqueue(...args);
      if (r === "stored") stored++;
      return r;
    };
    return {
      url: bot.url,
      path: `/hooks/platform/${token}`,
      ownerId: BENCH_ROUTE.profileId,
      counts: async () => ({ stored, scheduled: (await bot.outbox.stats()).scheduled, logLines }),
      close: async () => {
        await bot.close();
      },
    };
  } catch (err) {
    await bot.close();
    throw err;
  }
}

/**
 * `n` videos, one `video.created` each, stored through the outbox (in chunks, as the route would
 * under load); with the worker running, waits (up to 5 min) until every one is folded and only
 * their Slack posts wait: the outbox holds no item and the videos stay scheduled.
 */
async function seed(bot: ComposedBot, n: number, worker: boolean): Promise<void> {
  const base = Date.now();
  for (let i = 0; i < n; i += 500) {
    await Promise.all(
      Array.from({ length: Math.min(500, n - i) }, (_, j) => {
        const d = parseDelivery({
          type: "video.created",
          timestamp: base + i + j,
          data: { owner_id: BENCH_ROUTE.profileId, video_id: `${SEED_VIDEO_PREFIX}${(i + j).toString(36)}` },
        });
        if (!d.ok) throw new Error("the seed delivery does not parse");
        const { item, dedupeKey } = outboxItemOf(BENCH_ROUTE, d.value, base);
        return bot.outbox.enqueue(item, dedupeKey, base);
      }),
    );
  }
  if (!worker) return;
  bot.built.worker.kick();
  const deadline = Date.now() + 300_000;
  for (;;) {
    const s = await bot.outbox.stats();
    if (s.depth === 0) return;
    if (Date.now() > deadline) throw new Error(`backlog not settled in 5 min: ${JSON.stringify(s)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
