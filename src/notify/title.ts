/**
 * Video titles in the notifications: a video is named by its title, read once from the platform
 * (`GET /videos/{id}?fields=title` through PlatformNames, so the platform client's retries,
 * timeouts and error mapping apply) and kept in the video's state.
 * More: README.md ("title.ts").
 */
import type { Logger } from "../log.js";
import { renderParent, type VideoLinks } from "../messages/index.js";
import type { PlatformNames, VideoTitle } from "../platform/index.js";
import { profileKeyOf } from "./fanout.js";
import { PULL_FORWARD_MS } from "./outbox/index.js";
import type { Outbox, VideoKey } from "./types.js";
import { parentHash } from "./video/hash.js";
import type { TitleFact, VideoState } from "./video/state.js";
import { parseTitleFact } from "./video/validate.js";

/** The first post waits at most this long for the title. */
export const TITLE_WAIT_MS = 2_000;
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
/** How long one pass waits for the answer before the first post (then it is held and comes back). */
const INLINE_WAIT_MS = 250;
/** How often a held first post looks again for the answer. */
const HOLD_POLL_MS = 200;
/** How often a pass waiting on another replica's read looks at the note. */
const NOTE_POLL_MS = 50;
/** Answers kept in this process for the video's other keys (the oldest dropped first). */
const LOCAL_MAX = 1_000;

export interface TitleOptions {
  names: Pick<PlatformNames, "videoTitle" | "profile">;
  outbox: Pick<Outbox, "once" | "putNote" | "getNote">;
  logger: Logger;
  /** The worker's clock. */
  now: () => number;
}

/** The marker and note name of a video: the same for its profile key and its channels' keys. */
export function titleRef(key: VideoKey): string {
  return `title:${profileKeyOf(key)}`;
}

/** The profile of a title reference (`title:<team>:<profile>:<video>`). */
function profileOfRef(ref: string): string | undefined {
  return ref.split(":")[2];
}

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

/** How long a title's settling waits for the profile's name (it is read while the title is). */
const PROFILE_WAIT_MS = 250;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

interface Read {
  /** Set once the platform answered. */
  fact: TitleFact | undefined;
  done: Promise<TitleFact>;
}

export class VideoTitles {
  private readonly options: TitleOptions;
  /** This process's reads: in flight, then answered (bounded). */
  private readonly reads = new Map<string, Read>();
  private closed = false;

  constructor(opts: TitleOptions) {
    this.options = { names: opts.names, outbox: opts.outbox, logger: opts.logger, now: opts.now };
  }

  /**
   * The state with what is known of its video's title. Takes the read when no one has (at most
   * one per video); before the first post, waits for the answer up to INLINE_WAIT_MS (never past
   * WAIT_MS after the title was first asked for). Never throws: a store failure leaves it pending.
   */
  async settle(key: VideoKey, s: VideoState): Promise<VideoState> {
    if (s.videoId === null || s.title !== undefined || s.eventCount === 0) return s;
    const asked = s.titleAskedAt ?? this.options.now();
    const base = s.titleAskedAt === undefined ? { ...s, titleAskedAt: asked } : s;
    const ref = titleRef(key);
    let fact = await this.known(ref, s.videoId);
    const left = Math.min(asked + TITLE_WAIT_MS - this.options.now(), INLINE_WAIT_MS);
    if (fact === undefined && s.parentTs === null && left > 0) fact = await this.waitFor(ref, left);
    if (fact === undefined) return base;
    // The profile's name settles with the title (one write for both); cached an hour per process.
    const label = await this.options.names.profile(s.profileId, {
      signal: AbortSignal.timeout(PROFILE_WAIT_MS),
    });
    return { ...base, title: fact, ...(label.known ? { profileName: label.label.slice(0, 200) } : {}) };
  }

  /** While the first post waits for the title (WAIT_MS at most): when to look again; else 0. */
  holdUntil(s: VideoState): number {
    if (s.videoId === null || s.title !== undefined || s.parentTs !== null) return 0;
    const end = (s.titleAskedAt ?? 0) + TITLE_WAIT_MS;
    const now = this.options.now();
    return end > now ? Math.min(end, now + HOLD_POLL_MS) : 0;
  }

  /** When to look at the video again: `dueAt`, or sooner while its title is pending. */
  pollAt(s: VideoState, dueAt: number | null): number | null {
    if (s.videoId === null || s.title !== undefined || s.eventCount === 0) return dueAt;
    const poll = this.options.now() + TITLE_POLL_MS;
    return dueAt !== null && dueAt < poll ? dueAt : poll;
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

  /** The worker stops: answers that arrive later are not noted as failures (the next process reads). */
  close(): void {
    this.closed = true;
  }

  /** The answer if known here or noted by anyone; otherwise takes the read if it is free. */
  private async known(ref: string, videoId: string): Promise<TitleFact | undefined> {
    const local = this.reads.get(ref);
    if (local !== undefined) return local.fact;
    try {
      const noted = parseNote(await this.options.outbox.getNote(ref));
      if (noted !== undefined) return noted;
      if (await this.options.outbox.once(ref, TITLE_READ_LEASE_MS)) this.read(ref, videoId);
    } catch (err) {
      // The store failing: the title waits for a later pass, the message does not.
      this.options.logger.warn({ err, video: ref }, "could not look up the video's title in the store");
    }
    return this.reads.get(ref)?.fact;
  }

  private read(ref: string, videoId: string): void {
    const entry: Read = { fact: undefined, done: Promise.resolve({ unknown: "unavailable" }) };
    const profileId = profileOfRef(ref);
    // Read alongside, so that the name is there when the title is.
    if (profileId !== undefined) void this.options.names.profile(profileId);
    entry.done = this.options.names
      .videoTitle(videoId, { profileId })
      .catch((): VideoTitle => ({ unknown: "unavailable" }))
      .then(async (answer) => {
        const fact = factOf(answer);
        entry.fact = fact;
        if ("notConfirmed" in fact)
          this.options.logger.info(
            { video: ref },
            "the platform has no such video (404): its messages say so and never carry a mention",
          );
        // A read cut short by this process stopping is not an answer: the next process reads.
        if (this.closed && "unknown" in fact) return fact;
        await this.options.outbox
          .putNote(ref, JSON.stringify(fact), TITLE_NOTE_TTL_MS)
          .catch((err: unknown) =>
            this.options.logger.warn(
              { err, video: ref },
              "could not share the video's title with the other replicas",
            ),
          );
        return fact;
      });
    this.reads.set(ref, entry);
    // Map order is insertion order: drop the oldest answered reads beyond the bound.
    for (const [k, r] of this.reads) {
      if (this.reads.size <= LOCAL_MAX) break;
      if (r.fact !== undefined) this.reads.delete(k);
    }
  }

  /** Waits up to `ms` for the answer: this process's read, or another replica's note. */
  private async waitFor(ref: string, ms: number): Promise<TitleFact | undefined> {
    const deadline = Date.now() + ms;
    for (;;) {
      const left = deadline - Date.now();
      const local = this.reads.get(ref);
      if (local !== undefined) {
        if (local.fact !== undefined || left <= 0) return local.fact;
        let timer: NodeJS.Timeout | undefined;
        const timeout = new Promise<undefined>((r) => {
          timer = setTimeout(() => r(undefined), left);
        });
        try {
          return await Promise.race([local.done, timeout]);
        } finally {
          clearTimeout(timer);
        }
      }
      if (left <= 0) return undefined;
      await sleep(Math.min(NOTE_POLL_MS, left));
      const noted = parseNote(await this.options.outbox.getNote(ref).catch(() => undefined));
      if (noted !== undefined) return noted;
    }
  }
}
