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
 */
import { randomUUID } from "node:crypto";
import type { WebClient } from "@slack/web-api";
import type { Logger } from "../log.js";
import { isPlatformError, type Livestream } from "../platform/index.js";
import type { Message } from "../slack/blocks/index.js";
import type { Store } from "../store/index.js";
import { type Broadcast, type Effect, POLL_FIELDS, reduce, snapshotOf } from "./broadcast.js";
import { renderEnded, renderLive, renderMilestone, renderSummary } from "./render.js";
import { scheduleFor, type WatchSchedule } from "./schedule.js";
import {
  type LiveDoc,
  type LiveMessage,
  messageKey,
  type PollOutcome,
  type Watch,
  WatchStore,
} from "./store.js";

export interface WatchMetrics {
  /** One poll: its outcome, HTTP status (0 none), latency. */
  onPoll?(o: { livestreamId: string; ok: boolean; status: number; latencyMs: number }): void;
  onStateChange?(o: { livestreamId: string; from: string; to: string }): void;
  /** How many livestreams are watched (after watch/unwatch/start). */
  onWatched?(count: number): void;
}

export interface WatchServiceOptions {
  store: Store;
  logger: Logger;
  platform: {
    getLivestream(id: string, fields?: readonly string[], o?: { signal?: AbortSignal }): Promise<Livestream>;
  };
  slackFor: (teamId: string) => Promise<WebClient>;
  /** LIVE_WATCH_INTERVAL_MS */
  intervalMs: number;
  /** LIVE_OFFAIR_GRACE_MS */
  graceMs: number;
  /** Least time between two updates of one message (default max(interval, 1000)). */
  minUpdateIntervalMs?: number;
  maxWatchesPerTeam?: number;
  concurrency?: number;
  tickMs?: number;
  metrics?: WatchMetrics;
  schedule?: WatchSchedule;
  now?: () => number;
  random?: () => number;
}

export interface NewWatch {
  teamId: string;
  channelId: string;
  livestreamId: string;
  /** Slack user id of who asked. */
  by: string;
}

export interface WatchView extends Watch {
  state: "live" | "reconnecting" | "off_air" | "not_polled_yet";
  title: string | null;
  /** On air since (live), or ended at (off air), ms. */
  since: number | null;
  lastPoll: PollOutcome | null;
}

export interface WatchHealth {
  /** Livestreams this replica polled at least once. */
  polled: number;
  failing: Array<{ livestreamId: string; failures: number; error: string; at: number }>;
}

export const DEFAULT_MAX_WATCHES_PER_TEAM = 100;

const slackRefused = (err: unknown): boolean => {
  const code = (err as { code?: unknown } | null)?.code;
  return code === "slack_webapi_platform_error" || code === "slack_webapi_rate_limited_error";
};

const errText = (err: unknown): string =>
  isPlatformError(err)
    ? `${err.status || err.kind} ${err.code}`
    : err instanceof Error
      ? err.message
      : String(err);

function hashOf(m: Message): string {
  return JSON.stringify(m);
}

export class WatchService {
  readonly owner = randomUUID();
  private readonly watches: WatchStore;
  private readonly schedule: WatchSchedule;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly health_ = new Map<string, PollOutcome>();
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(private readonly o: WatchServiceOptions) {
    this.watches = new WatchStore(o.store, o.logger);
    this.schedule = o.schedule ?? scheduleFor(o.store);
    this.log = o.logger.child({ component: "watch" });
    this.now = o.now ?? Date.now;
    this.random = o.random ?? Math.random;
  }

  private get minUpdateMs(): number {
    return this.o.minUpdateIntervalMs ?? Math.max(this.o.intervalMs, 1000);
  }

  // --- API for commands and the App Home ----------------------------------------------------------

  /** Starts watching; the livestream is polled within one tick. false when it was watched already. */
  async watch(w: NewWatch): Promise<{ added: boolean }> {
    const added = await this.watches.add(
      { ...w, at: new Date(this.now()).toISOString() },
      this.o.maxWatchesPerTeam ?? DEFAULT_MAX_WATCHES_PER_TEAM,
    );
    await this.schedule.add(w.livestreamId, this.now());
    await this.reportWatched();
    return { added };
  }

  async unwatch(w: Omit<NewWatch, "by">): Promise<{ removed: boolean }> {
    const { removed, left } = await this.watches.remove(w);
    if (left === 0) await this.schedule.remove(w.livestreamId);
    await this.reportWatched();
    return { removed };
  }

  /** The workspace's watches with their current state (one read per watched livestream). */
  async list(teamId: string): Promise<WatchView[]> {
    const watches = await this.watches.listTeam(teamId);
    const docs = new Map<string, LiveDoc>();
    for (const w of watches) {
      if (!docs.has(w.livestreamId)) docs.set(w.livestreamId, await this.watches.readLive(w.livestreamId));
    }
    return watches.map((w) => {
      const doc = docs.get(w.livestreamId);
      const b = doc?.broadcast ?? null;
      const state: WatchView["state"] =
        doc?.poll === null || doc === undefined
          ? "not_polled_yet"
          : b?.phase === "live"
            ? "live"
            : b?.phase === "grace"
              ? "reconnecting"
              : "off_air";
      const since = b === null ? null : b.phase === "ended" ? b.endedAt : b.startedAt;
      return { ...w, state, title: b?.title ?? null, since, lastPoll: doc?.poll ?? null };
    });
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
    const ids = await this.watches.watchedLivestreams();
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

  private async pollOne(id: string, leaseMs: number): Promise<void> {
    const started = this.now();
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
    const doc = await this.watches.readLive(id);
    if (failure !== undefined || ls === undefined) {
      const failures = (doc.poll?.failures ?? 0) + 1;
      const poll: PollOutcome = { at: now, ok: false, failures, error: errText(failure) };
      this.health_.set(id, poll);
      const retryAfter =
        isPlatformError(failure) && failure.retryAfterSeconds !== undefined
          ? failure.retryAfterSeconds * 1000
          : undefined;
      this.log.info({ livestreamId: id, failures, error: poll.error }, "watch poll failed; backing off");
      if (await this.schedule.holds(this.owner, id)) await this.watches.writeLive(id, { ...doc, poll });
      await this.reschedule(id, this.nextDue(now, failures, retryAfter));
      return;
    }
    const watchers = await this.watches.watchers(id);
    if (watchers.length === 0) {
      await this.schedule.remove(id);
      return;
    }
    const poll: PollOutcome = { at: now, ok: true, failures: 0, error: null };
    this.health_.set(id, poll);
    const { next, effects } = reduce(doc.broadcast, snapshotOf(ls), now, this.o.graceMs);
    const from = doc.broadcast?.phase ?? "none";
    const newBroadcast = next !== null && next.id !== doc.broadcast?.id;
    const live: LiveDoc = { v: 1, broadcast: next, messages: newBroadcast ? {} : { ...doc.messages }, poll };
    if (!(await this.schedule.holds(this.owner, id))) return; // another replica took it over
    await this.watches.writeLive(id, live);
    if (next !== null && next.phase !== from)
      this.o.metrics?.onStateChange?.({ livestreamId: id, from, to: next.phase });
    if (next !== null && effects.length > 0) await this.apply(id, next, effects, watchers, live, now);
    await this.reschedule(id, this.nextDue(this.now(), 0, undefined));
  }

  private async apply(
    id: string,
    b: Broadcast,
    effects: Effect[],
    watchers: Watch[],
    doc: LiveDoc,
    now: number,
  ) {
    const save = async () => {
      if (await this.schedule.holds(this.owner, id)) await this.watches.writeLive(id, doc);
    };
    if (effects.some((e) => e.type === "sync") && b.phase !== "ended") {
      const content = renderLive(id, b, now);
      const hash = hashOf(content);
      const fresh = watchers.filter((w) => doc.messages[messageKey(w.teamId, w.channelId)] === undefined);
      if (fresh.length > 0) {
        // Marked before posting (see the module comment).
        for (const w of fresh) {
          doc.messages[messageKey(w.teamId, w.channelId)] = {
            ts: null,
            postedAt: now,
            hash,
            updatedAt: now,
            ended: false,
          };
        }
        if (!(await this.schedule.holds(this.owner, id))) return;
        await this.watches.writeLive(id, doc);
        await Promise.all(fresh.map((w) => this.post(w, content, doc)));
        await save();
      }
      const milestones = effects.flatMap((e) => (e.type === "milestone" ? [e.milestone] : []));
      await Promise.all(
        watchers.map(async (w) => {
          const key = messageKey(w.teamId, w.channelId);
          const m = doc.messages[key];
          if (m === undefined || m.ts === null || fresh.includes(w)) return;
          await this.slack(w, async (slack) => {
            for (const ms of milestones) {
              await slack.chat.postMessage({
                channel: w.channelId,
                thread_ts: m.ts ?? undefined,
                ...renderMilestone(ms, now),
              });
            }
            if (m.hash !== hash && now - m.updatedAt >= this.minUpdateMs) {
              await slack.chat.update({ channel: w.channelId, ts: m.ts ?? "", ...content });
              doc.messages[key] = { ...m, hash, updatedAt: now };
            }
          });
        }),
      );
      await save();
    }
    if (effects.some((e) => e.type === "end")) {
      const ended = renderEnded(id, b);
      const summary = renderSummary(b);
      let complete = true;
      await Promise.all(
        Object.entries(doc.messages).map(async ([key, m]) => {
          const w = watchers.find((x) => messageKey(x.teamId, x.channelId) === key);
          if (m.ended || m.ts === null || w === undefined) return;
          const ok = await this.slack(w, async (slack) => {
            await slack.chat.update({ channel: w.channelId, ts: m.ts ?? "", ...ended });
            doc.messages[key] = { ...m, ended: true, hash: hashOf(ended), updatedAt: now };
            await slack.chat.postMessage({ channel: w.channelId, thread_ts: m.ts ?? undefined, ...summary });
          });
          if (!ok) complete = false;
        }),
      );
      if (complete && doc.broadcast) doc.broadcast = { ...doc.broadcast, finalized: true };
      await save();
    }
  }

  /** First post of the broadcast in one channel: saves its ts, or clears the mark on a definite refusal. */
  private async post(w: Watch, content: Message, doc: LiveDoc): Promise<void> {
    const key = messageKey(w.teamId, w.channelId);
    try {
      const slack = await this.o.slackFor(w.teamId);
      const res = await slack.chat.postMessage({ channel: w.channelId, ...content, unfurl_links: false });
      const m = doc.messages[key] as LiveMessage;
      doc.messages[key] = { ...m, ts: typeof res.ts === "string" ? res.ts : null };
    } catch (err) {
      this.log.warn({ err, channelId: w.channelId, teamId: w.teamId }, "live announcement not posted");
      if (slackRefused(err)) delete doc.messages[key];
    }
  }

  /** Runs Slack calls for one channel; false (logged) when one failed. */
  private async slack(w: Watch, fn: (c: WebClient) => Promise<void>): Promise<boolean> {
    try {
      await fn(await this.o.slackFor(w.teamId));
      return true;
    } catch (err) {
      this.log.warn({ err, channelId: w.channelId, teamId: w.teamId }, "live watch message not updated");
      return false;
    }
  }

  private async reportWatched(): Promise<void> {
    if (this.o.metrics?.onWatched) this.o.metrics.onWatched(await this.schedule.size());
  }
}
