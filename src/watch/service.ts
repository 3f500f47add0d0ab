/**
 * Live watch: watch/unwatch/list for the commands and the App Home. The polling of the watched
 * livestreams (one poll per livestream per interval, the announcements, access decided again at
 * every poll) is poller.ts; start/stop/tick hand over to it.
 */
import { randomUUID } from "node:crypto";
import { DirectMessages } from "./dm.js";
import {
  checkWatchIds,
  type LiveDoc,
  LiveDocs,
  WatchLimitError,
  type WatchView,
  watchIdSchema,
  watchView,
} from "./live-docs.js";
import {
  DEFAULT_MAX_DM_WATCHES_PER_USER,
  DEFAULT_MAX_WATCHED,
  DEFAULT_MAX_WATCHES_PER_TEAM,
  type NewWatch,
  type WatchHealth,
  type WatchServiceOptions,
} from "./options.js";
import { WatchPoller } from "./poller.js";
import { dmUserOf, type WatchEntry, type WatchRegistry } from "./registry.js";
import { registryFor } from "./registry-for.js";
import { scheduleFor, type WatchSchedule } from "./schedule.js";
import { StepDocs, stepKey, type WaitKind } from "./steps.js";

export type { WatchAccess } from "./access.js";
export type { WatchView } from "./live-docs.js";
export * from "./options.js";

/** A waiting step (src/slack/listeners/functions/wait.ts). */
export interface NewWait {
  kind: WaitKind;
  /** Slack's `function_execution_id`. */
  executionId: string;
  teamId: string;
  enterpriseId?: string | undefined;
  livestreamId: string;
  /** From the read that authorized the step. */
  profileId?: string | undefined;
  timeoutMinutes: number;
}

export class WatchService {
  readonly owner = randomUUID();
  readonly registry: WatchRegistry;
  /** Personal watches' IM channels and members (the command opens the IM through it). */
  readonly dms: DirectMessages;
  private readonly live: LiveDocs;
  private readonly schedule: WatchSchedule;
  private readonly steps: StepDocs;
  private readonly now: () => number;
  private readonly poller: WatchPoller;

  constructor(private readonly opts: WatchServiceOptions) {
    this.registry = opts.registry ?? registryFor(opts.store);
    this.live = new LiveDocs(opts.store, opts.logger);
    this.schedule = opts.schedule ?? scheduleFor(opts.store);
    this.steps = new StepDocs(opts.store, opts.logger);
    const log = opts.logger.child({ component: "watch" });
    this.now = opts.now ?? Date.now;
    this.dms = new DirectMessages({
      slackFor: opts.slackFor,
      log,
      now: this.now,
      ...(opts.users ? { users: opts.users } : {}),
      ...(opts.memberCacheMs !== undefined ? { cacheMs: opts.memberCacheMs } : {}),
    });
    this.poller = new WatchPoller({
      opts,
      owner: this.owner,
      registry: this.registry,
      live: this.live,
      schedule: this.schedule,
      dms: this.dms,
      steps: this.steps,
      log,
      now: this.now,
      random: opts.random ?? Math.random,
    });
  }

  /**
   * Starts watching; the livestream is polled within one tick, or at its next due time when it was
   * read less than an interval ago (unwatched since: schedule.ts `keepDue`), never sooner. false
   * when it was watched already.
   * Throws WatchLimitError past the person's cap (a DM watch), the workspace's cap or the cap in
   * all (nothing changed).
   */
  async watch(w: NewWatch): Promise<{ added: boolean }> {
    checkWatchIds({ teamId: w.teamId, channelId: w.channelId, livestreamId: w.livestreamId });
    const user = dmUserOf(w.channelId);
    if (user !== undefined && user !== w.by) throw new TypeError("a DM watch is only ever the asker's own");
    const outcome = await this.added({
      teamId: w.teamId,
      enterpriseId: w.enterpriseId ?? null,
      channelId: w.channelId,
      livestreamId: w.livestreamId,
      profileId: w.profileId ?? null,
      by: w.by,
      at: new Date(this.now()).toISOString(),
    });
    return { added: outcome === "added" };
  }

  /** Adds the watch (the caps checked as it is written) and schedules its livestream; WatchLimitError past a cap. */
  private async added(w: WatchEntry): Promise<"added" | "exists"> {
    const perTeam = this.opts.maxWatchesPerTeam ?? DEFAULT_MAX_WATCHES_PER_TEAM;
    const total = this.opts.maxWatched ?? DEFAULT_MAX_WATCHED;
    const perUser = this.opts.maxDmWatchesPerUser ?? DEFAULT_MAX_DM_WATCHES_PER_USER;
    const outcome = await this.registry.add(w, { perTeam, total, perUser });
    if (outcome === "user_full") throw new WatchLimitError(perUser, "user");
    if (outcome === "team_full") throw new WatchLimitError(perTeam, "workspace");
    if (outcome === "all_full") throw new WatchLimitError(total, "all");
    await this.schedule.add(w.livestreamId, this.now());
    await this.poller.reportWatched();
    return outcome;
  }

  /**
   * A waiting step (steps.ts): its document written first (its timeout), then its watch, which
   * counts toward the caps like any watch. WatchLimitError past a cap (nothing kept).
   */
  async wait(s: NewWait): Promise<void> {
    const channelId = stepKey(s.kind, s.executionId);
    checkWatchIds({ teamId: s.teamId, channelId, livestreamId: s.livestreamId });
    const now = this.now();
    const deadline = now + Math.round(s.timeoutMinutes * 60_000);
    const { kind, teamId, livestreamId, timeoutMinutes } = s;
    await this.steps.write(s.executionId, { v: 1, kind, teamId, livestreamId, timeoutMinutes, deadline });
    const entry: WatchEntry = {
      teamId,
      enterpriseId: s.enterpriseId ?? null,
      channelId,
      livestreamId,
      profileId: s.profileId ?? null,
      by: "workflow",
      at: new Date(now).toISOString(),
    };
    try {
      await this.added(entry);
    } catch (err) {
      await this.steps.remove(s.executionId);
      throw err;
    }
  }

  async unwatch(w: Omit<NewWatch, "by" | "enterpriseId" | "profileId">): Promise<{ removed: boolean }> {
    checkWatchIds({ teamId: w.teamId, channelId: w.channelId, livestreamId: w.livestreamId });
    const { removed, left } = await this.registry.remove(w);
    // Its next due time is kept: watched again before then, it is not read sooner.
    if (left === 0) await this.poller.unwatched(w.livestreamId, true);
    await this.poller.reportWatched();
    return { removed };
  }

  /** Every watch of the workspace ends (uninstall): its livestreams no one else watches are not read again. */
  async forgetTeam(teamId: string): Promise<number> {
    if (!watchIdSchema.safeParse(teamId).success) return 0;
    const gone = await this.registry.removeTeam(teamId);
    for (const g of gone) if (g.left === 0) await this.poller.unwatched(g.livestreamId, true);
    await this.poller.reportWatched();
    return gone.length;
  }

  /**
   * The workspace's watches it may still see (workspace allowed, profile bound; a watch whose
   * profile is not known yet only when every profile is), with their current state: every
   * channel's, and the DM watches of `viewer` only (never another person's).
   */
  async list(teamId: string, enterpriseId?: string, viewer?: string): Promise<WatchView[]> {
    const shown = (w: WatchEntry) => {
      const user = dmUserOf(w.channelId);
      return user === undefined || (viewer !== undefined && user === viewer);
    };
    const watches = (await this.registry.listTeam(teamId)).filter(
      (w) =>
        shown(w) &&
        this.opts.access.stillBound(
          { teamId, enterpriseId: w.enterpriseId ?? enterpriseId },
          w.profileId ?? undefined,
        ),
    );
    const docs = new Map<string, LiveDoc>();
    for (const w of watches) {
      if (!docs.has(w.livestreamId)) docs.set(w.livestreamId, await this.live.read(w.livestreamId));
    }
    return watches.map((w) => watchView(w, docs.get(w.livestreamId)));
  }

  /** Polls that failed last on this replica (for the App Home). */
  health(): WatchHealth {
    return this.poller.health();
  }

  /** Starts polling (the watches of a previous version moved first; see poller.ts). */
  start(): Promise<void> {
    return this.poller.start();
  }

  /** Stops polling, waits for polls under way, and hands the leases back (another replica takes over). */
  stop(): Promise<void> {
    return this.poller.stop();
  }

  /** One scheduling pass (exposed for tests). */
  tick(): Promise<void> {
    return this.poller.tick();
  }
}
