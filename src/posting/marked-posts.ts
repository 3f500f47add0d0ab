/**
 * Posts whose outcome is unknown, found again in Slack: a message posted with a marker in its
 * metadata (`post_id`) whose ts was never recorded (a crash, a lost lease, a lost answer) is
 * looked for in the channel or thread, from a little before the marker on, before anything is
 * posted again. Used by the notification worker (notify/posted.ts) and the digests
 * (src/digest/lookup.ts): one lookup, one record of what certainly was not posted.
 */
import type { ChatPostMessageArguments, ChatPostMessageResponse, WebClient } from "@slack/web-api";
import type { Logger } from "../log.js";
import { classifySlackError, notPosted } from "./slack-errors.js";

/** Clocks of the bot and Slack may disagree: the lookup starts this long before the marker. */
const CLOCK_MARGIN_MS = 10 * 60_000;
const PAGE = 200;
/** Beyond this many messages since the marker, it is not looked for further. */
const MAX_PAGES = 10;
/** Markers this process knows were not posted (bounded; all forgotten at once past it). */
const MAX_KNOWN = 10_000;

/** A post's marker: its id (in the message's metadata) and when it was made (bot's clock, ms). */
export interface Marker {
  id: string;
  at: number;
}

/** Where to look: the channel, or a thread of it; `eventType` narrows to one metadata event. */
export interface Where {
  teamId: string;
  channelId: string;
  threadTs?: string | undefined;
  eventType?: string;
}

/** The `post_id` of a message's metadata payload (typed `{}` by the client), if any. */
export function markerOf(payload: unknown): unknown {
  return typeof payload === "object" && payload !== null && "post_id" in payload
    ? payload.post_id
    : undefined;
}

export class MarkedPosts {
  /** Marker ids whose post Slack refused or never received: nothing to look for. */
  private readonly notPosted = new Set<string>();
  /** `team code` pairs already warned about (a lookup refused for good). */
  private readonly warned = new Set<string>();

  /** `what`: how the warning names the posts ("a post", "a digest"). */
  constructor(
    private readonly logger: Logger,
    private readonly what = "a post",
  ) {}

  /** Whether this process knows the marker's post did not happen (no lookup needed). */
  knownNotPosted(markerId: string): boolean {
    return this.notPosted.has(markerId);
  }

  /**
   * The ts of the message posted earlier under `marker`, or undefined when there is none to find.
   * Throws what should pause the channel like any Slack failure (5xx, 429, network, token); a
   * lookup Slack refuses for good (`missing_scope`, `not_in_channel`…) gives up with one warning
   * per workspace and reason.
   */
  async find(client: WebClient, where: Where, marker: Marker): Promise<string | undefined> {
    if (this.notPosted.has(marker.id)) return undefined;
    const oldest = (Math.max(0, marker.at - CLOCK_MARGIN_MS) / 1000).toFixed(6);
    try {
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const args = { channel: where.channelId, oldest, limit: PAGE, include_all_metadata: true, cursor };
        const res =
          where.threadTs === undefined
            ? await client.conversations.history(args)
            : await client.conversations.replies({ ...args, ts: where.threadTs });
        const hit = res.messages?.find(
          (m) =>
            (where.eventType === undefined || m.metadata?.event_type === where.eventType) &&
            markerOf(m.metadata?.event_payload) === marker.id,
        );
        if (hit?.ts) return hit.ts;
        cursor = res.response_metadata?.next_cursor || undefined;
        if (!res.has_more || !cursor) return undefined;
      }
      this.warnOnce(where.teamId, "too_many_messages");
      return undefined;
    } catch (err) {
      const f = classifySlackError(err);
      const passing = f.kind === "transient" || f.kind === "rate_limited" || f.kind === "gone";
      if (passing || (f.kind === "auth" && f.code !== "missing_scope")) throw err;
      this.warnOnce(where.teamId, f.code);
      return undefined;
    }
  }

  /** chat.postMessage under `markerId`: a failure that shows nothing was posted spares the next lookup. */
  async post(
    client: WebClient,
    args: ChatPostMessageArguments,
    markerId: string,
  ): Promise<ChatPostMessageResponse> {
    // Sent again under the same marker: what an earlier refusal proved no longer holds.
    this.notPosted.delete(markerId);
    try {
      return await client.chat.postMessage(args);
    } catch (err) {
      if (notPosted(err)) {
        if (this.notPosted.size >= MAX_KNOWN) this.notPosted.clear();
        this.notPosted.add(markerId);
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
        ? `cannot look in Slack for ${this.what} whose outcome is unknown (the app lacks channels:history / groups:history); posting again, a message may show twice`
        : `cannot look in Slack for ${this.what} whose outcome is unknown; posting again, a message may show twice`,
    );
  }
}
