/**
 * Video titles in the notifications: a video is named by its title, read once from the platform
 * (`GET /videos/{id}?fields=title` through the platform door and PlatformNames, so the platform
 * client's retries, timeouts and error mapping apply) and kept in the video's state.
 * More: README.md ("title.ts").
 */
import { titleRef, type VideoKey, videoKeyOf } from "../domain/index.js";
import type { Logger } from "../log.js";
import { renderParent, type VideoLinks } from "../messages/index.js";
import type { Outbox } from "../outbox/index.js";
import { PULL_FORWARD_MS } from "../outbox/index.js";
import type { ProfileLabel, VideoTitle } from "../platform/index.js";
import { parentHash } from "../video/hash.js";
import type { TitleFact, VideoState } from "../video/state.js";
import { parseTitleFact } from "../video/validate.js";

/**
 * The first post waits at most this long for the title after its video's first pass (which comes
 * within the worker's gather window of the delivery), so a message is never held more than the
 * contract's 2 s after its first delivery.
 */
export const TITLE_WAIT_MS = 1_500;
/** While the title is pending after the first post, the video is looked at again this often. */
export const TITLE_POLL_MS = 1_000;
/** A replica's marker for reading a title: longer than the platform client's worst read. */
export const TITLE_READ_LEASE_MS = 120_000;
/** How long the answer stays in the note for the video's other keys and replicas. */
export const TITLE_NOTE_TTL_MS = 7 * 24 * 3_600_000;
/**
 * A title-only update waits this long after the parent's last write for the next one. Beyond
 * PULL_FORWARD_MS, so a delivery meanwhile brings the video forward (outbox enqueue) instead of
 * waiting for this time too.
 */
export const TITLE_RIDE_MS = 3 * PULL_FORWARD_MS;
/** While another replica reads the title, a held first post looks at its note this often. */
const HOLD_POLL_MS = 200;
/** While this process reads the title, a posted video is looked at again by then at the latest (woken sooner). */
const LOCAL_POLL_MS = 5_000;
/** Answers kept in this process for the video's other keys (the oldest dropped first). */
const LOCAL_MAX = 1_000;
/** Title reads of one callback (workspace and profile) in flight at once... */
export const TITLE_READS_PER_CALLBACK = 4;
/** ...and waiting for one of them; beyond both, the video keeps its id (`busy`). */
export const TITLE_QUEUE_PER_CALLBACK = 32;
/** Keys woken when one read answers (the video's profile key and its channels' copies). */
const WAITERS_MAX = 64;
/** How long a title's settling waits for the profile's name, in the background read. */
const PROFILE_WAIT_MS = 250;

/** A read the door charged (src/access `PaidRead`): spent by the one read it pays for. */
export interface PaidTitleRead {
  spend(): void;
}

/** The workspace's charge at the platform door (src/access `PlatformDoor.charge`). */
export interface TitleBudget {
  charge(cause: { workspace: string }): Promise<{ ok: true; paid: PaidTitleRead } | { ok: false }>;
}

/**
 * The title reads through the platform door (src/access `PlatformDoor`): each charged to the
 * callback's workspace, or paid at admission (`TitleBudget`).
 */
export interface TitleNames {
  videoTitle(
    paid: PaidTitleRead | { workspace: string },
    videoId: string,
    opts: { profileId?: string },
  ): Promise<VideoTitle>;
  profile(
    cause: { workspace: string },
    profileId: string,
    opts: { signal?: AbortSignal },
  ): Promise<ProfileLabel>;
  cachedProfile(profileId: string): ProfileLabel | undefined;
}

export interface TitleOptions {
  names: TitleNames;
  outbox: Pick<Outbox, "once" | "putNote" | "getNote" | "wake">;
  logger: Logger;
  /** The worker's clock. */
  now: () => number;
  /**
   * The door's charge: a title read is charged to the workspace of the callback that delivered the
   * video when it is admitted, before it waits for its lane (the contract's "Every platform read is
   * charged to someone"); past the budget the video keeps its id. Without it, `names` (the door)
   * charges the read when it is made.
   */
  budget?: TitleBudget | undefined;
  /** Called once the answer brought its videos forward (the worker looks for due work). */
  woken?: () => void;
}

/** At most one line per workspace this often while its title reads are over its budget. */
const BUDGET_LOG_EVERY_MS = 60_000;

/**
 * Leaves a title the bot knows without asking the platform (the `/webhook test` sample, which the
 * platform does not have) for the video's keys to find, before its deliveries are stored.
 */
export async function noteTitle(
  outbox: Pick<Outbox, "putNote">,
  key: VideoKey,
  title: string,
): Promise<void> {
  await outbox.putNote(titleRef(key), JSON.stringify({ title } satisfies TitleFact), TITLE_NOTE_TTL_MS);
}

function factOf(answer: VideoTitle): TitleFact {
  if ("title" in answer) return { title: answer.title };
  if ("notConfirmed" in answer) return { notConfirmed: true };
  return { unknown: answer.unknown };
}

function parseNote(note: string | undefined): TitleFact | undefined {
  if (note === undefined) return undefined;
  try {
    return parseTitleFact(JSON.parse(note));
  } catch {
    return undefined;
  }
}

interface Read {
  /** Set once the platform answered (or the read was refused: budget, busy). */
  fact: TitleFact | undefined;
  /** The video keys to bring forward when the answer comes. */
  waiters: Set<VideoKey>;
  /** Resolves once the answer is known and its videos were brought forward (`woken` then set). */
  done: Promise<void>;
  woken: boolean;
  answered: () => void;
}

/** One callback's title reads: how many are in flight, and those waiting for a slot. */
interface Lane {
  running: number;
  queue: Array<() => void>;
}

export class VideoTitles {
  private readonly options: TitleOptions;
  /** This process's reads: waiting, in flight, then answered (bounded). */
  private readonly reads = new Map<string, Read>();
  /** Per callback (`team:profile`): its reads in flight and waiting. Empty lanes are dropped. */
  private readonly lanes = new Map<string, Lane>();
  /** Workspace → when its last "over budget" line was written (bounded). */
  private readonly budgetLogged = new Map<string, number>();
  private closed = false;

  constructor(opts: TitleOptions) {
    this.options = { ...opts };
  }

  /**
   * The state with what is known of its video's title. Takes the read when no one has (at most
   * one per video); never waits for the platform: the read goes on in the background and brings
   * the video forward when it answers (`holdUntil`, `pollAt`). Never throws: a store failure
   * leaves it pending.
   */
  async settle(key: VideoKey, s: VideoState): Promise<VideoState> {
    if (s.videoId === null || s.eventCount === 0) return s;
    if (s.title !== undefined) return s.profileName === undefined ? this.withProfileName(s) : s;
    const asked = s.titleAskedAt ?? this.options.now();
    const base = s.titleAskedAt === undefined ? { ...s, titleAskedAt: asked } : s;
    const fact = await this.known(key, s);
    if (fact === undefined) return base;
    return this.withProfileName({ ...base, title: fact });
  }

  /** The profile's name, when this process knows it (read alongside the title: never waited for here). */
  private withProfileName(s: VideoState): VideoState {
    const label = this.options.names.cachedProfile(s.profileId);
    return label?.known ? { ...s, profileName: label.label.slice(0, 200) } : s;
  }

  /** While the first post waits for the title (WAIT_MS at most): when to look again; else 0. */
  holdUntil(s: VideoState): number {
    if (s.videoId === null || s.title !== undefined || s.parentTs !== null) return 0;
    const end = (s.titleAskedAt ?? 0) + TITLE_WAIT_MS;
    const now = this.options.now();
    if (end <= now) return 0;
    // This process reads it: the answer brings the video forward. Another replica: its note is polled.
    return this.readingHere(s) ? end : Math.min(end, now + HOLD_POLL_MS);
  }

  /** When to look at the video again: `dueAt`, or sooner while its title is pending. */
  pollAt(s: VideoState, dueAt: number | null): number | null {
    if (s.videoId === null || s.title !== undefined || s.eventCount === 0) return dueAt;
    const poll = this.options.now() + (this.readingHere(s) ? LOCAL_POLL_MS : TITLE_POLL_MS);
    return dueAt !== null && dueAt < poll ? dueAt : poll;
  }

  /**
   * The due time a pass of `key` ends with, or now when its title read answered during the pass
   * (the answer's wake-up found the video leased).
   */
  dueAfter(key: VideoKey, s: VideoState | undefined, dueAt: number | null): number | null {
    if (s === undefined || s.title !== undefined || s.videoId === null || dueAt === null) return dueAt;
    const read = this.reads.get(titleRef(key));
    return read?.fact !== undefined && read.waiters.size === 0 ? Math.min(dueAt, this.options.now()) : dueAt;
  }

  private readingHere(s: VideoState): boolean {
    const r = this.reads.get(titleRef(videoKeyOf(s.teamId, s.profileId, s.videoId)));
    return r !== undefined && r.fact === undefined;
  }

  /**
   * When the parent's update may be sent: 0 now. An update that only adds what the title read
   * said (the parent as last sent is the rendering without it) waits for the video's next write,
   * until RIDE_MS after the last one, unless the video expects nothing more (complete, deleted)
   * or a reply is waiting (the update goes with it).
   */
  updateAt(s: VideoState, now: Date, links: VideoLinks): number {
    if (s.title === undefined || s.stage === "complete" || s.stage === "deleted") return 0;
    if (s.milestones.some((m) => !m.posted)) return 0;
    const { title: _, profileName: __, ...without } = s;
    if (parentHash(renderParent(without, now, links)) !== s.renderedHash) return 0;
    const at = (s.lastRenderAt ?? 0) + TITLE_RIDE_MS;
    return at > now.getTime() ? at : 0;
  }

  /**
   * Waits for this process's reads in flight to answer (and bring their videos forward); false when
   * there were none (the worker's `drain`, for tests and the demo).
   */
  async answered(): Promise<boolean> {
    const pending = [...this.reads.values()].filter((r) => !r.woken).map((r) => r.done);
    if (pending.length === 0) return false;
    await Promise.all(pending);
    return true;
  }

  /** The worker stops: answers that arrive later are not noted as failures (the next process reads). */
  close(): void {
    this.closed = true;
    for (const lane of this.lanes.values()) lane.queue.length = 0;
  }

  /** The answer if known here or noted by anyone; otherwise takes the read if it is free. */
  private async known(key: VideoKey, s: VideoState): Promise<TitleFact | undefined> {
    const ref = titleRef(key);
    const local = this.reads.get(ref);
    if (local !== undefined) return this.waitOn(local, key);
    try {
      const noted = parseNote(await this.options.outbox.getNote(ref));
      if (noted !== undefined) return noted;
      if (s.videoId !== null && (await this.options.outbox.once(ref, TITLE_READ_LEASE_MS)))
        this.read(ref, key, s);
    } catch (err) {
      // The store failing: the title waits for a later pass, the message does not.
      this.options.logger.warn({ err, video: ref }, "could not look up the video's title in the store");
    }
    // This pass's read, or one another key of the video began meanwhile in this process.
    const entry = this.reads.get(ref);
    return entry === undefined ? undefined : this.waitOn(entry, key);
  }

  /** The read's answer if it came; otherwise `key` is brought forward when it comes. */
  private waitOn(read: Read, key: VideoKey): TitleFact | undefined {
    if (read.fact === undefined && read.waiters.size < WAITERS_MAX) read.waiters.add(key);
    return read.fact;
  }

  /** Starts the read of `ref` in the background: admitted to its callback's lane, charged, then made. */
  private read(ref: string, key: VideoKey, s: VideoState): void {
    let answered = () => {};
    const done = new Promise<void>((resolve) => {
      answered = resolve;
    });
    const entry: Read = {
      fact: undefined,
      waiters: new Set([key]),
      done,
      answered,
      woken: false,
    };
    this.reads.set(ref, entry);
    // Map order is insertion order: drop the oldest answered reads beyond the bound.
    for (const [k, r] of this.reads) {
      if (this.reads.size <= LOCAL_MAX) break;
      if (r.fact !== undefined) this.reads.delete(k);
    }
    void this.admit(ref, entry, s).catch((err: unknown) => {
      this.options.logger.warn({ err, video: ref }, "video title read failed");
      this.finish(ref, entry, { unknown: "unavailable" });
    });
  }

  private async admit(ref: string, entry: Read, s: VideoState): Promise<void> {
    const laneKey = `${s.teamId}:${s.profileId}`;
    const lane = this.lanes.get(laneKey) ?? { running: 0, queue: [] };
    if (lane.running >= TITLE_READS_PER_CALLBACK && lane.queue.length >= TITLE_QUEUE_PER_CALLBACK) {
      this.finish(ref, entry, { unknown: "busy" });
      return;
    }
    this.lanes.set(laneKey, lane);
    // Charged to the callback's workspace before it is made: a flood of made-up ids costs the
    // workspace's budget at most, then the videos keep their ids.
    const take = this.options.budget ? await this.options.budget.charge({ workspace: s.teamId }) : undefined;
    if (take && !take.ok) {
      this.logOverBudget(s.teamId);
      this.dropLaneIfIdle(laneKey, lane);
      this.finish(ref, entry, { unknown: "budget" });
      return;
    }
    const run = () => {
      lane.running++;
      void this.ask(s, take?.paid)
        .then((fact) => this.finish(ref, entry, fact))
        .finally(() => {
          lane.running--;
          const next = lane.queue.shift();
          if (next) next();
          else this.dropLaneIfIdle(laneKey, lane);
        });
    };
    if (lane.running < TITLE_READS_PER_CALLBACK) run();
    else lane.queue.push(run);
  }

  private logOverBudget(teamId: string): void {
    const now = this.options.now();
    if (now - (this.budgetLogged.get(teamId) ?? Number.NEGATIVE_INFINITY) < BUDGET_LOG_EVERY_MS) return;
    if (this.budgetLogged.size >= LOCAL_MAX) this.budgetLogged.clear();
    this.budgetLogged.set(teamId, now);
    this.options.logger.warn(
      { team: teamId },
      "the workspace's read budget is spent: new videos of its callbacks keep their ids until it refills",
    );
  }

  private dropLaneIfIdle(laneKey: string, lane: Lane): void {
    if (lane.running === 0 && lane.queue.length === 0 && this.lanes.get(laneKey) === lane)
      this.lanes.delete(laneKey);
  }

  /** The platform's answer (the read is cut at the platform names' deadline, never retried). */
  private async ask(s: VideoState, paid: PaidTitleRead | undefined): Promise<TitleFact> {
    const { names } = this.options;
    const workspace = { workspace: s.teamId };
    const answer = await names
      .videoTitle(paid ?? workspace, s.videoId ?? "", { profileId: s.profileId })
      .catch((): VideoTitle => ({ unknown: "unavailable" }));
    // The profile's name, read alongside (cached an hour; charged like the title), so it is there
    // when the title is.
    await names.profile(workspace, s.profileId, { signal: AbortSignal.timeout(PROFILE_WAIT_MS) });
    return factOf(answer);
  }

  /** The answer: kept here, noted for the other keys and replicas, and the waiting keys brought forward. */
  private finish(ref: string, entry: Read, fact: TitleFact): void {
    if (entry.fact !== undefined) return;
    entry.fact = fact;
    if ("notConfirmed" in fact)
      this.options.logger.info(
        { video: ref },
        "the platform has no such video (404): its messages say so and never carry a mention",
      );
    const now = this.options.now();
    const woken = [...entry.waiters].map((key) =>
      this.options.outbox.wake(key, now).catch((err: unknown) => {
        this.options.logger.debug(
          { err, video: key },
          "could not bring the video forward; it comes back by itself",
        );
      }),
    );
    entry.waiters.clear();
    void Promise.all(woken).then(() => {
      entry.woken = true;
      entry.answered();
      this.options.woken?.();
    });
    // A read cut short by this process stopping is not an answer: the next process reads.
    if (this.closed && "unknown" in fact) return;
    void this.options.outbox
      .putNote(ref, JSON.stringify(fact), TITLE_NOTE_TTL_MS)
      .catch((err: unknown) =>
        this.options.logger.warn(
          { err, video: ref },
          "could not share the video's title with the other replicas",
        ),
      );
  }
}
