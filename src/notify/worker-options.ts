/**
 * The outbox worker's options (src/notify/worker.ts), and what its parts share: a video's
 * outcome (its next due time) and the lease-lost signal.
 */
import type { WebClient } from "@slack/web-api";
import type { Digests } from "../digest/index.js";
import type { RevokedCheck } from "../domain/index.js";
import type { Logger } from "../log.js";
import type { Outbox } from "../outbox/index.js";
import type { ChannelGate } from "../posting/index.js";
import type { ActivityRepo, SettingsRepo } from "../store/index.js";
import type { TitleBudget, TitleNames } from "./title.js";

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
  /**
   * Reads the videos' titles through the platform door (src/notify/title.ts); without it, videos
   * are named by their id.
   */
  names?: TitleNames;
  /**
   * The door's charge: a title read is charged to the callback's workspace when it is admitted
   * (src/notify/title.ts); without it, the door charges it when it is made.
   */
  titleBudget?: TitleBudget;
  gate: ChannelGate;
  logger: Logger;
  /** The workspace's managers, told when Slack refuses the notifications for good. */
  managersOf: (teamId: string) => Promise<readonly string[]>;
  /** VIDEO_URL_TEMPLATE: the link of a video in its messages (none when unset). */
  videoUrlTemplate?: string | undefined;
  owner?: string | undefined;
  now?: () => number;
  /** Idle poll interval when nothing is due (ms). */
  pollMs?: number | undefined;
  /**
   * How long a stored delivery waits before it wakes an idle loop (ms): the deliveries that arrive
   * meanwhile (a video's events come in bursts) are folded in the same pass.
   */
  gatherMs?: number;
  leaseMs?: number | undefined;
  coalesceMs?: number | undefined;
  /** Videos processed at once. */
  concurrency?: number | undefined;
  /** Deliveries folded per claim. */
  batch?: number;
  onPosted?: (kind: "post" | "update" | "thread", channel: string) => void;
  onFailed?: (reason: string) => void;
  onRateLimited?: (channel: string, seconds: number) => void;
}

/** When the video is due again (null: when a delivery arrives). */
export type Outcome = { dueAt: number | null };

/** This worker's lease on the video ended (expired and maybe taken): stop touching it. */
export class LeaseLost extends Error {}

/** The options without a default. */
export type Optional =
  | "onPosted"
  | "onFailed"
  | "onRateLimited"
  | "activity"
  | "videoUrlTemplate"
  | "revoked"
  | "names"
  | "titleBudget"
  | "digests";

/** The options with their defaults applied (NotifyWorker's constructor). */
export type WorkerConfig = Required<Omit<WorkerOptions, Optional>> & Pick<WorkerOptions, Optional>;
