/**
 * A digest whose outcome is unknown: the runner wrote its per-period marker, then stopped (a crash,
 * a lost lease, a lost answer) before recording Slack's ts. The digest carries the marker's id in
 * its Slack message metadata (`post_id`), so the next pass looks for it in the channel
 * (`conversations.history`, from a little before the marker on) and records the message it finds
 * instead of posting again.
 * More: ../README.md ("digest/lookup.ts").
 */
import type { ChatPostMessageArguments, WebClient } from "@slack/web-api";
import type { Logger } from "../../log.js";
import { classifySlackError, notPosted } from "../../posting/index.js";
import { markerOf } from "../posted.js";

/** Slack message metadata event of a digest or catch-up. */
export const DIGEST_EVENT = "video_digest";
/** Clocks of the bot and Slack may disagree: the lookup starts this long before the marker. */
const CLOCK_MARGIN_MS = 10 * 60_000;
const PAGE = 200;
const MAX_PAGES = 10;
const MAX_KNOWN = 10_000;

export class DigestLookup {
  /** Marker ids whose post Slack refused or never received: nothing to look for. */
  private readonly notPosted = new Set<string>();
  private readonly warned = new Set<string>();

  constructor(private readonly logger: Logger) {}

  /**
   * The ts of the digest posted earlier under `marker` in `channel`, or undefined when there is
   * none to find. Throws what should pause the channel like any Slack failure.
   */
  async find(
    client: WebClient,
    where: { teamId: string; channelId: string },
    marker: { id: string; at: number },
  ): Promise<string | undefined> {
    if (this.notPosted.has(marker.id)) return undefined;
    const oldest = (Math.max(0, marker.at - CLOCK_MARGIN_MS) / 1000).toFixed(6);
    try {
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const res = await client.conversations.history({
          channel: where.channelId,
          oldest,
          limit: PAGE,
          include_all_metadata: true,
          ...(cursor ? { cursor } : {}),
        });
        const hit = res.messages?.find(
          (m) => m.metadata?.event_type === DIGEST_EVENT && markerOf(m.metadata.event_payload) === marker.id,
        );
        if (hit?.ts) return hit.ts;
        cursor = res.response_metadata?.next_cursor || undefined;
        if (!res.has_more || !cursor) return undefined;
      }
      return undefined;
    } catch (err) {
      const f = classifySlackError(err);
      const passing = f.kind === "transient" || f.kind === "rate_limited" || f.kind === "gone";
      if (passing || (f.kind === "auth" && f.code !== "missing_scope")) throw err;
      const k = `${where.teamId} ${f.code}`;
      if (!this.warned.has(k)) {
        this.warned.add(k);
        this.logger.warn(
          { team: where.teamId, code: f.code },
          "cannot look in Slack for a digest whose outcome is unknown; posting it again, it may show twice",
        );
      }
      return undefined;
    }
  }

  /** chat.postMessage under `markerId`: a failure that shows nothing was posted spares the next lookup. */
  async post(client: WebClient, args: ChatPostMessageArguments, markerId: string) {
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
}
