/**
 * The parts compose.ts builds the app from: the Slack clients (installations, rotation), who may
 * do what (managers, read budgets, the Authorizer), and the notifications (digests, the worker).
 */
import { WebClient } from "@slack/web-api";
import { Authorizer, ManagerPolicy, PlatformDoor, readBudgetFor } from "./access/index.js";
import type { WatchTuning } from "./compose-watch.js";
import type { Config } from "./config.js";
import { type DigestLog, DigestRunner, Digests, digestLogFor, MemoryDigestLog } from "./digest/index.js";
import type { ServerTimeouts } from "./http/timeouts.js";
import { workerClientOptions, workspaceClients } from "./install/oauth.js";
import { TokenRotation } from "./install/rotation.js";
import { installedWorkspaces, needsOrganization, tokenWorkspace } from "./install/workspaces.js";
import type { Logger } from "./log.js";
import type { Metrics } from "./metrics.js";
import { NotifyWorker, type WorkerOptions } from "./notify/worker.js";
import type { Outbox } from "./outbox/index.js";
import { type PlatformClient, PlatformNames } from "./platform/index.js";
import { ChannelGate, SlackUsers } from "./posting/index.js";
import type { AcksFirst } from "./slack/acks-first.js";
import type { ActivityRepo, CallbackRepo, InstallationRepo, SettingsRepo, Store } from "./store/index.js";

/** What the app is built from (compose.ts builds them from the config; tests pass their own). */
export interface AppCollaborators {
  platform: PlatformClient;
  settings: SettingsRepo;
  callbacks: CallbackRepo;
  outbox: Outbox;
  /** Per-profile counters shown on the App Home. */
  activity?: ActivityRepo;
  /** Multi-workspace (OAuth) mode: where installations are kept (required in that mode). */
  installations?: InstallationRepo;
  /** Prometheus metrics served at /metrics (a fresh registry when not given). */
  metrics?: Metrics;
  /** Resolves when the settings store answers (for /readyz). */
  pingStore?: () => Promise<void>;
  logger: Logger;
  now?: () => Date;
  /** The store the live watches live in; without it `/live watch` answers that watching is off. */
  store?: Store;
  /** Where digests and pauses keep what they will summarise (default: on `store`, else in memory). */
  digestLog?: DigestLog;
  /** The test knobs, grouped by their consumer (production passes none: every default applies). */
  tuning?: Tuning | undefined;
}

/** The notification worker's and the digest runner's knobs; tests and the benchmark shorten them. */
export type WorkerTuning = Partial<
  Pick<WorkerOptions, "coalesceMs" | "pollMs" | "leaseMs" | "concurrency" | "owner">
> & {
  /** The channels' pace (ChannelGate), shared with the digests and the watch. */
  postIntervalMs?: number | undefined;
  /** Neither the worker nor the digest runner is started with the app (tests drive them: drain()). */
  manual?: boolean | undefined;
};

/** The test knobs, each group named by what consumes it; production passes none. */
export interface Tuning {
  /** The worker, the digest runner and the channels' pace; tests and the benchmark shorten them. */
  worker?: WorkerTuning | undefined;
  /** The live watch (compose-watch.ts); tests and the benchmark shorten it. */
  watch?: WatchTuning | undefined;
  /** The HTTP server's time limits (src/http/timeouts.ts); tests shorten them. */
  http?: Partial<ServerTimeouts> | undefined;
  /** `/live status`: how long before a slow platform is announced in place (default 10 s); tests shorten it. */
  slowCardMs?: number | undefined;
  /** The clock of the shared reads' 10 s window (default Date.now); tests hold and move it. */
  readsClock?: (() => number) | undefined;
}

/** The Slack side of the collaborators: installations (OAuth), token rotation, a client per workspace. */
export function slackClients(config: Config, c: AppCollaborators) {
  const logger = c.logger;
  const installations = config.slack.mode === "oauth" ? c.installations : undefined;
  if (config.slack.mode === "oauth") {
    if (!installations) throw new Error("multi-workspace (OAuth) mode needs AppCollaborators.installations");
    if (!installations.encrypted)
      logger.warn(
        "STORE_ENCRYPTION_KEY is not set: the workspaces' bot tokens are stored unencrypted; set it (openssl rand -base64 32) to encrypt them at rest",
      );
  }
  // The worker paces each channel itself: no client-side retries or queue-wide pauses. One client
  // per workspace from its installation (OAuth), or the one bot token.
  const workerClient = new WebClient(config.slack.botToken, workerClientOptions(config.slack.apiUrl));
  // Token rotation (multi-workspace mode): expiring bot tokens are refreshed before use.
  const rotation =
    installations && config.slack.clientId && config.slack.clientSecret
      ? new TokenRotation({
          installations,
          apiUrl: config.slack.apiUrl,
          clientId: config.slack.clientId,
          clientSecret: config.slack.clientSecret,
          logger,
        })
      : undefined;
  const slackFor = installations
    ? workspaceClients(installations, config.slack.apiUrl, undefined, rotation)
    : async () => workerClient;
  // The process's one cache of Slack's users.info answers (the manager check, DM watches).
  const users = new SlackUsers();
  return { installations, workerClient, rotation, slackFor, users };
}

/**
 * Who may do what: managers, the read budgets, the names (profile labels, managed profiles, video
 * titles: one instance for all), the one door to the platform built on them and the client, and
 * the one authorization function (which reads through the door).
 */
export function accessParts(
  config: Config,
  c: AppCollaborators,
  metrics: Metrics,
  slack: ReturnType<typeof slackClients>,
  turns: AcksFirst,
) {
  const logger = c.logger;
  const managers = new ManagerPolicy({
    managerUserIds: config.access.managerUserIds,
    settings: c.settings,
    logger,
    users: slack.users,
  });
  // Shared on Redis, in process on memory/sqlite; undefined when both variables are 0.
  const budget = readBudgetFor(c.store, config.access.readBudgets, logger.child({ component: "access" }));
  const names = new PlatformNames({ client: c.platform, logger: logger.child({ component: "names" }) });
  // Every platform read passes here, charged to its cause first; nothing else holds the client.
  const door = new PlatformDoor({
    client: c.platform,
    names,
    budget,
    onBudgetRefused: (budget) => metrics.readBudgetRefused.inc({ budget }),
    logger: logger.child({ component: "access" }),
  });
  // The one authorization function; what the bot does on its own asks it again (`revoked`).
  const access = new Authorizer({
    config,
    managers,
    claims: c.settings.claims,
    platform: door.livestreams(),
    videos: door.videos(),
    clock: c.tuning?.readsClock,
    door,
    workspaceOf: slack.installations
      ? installedWorkspaces(slack.installations)
      : tokenWorkspace(slack.workerClient, needsOrganization(config)),
    logger: logger.child({ component: "access" }),
    onLivestreamRead: (outcome) => metrics.livestreamReads.inc({ outcome }),
    afterRead: () => turns.turn(),
  });
  return { managers, names, door, access };
}

/** Notifications: digests and their runner, and the outbox worker. */
export function notifyParts(
  config: Config,
  c: AppCollaborators,
  metrics: Metrics,
  slackFor: ReturnType<typeof slackClients>["slackFor"],
  who: ReturnType<typeof accessParts>,
) {
  const { logger } = c;
  const { access, managers, door } = who;
  const tuning = c.tuning?.worker;
  const gate = new ChannelGate({ postIntervalMs: tuning?.postIntervalMs });
  const revoked = (teamId: string, profileId: string) => access.revoked(teamId, profileId);
  // Digests and pauses: recorded by the worker (and the live watch), posted by the runner.
  const digestLogger = logger.child({ component: "digests" });
  const digests = new Digests({
    log: c.digestLog ?? (c.store ? digestLogFor(c.store) : new MemoryDigestLog()),
    settings: c.settings,
    periodMs: config.digests.periodMs,
    logger: digestLogger,
  });
  const digestRunner = new DigestRunner({
    log: digests.log,
    settings: c.settings,
    slackFor,
    revoked,
    gate,
    logger: digestLogger,
    // The profile's name in a digest's heading: charged to the workspace.
    names: door,
    outbox: c.outbox,
    periodMs: config.digests.periodMs,
    videoUrlTemplate: config.videoUrlTemplate,
    pollMs: tuning?.pollMs === undefined ? undefined : Math.max(50, tuning.pollMs),
    leaseMs: tuning?.leaseMs,
    owner: tuning?.owner === undefined ? undefined : `${tuning.owner}-digests`,
    onPosted: () => metrics.deliveries.inc({ stage: "posted", result: "digest" }),
  });
  const worker = new NotifyWorker({
    outbox: c.outbox,
    slackFor,
    settings: c.settings,
    revoked,
    activity: c.activity,
    // Title reads (and the profile's name beside them) through the door, charged to the
    // callback's workspace (WORKSPACE_READS_PER_MINUTE) when admitted.
    names: door,
    titleBudget: door,
    digests,
    gate,
    logger: logger.child({ component: "notify" }),
    managersOf: (teamId) => managers.named(teamId),
    videoUrlTemplate: config.videoUrlTemplate,
    coalesceMs: tuning?.coalesceMs,
    pollMs: tuning?.pollMs,
    leaseMs: tuning?.leaseMs,
    concurrency: tuning?.concurrency,
    owner: tuning?.owner,
    onPosted: (kind) => metrics.deliveries.inc({ stage: "posted", result: kind }),
    onFailed: (code) => metrics.deliveries.inc({ stage: "failed", result: code }),
    onRateLimited: (_channel, seconds) => {
      metrics.slackRateLimited.inc();
      metrics.slackRateLimitWaitSeconds.inc(seconds);
    },
  });
  return { digests, digestRunner, worker, gate };
}
