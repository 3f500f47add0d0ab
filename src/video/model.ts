/**
 * The shape of a video's notification state (what the reducer in state.ts builds and the outbox
 * stores as JSON) and its fixed ranks and caps.
 */
export const STAGES = ["created", "encoding", "formats_ready", "published", "complete", "deleted"] as const;
export type Stage = (typeof STAGES)[number];

export const PRESET_STATUSES = ["processing", "ready", "error", "deleted"] as const;
export type PresetStatus = (typeof PRESET_STATUSES)[number];

export interface PresetState {
  status: PresetStatus;
  /** 0..100, never decreases; 100 once the preset was ready. */
  progress: number;
  /** Event timestamp: of the final (ready/error/deleted) event, else of the latest processing one. */
  at: number;
}

export interface Milestone {
  /**
   * Unique per video: "published", "complete", "deleted", "error:<preset>",
   * "format-deleted:<preset>", "event:<type>:<timestamp>".
   */
  key: string;
  /** Event type of the delivery. */
  type: string;
  timestamp: number;
  /** Flipped by the worker once the reply is posted. */
  posted: boolean;
  data: Record<string, unknown>;
}

export interface VideoState {
  v: 1;
  teamId: string;
  profileId: string;
  channelId: string;
  videoId: string | null;
  ownerId: string | null;
  stage: Stage;
  /** Event timestamp at which the current stage began (0 before the first event). */
  stageAt: number;
  /** Earliest / latest event timestamp applied (0 before the first event). */
  firstEventAt: number;
  lastEventAt: number;
  presets: Record<string, PresetState>;
  /** Timestamp of `video.created`, when received. */
  createdAt: number | null;
  publishedAt: number | null;
  completeAt: number | null;
  deletedAt: number | null;
  /** Distinct deliveries applied (ignored ones after a deletion are not counted). */
  eventCount: number;
  /** Thread replies, in timestamp order; `posted` flipped by the worker. */
  milestones: Milestone[];
  /** Set by the worker after chat.postMessage. */
  parentTs: string | null;
  /** Hash of the last parent rendering sent to Slack (set by the worker). */
  renderedHash: string | null;
  /** Wall clock ms of the last parent post/update (set by the worker). */
  lastRenderAt: number | null;
  /** Dedupe keys of deliveries already applied, oldest first, at most SEEN_CAP. */
  seen: string[];
  /**
   * Short hashes of preset names ignored because the video already had PRESET_CAP presets (at most
   * IGNORED_PRESETS_CAP): the message says how many more formats it does not show.
   */
  ignoredPresets?: string[];
  /**
   * A batch that failed (not by the store) before its items were acknowledged: the id of its
   * first item and how often. Kept here so that the count survives a restart (worker.ts).
   */
  attempt?: { id: string; n: number; reason: string };
  /** What the platform said of the video (src/notify/title.ts); absent while not known. */
  title?: TitleFact;
  /** Worker clock (ms) when the title was first asked for: the first post waits at most 2 s after it. */
  titleAskedAt?: number;
  /** The profile's display name (else name) when known as the title was settled; kept for the video. */
  profileName?: string;
  /**
   * A message the worker is about to post and has not recorded yet (src/notify/posted.ts): removed
   * by the write that records it. Still here when the video is taken up again, the post may or may
   * not be in Slack: it is looked for by its marker before anything is posted again.
   */
  posting?: PostIntent;
}

/** What is being posted ("parent" or a milestone key), the marker the post carries, since when. */
export interface PostIntent {
  what: string;
  id: string;
  /** Wall clock ms of the first attempt. */
  at: number;
}

/**
 * The answer of the video's one title read: `title` (the platform has the video, so it is
 * confirmed; null when it has no usable title), `notConfirmed` (404: it has no such video), or
 * `unknown` (the read failed or was not made: 403, 422, 5xx, timeout, no `video.read`; the reason
 * as PlatformNames gives it). A later delivery never changes it: a deleted video keeps its title.
 */
export type TitleFact = { title: string | null } | { notConfirmed: true } | { unknown: string };

export const SEEN_CAP = 200;
/** Above this many milestones, the oldest posted ones are dropped (unposted ones never). */
export const MILESTONE_CAP = 100;
const STAGE_RANK: Record<Stage, number> = {
  created: 0,
  encoding: 1,
  formats_ready: 2,
  published: 3,
  complete: 4,
  deleted: 5,
};

export function stageRank(stage: Stage): number {
  return STAGE_RANK[stage];
}
