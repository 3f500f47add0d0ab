/**
 * The outbox worker: claims due videos, folds their stored deliveries into the video's state, and
 * makes Slack show that state: one parent message per video (posted once, then chat.update), and
 * milestones as thread replies.
 *
 * Crash safety: the state (with which milestones are posted) is written before the deliveries are
 * acknowledged, and applying a delivery twice changes nothing, so a restart at whatever point replays
 * at most a few deliveries harmlessly and resumes the Slack work the state says is not done yet.
 * A post whose record is lost (a crash between Slack's answer and the state write, a store failure
 * then with another replica taking over, an answer lost on the way) is found in Slack by the marker
 * it carries before anything is posted again (src/notify/posted.ts).
 *
 * Coalescing: a parent is updated at most once per `coalesceMs` (progress events in between only
 * change the state; the latest state wins). Milestones and the first post are not delayed beyond
 * the channel's pace.
 *
 * Poison: an item the reducer refuses is a dead letter at once, and its video goes on with the next
 * item. A batch that fails otherwise before its items are acknowledged (not a store outage) is
 * counted in the video's state (`attempt`, so a restart keeps the count); the next try folds its
 * first item alone, and that item is a dead letter after MAX_ATTEMPTS failures.
 *
 * Fan-out (src/notify/fanout.ts): a route key's items are copied to the key of each subscribed
 * channel whose filter matches; everything above applies to each channel's key.
 *
 * Access (src/notify/revoked.ts): before a video's items are copied or anything is posted, the
 * authorizer is asked again whether the workspace may still get the profile's notifications;
 * if not, they are dead letters with the reason and nothing is posted.
 *
 * Titles (src/notify/title.ts): read once per video, kept in its state; the first post waits for
 * it at most 2 s, and a later one is shown in place.
 *
 * Digests and pauses (src/notify/digest/): a channel whose subscription holds its messages back
 * gets no Slack call; the video's new milestones are recorded for its digest or catch-up instead
 * (once the title is known, or after the same 2 s), and marked done in the state.
 */
import { randomUUID } from "node:crypto";
import type { WebClient } from "@slack/web-api";
import type { Logger } from "../log.js";
import { parentMetadata, renderMilestone, renderParent } from "../messages/index.js";
import type { PlatformNames } from "../platform/index.js";
import {
  type ActivityRepo,
  InstallationMissingError,
  type SettingsRepo,
  StoreUnavailableError,
} from "../store/index.js";
import { reportRefused, setAsideDamaged, setAsideRefused } from "./dead-letters.js";
import type { Digests } from "./digest/index.js";
import { directFilter, fanOut, isChannelKey, routeKeyOf } from "./fanout.js";
import { countAttempt, foldBatch, isFinal, loadState, type Pass } from "./fold.js";
import { type ChannelGate, PER_CHANNEL_METHOD } from "./gate.js";
import { GoneWorkspaces } from "./gone.js";
import { mentionFor } from "./mentions.js";
import { LostPosts, PARENT, replyMetadata, withMarker } from "./posted.js";
import { type RevokedCheck, RevokedRoutes, setAsideRevoked } from "./revoked.js";
import { classifySlackError } from "./slack-errors.js";
import { lastVideoOf, recordTally, type Tally } from "./tally.js";
import { VideoTitles } from "./title.js";
import type { Outbox, OutboxItem, VideoKey } from "./types.js";
import { UnsavedSlackFacts } from "./unsaved.js";
import { parentHash } from "./video/hash.js";
import type { VideoState } from "./video/state.js";

export interface WorkerOptions {
  outbox: Outbox;
  /**
   * The Web API client for a workspace (retries off: the worker paces and retries per channel).
   * Throws InstallationMissingError when the workspace has no installation (multi-workspace mode):
   * its deliveries are dead-lettered with the code `not_installed`.
   */
  slackFor: (teamId: string) => Promise<WebClient>;
  settings: SettingsRepo;
  /**
   * Access decided again before each fan-out and post (src/notify/revoked.ts): why the workspace
   * may no longer get the profile's notifications (src/access `revoked`), or undefined. Without
   * it, nothing is checked (tests of the worker alone).
   */
  revoked?: RevokedCheck;
  /** Per-profile counters for the App Home (optional). */
  activity?: ActivityRepo;
  /** Digests and pauses (src/notify/digest/); without it, every channel gets live messages. */
  digests?: Pick<Digests, "holdOf" | "recordVideo">;
  /** Reads the videos' titles (src/notify/title.ts); without it, videos are named by their id. */
  names?: Pick<PlatformNames, "videoTitle" | "profile">;
  gate: ChannelGate;
  logger: Logger;
  /** The workspace's managers, told when Slack refuses the notifications for good. */
  managersOf: (teamId: string) => Promise<readonly string[]>;
  /** VIDEO_URL_TEMPLATE: the link of a video in its messages (none when unset). */
  videoUrlTemplate?: string | undefined;
  owner?: string;
  now?: () => number;
  /** Idle poll interval when nothing is due (ms). */
  pollMs?: number;
  leaseMs?: number;
  coalesceMs?: number;
  /** Videos processed at once. */
  concurrency?: number;
  /** Deliveries folded per claim. */
  batch?: number;
  onPosted?: (kind: "post" | "update" | "thread", channel: string) => void;
  onFailed?: (reason: string) => void;
  onRateLimited?: (channel: string, seconds: number) => void;
}

type Outcome = { dueAt: number | null };

/** This worker's lease on the video ended (expired and maybe taken): stop touching it. */
class LeaseLost extends Error {}

/** The options without a default. */
type Optional =
  | "onPosted"
  | "onFailed"
  | "onRateLimited"
  | "activity"
  | "videoUrlTemplate"
  | "revoked"
  | "names"
  | "digests";

export class NotifyWorker {
  private readonly o: Required<Omit<WorkerOptions, Optional>> & Pick<WorkerOptions, Optional>;
  private running = false;
  private loop: Promise<void> | undefined;
  private readonly wakers = new Set<() => void>();
  /** A wake-up is scheduled for the end of this tick (kicks in between add nothing). */
  private wakeQueued = false;
  /** Bumped by each wake-up: a loop whose claim began before the last one looks again at once. */
  private wakeups = 0;
  private readonly unsaved = new UnsavedSlackFacts();
  private readonly posts: LostPosts;
  private readonly gone: GoneWorkspaces;
  private readonly revokedRoutes: RevokedRoutes;
  private readonly titles: VideoTitles | undefined;

  constructor(o: WorkerOptions) {
    this.o = {
      owner: `worker-${randomUUID()}`,
      now: Date.now,
      pollMs: 250,
      leaseMs: 30_000,
      coalesceMs: 3_000,
      concurrency: 4,
      batch: 500,
      ...Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)),
    } as NotifyWorker["o"];
    this.gone = new GoneWorkspaces(this.o.now);
    this.posts = new LostPosts(this.o.logger);
    this.revokedRoutes = new RevokedRoutes(this.o.now);
    this.titles = o.names ? new VideoTitles({ ...this.o, names: o.names }) : undefined;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    // One loop per concurrency slot: a slow channel holds one slot, never the others.
    this.loop = Promise.all(Array.from({ length: this.o.concurrency }, () => this.run())).then(
      () => undefined,
    );
  }

  /** Stops claiming; resolves when the videos in progress are done (their Slack call included). */
  async stop(): Promise<void> {
    this.running = false;
    this.titles?.close();
    for (const wake of [...this.wakers]) wake();
    await this.loop;
  }

  /**
   * Something was enqueued: look now instead of at the next poll. Coalesced: however many kicks
   * arrive within one tick (a delivery each), one idle loop wakes up once, after them, and claims
   * once; a loop whose claim finds work wakes the next idle one (see `run`). So a delivery costs
   * at most one claim, and none while every loop is busy (they claim again when done).
   */
  kick(): void {
    if (this.wakeQueued) return;
    this.wakeQueued = true;
    setImmediate(() => {
      this.wakeQueued = false;
      this.wakeOne();
    });
  }

  /** Wakes one idle loop; records the wake-up for the loops that are claiming right now. */
  private wakeOne(): void {
    this.wakeups++;
    const first = this.wakers.values().next();
    if (!first.done) first.value();
  }

  /** Claims and processes due videos until none is due now (tests and the demo use it). */
  async drain(maxRounds = 1000): Promise<void> {
    for (let i = 0; i < maxRounds; i++) {
      if ((await this.claimAndProcess(this.o.concurrency)) === 0) return;
    }
  }

  private async run(): Promise<void> {
    while (this.running) {
      let n = 0;
      let failed = false;
      const seen = this.wakeups;
      try {
        n = await this.claimAndProcess(1, () => this.wakeOne());
      } catch (err) {
        failed = true;
        this.o.logger.warn({ err }, "notification worker could not claim work; retrying");
      }
      if (!this.running) break;
      // A wake-up during the claim may be for work the claim did not see: look again first.
      if (n === 0 && (failed || seen === this.wakeups))
        await this.idle(failed ? Math.max(2_000, this.o.pollMs) : this.o.pollMs);
    }
  }

  private idle(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = () => {
        clearTimeout(t);
        this.wakers.delete(wake);
        resolve();
      };
      const t = setTimeout(wake, ms);
      this.wakers.add(wake);
    });
  }

  /**
   * Claims up to `max` due videos and processes them in parallel. Returns how many. `found`: called
   * when the claim got work (there may be more due: the loop wakes another idle loop for it).
   */
  private async claimAndProcess(max: number, found?: () => void): Promise<number> {
    const keys = await this.o.outbox.claimDue(this.o.owner, this.o.now(), max, this.o.leaseMs);
    if (keys.length > 0) found?.();
    await Promise.all(keys.map((k) => this.processSafely(k)));
    return keys.length;
  }

  private async processSafely(key: VideoKey): Promise<void> {
    let outcome: Outcome = { dueAt: null };
    const tally: Tally = {};
    const pass: Pass = {};
    try {
      outcome = await this.process(key, tally, pass);
    } catch (err) {
      if (err instanceof LeaseLost) {
        this.o.logger.warn({ video: key }, "lease on the video lost; another worker continues it");
        return;
      }
      this.o.logger.warn({ err, video: key }, "video not processed; it will be tried again");
      outcome = { dueAt: this.o.now() + 2_000 };
      if (pass.loaded && pass.head && !pass.acked && !(err instanceof StoreUnavailableError)) {
        outcome = await countAttempt(this.o, key, pass.loaded, pass.head, err).catch((e: unknown) => {
          this.o.logger.warn({ err: e, video: key }, "could not count the failed attempt");
          return outcome;
        });
      }
    } finally {
      await this.o.outbox.release(this.o.owner, key, outcome.dueAt).catch((err: unknown) => {
        this.o.logger.warn({ err, video: key }, "could not release a video lease; it expires by itself");
      });
      await recordTally(this.o, key, tally);
    }
  }

  private async process(key: VideoKey, tally: Tally, pass: Pass): Promise<Outcome> {
    const { outbox, owner } = this.o;
    const read = await outbox.pending(key, this.o.batch);
    // Access first, before anything is copied or posted (src/notify/revoked.ts).
    const revoked = this.o.revoked;
    if (revoked) {
      const r = await setAsideRevoked({ ...this.o, revoked }, this.revokedRoutes, key, read);
      if (r) {
        tally.teamId = r.teamId;
        tally.profileId = r.profileId;
        tally.failed = r.count || undefined;
        return { dueAt: null };
      }
    }
    // A route key is shown in place when its only channel is its own (fanout.ts), else copied;
    // with nothing pending, what its state still owes Slack (a paced reply) is shown in place.
    const direct =
      isChannelKey(key) || read.length === 0 ? () => true : await directFilter(this.o, key, read[0]);
    if (direct === null) {
      // A route key: its items are copied to the subscribed channels' keys (counted here, once).
      const { dueAt, handled } = await fanOut(this.o, key);
      const first = handled[0];
      if (first) {
        tally.teamId = first.teamId;
        tally.profileId = first.profileId;
        tally.received = handled.length;
        tally.lastDeliveryAt = handled.reduce((m, i) => Math.max(m, i.receivedAt), 0);
      }
      return { dueAt };
    }
    const good = read.filter((i) => i.damaged === undefined);
    if (good.length < read.length && !(await setAsideDamaged(this.o, key, read))) return { dueAt: null };
    const loaded = await loadState(this.o, this.unsaved, key, good[0], routeKeyOf(key));
    if (!loaded) return { dueAt: null };
    const { state: start, fresh } = loaded;
    // After a failed batch, its first item alone: the one that fails is found in a few tries.
    const items = start.attempt && start.attempt.id === good[0]?.id ? good.slice(0, 1) : good;
    pass.loaded = start;
    pass.head = items[0];
    // One pass over the batch; applyDelivery copies only what each delivery changes.
    // Items the route channel's subscription filters out are acknowledged without being applied.
    const applied = items.filter(direct);
    const { state: folded, refused } = foldBatch(start, applied);
    // The video's title, read once and kept with the state written below (title.ts).
    const state = (await this.titles?.settle(key, folded)) ?? folded;
    tally.teamId = state.teamId;
    tally.profileId = state.profileId;
    if (items.length > 0) {
      await setAsideRefused(this.o, key, refused);
      tally.failed = refused.length || undefined;
      const nothing = fresh && refused.length === applied.length;
      // The state and the acknowledgement in one atomic step (one round trip, one transaction).
      const ids = items.map((i) => i.id);
      if (!(await this.unsaved.settle(outbox, owner, key, nothing ? undefined : state, isFinal(state), ids)))
        return { dueAt: null }; // lease lost
      pass.acked = true;
      if (nothing) return { dueAt: null };
    }
    // No event applied yet (only refused items so far): nothing to show.
    if (state.eventCount === 0) return { dueAt: null };
    // A digest or a pause: recorded for it, nothing posted (src/notify/digest/).
    const hold = await this.o.digests?.holdOf(state.teamId, state.profileId, state.channelId);
    if (hold && this.o.digests) return this.record(key, state, hold, this.o.digests);
    // The refused items are dead letters already: Slack's refusals concern the others only.
    const shown = refused.length === 0 ? applied : applied.filter((i) => !refused.some((r) => r.item === i));
    tally.lastVideo = lastVideoOf(state);
    const outcome = await this.show(key, state, shown, tally);
    // A title still pending: back soon to show it in place.
    return { dueAt: this.titles?.pollAt(state, outcome.dueAt) ?? outcome.dueAt };
  }

  /** Records the video's new milestones for the channel's digest or catch-up instead of posting. */
  private async record(
    key: VideoKey,
    state: VideoState,
    hold: NonNullable<Awaited<ReturnType<Digests["holdOf"]>>>,
    digests: Pick<Digests, "recordVideo">,
  ): Promise<Outcome> {
    if (state.milestones.every((m) => m.posted)) return { dueAt: this.titles?.pollAt(state, null) ?? null };
    // The title, for the digest to name the video: the same wait as a first post (2 s at most).
    const wait = this.titles?.holdUntil(state);
    if (wait) return { dueAt: wait };
    const next = await digests.recordVideo(key, state, hold);
    if (!(await this.unsaved.writeState(this.o.outbox, this.o.owner, key, next, isFinal(next))))
      return { dueAt: null }; // lease lost
    return { dueAt: this.titles?.pollAt(next, null) ?? null };
  }

  /** Brings Slack up to date with the state, within the channel's pace. */
  private async show(
    key: VideoKey,
    initial: VideoState,
    items: OutboxItem[],
    tally: Tally,
  ): Promise<Outcome> {
    let state = initial;
    const { gate } = this.o;
    const channel = state.channelId;
    const blocked = gate.blockedUntil(channel);
    if (blocked) return { dueAt: blocked };
    const posted = () => {
      tally.posted = (tally.posted ?? 0) + 1;
    };
    const save = async (next: VideoState) => {
      state = next;
      if (!(await this.unsaved.writeState(this.o.outbox, this.o.owner, key, next, isFinal(next))))
        throw new LeaseLost();
    };
    /** Before each Slack call: the lease must still be ours, for long enough to record the result. */
    const hold = async () => {
      if (!(await this.o.outbox.renew(this.o.owner, key, this.o.now() + this.o.leaseMs)))
        throw new LeaseLost();
    };
    /** No app in the workspace: the items are dead letters, nothing is posted or retried. */
    const drop = async (code: string): Promise<Outcome> => {
      tally.failed = (tally.failed ?? 0) + items.length;
      this.o.onFailed?.(code);
      for (const item of items) await this.o.outbox.deadLetter(item, code, this.o.now());
      await save({
        ...state,
        milestones: state.milestones.map((m) => (m.posted ? m : { ...m, posted: true })),
        posting: undefined,
      });
      return { dueAt: null };
    };
    /** Records what is about to be posted (unless stored already): see src/notify/posted.ts. */
    const intend = async (what: string) => {
      const { intent, stored } = this.posts.intentFor(state, what, this.o.now());
      if (!stored) await save({ ...state, posting: intent });
      return intent;
    };
    let client: WebClient;
    try {
      client = await this.o.slackFor(state.teamId);
    } catch (err) {
      // A store failure is tried again (thrown); a workspace without an installation is not.
      if (!(err instanceof InstallationMissingError)) throw err;
      this.o.logger.error(
        { team: state.teamId, profile: state.profileId, deliveries: items.length },
        "the app is not installed in the workspace; its notifications are dead-lettered",
      );
      return drop("not_installed");
    }
    // Slack said the app is gone from the workspace (per process, for a while): no call.
    const goneCode = this.gone.check(state.teamId, client);
    if (goneCode !== undefined) return drop(goneCode);

    /** The Web API method being called: a 429 pauses the channel or, for chat.update, the workspace. */
    let calling = PER_CHANNEL_METHOD;
    let updateAt: number | null = null;
    try {
      // 1. The parent message: posted once, then updated in place (coalesced).
      if (state.videoId !== null) {
        // A video waiting for its turn to post is not rendered (most passes under a burst).
        const wait =
          state.parentTs === null ? this.titles?.holdUntil(state) || gate.takePostSlot(channel, key) : 0;
        if (wait) return { dueAt: wait };
        const links = { videoUrlTemplate: this.o.videoUrlTemplate };
        const msg = renderParent(state, new Date(this.o.now()), links);
        // Metadata (video_status: id, profile, stage) lets the map be rebuilt from Slack.
        const metadata = parentMetadata(state);
        const hash = parentHash(msg);
        if (state.parentTs === null) {
          // Posted before without a record: that message becomes the parent (updated below).
          const found = await this.posts.find(client, state, PARENT);
          if (found) {
            await save({
              ...state,
              parentTs: found,
              renderedHash: null,
              lastRenderAt: null,
              posting: undefined,
            });
          } else {
            const intent = await intend(PARENT);
            await hold();
            const res = await this.posts.post(
              client,
              {
                channel,
                text: msg.text,
                blocks: msg.blocks,
                ...(metadata ? { metadata: withMarker(metadata, intent) } : {}),
                unfurl_links: false,
              },
              intent,
            );
            gate.succeeded(channel);
            this.o.onPosted?.("post", channel);
            posted();
            await save({
              ...state,
              parentTs: res.ts ?? null,
              renderedHash: hash,
              lastRenderAt: this.o.now(),
              posting: undefined,
            });
          }
        }
        if (state.parentTs !== null && hash !== state.renderedHash) {
          const since = this.o.now() - (state.lastRenderAt ?? 0);
          const urgent = state.milestones.some((m) => !m.posted);
          if (since < this.o.coalesceMs && !urgent)
            return { dueAt: (state.lastRenderAt ?? 0) + this.o.coalesceMs };
          // The title alone rides on the video's next write when more is coming (title.ts).
          const ride = this.titles?.updateAt(state, new Date(this.o.now()), links);
          if (ride) return { dueAt: ride };
          // chat.update paused in the workspace (a 429 elsewhere): replies go on, the update waits.
          updateAt = gate.methodBlockedUntil(state.teamId, "chat.update") || null;
          if (updateAt === null) {
            await hold();
            calling = "chat.update";
            await client.chat.update({
              channel,
              ts: state.parentTs,
              text: msg.text,
              blocks: msg.blocks,
              ...(metadata ? { metadata } : {}),
            });
            calling = PER_CHANNEL_METHOD;
            gate.succeeded(channel);
            this.o.onPosted?.("update", channel);
            posted();
            await save({ ...state, renderedHash: hash, lastRenderAt: this.o.now() });
          }
        }
      }
      // 2. Milestones: thread replies under the parent (standalone for events without a video).
      for (const m of [...state.milestones].sort((a, b) => a.timestamp - b.timestamp)) {
        if (m.posted) continue;
        const wait = gate.takePostSlot(channel, key);
        if (wait) return { dueAt: wait };
        const markPosted = (s: VideoState): VideoState => ({
          ...s,
          milestones: s.milestones.map((x) => (x.key === m.key ? { ...x, posted: true } : x)),
          posting: undefined,
        });
        // Posted before without a record: nothing to post again.
        if (await this.posts.find(client, state, m.key, state.parentTs ?? undefined)) {
          await save(markPosted(state));
          continue;
        }
        // The subscription's mention on format errors, at most a few per channel per hour.
        const ping = m.key.startsWith("error:") ? await mentionFor(this.o, state, !!this.titles) : null;
        if (ping?.waitUntil) return { dueAt: ping.waitUntil }; // for the title read (mentions.ts)
        const msg = renderMilestone(
          m,
          state,
          { videoUrlTemplate: this.o.videoUrlTemplate },
          ping?.mention ?? null,
          ping?.heldBack,
        );
        const intent = await intend(m.key);
        await hold();
        await this.posts.post(
          client,
          {
            channel,
            text: msg.text,
            blocks: msg.blocks,
            thread_ts: state.parentTs ?? undefined,
            metadata: replyMetadata(state, intent),
            unfurl_links: false,
          },
          intent,
        );
        gate.succeeded(channel);
        this.o.onPosted?.("thread", channel);
        posted();
        await save(markPosted(state));
      }
      // Back at the pause's end, or sooner to post the replies that arrive meanwhile.
      return { dueAt: updateAt === null ? null : Math.min(updateAt, this.o.now() + this.o.coalesceMs) };
    } catch (err) {
      if (err instanceof LeaseLost) throw err;
      const f = classifySlackError(err);
      switch (f.kind) {
        case "gone":
          // One line per workspace (per pause), not per video or item.
          if (this.gone.mark(state.teamId, client, f.code))
            this.o.logger.warn(
              { team: state.teamId, code: f.code },
              "Slack says the app is gone from the workspace; its notifications are dead-lettered and not retried",
            );
          return drop(f.code);
        case "auth":
          // The token is not usable: nothing is dropped; everything waits until it is fixed.
          this.o.logger.error(
            { team: state.teamId, code: f.code },
            "Slack refused the bot's token; notifications wait",
          );
          // A pause of the channel: the video's new deliveries are folded meanwhile (enqueue
          // brings a video waiting this long forward), not sent to Slack with the refused token.
          return { dueAt: gate.rateLimited(channel, 60) };
        case "rate_limited": {
          this.o.onRateLimited?.(channel, f.retryAfterSeconds);
          this.o.logger.warn(
            { channel, team: state.teamId, method: calling, retryAfter: f.retryAfterSeconds },
            calling === PER_CHANNEL_METHOD
              ? "Slack rate-limited the channel; pausing it"
              : "Slack rate-limited the method in the workspace; pausing it there",
          );
          const until = gate.rateLimited(channel, f.retryAfterSeconds, {
            teamId: state.teamId,
            method: calling,
          });
          // A paused method (not the channel): replies may go on before the pause ends.
          return {
            dueAt: calling === PER_CHANNEL_METHOD ? until : Math.min(until, this.o.now() + this.o.coalesceMs),
          };
        }
        case "message_gone":
          await save({ ...state, parentTs: null, renderedHash: null, posting: undefined });
          return { dueAt: this.o.now() };
        case "transient": {
          const at = gate.failed(channel);
          this.o.logger.warn({ err, channel, until: at }, "Slack call failed; backing off the channel");
          return { dueAt: at };
        }
        case "permanent":
          tally.failed = (tally.failed ?? 0) + items.length;
          await reportRefused(this.o, state, items, f.code);
          // What Slack refused is recorded; nothing is retried until new deliveries arrive.
          await save({
            ...state,
            milestones: state.milestones.map((m) => ({ ...m, posted: true })),
            renderedHash: null,
            posting: undefined,
          });
          return { dueAt: null };
      }
    }
  }
}
