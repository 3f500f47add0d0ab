/**
 * The one authorization module: every command, subcommand, button, modal submission and event
 * More: README.md ("authorize.ts").
 */
import type { WebClient } from "@slack/web-api";
import type { Config } from "../config.js";
import { isPlatformId } from "../domain/index.js";
import type { Logger } from "../log.js";
import { type Livestream, PlatformError, type Video } from "../platform/index.js";
import type { ProfileClaims } from "../store/index.js";
import {
  ACTION_RULES,
  type Action,
  type LivestreamAction,
  type Resource,
  type VideoAction,
} from "./actions.js";
import { budgetRefusal, type Decision, type Refused, refusal } from "./decision.js";
import type { LivestreamReads, PaidRead, PlatformDoor, VideoReads } from "./door.js";
import type { ManagerPolicy } from "./managers.js";
import { SharedReads } from "./shared-reads.js";

export interface Subject {
  teamId: string;
  enterpriseId?: string | undefined;
  userId: string;
  client: WebClient;
}

/**
 * A workspace the bot acts for on its own, when no request of it carries Bolt's context: its
 * Enterprise Grid organization, or null when the app is not installed there (src/install/workspaces.ts).
 */
export type WorkspaceOf = (teamId: string) => Promise<{ enterpriseId: string | undefined } | null>;

/** Why what the bot keeps doing for a workspace and profile must stop (also a dead letter's reason). */
export type Revocation = "not_installed" | "workspace_not_allowed" | "profile_not_bound";

export interface AuthorizerOptions {
  config: { access: Pick<Config["access"], "allowedWorkspaces" | "profileBindings"> } & {
    slack: Pick<Config["slack"], "mode">;
  };
  managers: ManagerPolicy;
  claims: ProfileClaims;
  /** The door's livestream reads (`door.livestreams()`): each read spends the PaidRead charged here. */
  platform: LivestreamReads;
  /** The door's video reads (`door.videos()`, link previews); without them a video reads as missing. */
  videos?: VideoReads | undefined;
  /** The shared reads' clock, ms (default Date.now): tests hold and move the 10 s window. */
  clock?: (() => number) | undefined;
  /** Default: every workspace installed, in no organization. */
  workspaceOf?: WorkspaceOf;
  /** Refusals are logged at info (team, user, action, reason): never a token or a stream key. */
  logger?: Logger;
  /** The door (src/access/door.ts) reads are charged through (none: no budget). */
  door?: Pick<PlatformDoor, "charge"> | undefined;
  /** Metrics: a livestream read that reached the platform or was shared. */
  onLivestreamRead?: (outcome: "fetched" | "shared") => void;
  /**
   * Awaited once a livestream read settled, before its caller goes on: the app resumes each reader
   * on a turn of its own (src/slack/acks-first.ts), so the hundreds of requests that shared one
   * slow read do not all render and answer in one block while new requests wait for their acks.
   */
  afterRead?: () => Promise<void>;
}

/** The profile field read with every livestream (spec 2.1/4.1: dot notation). */
export const LIVESTREAM_PROFILE_FIELD = "profile.profile_id";

export type LivestreamRead = { allowed: true; livestream: Livestream; manager: boolean } | Refused;
export type VideoRead = { allowed: true; video: Video } | Refused;

/** How a read may be shared: `fresh`, only with an identical read still in flight (a details pane). */
export interface ReadSharing {
  fresh?: boolean;
}

/** The profile field read with every video (the binding is checked on it). */
export const VIDEO_PROFILE_FIELD = "profile.profile_id";

/** The bot's one "does not exist" of a livestream or a video (see below): no correlation id. */
function notFound(kind: "livestream" | "video", id: string): PlatformError {
  return new PlatformError({
    kind: "http",
    status: 404,
    code: "RESOURCE_NOT_FOUND",
    message: `The ${kind} "${id}" was not found`,
    details: { object_id: id, reason: "not_found", object_type: kind, param: "id" },
    method: "GET",
    path: `/${kind}s/${id}`,
  });
}

/**
 * The one "does not exist" of a livestream: thrown for a livestream the platform does not have AND
 * for one whose profile is not bound to the workspace, so both are answered byte for byte the same.
 * No correlation id: the platform's would tell the two apart, and the bot never makes one up.
 */
export function livestreamNotFound(id: string): PlatformError {
  return notFound("livestream", id);
}

/**
 * The one "does not exist" of a video, as `livestreamNotFound`: a video the platform does not
 * have and one whose profile is not bound to the workspace (or whose answer does not name it).
 */
export function videoNotFound(id: string): PlatformError {
  return notFound("video", id);
}

/** The platform's "does not exist" (404): an answer, shared like one. */
function isNotFound(err: unknown): boolean {
  return err instanceof PlatformError && err.kind === "http" && err.status === 404;
}

export class Authorizer {
  private readonly everyWorkspace: boolean;
  private readonly allowed: Set<string>;
  /** Livestream reads shared between requests (status, Refresh, previews, watch). */
  readonly sharedReads: SharedReads<Livestream>;
  /** Video reads shared between requests (link previews and their panes). */
  readonly sharedVideoReads: SharedReads<Video>;

  constructor(private readonly opts: AuthorizerOptions) {
    const shared = { keepFailure: isNotFound, ...(opts.clock ? { now: opts.clock } : {}) };
    this.sharedReads = new SharedReads<Livestream>(shared);
    this.sharedVideoReads = new SharedReads<Video>(shared);
    this.everyWorkspace = opts.config.access.allowedWorkspaces.includes("*");
    this.allowed = new Set(opts.config.access.allowedWorkspaces);
  }

  workspaceAllowed(teamId: string | undefined, enterpriseId?: string | undefined): boolean {
    if (this.opts.config.slack.mode !== "oauth" || this.everyWorkspace) return true;
    return (
      (teamId !== undefined && this.allowed.has(teamId)) ||
      (enterpriseId !== undefined && this.allowed.has(enterpriseId))
    );
  }

  /** Whether the workspace may read and change the profile (PROFILE_BINDINGS). */
  profileBound(s: Pick<Subject, "teamId" | "enterpriseId">, profileId: string | undefined): boolean {
    // Not a profile id at all (a forged button value): bound to no workspace, asked of nothing.
    if (profileId !== undefined && !isPlatformId(profileId)) return false;
    const b = this.opts.config.access.profileBindings;
    const entries = Object.keys(b).length;
    if (this.opts.config.slack.mode !== "oauth" && entries === 0) return true;
    if (profileId === undefined) return false;
    const of = (id: string | undefined) => (id !== undefined && Object.hasOwn(b, id) ? (b[id] ?? []) : []);
    return of(s.teamId).includes(profileId) || of(s.enterpriseId).includes(profileId);
  }

  /**
   * Whether what the bot does on its own for `profileId` (a watch poll, a delivery's fan-out, a
   * claim) may still reach the workspace: it is allowed (ALLOWED_WORKSPACES) and the profile is
   * bound to it (PROFILE_BINDINGS). Asked again every time the bot acts, not only when a request
   * arrives; no Slack or platform call.
   */
  stillBound(w: Pick<Subject, "teamId" | "enterpriseId">, profileId: string | undefined): boolean {
    return this.workspaceAllowed(w.teamId, w.enterpriseId) && this.profileBound(w, profileId);
  }

  /**
   * Why what the bot keeps doing on its own for `teamId` and `profileId` (a delivery, a claim)
   * must stop: the app is no longer installed there, the workspace no longer allowed, or the
   * profile no longer bound to it; undefined while it may go on. Configuration, plus the
   * workspace's installation (cached) in multi-workspace mode: no Slack or platform call.
   */
  async revoked(teamId: string, profileId: string): Promise<Revocation | undefined> {
    const w = this.opts.workspaceOf ? await this.opts.workspaceOf(teamId) : { enterpriseId: undefined };
    if (w === null) return "not_installed";
    if (!this.workspaceAllowed(teamId, w.enterpriseId)) return "workspace_not_allowed";
    if (!this.profileBound({ teamId, enterpriseId: w.enterpriseId }, profileId)) return "profile_not_bound";
    return undefined;
  }

  /**
   * The profile's claim: its holder, and whether the claim still counts. It counts only while its
   * holder may still act on the profile (`revoked`): once the operator moved the profile to
   * another workspace, removed the holder from ALLOWED_WORKSPACES or the app was uninstalled
   * there, the workspace now bound may take the profile over (`/webhook set`).
   */
  async claimOf(profileId: string): Promise<{ holder: string; counts: boolean } | undefined> {
    const holder = await this.opts.claims.owner(profileId);
    if (holder === undefined) return undefined;
    return { holder, counts: (await this.revoked(holder, profileId)) === undefined };
  }

  async authorize(s: Subject, action: Action, resource: Resource): Promise<Decision> {
    const rule: { role: string; resource: string; claim?: true; verb: string } = ACTION_RULES[action];
    if (rule.resource !== resource.kind)
      throw new TypeError(`action ${action} acts on a ${rule.resource}, not a ${resource.kind}`);
    const profileId = resource.kind === "profile" ? resource.profileId : undefined;
    const refuse = (reason: Parameters<typeof refusal>[0]) => {
      this.opts.logger?.info(
        { team: s.teamId, user: s.userId, action, reason, profile: profileId },
        "refused",
      );
      return refusal(reason, { verb: rule.verb, teamId: s.teamId, ...(profileId ? { profileId } : {}) });
    };
    if (!this.workspaceAllowed(s.teamId, s.enterpriseId)) return refuse("workspace_not_allowed");
    let manager = false;
    if (rule.role !== "anyone") {
      manager = (await this.opts.managers.decide(s.client, s.teamId, s.userId)).manager;
      if (rule.role === "manager" && !manager) return refuse("not_manager");
    }
    if (resource.kind === "profile") {
      if (!this.profileBound(s, resource.profileId)) return refuse("profile_not_bound");
      if (rule.claim) {
        const owner = await this.opts.claims.owner(resource.profileId);
        if (
          owner !== undefined &&
          owner !== s.teamId &&
          (await this.revoked(owner, resource.profileId)) === undefined
        )
          return refuse("profile_claimed");
      }
    }
    return { allowed: true, manager };
  }

  /**
   * Charges one platform read to its cause before it is made: the person who asked (their budget
   * and their workspace's), or the workspace alone (`userId` undefined: previews, profile names
   * shown without a person, the reads deliveries cause). False when a budget is used up.
   */
  async chargeRead(payer: { teamId: string; userId?: string | undefined }): Promise<boolean> {
    if (!this.opts.door) return true;
    const { teamId, userId } = payer;
    const c = await this.opts.door.charge(
      userId === undefined ? { workspace: teamId } : { user: { teamId, userId } },
    );
    if (c.ok) {
      // The read it pays for is made through PlatformNames, which the door hands this charge to.
      c.paid.spend();
      return true;
    }
    this.opts.logger?.debug(
      { team: teamId, user: userId, reason: "read_budget", budget: c.budget },
      "refused: read budget used up",
    );
    return false;
  }

  /**
   * Takes one read from the person's and the workspace's budgets (the workspace's alone for a
   * subject without a person: a workflow step) through the door: the read it
   * paid for, or the refusal when one is used up. Without a door, an unpaid read (no budget).
   */
  private async spendRead(s: Subject, action: Action): Promise<{ paid?: PaidRead } | Refused> {
    if (!this.opts.door) return {};
    // No person (a workflow step): the workspace's budget alone.
    const t = await this.opts.door.charge(
      s.userId === "" ? { workspace: s.teamId } : { user: { teamId: s.teamId, userId: s.userId } },
    );
    if (t.ok) return { paid: t.paid };
    // Debug, not info: a flood would write a line per refused read (the metric counts them).
    this.opts.logger?.debug(
      {
        team: s.teamId,
        user: s.userId,
        action,
        reason: "read_budget",
        budget: t.budget,
        retryAfterMs: t.retryAfterMs,
      },
      "refused: read budget used up",
    );
    return budgetRefusal(t);
  }

  /**
   * The read of `key`: joined when an identical one is under way or answered less than 10 s ago
   * (`fresh`: only one under way), which costs no budget; otherwise one read of the budgets is
   * taken first and the read started (`share` false: never kept for others).
   */
  private async sharedRead<T>(
    s: Subject,
    action: Action,
    reads: SharedReads<T>,
    key: string,
    o: { share: boolean; fresh: boolean },
    get: (paid: PaidRead | undefined) => Promise<T>,
  ): Promise<{ read: Promise<T>; joined: boolean } | Refused> {
    const sharing = { inFlightOnly: o.fresh };
    const read = o.share ? reads.joinable(key, sharing) : undefined;
    if (read !== undefined) return { read, joined: true };
    const spent = await this.spendRead(s, action);
    if ("allowed" in spent) return spent;
    if (o.share) return reads.run(key, () => get(spent.paid), sharing);
    return { read: get(spent.paid), joined: false };
  }

  /**
   * Authorizes `action` on a livestream and reads it: ONE sparse GET with `fields` plus the owning
   * profile. A livestream whose profile is not bound to the workspace and one the platform does not
   * have both throw `livestreamNotFound` (the caller words both the same way).
   * The GET is shared with an identical one under way or answered less than 10 s ago (`fresh`: only
   * one under way), which costs no budget; otherwise one read of the budgets is taken first. A read
   * that carries the stream key (`ingest`) is never shared. The decision and the binding check are
   * per request.
   */
  async readLivestream(
    s: Subject,
    action: LivestreamAction,
    livestreamId: string,
    fields: readonly string[],
    sharing: ReadSharing = {},
  ): Promise<LivestreamRead> {
    const d = await this.authorize(s, action, { kind: "livestream", livestreamId });
    if (!d.allowed) return d;
    const withProfile = fields.includes(LIVESTREAM_PROFILE_FIELD)
      ? fields
      : [...fields, LIVESTREAM_PROFILE_FIELD];
    const get = (paid: PaidRead | undefined) =>
      this.opts.platform.getLivestream(livestreamId, withProfile, paid ? { paid } : {});
    const share = !withProfile.some((f) => f === "ingest" || f.startsWith("ingest."));
    const key = `${livestreamId}\n${withProfile.join(",")}`;
    const started = await this.sharedRead(
      s,
      action,
      this.sharedReads,
      key,
      { share, fresh: sharing.fresh === true },
      get,
    );
    if ("allowed" in started) return started;
    const { read, joined } = started;
    this.opts.onLivestreamRead?.(joined ? "shared" : "fetched");
    let ls: Livestream;
    try {
      ls = await read;
    } catch (err) {
      await this.opts.afterRead?.();
      // The platform's own 404 is answered as the bot's one not-found (no correlation id).
      if (isNotFound(err)) throw livestreamNotFound(livestreamId);
      throw err;
    }
    await this.opts.afterRead?.();
    if (!this.profileBound(s, ls.profile?.profile_id)) {
      this.opts.logger?.info(
        { team: s.teamId, user: s.userId, action, livestream: livestreamId, reason: "profile_not_bound" },
        "refused: the livestream's profile is not bound to the workspace; answered as missing",
      );
      throw livestreamNotFound(livestreamId);
    }
    return { allowed: true, livestream: ls, manager: d.manager };
  }

  /**
   * Authorizes `action` on a video and reads it (a pasted video link, its details pane): ONE
   * sparse GET with `fields` plus the owning profile, shared and charged like a livestream's. A
   * video the platform does not have, one whose profile is not bound to the workspace and one
   * whose answer does not name its profile all throw `videoNotFound`.
   */
  async readVideo(
    s: Subject,
    action: VideoAction,
    videoId: string,
    fields: readonly string[],
    sharing: ReadSharing = {},
  ): Promise<VideoRead> {
    const d = await this.authorize(s, action, { kind: "video", videoId });
    if (!d.allowed) return d;
    const videos = this.opts.videos;
    if (videos === undefined) throw videoNotFound(videoId);
    const withProfile = fields.includes(VIDEO_PROFILE_FIELD) ? fields : [...fields, VIDEO_PROFILE_FIELD];
    const started = await this.sharedRead(
      s,
      action,
      this.sharedVideoReads,
      `${videoId}\n${withProfile.join(",")}`,
      { share: true, fresh: sharing.fresh === true },
      (paid) => videos.getVideo(videoId, withProfile, paid ? { paid } : {}),
    );
    if ("allowed" in started) return started;
    let video: Video;
    try {
      video = await started.read;
    } catch (err) {
      await this.opts.afterRead?.();
      if (isNotFound(err)) throw videoNotFound(videoId);
      throw err;
    }
    await this.opts.afterRead?.();
    const owner = video.profile?.profile_id;
    if (typeof owner !== "string" || !this.profileBound(s, owner)) {
      this.opts.logger?.info(
        { team: s.teamId, user: s.userId, action, video: videoId, reason: "profile_not_bound" },
        "refused: the video's profile is not bound to the workspace (or not named); answered as missing",
      );
      throw videoNotFound(videoId);
    }
    return { allowed: true, video };
  }
}
