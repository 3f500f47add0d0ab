/**
 * Names instead of ids, on the platform side: a profile's label (`display_name`, else `name`,
 * else its id), the profiles the key manages (`GET /me`), a profile named by id or by name, and a
 * video's title.
 * More: README.md ("names.ts").
 */
import { type Logger, silentLogger } from "../log.js";
import type { PlatformClient } from "./client.js";
import { isPlatformError, type PlatformError } from "./errors.js";

export interface NamesOptions {
  client: Pick<PlatformClient, "getProfile" | "getMe" | "getVideo" | "can">;
  logger?: Logger;
  now?: () => number;
  /** How long a profile's label is kept (default 1 hour). */
  profileTtlMs?: number;
  /**
   * How long a failed profile read shows the id before it is tried again (default: as long as a
   * label is kept, the contract's "a failed read is remembered as long as a successful one").
   */
  profileFailureTtlMs?: number;
  /** How long the list of managed profiles is kept (default 5 minutes). */
  managedTtlMs?: number;
  /** Profiles whose labels are kept at most (default 1,000; the oldest goes first). */
  maxProfiles?: number;
  /** Title reads in flight at most (default 256); past it, a title is `unknown: "busy"`. */
  maxTitleReads?: number;
  /** After a 403 on a title read, no title is read for this long (default 10 minutes). */
  forbiddenPauseMs?: number;
}

/**
 * What a read is charged to, asked just before it is made (not when the answer is cached or a read
 * is in flight): false refuses the read, and the caller gets what it gets without an answer.
 */
export type Charge = () => Promise<boolean>;

/** Options of a read: the caller's signal (stops its wait only) and what the read is charged to. */
export interface NamesReadOptions {
  signal?: AbortSignal;
  charge?: Charge;
}

/** How a profile is shown. */
export interface ProfileLabel {
  profileId: string;
  name?: string;
  displayName?: string;
  /** `displayName`, else `name`, else the id. */
  label: string;
  /** False when the read failed and the label is the id. */
  known: boolean;
}

/** A profile the key manages, from `GET /me`. */
export interface ManagedProfile {
  profileId: string;
  name?: string;
}

/** "no_profile": the platform answered that the key manages none; "unavailable": it could not be asked. */
export type ManagedProfilesProblem = "no_profile" | "unavailable";

export class ManagedProfilesError extends Error {
  readonly problem: ManagedProfilesProblem;
  /** The platform's error, for "unavailable". */
  readonly platformError: PlatformError | undefined;

  constructor(problem: ManagedProfilesProblem, cause?: unknown) {
    super(
      problem === "no_profile"
        ? "The platform key manages no profile"
        : "Could not ask the platform which profiles the key manages",
      cause === undefined ? undefined : { cause },
    );
    this.name = "ManagedProfilesError";
    this.problem = problem;
    this.platformError = isPlatformError(cause) ? cause : undefined;
  }
}

/** Why a video's title is not known (the id is shown instead; the video is neither confirmed nor denied). */
export type VideoTitleUnknown =
  /** The token does not carry `video.read`: nothing was asked. */
  | "no_scope"
  /** 403: the platform refused the read (or a recent 403 paused reads). */
  | "forbidden"
  /** 422, or an id the client refuses before sending. */
  | "invalid"
  /** 429, 5xx, network, token service. */
  | "unavailable"
  | "timeout"
  /** A 2xx that is not a JSON object. */
  | "invalid_response"
  /** The caller stopped waiting (its AbortSignal). */
  | "cancelled"
  /** Too many title reads in flight. */
  | "busy";

/**
 * `{ title }`: the platform has the video (confirmed); `title` is null when its answer has no
 * usable title. `{ notConfirmed: true }`: 404, the platform has no such video. `{ unknown }`: the
 * read did not say.
 */
export type VideoTitle =
  | { title: string | null }
  | { notConfirmed: true }
  | { unknown: VideoTitleUnknown; error?: PlatformError };

/** A title read with the profile the platform says owns the video (when it said). */
type OwnedTitle = { title: string | null; owner?: string } | Exclude<VideoTitle, { title: string | null }>;

/** What a title read asks for: the title, and the owning profile to check it against the route's. */
export const VIDEO_TITLE_FIELDS = ["title", "profile.profile_id"] as const;

/** The platform's limit for a title; a longer one is cut (it is kept with the video). */
const MAX_TITLE_CHARS = 255;

/**
 * `nameOrId` among `candidates`: a profile id (exact), else a `name`, case-insensitive; undefined
 * when none matches.
 */
export function resolveProfile(
  nameOrId: string,
  candidates: readonly ManagedProfile[],
): ManagedProfile | undefined {
  const t = nameOrId.trim();
  if (t === "") return undefined;
  const byId = candidates.find((c) => c.profileId === t);
  if (byId !== undefined) return byId;
  const lower = t.toLowerCase();
  return candidates.find((c) => c.name !== undefined && c.name.toLowerCase() === lower);
}

interface Timed<T> {
  value: T;
  expiresAt: number;
}

export class PlatformNames {
  private readonly options: Required<Omit<NamesOptions, "logger" | "now">>;
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly labels = new Map<string, Timed<ProfileLabel>>();
  private readonly labelReads = new Map<string, Promise<ProfileLabel>>();
  private managed: (Timed<ManagedProfile[]> & { failure?: ManagedProfilesError }) | undefined;
  private managedRead: Promise<ManagedProfile[]> | undefined;
  private readonly titleReads = new Map<string, Promise<VideoTitle>>();
  private forbiddenUntil = 0;

  constructor(opts: NamesOptions) {
    this.options = {
      client: opts.client,
      profileTtlMs: opts.profileTtlMs ?? 3_600_000,
      profileFailureTtlMs: opts.profileFailureTtlMs ?? opts.profileTtlMs ?? 3_600_000,
      managedTtlMs: opts.managedTtlMs ?? 300_000,
      maxProfiles: Math.max(1, opts.maxProfiles ?? 1000),
      maxTitleReads: Math.max(1, opts.maxTitleReads ?? 256),
      forbiddenPauseMs: opts.forbiddenPauseMs ?? 600_000,
    };
    this.logger = opts.logger ?? silentLogger();
    this.now = opts.now ?? Date.now;
  }

  /** The profile's `display_name`, else its `name`, else its id (never throws). */
  async profileName(profileId: string, opts: NamesReadOptions = {}): Promise<string> {
    return (await this.profile(profileId, opts)).label;
  }

  /**
   * How the profile is shown, from cache or one shared read (never throws). A read to make is
   * charged first (`opts.charge`); refused, the label is the id (nothing kept).
   */
  async profile(profileId: string, opts: NamesReadOptions = {}): Promise<ProfileLabel> {
    const cached = this.cachedProfile(profileId);
    if (cached !== undefined) return cached;
    const unknown = (): ProfileLabel => ({ profileId, label: profileId, known: false });
    let read = this.labelReads.get(profileId);
    if (read === undefined) {
      if (opts.charge && !(await opts.charge())) return unknown();
      read = this.labelReads.get(profileId);
      if (read === undefined) {
        read = this.readLabel(profileId).finally(() => this.labelReads.delete(profileId));
        this.labelReads.set(profileId, read);
      }
    }
    return waitFor(read, opts.signal, unknown);
  }

  /** How the profile is shown when this process has it cached (no read); undefined otherwise. */
  cachedProfile(profileId: string): ProfileLabel | undefined {
    const cached = this.labels.get(profileId);
    return cached !== undefined && cached.expiresAt > this.now() ? cached.value : undefined;
  }

  /**
   * The profiles the key manages, from cache or one shared `GET /me`. Throws
   * ManagedProfilesError: "no_profile" when the list is empty, "unavailable" when the read failed
   * (remembered as long as a list is) or its charge was refused.
   */
  async managedProfiles(opts: NamesReadOptions = {}): Promise<ManagedProfile[]> {
    const cached = this.managed;
    let list: ManagedProfile[];
    if (cached !== undefined && cached.expiresAt > this.now()) {
      if (cached.failure !== undefined) throw cached.failure;
      list = cached.value;
    } else {
      if (this.managedRead === undefined) {
        if (opts.charge && !(await opts.charge())) throw new ManagedProfilesError("unavailable");
      }
      if (this.managedRead === undefined) {
        this.managedRead = this.readManaged().finally(() => {
          this.managedRead = undefined;
        });
        // Whoever stops waiting leaves the failure to the others: never an unhandled rejection.
        this.managedRead.catch(() => undefined);
      }
      list = await waitFor(this.managedRead, opts.signal, () => {
        throw new ManagedProfilesError("unavailable", opts.signal?.reason);
      });
    }
    if (list.length === 0) throw new ManagedProfilesError("no_profile");
    return list.map((p) => ({ ...p }));
  }

  /** A profile id or name among `candidates` (see `resolveProfile`). */
  resolveProfile(nameOrId: string, candidates: readonly ManagedProfile[]): ManagedProfile | undefined {
    return resolveProfile(nameOrId, candidates);
  }

  /**
   * One `GET /videos/{id}?fields=title,profile.profile_id`, shared with the calls for the same
   * video in flight (never throws). The caller's signal stops its wait (`unknown: "cancelled"`),
   * not the shared read. With `profileId`, a video whose answer does not show it belongs to that
   * profile (another owner, none, a malformed one) is answered as one the platform does not have
   * (`notConfirmed`): a delivery names a video, and the one key reads every workspace's videos, so
   * a forged delivery must not show another profile's title (fail closed).
   */
  async videoTitle(
    videoId: string,
    opts: { signal?: AbortSignal; profileId?: string } = {},
  ): Promise<VideoTitle> {
    if (this.forbiddenUntil > this.now()) return { unknown: "forbidden" };
    let read = this.titleReads.get(videoId);
    if (read === undefined) {
      if (this.titleReads.size >= this.options.maxTitleReads) return { unknown: "busy" };
      read = this.readTitle(videoId).finally(() => this.titleReads.delete(videoId));
      this.titleReads.set(videoId, read);
    }
    const answer = await waitFor<OwnedTitle>(read, opts.signal, () => ({ unknown: "cancelled" }));
    if (!("title" in answer)) return answer;
    const { owner, ...title } = answer;
    // Fail closed: an answer that does not show the video is the profile's (another owner, or
    // none, or a malformed one) is answered as a video the platform does not have.
    if (opts.profileId !== undefined && owner !== opts.profileId) {
      this.logger.info(
        { videoId, profileId: opts.profileId, owner: owner === undefined ? "none" : "another profile" },
        "the video's answer does not show it belongs to the profile; answered as a video the platform does not have",
      );
      return { notConfirmed: true };
    }
    return title;
  }

  /** Drops cached labels (one profile, or all) and the managed list. */
  forget(profileId?: string): void {
    if (profileId === undefined) this.labels.clear();
    else this.labels.delete(profileId);
    this.managed = undefined;
  }

  private async readLabel(profileId: string): Promise<ProfileLabel> {
    let value: ProfileLabel;
    let ttl = this.options.profileTtlMs;
    try {
      const p = await this.options.client.getProfile(profileId, ["name", "display_name"]);
      const name = nonBlank(p.name);
      const displayName = nonBlank(p.display_name);
      value = {
        profileId,
        ...(name === undefined ? {} : { name }),
        ...(displayName === undefined ? {} : { displayName }),
        label: displayName ?? name ?? profileId,
        known: true,
      };
    } catch (err) {
      this.logger.warn({ err, profileId }, "could not read the profile's name; showing its id");
      value = { profileId, label: profileId, known: false };
      ttl = this.options.profileFailureTtlMs;
    }
    this.labels.delete(profileId);
    this.labels.set(profileId, { value, expiresAt: this.now() + ttl });
    while (this.labels.size > this.options.maxProfiles) {
      const oldest = this.labels.keys().next().value;
      if (oldest === undefined) break;
      this.labels.delete(oldest);
    }
    return value;
  }

  private async readManaged(): Promise<ManagedProfile[]> {
    let list: ManagedProfile[];
    try {
      const me = await this.options.client.getMe();
      list = me.profiles.map((p) => ({
        profileId: p.profile_id,
        ...(p.name === undefined ? {} : { name: p.name }),
      }));
    } catch (err) {
      this.logger.warn({ err }, "could not read the profiles the key manages (GET /me)");
      // Remembered as long as an answer would be: a failed read is not made again at once.
      const failure = new ManagedProfilesError("unavailable", err);
      this.managed = { value: [], failure, expiresAt: this.now() + this.options.managedTtlMs };
      throw failure;
    }
    this.managed = { value: list, expiresAt: this.now() + this.options.managedTtlMs };
    return list;
  }

  private async readTitle(videoId: string): Promise<OwnedTitle> {
    try {
      if (!(await this.options.client.can("video.read"))) return { unknown: "no_scope" };
      // One attempt: each read is charged to a workspace's budget, and a title only names a video
      // (no message waits for it); the client's timeouts bound it.
      const video = await this.options.client.getVideo(videoId, VIDEO_TITLE_FIELDS, { attempts: 1 });
      const title = nonBlank(video.title);
      const owner = video.profile?.profile_id;
      return {
        title: title === undefined ? null : cut(title),
        ...(typeof owner === "string" ? { owner } : {}),
      };
    } catch (err) {
      if (!isPlatformError(err)) {
        this.logger.warn({ err, videoId }, "video title read failed");
        return { unknown: "unavailable" };
      }
      if (err.kind === "http" && err.status === 404) return { notConfirmed: true };
      const reason = unknownReason(err);
      if (reason === "forbidden") {
        this.forbiddenUntil = this.now() + this.options.forbiddenPauseMs;
        this.logger.warn(
          { err, pauseMs: this.options.forbiddenPauseMs },
          "the platform refused a video title read (403); videos are named by their id for a while",
        );
      } else {
        this.logger.info({ err, videoId, reason }, "video title not known; the id stays");
      }
      return { unknown: reason, error: err };
    }
  }
}

function unknownReason(err: PlatformError): VideoTitleUnknown {
  switch (err.kind) {
    case "http":
      if (err.status === 403) return "forbidden";
      if (err.status === 422) return "invalid";
      return "unavailable";
    case "timeout":
      return err.code === "ABORTED" ? "cancelled" : "timeout";
    case "invalid_response":
      return "invalid_response";
    case "invalid_request":
      return "invalid";
    default:
      return "unavailable";
  }
}

function nonBlank(v: string | null | undefined): string | undefined {
  return typeof v === "string" && v.trim() !== "" ? v : undefined;
}

function cut(title: string): string {
  const chars = [...title];
  return chars.length <= MAX_TITLE_CHARS ? title : `${chars.slice(0, MAX_TITLE_CHARS - 1).join("")}…`;
}

/** `read`, or what `stopped` gives (or throws) as soon as `signal` aborts; the read goes on for the others. */
function waitFor<T>(read: Promise<T>, signal: AbortSignal | undefined, stopped: () => T): Promise<T> {
  if (signal === undefined) return read;
  const stop = () => new Promise<T>((resolve) => resolve(stopped()));
  if (signal.aborted) return stop();
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      stop().then(resolve, reject);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    read.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}
