/**
 * A digest whose outcome is unknown: the runner wrote its per-period marker, then stopped (a crash,
 * a lost lease, a lost answer) before recording Slack's ts. The digest carries the marker's id in
 * its Slack message metadata (`post_id`), so the next pass looks for it in the channel
 * (`conversations.history`, from a little before the marker on) and records the message it finds
 * instead of posting again.
 * More: README.md ("lookup.ts").
 */
import type { ChatPostMessageArguments, WebClient } from "@slack/web-api";
import type { Logger } from "../log.js";
import { MarkedPosts } from "../posting/index.js";

/** Slack message metadata event of a digest or catch-up. */
export const DIGEST_EVENT = "video_digest";

/**
 * The digests' posts under a marker (the per-period marker's id in their metadata): the lookup is
 * src/posting's `MarkedPosts`, narrowed to the digest event.
 */
export class DigestLookup {
  private readonly marked: MarkedPosts;

  constructor(logger: Logger) {
    this.marked = new MarkedPosts(logger, "a digest");
  }

  /**
   * The ts of the digest posted earlier under `marker` in `channel`, or undefined when there is
   * none to find. Throws what should pause the channel like any Slack failure.
   */
  find(
    client: WebClient,
    where: { teamId: string; channelId: string },
    marker: { id: string; at: number },
  ): Promise<string | undefined> {
    return this.marked.find(client, { ...where, eventType: DIGEST_EVENT }, marker);
  }

  /** chat.postMessage under `markerId`: a failure that shows nothing was posted spares the next lookup. */
  post(client: WebClient, args: ChatPostMessageArguments, markerId: string) {
    return this.marked.post(client, args, markerId);
  }
}
