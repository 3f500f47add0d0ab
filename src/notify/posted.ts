/**
 * Posts whose outcome is unknown: Slack may hold a message the store never recorded.
 *
 * The worker records a message's ts in the video's state after Slack answered the post. If that
 * record is lost — the replica is killed in between, the store fails then and another replica
 * takes the video over (the first one's unsaved.ts facts die with it), or the answer itself is
 * lost on the way (a cut connection, a timeout) — the next attempt cannot tell from the store
 * whether the message exists, and would post a second one.
 * More: README.md ("posted.ts").
 */
import { randomUUID } from "node:crypto";
import type { ChatPostMessageArguments, ChatPostMessageResponse, WebClient } from "@slack/web-api";
import type { Logger } from "../log.js";
import { MarkedPosts, markerOf } from "../posting/index.js";
import type { PostIntent, VideoState } from "../video/state.js";

/** `what` of a video's parent message (milestones use their key). */
export const PARENT = "parent";
/** Slack message metadata event of a thread reply or a message without a video. */
export const VIDEO_REPLY_EVENT = "video_reply";

type Metadata = { event_type: string; event_payload: Record<string, string> };

/** Message metadata of a thread reply (or a message without a video): who it is about, and its marker. */
export function replyMetadata(s: VideoState, intent: PostIntent): Metadata {
  return {
    event_type: VIDEO_REPLY_EVENT,
    event_payload: {
      ...(s.videoId === null ? {} : { video_id: s.videoId }),
      profile_id: s.profileId,
      post_id: intent.id,
    },
  };
}

/** The parent's metadata (render.ts) with the post's marker. */
export function withMarker(
  m: { event_type: string; event_payload: Record<string, string> },
  intent: PostIntent,
): Metadata {
  return { event_type: m.event_type, event_payload: { ...m.event_payload, post_id: intent.id } };
}

/**
 * The worker's posts under an intent: the intent a message is posted under, and the message found
 * again in Slack when its record was lost (the lookup is src/posting's `MarkedPosts`).
 */
export class LostPosts {
  private readonly marked: MarkedPosts;

  constructor(logger: Logger) {
    this.marked = new MarkedPosts(logger, "a post");
  }

  /** The intent for posting `what`: the stored one when it is for the same message, else a new one. */
  intentFor(s: VideoState, what: string, now: number): { intent: PostIntent; stored: boolean } {
    const p = s.posting;
    if (p && p.what === what) return { intent: p, stored: true };
    return { intent: { what, id: randomUUID(), at: now }, stored: false };
  }

  /**
   * The ts of a message posted earlier for `what` whose record was lost, or undefined when there
   * is none to find (no intent for it, known not posted, not found). `threadTs`: the parent, for a
   * reply. Throws what should pause the channel like any Slack failure (5xx, 429, network, token).
   */
  async find(client: WebClient, s: VideoState, what: string, threadTs?: string): Promise<string | undefined> {
    const p = s.posting;
    if (!p || p.what !== what) return undefined;
    return this.marked.find(client, { teamId: s.teamId, channelId: s.channelId, threadTs }, p);
  }

  /** chat.postMessage for `intent`: a failure that shows nothing was posted spares the next lookup. */
  post(
    client: WebClient,
    args: ChatPostMessageArguments,
    intent: PostIntent,
  ): Promise<ChatPostMessageResponse> {
    return this.marked.post(client, args, intent.id);
  }
}

/** The `post_id` of a message's metadata payload (src/posting). */
export { markerOf };
