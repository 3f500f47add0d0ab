/**
 * Prometheus metrics (prom-client), served at GET /metrics. Labels are bounded: command names,
 * outcomes, platform operations and error codes; never user, channel or video ids.
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";

// metrics.ts imports nothing of src/: it says what it observes, and compose.ts hands these
// observers to the platform client and the watch service (their options have these shapes).

/** One platform request (src/platform's RequestObservation has it). */
export interface PlatformObservation {
  operation: string;
  status: number;
  durationMs: number;
  code?: string | undefined;
}

/** What the watch service reports (src/watch/service.ts's WatchMetrics takes it). */
export interface WatchObservations {
  onPoll(opts: { ok: boolean; status: number; latencyMs: number }): void;
  onStateChange(opts: { to: string }): void;
  onWatched(count: number): void;
}

/** What /metrics reads from the outbox (src/notify's Outbox has it). */
export interface WatchedOutbox {
  stats(): Promise<{ depth: number; dead: number; oldestReceivedAt: number | null }>;
}

export class Metrics {
  readonly registry = new Registry();

  readonly commands = new Counter({
    name: "bot_commands_total",
    help: "Slash commands and button presses, by name and outcome",
    labelNames: ["name", "outcome"] as const,
    registers: [this.registry],
  });

  readonly commandFailures = new Counter({
    name: "bot_command_failures_total",
    help: "Commands and buttons answered with an error, by kind (platform status, store, unexpected)",
    labelNames: ["kind"] as const,
    registers: [this.registry],
  });

  readonly platformLatency = new Histogram({
    name: "bot_platform_request_seconds",
    help: "Platform API and token requests, by operation and HTTP status (0 = no response)",
    labelNames: ["operation", "status"] as const,
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  readonly platformErrors = new Counter({
    name: "bot_platform_errors_total",
    help: "Platform requests that failed, by error code",
    labelNames: ["operation", "code"] as const,
    registers: [this.registry],
  });

  /** Deliveries answered since the last read of `deliveries`, by HTTP status (see `received`). */
  private readonly receivedSince = new Map<number, number>();
  /** Hostile deliveries refused since the last read, by reason (see `received`). */
  private readonly refusedSince = new Map<string, number>();

  readonly deliveries = new Counter({
    name: "bot_deliveries_total",
    help: "Webhook deliveries: received by HTTP status, posted and failed by the worker",
    labelNames: ["stage", "result"] as const,
    registers: [this.registry],
    // Every read (/metrics, get()) adds the answers counted since the last one first.
    collect: () => this.flushReceived(),
  });

  readonly slackRateLimited = new Counter({
    name: "bot_slack_rate_limited_total",
    help: "Times Slack answered 429 to the notification worker",
    registers: [this.registry],
  });

  readonly slackRateLimitWaitSeconds = new Counter({
    name: "bot_slack_rate_limit_wait_seconds_total",
    help: "Seconds of Retry-After the worker waited out",
    registers: [this.registry],
  });

  readonly readBudgetRefused = new Counter({
    name: "bot_read_budget_refused_total",
    help: "Platform reads refused because a read budget was used up, by budget (user, workspace)",
    labelNames: ["budget"] as const,
    registers: [this.registry],
  });

  readonly livestreamReads = new Counter({
    name: "bot_livestream_reads_total",
    help: "Livestream reads for people (status, Refresh, previews, ingest, watch): fetched from the platform, or shared with an identical one",
    labelNames: ["outcome"] as const,
    registers: [this.registry],
  });

  readonly watchPolls = new Counter({
    name: "bot_watch_polls_total",
    help: "Reads of watched livestreams, by outcome (ok, or the HTTP status class; none = no response)",
    labelNames: ["outcome"] as const,
    registers: [this.registry],
  });

  readonly watchStateChanges = new Counter({
    name: "bot_watch_state_changes_total",
    help: "Broadcast state changes of watched livestreams (live, grace, ended)",
    labelNames: ["to"] as const,
    registers: [this.registry],
  });

  readonly watchPollLatency = new Histogram({
    name: "bot_watch_poll_seconds",
    help: "Time of one read of a watched livestream",
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  readonly watchedLivestreams = new Gauge({
    name: "bot_watched_livestreams",
    help: "Livestreams watched by at least one channel",
    registers: [this.registry],
  });

  /** For WatchService's `metrics`: bounded labels only (no livestream ids). */
  readonly watch: WatchObservations = {
    onPoll: (opts) => {
      const outcome = opts.ok ? "ok" : opts.status === 0 ? "none" : `${Math.floor(opts.status / 100)}xx`;
      this.watchPolls.inc({ outcome: opts.status === 429 ? "429" : outcome });
      this.watchPollLatency.observe(Math.max(0, opts.latencyMs) / 1000);
    },
    onStateChange: (opts) => this.watchStateChanges.inc({ to: opts.to }),
    onWatched: (n) => this.watchedLivestreams.set(n),
  };

  private outbox: WatchedOutbox | undefined;

  readonly outboxDepth = new Gauge({
    name: "bot_outbox_depth",
    help: "Deliveries stored and not yet processed",
    registers: [this.registry],
    collect: async () => {
      await this.collectOutbox();
    },
  });

  readonly outboxOldestAge = new Gauge({
    name: "bot_outbox_oldest_age_seconds",
    help: "Age of the oldest unprocessed delivery (0 when none)",
    registers: [this.registry],
  });

  readonly outboxDead = new Gauge({
    name: "bot_outbox_dead_letters",
    help: "Deliveries Slack refused for good, kept for inspection",
    registers: [this.registry],
  });

  constructor(private readonly now: () => number = Date.now) {}

  /** The outbox whose depth and oldest entry /metrics reports. */
  observeOutbox(outbox: WatchedOutbox): void {
    this.outbox = outbox;
  }

  private async collectOutbox(): Promise<void> {
    if (!this.outbox) return;
    try {
      const s = await this.outbox.stats();
      this.outboxDepth.set(s.depth);
      this.outboxDead.set(s.dead);
      this.outboxOldestAge.set(
        s.oldestReceivedAt === null ? 0 : Math.max(0, (this.now() - s.oldestReceivedAt) / 1000),
      );
    } catch {
      // The store is down: /readyz says so; the gauges keep their last values.
    }
  }

  /**
   * One delivery answered with `status`: counted in `deliveries` {stage="received",
   * result=<status>}. A plain count per status until the counter is read, not a labelled
   * increment (label validation and hashing) per delivery: this runs on the delivery route.
   */
  received(status: number, reason?: string): void {
    this.receivedSince.set(status, (this.receivedSince.get(status) ?? 0) + 1);
    // A refusal of src/deliveries/body-limits.ts (too deep, too old...) or "over_quota" (429): also
    // counted in {stage="refused", result=<reason>}; a fixed, short list of reasons.
    if (reason !== undefined) this.refusedSince.set(reason, (this.refusedSince.get(reason) ?? 0) + 1);
  }

  private flushReceived(): void {
    for (const [status, n] of this.receivedSince) {
      this.deliveries.inc({ stage: "received", result: String(status) }, n);
    }
    this.receivedSince.clear();
    for (const [reason, n] of this.refusedSince) this.deliveries.inc({ stage: "refused", result: reason }, n);
    this.refusedSince.clear();
  }

  /** For PlatformClient's `onRequest`. */
  readonly observePlatform = (opts: PlatformObservation): void => {
    this.platformLatency.observe(
      { operation: opts.operation, status: String(opts.status) },
      opts.durationMs / 1000,
    );
    if (opts.code && (opts.status === 0 || opts.status >= 400)) {
      this.platformErrors.inc({ operation: opts.operation, code: opts.code });
    }
  };
}
