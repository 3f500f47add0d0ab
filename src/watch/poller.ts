/**
 * The live watch's poller: ONE poll per watched livestream per interval, whatever the number of
 * watching channels and workspaces; the state it writes and the messages it posts (announce.ts).
 * The commands' API over it is service.ts.
 */
import type { Logger } from "../log.js";
import { isPlatformError, type Livestream } from "../platform/index.js";
import { judge } from "./access.js";
import { Announcer, type ClosedChannel } from "./announce.js";
import { POLL_FIELDS, reduce, snapshotOf } from "./broadcast.js";
import type { DirectMessages } from "./dm.js";
import { migrateLegacyWatches } from "./legacy.js";
import { type LiveDoc, type LiveDocs, messageKey, type PollOutcome, TITLE_MAX } from "./live-docs.js";
import type { WatchHealth, WatchServiceOptions } from "./options.js";
import type { WatchEntry, WatchRegistry } from "./registry.js";
import type { WatchSchedule } from "./schedule.js";
import { type StepDocs, stepOf } from "./steps.js";
import { splitSteps, WaitingSteps } from "./waiting.js";

const errText = (err: unknown): string =>
  isPlatformError(err)
    ? `${err.status || err.kind} ${err.code}`
    : err instanceof Error
      ? err.message
      : String(err);

/** What the poller shares with the service (service.ts builds them once). */
export interface PollerParts {
  opts: WatchServiceOptions;
  /** This replica's lease owner. */
  owner: string;
  registry: WatchRegistry;
  live: LiveDocs;
  schedule: WatchSchedule;
  dms: DirectMessages;
  /** The waiting steps' documents (steps.ts). */
  steps: StepDocs;
  log: Logger;
  now: () => number;
  random: () => number;
}

/**
 * A tick every `tickMs` claims the due livestreams from the schedule (schedule.ts: a
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
 * allowed, the app still installed there, and the livestream's profile bound to it; a workspace
 * uninstalled is not told, it has no token any more): before the read, each watcher with the
 * stored profile (a watcher whose profile is not known yet: its workspace is allowed); after the
 * read, with the profile the read returned when it changed. A watcher refused is removed from the
 * registry and its channel gets one notice naming the livestream by its id only (the registry's
 * remove answers `removed` to one caller only, so two replicas never both send it), then nothing:
 * its message of the broadcast is not updated again. A livestream no watcher may still watch is
 * not read: it leaves the schedule.
 *
 * Personal watches (`/live watch … dm`, registry key `@<user>`) are watchers like channels: the
 * same read, the same checks, plus the person still in the workspace (access.ts, dm.ts). A person
 * who left ends without a notice (Slack refuses DMs to a deactivated account); one Slack cannot
 * confirm right now is held: kept, not told this time.
 */
export class WatchPoller {
  private readonly opts: WatchServiceOptions;
  private readonly owner: string;
  private readonly registry: WatchRegistry;
  private readonly live: LiveDocs;
  private readonly schedule: WatchSchedule;
  private readonly dms: DirectMessages;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly announcer: Announcer;
  private readonly steps: WaitingSteps;
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly health_ = new Map<string, PollOutcome>();
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(parts: PollerParts) {
    this.opts = parts.opts;
    this.owner = parts.owner;
    this.registry = parts.registry;
    this.live = parts.live;
    this.schedule = parts.schedule;
    this.dms = parts.dms;
    this.log = parts.log;
    this.now = parts.now;
    this.random = parts.random;
    const opts = parts.opts;
    this.steps = new WaitingSteps({
      registry: this.registry,
      docs: parts.steps,
      slackFor: opts.slackFor,
      log: this.log,
      now: this.now,
    });
    this.announcer = new Announcer({
      dms: this.dms,
      slackFor: opts.slackFor,
      schedule: this.schedule,
      live: this.live,
      owner: this.owner,
      log: this.log,
      minUpdateMs: opts.minUpdateIntervalMs ?? Math.max(opts.intervalMs, 1000),
      ...(opts.held ? { held: opts.held } : {}),
      ...(opts.gate ? { gate: opts.gate } : {}),
    });
  }

  /** Polls that failed last on this replica (for the App Home). */
  health(): WatchHealth {
    const failing = [...this.health_.entries()]
      .filter(([, p]) => !p.ok)
      .map(([livestreamId, p]) => ({ livestreamId, failures: p.failures, error: p.error ?? "", at: p.at }));
    return { polled: this.health_.size, failing };
  }

  async start(): Promise<void> {
    if (this.running) return;
    await migrateLegacyWatches(this.opts.store, this.registry, this.log);
    const ids = await this.registry.livestreams();
    const now = this.now();
    // Spread over one interval so a restart does not poll everything at once.
    for (const id of ids) await this.schedule.add(id, now + Math.floor(this.random() * this.opts.intervalMs));
    this.running = true;
    this.opts.metrics?.onWatched?.(ids.length);
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
    const tickMs = this.opts.tickMs ?? Math.max(20, Math.min(250, Math.floor(this.opts.intervalMs / 4)));
    this.timer = setTimeout(() => {
      this.tick()
        .catch((err: unknown) => this.log.warn({ err }, "watch tick failed"))
        .finally(() => this.loop());
    }, tickMs);
    this.timer.unref?.();
  }

  /** One scheduling pass (exposed for tests). */
  async tick(): Promise<void> {
    const free = (this.opts.concurrency ?? 32) - this.inFlight.size;
    if (free <= 0) return;
    const leaseMs = this.opts.intervalMs;
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
    const I = this.opts.intervalMs;
    if (failures === 0) return now + Math.round(I * (0.9 + 0.2 * this.random()));
    const back = Math.max(retryAfterMs ?? 0, I * Math.min(2 ** (failures - 1), 16));
    return now + Math.round(back * (1 + 0.1 * this.random()));
  }

  private async reschedule(id: string, due: number): Promise<void> {
    await this.schedule.reschedule(this.owner, id, due, due + Math.floor(this.opts.intervalMs / 2));
  }

  /**
   * The livestream has no watcher left: out of the schedule (never read again), its state deleted.
   * `keepDue` (it may have been read less than an interval ago): a watch added again before its
   * next due time waits for it, so watching and unwatching in a loop costs no extra read.
   */
  async unwatched(id: string, keepDue: boolean): Promise<void> {
    await this.schedule.remove(id, keepDue);
    await this.live.remove(id);
    // A watch added meanwhile (another command, another replica) puts it back.
    if ((await this.registry.watchers(id)).length > 0) await this.schedule.add(id, this.now());
  }

  /**
   * The watchers that may still be told of the livestream (`keep`), and those kept but not told
   * this time (`held`), with `profileId` its profile (null: not known yet, then before a read the
   * workspace alone decides; access.ts). The others are removed from the registry, each told once
   * (a person who left the workspace: not told); none left: the livestream leaves the schedule.
   */
  private async allowed(id: string, watchers: WatchEntry[], profileId: string | null, read: boolean) {
    const { keep, held, refused } = await judge(watchers, profileId, read, this.opts.access, this.dms);
    let left = keep.length + held.length;
    for (const { w, why } of refused) {
      const r = await this.registry.remove(w);
      left = r.left;
      if (!r.removed) continue; // another replica ended it (and told the channel)
      this.log.info(
        { team: w.teamId, channel: w.channelId, livestream: id, profile: profileId },
        why === "gone"
          ? "watch ended: the person is no longer in the workspace"
          : why === "uninstalled"
            ? "watch ended: the app is no longer installed in the workspace"
            : "watch ended: the workspace may no longer read the livestream",
      );
      // A channel or a person gets one notice; a waiting step fails with it.
      if (why === "access") await (stepOf(w.channelId) ? this.steps.revoked(w) : this.announcer.revoked(w));
    }
    if (refused.length > 0) {
      if (left === 0) await this.unwatched(id, read);
      await this.reportWatched();
    }
    return { keep, held };
  }

  /**
   * Ends the watches of channels that refuse the bot's messages for good (a private channel it is
   * not in, an archived one), each told to the person who set it, by DM, once; true when nobody
   * watches the livestream any more.
   */
  private async endClosed(
    id: string,
    watchers: readonly WatchEntry[],
    closed: readonly ClosedChannel[],
    title: string | null,
  ): Promise<boolean> {
    let left: number | undefined;
    for (const { key, code } of closed) {
      const w = watchers.find((x) => x.teamId === key.teamId && x.channelId === key.channelId);
      if (w === undefined) continue;
      const r = await this.registry.remove(w);
      left = r.left;
      if (!r.removed) continue; // another replica ended it (and told the person)
      this.log.info(
        { team: w.teamId, channel: w.channelId, livestream: id, code },
        "watch ended: Slack refuses the bot's messages in the channel",
      );
      await this.announcer.channelClosed(w, code, title);
    }
    if (left === undefined) return false;
    await this.reportWatched();
    if (left > 0) return false;
    await this.unwatched(id, true);
    return true;
  }

  /** A read that failed: noted with the livestream's state, tried again later (backing off). */
  private async pollFailed(id: string, doc: LiveDoc, now: number, failure: unknown): Promise<void> {
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
  }

  private async pollOne(id: string, leaseMs: number): Promise<void> {
    const started = this.now();
    const before = await this.registry.watchers(id);
    const stored = before[0]?.profileId ?? null;
    const current = await this.current(id, before);
    if (current === null) return;
    let { keep: watchers, held } = current;
    if (watchers.length + held.length === 0) {
      // Not read: nobody may be told. Unscheduled by now, unless a watch came back meanwhile.
      if (before.length === 0) await this.unwatched(id, false);
      else await this.reschedule(id, this.nextDue(this.now(), 0, undefined));
      return;
    }
    let ls: Livestream | undefined;
    let failure: unknown;
    try {
      ls = await this.opts.platform.getLivestream(id, POLL_FIELDS, {
        signal: AbortSignal.timeout(Math.max(leaseMs, 1000)),
      });
    } catch (err) {
      failure = err;
    }
    const now = this.now();
    const status = isPlatformError(failure) ? failure.status : failure === undefined ? 200 : 0;
    this.opts.metrics?.onPoll?.({
      livestreamId: id,
      ok: failure === undefined,
      status,
      latencyMs: now - started,
    });
    const doc = await this.live.read(id);
    if (failure !== undefined || ls === undefined) return this.pollFailed(id, doc, now, failure);
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
    const { next, effects } = reduce(doc.broadcast, snapshotOf(ls), now, this.opts.graceMs);
    const from = doc.broadcast?.phase ?? "none";
    const newBroadcast = next !== null && next.id !== doc.broadcast?.id;
    const messages = newBroadcast ? {} : { ...doc.messages };
    // A watch that ended: its message is never touched again (a held one keeps its message).
    for (const w of before)
      if (!watchers.includes(w) && !held.includes(w)) delete messages[messageKey(w.teamId, w.channelId)];
    const title = typeof ls.title === "string" && ls.title !== "" ? ls.title.slice(0, TITLE_MAX) : doc.title;
    const live: LiveDoc = {
      v: 1,
      broadcast: next,
      messages,
      poll,
      ...(title !== undefined ? { title } : {}),
    };
    if (!(await this.schedule.holds(this.owner, id))) return; // another replica took it over
    await this.live.write(id, live);
    if (next !== null && next.phase !== from)
      this.opts.metrics?.onStateChange?.({ livestreamId: id, from, to: next.phase });
    const { steps, others } = splitSteps(watchers);
    if (next !== null && effects.length > 0) {
      const closed = await this.announcer.apply(id, next, effects, others, live, now, held);
      if (closed.length > 0 && (await this.endClosed(id, others, closed, live.title ?? null))) return;
    }
    const left = await this.steps.polled(id, steps, ls, next);
    await this.reschedule(id, this.nextDue(this.now(), 0, undefined));
    await this.stepsLeft(id, left, true);
  }

  /**
   * Before a read: the watchers that may still be told and those held (`allowed`), the waiting
   * steps past their timeout failed (whether or not the read succeeds); null once nobody is left.
   */
  private async current(id: string, before: WatchEntry[]) {
    if (before.length === 0) return { keep: before, held: [] as WatchEntry[] };
    const { keep, held } = await this.allowed(id, before, before[0]?.profileId ?? null, false);
    const expired = await this.steps.expire(keep);
    if (await this.stepsLeft(id, expired.left, false)) return null;
    return { keep: expired.watchers, held };
  }

  /** After waiting steps were removed (`left` watchers remain; undefined: none was): true once unwatched. */
  private async stepsLeft(id: string, left: number | undefined, keepDue: boolean): Promise<boolean> {
    if (left === 0) await this.unwatched(id, keepDue);
    if (left !== undefined) await this.reportWatched();
    return left === 0;
  }

  async reportWatched(): Promise<void> {
    if (this.opts.metrics?.onWatched) this.opts.metrics.onWatched(await this.schedule.size());
  }
}
