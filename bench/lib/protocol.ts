/**
 * What the bench runner and a load target (a child process, see bench/targets/main.ts) say to
 * each other over Node's IPC channel. A target is started with its TargetSpec as JSON in argv[2],
 * answers `ready` once it listens, then answers `counts` and `close` requests by id.
 *
 * Each target runs in its own process so that the load generator (autocannon, in the runner) and
 * the server under test never share an event loop: otherwise the client's own cost would be
 * charged to every target and squeeze the ratios towards 1.
 */

export type StoreKind = "memory" | "sqlite" | "redis";

/** Worker settings of an `app` target; undefined = the app's own defaults. */
export interface WorkerSpec {
  manual?: boolean;
  postIntervalMs?: number;
  coalesceMs?: number;
  pollMs?: number;
}

export type TargetSpec =
  | { kind: "bare" }
  /** A minimal fastify 5 route answering 200 (its JSON body parser included). */
  | { kind: "fastify" }
  /**
   * The durable floor (bench/targets/floor.ts): parse, check, deduplicate by hash, store in a WAL
   * sqlite file (group commit), answer once synced. What the bot on sqlite is compared with.
   */
  | { kind: "floor"; sqlitePath: string }
  /** The memory floor (bench/targets/floor.ts): the same, kept in a Map in the process. */
  | { kind: "memory-floor" }
  /** The Redis floor (bench/targets/floor.ts): the same, one SET NX a delivery, answered on the reply. */
  | { kind: "redis-floor"; redisUrl: string; namespace: string }
  /**
   * The bot alone (store, outbox, platform client, app, worker), configured by `env` like
   * production: the platform sandbox and the Slack stand-in it talks to run in the runner.
   */
  | {
      kind: "app";
      env: Record<string, string>;
      worker: WorkerSpec;
      /** Live watch: the most watches one workspace may have (the app's default otherwise). */
      maxWatchesPerTeam?: number;
    }
  /** A minimal Bolt app that only acknowledges slash commands: the baseline of the bot's acks. */
  | { kind: "bolt"; signingSecret: string; botToken: string; slackApiUrl: string }
  | {
      kind: "bot";
      store: StoreKind;
      /**
       * The bot's variables for the platform sandbox and the Slack stand-in (fakes/env.ts), which
       * run in the runner: the target process holds the bot alone.
       */
      env: Record<string, string>;
      /** redis: the server URL; a unique namespace isolates the run. */
      redisUrl?: string;
      namespace?: string;
      /** sqlite: the database file (the runner creates and removes its folder). */
      sqlitePath?: string;
      /**
       * Run the notification worker at the app's settings (posting to the Slack stand-in at one
       * new post per second per channel), as users run the bot. Off: the route alone.
       */
      worker?: boolean;
      /**
       * Videos waiting for Slack before the load: this many deliveries of distinct videos stored
       * through the outbox (not counted as stored by the load), and, with the worker on, folded
       * until only their posts wait on the channel, before the target reports ready.
       */
      backlog?: number;
    };

export interface TargetCounts {
  /** Items the target holds after the load: the outbox depth for the bot, requests answered for bare. */
  stored: number;
  /** Resident set size of the target process, bytes. */
  rssBytes: number;
  /** Peak resident set size of the target process so far (resourceUsage().maxRSS), bytes. */
  maxRssBytes: number;
  /** Highest RSS sampled every 100 ms since the target was ready (start-up excluded), bytes. */
  peakRssBytes: number;
  /** Videos scheduled in the outbox (waiting for their due time or the channel); 0 for the baselines. */
  scheduled?: number;
  /** Log lines the target wrote (the bot logs at info, like production). */
  logLines: number;
  /** CPU time the target process has used so far (user + system), microseconds. */
  cpuUs: number;
}

export type ToTarget =
  | { type: "counts"; id: number }
  | { type: "close"; id: number }
  /** CPU profile of the target between start and stop (node:inspector); stop writes it to `file`. */
  | { type: "profile"; id: number; action: "start" }
  | { type: "profile"; id: number; action: "stop"; file: string };

export type FromTarget =
  /** How far the target's start-up got (the runner names the last one if `ready` never comes). */
  | { type: "stage"; stage: string }
  | {
      type: "ready";
      /** http://127.0.0.1:PORT */
      url: string;
      /** The path to POST deliveries to (the callback token is inside). */
      path: string;
      /** owner_id to put in deliveries (the route's profile). */
      ownerId: string;
    }
  | ({ type: "counts"; id: number } & TargetCounts)
  | { type: "closed"; id: number }
  | { type: "profiled"; id: number; file: string | null }
  | { type: "failed"; message: string };
