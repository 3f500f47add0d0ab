/**
 * The live watch's part of the composition (compose.ts): the WatchService built on the store, fed
 * the worker's per-workspace clients and the one authorizer, its digests and pauses, its tuning;
 * started in the background (a store down at start-up is retried every interval instead of
 * keeping the app from listening) and stopped first.
 */
import type { Config } from "./config.js";
import type { Digests } from "./digest/index.js";
import type { Logger } from "./log.js";
import type { Store } from "./store/index.js";
import { WatchService, type WatchServiceOptions } from "./watch/service.js";

/** The live watch's knobs (compose.ts `Tuning.watch`); tests and the benchmark shorten them. */
export type WatchTuning = Partial<
  Pick<
    WatchServiceOptions,
    | "tickMs"
    | "concurrency"
    | "minUpdateIntervalMs"
    | "maxWatchesPerTeam"
    | "maxDmWatchesPerUser"
    | "memberCacheMs"
  >
> & {
  /** The watch is not started with the app (tests look at the registry, not at polls). */
  manual?: boolean;
};

export interface WatchWiringOptions {
  /** Without a store there is no watch (`/live watch` answers that watching is off). */
  store: Store | undefined;
  logger: Logger;
  platform: WatchServiceOptions["platform"];
  slackFor: WatchServiceOptions["slackFor"];
  users: WatchServiceOptions["users"];
  gate: WatchServiceOptions["gate"];
  access: WatchServiceOptions["access"];
  digests: Digests;
  metrics: WatchServiceOptions["metrics"];
  tuning: WatchTuning | undefined;
}

export interface WatchWiring {
  /** The live-watch poller (undefined without a store). */
  watch: WatchService | undefined;
  /** Starts the watch in the background, retried until the store answers. */
  start(): void;
  /** Stops the retries, waits for a start under way, then stops the watch (its leases handed back). */
  stop(): Promise<void>;
}

export function wireWatch(config: Config, opts: WatchWiringOptions): WatchWiring {
  const { logger, digests, tuning } = opts;
  // Live watch: the same per-workspace clients as the worker (paced by the service itself); access
  // is decided again at every poll by the same authorizer.
  const watch = opts.store
    ? new WatchService({
        store: opts.store,
        logger,
        platform: opts.platform,
        slackFor: opts.slackFor,
        users: opts.users,
        gate: opts.gate,
        access: opts.access,
        maxWatched: config.watch.max,
        held: {
          held: async (teamId, profileId, channelId) =>
            (await digests.holdOf(teamId, profileId, channelId)) !== null,
          recordBroadcast: (b) => digests.recordBroadcast(b),
        },
        intervalMs: config.watch.intervalMs,
        graceMs: config.watch.offAirGraceMs,
        metrics: opts.metrics,
        tickMs: tuning?.tickMs,
        concurrency: tuning?.concurrency,
        maxWatchesPerTeam: tuning?.maxWatchesPerTeam,
        maxDmWatchesPerUser: tuning?.maxDmWatchesPerUser,
        memberCacheMs: tuning?.memberCacheMs,
        minUpdateIntervalMs: tuning?.minUpdateIntervalMs,
      })
    : undefined;
  // The watch starts in the background: a store that is down at start-up (/readyz says so) is
  // retried every interval instead of keeping the app from listening.
  let watchRetry: NodeJS.Timeout | undefined;
  let watchStopped = false;
  let watchStarting: Promise<void> | undefined;
  const startWatch = (): void => {
    if (!watch || watchStopped) return;
    watchStarting = watch.start().catch((err: unknown) => {
      logger.warn({ err }, "live watch could not start (store unavailable?); retrying");
      if (watchStopped) return;
      watchRetry = setTimeout(startWatch, Math.min(config.watch.intervalMs, 30_000));
      watchRetry.unref?.();
    });
  };
  return {
    watch,
    start: startWatch,
    stop: async () => {
      watchStopped = true;
      if (watchRetry) clearTimeout(watchRetry);
      await watchStarting;
      await watch?.stop();
    },
  };
}
