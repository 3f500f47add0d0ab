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
import { classifySlackError, notPosted } from "../posting/index.js";
import type { PostIntent, VideoState } from "./video/state.js";

/** `what` of a video's parent message (milestones use their key). */
export const PARENT = "parent";
/** Slack message metadata event of a thread reply or a message without a video. */
export const VIDEO_REPLY_EVENT = "video_reply";
/** Clocks of the bot and Slack may disagree: the lookup starts this long before the intent. */
const CLOCK_MARGIN_MS = 10 * 60_000;
const PAGE = 200;
/** Beyond this many messages since the intent, the marker is not looked for further. */
const MAX_PAGES = 10;
/** Intents this process knows were not posted (bounded; oldest forgotten first). */
const MAX_KNOWN = 10_000;

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

export class LostPosts {
  /** Intent ids whose post Slack refused or never received: nothing to look for. */
  private readonly notPosted = new Set<string>();
  /** `team code` pairs already warned about (a lookup refused for good). */
  private readonly warned = new Set<string>();

  constructor(private readonly logger: Logger) {}

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
    if (!p || p.what !== what || this.notPosted.has(p.id)) return undefined;
    const oldest = (Math.max(0, p.at - CLOCK_MARGIN_MS) / 1000).toFixed(6);
    try {
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const args = { channel: s.channelId, oldest, limit: PAGE, include_all_metadata: true, cursor };
        const res =
          threadTs === undefined
            ? await client.conversations.history(args)
            : await client.conversations.replies({ ...args, ts: threadTs });
        const hit = res.messages?.find((m) => markerOf(m.metadata?.event_payload) === p.id);
        if (hit?.ts) return hit.ts;
        cursor = res.response_metadata?.next_cursor || undefined;
        if (!res.has_more || !cursor) return undefined;
      }
      this.warnOnce(s.teamId, "too_many_messages");
      return undefined;
    } catch (err) {
      const f = classifySlackError(err);
      const passing = f.kind === "transient" || f.kind === "rate_limited" || f.kind === "gone";
      if (passing || (f.kind === "auth" && f.code !== "missing_scope")) throw err;
      this.warnOnce(s.teamId, f.code);
      return undefined;
    }
  }

  /** chat.postMessage for `intent`: a failure that shows nothing was posted spares the next lookup. */
  async post(
    client: WebClient,
    args: ChatPostMessageArguments,
    intent: PostIntent,
  ): Promise<ChatPostMessageResponse> {
    // Sent again under the same marker: what an earlier refusal proved no longer holds.
    this.notPosted.delete(intent.id);
    try {
      return await client.chat.postMessage(args);
    } catch (err) {
      if (notPosted(err)) {
        if (this.notPosted.size >= MAX_KNOWN) this.notPosted.clear();
        this.notPosted.add(intent.id);
      }
      throw err;
    }
  }

  private warnOnce(teamId: string, code: string): void {
    const k = `${teamId} ${code}`;
    if (this.warned.has(k)) return;
    this.warned.add(k);
    this.logger.warn(
      { team: teamId, code },
      code === "missing_scope"
        ? "cannot look in Slack for a post whose outcome is unknown (the app lacks channels:history / groups:history); posting again, a message may show twice"
        : "cannot look in Slack for a post whose outcome is unknown; posting again, a message may show twice",
    );
  }
}

/** The `post_id` of a message's metadata payload (typed `{}` by the client), if any. */
export function markerOf(payload: unknown): unknown {
  return typeof payload === "object" && payload !== null && "post_id" in payload
    ? payload.post_id
    : undefined;
}
