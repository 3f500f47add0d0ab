/**
 * Live watch: watch/unwatch/list for the commands and the App Home, and the poller (ONE poll per
 * watched livestream per interval, whatever the number of watching channels and workspaces).
 *
 * Poller: a tick every `tickMs` claims the due livestreams from the schedule (schedule.ts: a
 * sorted set / heap, so a tick costs the due ones only) and polls each with one sparse GET,
 * several at a time (`concurrency`), never waiting for one to start another: a slow or
 * rate-limited livestream delays only itself. After a poll the next one is due in the interval
 * ±10 % (jitter); after a failure it backs off for that livestream only (429: its Retry-After,
 * at least one interval; others: interval × 2^failures, at most 16×).
 *
 * Ordering, so that nothing is posted twice (restart, flap, second replica):
 *  1. the lease is checked (only its holder writes state or calls Slack);
 *  2. the new broadcast state is written (reducer in broadcast.ts);
 *  3. channels with no message for this broadcast are marked `ts: null` in the live document,
 *     which is written BEFORE chat.postMessage; a marked channel is never posted to again for the
 *     same broadcast (at most once: a crash between the mark and Slack's answer loses that
 *     channel's announcement rather than doubling it; a definite refusal by Slack clears the mark
 *     so the next poll tries again);
 *  4. the answer's ts is saved; updates, milestones and the end go to that ts only.
 * A flap inside the grace keeps the broadcast (same id, same messages); a broadcast is keyed by
 * its real start, so a restart or another replica finds the same id and its messages.
 *
 * Access is decided again at every poll, not only by `/live watch` (src/access: the workspace is
 * allowed and the livestream's profile bound to it): before the read, each watcher with the
 * stored profile (a watcher whose profile is not known yet: its workspace is allowed); after the
 * read, with the profile the read returned when it changed. A watcher refused is removed from the
 * registry and its channel gets one notice naming the livestream by its id only (the registry's
 * remove answers `removed` to one caller only, so two replicas never both send it), then nothing:
 * its message of the broadcast is not updated again. A livestream no watcher may still watch is
 * not read: it leaves the schedule.
 *
 * Personal watches (`/live watch … dm`, registry key `@<user>`) are watchers like channels: the
 * same read, the same checks, plus the person still in the workspace (gate.ts, dm.ts). A person
 * who left ends without a notice (Slack refuses DMs to a deactivated account); one Slack cannot
 * confirm right now is held: kept, not told this time.
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "../log.js";
import { isPlatformError, type Livestream } from "../platform/index.js";
import { Announcer } from "./announce.js";
import { POLL_FIELDS, reduce, snapshotOf } from "./broadcast.js";
import { DirectMessages } from "./dm.js";
import { judge } from "./gate.js";
import { migrateLegacyWatches } from "./legacy.js";
import {
  DEFAULT_MAX_DM_WATCHES_PER_USER,
  DEFAULT_MAX_WATCHED,
  DEFAULT_MAX_WATCHES_PER_TEAM,
  type NewWatch,
  type WatchHealth,
  type WatchServiceOptions,
} from "./options.js";
import { dmUserOf, type WatchEntry, type WatchRegistry } from "./registry.js";
import { registryFor } from "./registry-for.js";
import { scheduleFor, type WatchSchedule } from "./schedule.js";
import {
  checkWatchIds,
  type LiveDoc,
  LiveDocs,
  messageKey,
  type PollOutcome,
  WatchLimitError,
  type WatchView,
  watchIdSchema,
  watchView,
} from "./store.js";

export type { WatchAccess } from "./gate.js";
export * from "./options.js";
export type { WatchView } from "./store.js";

const errText = (err: unknown): string =>
  isPlatformError(err)
    ? `${err.status || err.kind} ${err.code}`
    : err instanceof Error
      ? err.message
      : String(err);

export class WatchService {
  readonly owner = randomUUID();
  readonly registry: WatchRegistry;
  /** Personal watches' IM channels and members (the command opens the IM through it). */
  readonly dms: DirectMessages;
  private readonly live: LiveDocs;
  private readonly schedule: WatchSchedule;
  private readonly announcer: Announcer;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly health_ = new Map<string, PollOutcome>();
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(private readonly o: WatchServiceOptions) {
    this.registry = o.registry ?? registryFor(o.store);
    this.live = new LiveDocs(o.store, o.logger);
    this.schedule = o.schedule ?? scheduleFor(o.store);
    this.log = o.logger.child({ component: "watch" });
    this.now = o.now ?? Date.now;
    this.random = o.random ?? Math.random;
    this.dms = new DirectMessages({
      slackFor: o.slackFor,
      log: this.log,
      now: this.now,
      ...(o.memberCacheMs !== undefined ? { cacheMs: o.memberCacheMs } : {}),
    });
    this.announcer = new Announcer({
      dms: this.dms,
      slackFor: o.slackFor,
      schedule: this.schedule,
      live: this.live,
      owner: this.owner,
      log: this.log,
      minUpdateMs: o.minUpdateIntervalMs ?? Math.max(o.intervalMs, 1000),
      ...(o.held ? { held: o.held } : {}),
    });
  }

  // --- API for commands and the App Home ----------------------------------------------------------

  /**
   * Starts watching; the livestream is polled within one tick. false when it was watched already.
   * Throws WatchLimitError past the person's cap (a DM watch), the workspace's cap or the cap in
   * all (nothing changed).
   */
  async watch(w: NewWatch): Promise<{ added: boolean }> {
    checkWatchIds({ teamId: w.teamId, channelId: w.channelId, livestreamId: w.livestreamId });
    const user = dmUserOf(w.channelId);
    if (user !== undefined && user !== w.by) throw new TypeError("a DM watch is only ever the asker's own");
    const perTeam = this.o.maxWatchesPerTeam ?? DEFAULT_MAX_WATCHES_PER_TEAM;
    const total = this.o.maxWatched ?? DEFAULT_MAX_WATCHED;
    const perUser = this.o.maxDmWatchesPerUser ?? DEFAULT_MAX_DM_WATCHES_PER_USER;
    const outcome = await this.registry.add(
      {
        teamId: w.teamId,
        enterpriseId: w.enterpriseId ?? null,
        channelId: w.channelId,
        livestreamId: w.livestreamId,
        profileId: w.profileId ?? null,
        by: w.by,
        at: new Date(this.now()).toISOString(),
      },
      { perTeam, total, perUser },
    );
    if (outcome === "user_full") throw new WatchLimitError(perUser, "user");
    if (outcome === "team_full") throw new WatchLimitError(perTeam, "workspace");
    if (outcome === "all_full") throw new WatchLimitError(total, "all");
    await this.schedule.add(w.livestreamId, this.now());
    await this.reportWatched();
    return { added: outcome === "added" };
  }

  async unwatch(w: Omit<NewWatch, "by" | "enterpriseId" | "profileId">): Promise<{ removed: boolean }> {
    checkWatchIds({ teamId: w.teamId, channelId: w.channelId, livestreamId: w.livestreamId });
    const { removed, left } = await this.registry.remove(w);
    if (left === 0) await this.unwatched(w.livestreamId);
    await this.reportWatched();
    return { removed };
  }

  /** Every watch of the workspace ends (uninstall): its livestreams no one else watches are not read again. */
  async forgetTeam(teamId: string): Promise<number> {
    if (!watchIdSchema.safeParse(teamId).success) return 0;
    const gone = await this.registry.removeTeam(teamId);
    for (const g of gone) if (g.left === 0) await this.unwatched(g.livestreamId);
    await this.reportWatched();
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
        this.o.access.stillBound(
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
    const failing = [...this.health_.entries()]
      .filter(([, p]) => !p.ok)
      .map(([livestreamId, p]) => ({ livestreamId, failures: p.failures, error: p.error ?? "", at: p.at }));
    return { polled: this.health_.size, failing };
  }

  // --- Poller ---------------------------------------------------------------------------------------

  async start(): Promise<void> {
    if (this.running) return;
    await migrateLegacyWatches(this.o.store, this.registry, this.log);
    const ids = await this.registry.livestreams();
    const now = this.now();
    // Spread over one interval so a restart does not poll everything at once.
    for (const id of ids) await this.schedule.add(id, now + Math.floor(this.random() * this.o.intervalMs));
    this.running = true;
    this.o.metrics?.onWatched?.(ids.length);
    this.loop();
  }

  /** Stops polling, waits for polls under way, and hands the leases back (another replica takes over). */
  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await Promise.allSettled([...this.inFlight.values()]);
    await this.schedule.releaseAll(this.owner, [...this.health_.keys()], this.now()).catch(() => undefined);
  }

  private loop(): void {
    if (!this.running) return;
    const tickMs = this.o.tickMs ?? Math.max(20, Math.min(250, Math.floor(this.o.intervalMs / 4)));
    this.timer = setTimeout(() => {
      this.tick()
        .catch((err: unknown) => this.log.warn({ err }, "watch tick failed"))
        .finally(() => this.loop());
    }, tickMs);
    this.timer.unref?.();
  }

  /** One scheduling pass (exposed for tests). */
  async tick(): Promise<void> {
    const free = (this.o.concurrency ?? 32) - this.inFlight.size;
    if (free <= 0) return;
    const leaseMs = this.o.intervalMs;
    const ids = await this.schedule.claimDue(this.owner, this.now(), free, leaseMs);
    for (const id of ids) {
      if (this.inFlight.has(id)) continue;
      const p = this.pollOne(id, leaseMs)
        .catch((err: unknown) => this.log.warn({ err, livestreamId: id }, "watch poll failed"))
        .finally(() => this.inFlight.delete(id));
      this.inFlight.set(id, p);
    }
  }

  private nextDue(now: number, failures: number, retryAfterMs: number | undefined): number {
    const I = this.o.intervalMs;
    if (failures === 0) return now + Math.round(I * (0.9 + 0.2 * this.random()));
    const back = Math.max(retryAfterMs ?? 0, I * Math.min(2 ** (failures - 1), 16));
    return now + Math.round(back * (1 + 0.1 * this.random()));
  }

  private async reschedule(id: string, due: number): Promise<void> {
    await this.schedule.reschedule(this.owner, id, due, due + Math.floor(this.o.intervalMs / 2));
  }

  /** The livestream has no watcher left: out of the schedule (never read again), its state deleted. */
  private async unwatched(id: string): Promise<void> {
    await this.schedule.remove(id);
    await this.live.remove(id);
    // A watch added meanwhile (another command, another replica) puts it back.
    if ((await this.registry.watchers(id)).length > 0) await this.schedule.add(id, this.now());
  }

  /**
   * The watchers that may still be told of the livestream (`keep`), and those kept but not told
   * this time (`held`), with `profileId` its profile (null: not known yet, then before a read the
   * workspace alone decides; gate.ts). The others are removed from the registry, each told once
   * (a person who left the workspace: not told); none left: the livestream leaves the schedule.
   */
  private async allowed(id: string, watchers: WatchEntry[], profileId: string | null, read: boolean) {
    const { keep, held, refused } = await judge(watchers, profileId, read, this.o.access, this.dms);
    let left = keep.length + held.length;
    for (const { w, why } of refused) {
      const r = await this.registry.remove(w);
      left = r.left;
      if (!r.removed) continue; // another replica ended it (and told the channel)
      this.log.info(
        { team: w.teamId, channel: w.channelId, livestream: id, profile: profileId },
        why === "gone"
          ? "watch ended: the person is no longer in the workspace"
          : "watch ended: the workspace may no longer read the livestream",
      );
      if (why === "access") await this.announcer.revoked(w);
    }
    if (refused.length > 0) {
      if (left === 0) await this.unwatched(id);
      await this.reportWatched();
    }
    return { keep, held };
  }

  private async pollOne(id: string, leaseMs: number): Promise<void> {
    const started = this.now();
    const before = await this.registry.watchers(id);
    const stored = before[0]?.profileId ?? null;
    let { keep: watchers, held } =
      before.length === 0 ? { keep: before, held: [] } : await this.allowed(id, before, stored, false);
    if (watchers.length + held.length === 0) {
      // Not read: nobody may be told. Unscheduled by now, unless a watch came back meanwhile.
      if (before.length === 0) await this.unwatched(id);
      else await this.reschedule(id, this.nextDue(this.now(), 0, undefined));
      return;
    }
    let ls: Livestream | undefined;
    let failure: unknown;
    try {
      ls = await this.o.platform.getLivestream(id, POLL_FIELDS, {
        signal: AbortSignal.timeout(Math.max(leaseMs, 1000)),
      });
    } catch (err) {
      failure = err;
    }
    const now = this.now();
    const status = isPlatformError(failure) ? failure.status : failure === undefined ? 200 : 0;
    this.o.metrics?.onPoll?.({
      livestreamId: id,
      ok: failure === undefined,
      status,
      latencyMs: now - started,
    });
    const doc = await this.live.read(id);
    if (failure !== undefined || ls === undefined) {
      const failures = (doc.poll?.failures ?? 0) + 1;
      const poll: PollOutcome = { at: now, ok: false, failures, error: errText(failure) };
      this.health_.set(id, poll);
      const retryAfter =
        isPlatformError(failure) && failure.retryAfterSeconds !== undefined
          ? failure.retryAfterSeconds * 1000
          : undefined;
      this.log.info({ livestreamId: id, failures, error: poll.error }, "watch poll failed; backing off");
      if (await this.schedule.holds(this.owner, id)) await this.live.write(id, { ...doc, poll });
      await this.reschedule(id, this.nextDue(now, failures, retryAfter));
      return;
    }
    const profileId = ls.profile?.profile_id ?? null;
    if (profileId !== stored) {
      // The livestream changed profile (or its profile was not known): decided again with the new one.
      if (profileId !== null) await this.registry.setProfile(id, profileId);
      ({ keep: watchers, held } = await this.allowed(id, [...watchers, ...held], profileId, true));
      if (watchers.length + held.length === 0) {
        await this.reschedule(id, this.nextDue(this.now(), 0, undefined));
        return;
      }
    }
    const poll: PollOutcome = { at: now, ok: true, failures: 0, error: null };
    this.health_.set(id, poll);
    const { next, effects } = reduce(doc.broadcast, snapshotOf(ls), now, this.o.graceMs);
    const from = doc.broadcast?.phase ?? "none";
    const newBroadcast = next !== null && next.id !== doc.broadcast?.id;
    const messages = newBroadcast ? {} : { ...doc.messages };
    // A watch that ended: its message is never touched again (a held one keeps its message).
    for (const w of before)
      if (!watchers.includes(w) && !held.includes(w)) delete messages[messageKey(w.teamId, w.channelId)];
    const live: LiveDoc = { v: 1, broadcast: next, messages, poll };
    if (!(await this.schedule.holds(this.owner, id))) return; // another replica took it over
    await this.live.write(id, live);
    if (next !== null && next.phase !== from)
      this.o.metrics?.onStateChange?.({ livestreamId: id, from, to: next.phase });
    if (next !== null && effects.length > 0)
      await this.announcer.apply(id, next, effects, watchers, live, now, held);
    await this.reschedule(id, this.nextDue(this.now(), 0, undefined));
  }

  private async reportWatched(): Promise<void> {
    if (this.o.metrics?.onWatched) this.o.metrics.onWatched(await this.schedule.size());
  }
}
