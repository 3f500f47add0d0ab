/**
 * What happens to a video after Slack refused or failed a call (the failure policy), decided
 * without side effects: the worker (src/notify/show.ts) carries it out (dead letters, logs, the
 * channel's pause or back-off, the state write) and gets the video's next due time from it.
 */
import type { SlackFailure } from "../posting/index.js";
import type { VideoState } from "../video/state.js";

export type FailureOutcome =
  /** The app is gone from the workspace: the items are dead letters, the workspace marked gone. */
  | { kind: "drop"; code: string; markGone: true; state: VideoState }
  /** The token is refused: nothing dropped; the channel pauses `pauseSeconds` and everything waits. */
  | { kind: "wait"; code: string; pauseSeconds: number }
  /** Slack's 429: the channel (or the method in the workspace) pauses for `retryAfterSeconds`. */
  | { kind: "rate_limited"; retryAfterSeconds: number }
  /** The parent message is gone: forgotten (`state`), posted again at once. */
  | { kind: "repost"; code: string; state: VideoState }
  /** A passing failure: the channel backs off, the video is tried again then. */
  | { kind: "retry"; code: string }
  /** Slack refused the items for good: reported, marked done (`state`), not retried. */
  | { kind: "refused"; code: string; state: VideoState };

/** Auth failures pause the channel this long (the video's new deliveries are folded meanwhile). */
export const AUTH_PAUSE_SECONDS = 60;

/** The state once the video's items were dropped: nothing left to post for them. */
export function droppedState(state: VideoState): VideoState {
  return {
    ...state,
    milestones: state.milestones.map((m) => (m.posted ? m : { ...m, posted: true })),
    posting: undefined,
  };
}

export function outcomeOf(failure: SlackFailure, state: VideoState): FailureOutcome {
  switch (failure.kind) {
    case "gone":
      return { kind: "drop", code: failure.code, markGone: true, state: droppedState(state) };
    case "auth":
      return { kind: "wait", code: failure.code, pauseSeconds: AUTH_PAUSE_SECONDS };
    case "rate_limited":
      return { kind: "rate_limited", retryAfterSeconds: failure.retryAfterSeconds };
    case "message_gone":
      return {
        kind: "repost",
        code: failure.code,
        state: { ...state, parentTs: null, renderedHash: null, posting: undefined },
      };
    case "transient":
      return { kind: "retry", code: failure.code };
    case "permanent":
      return {
        kind: "refused",
        code: failure.code,
        state: {
          ...state,
          milestones: state.milestones.map((m) => ({ ...m, posted: true })),
          renderedHash: null,
          posting: undefined,
        },
      };
  }
}
