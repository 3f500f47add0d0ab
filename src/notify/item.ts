/**
 * What the delivery route stores and the worker reads back: one outbox item per delivery, keyed by
 * its video (the order and lease unit) and deduplicated by its content. Built here, once, for both
 * sides, so the route and the worker cannot disagree on a video key or a dedupe key.
 */
import { videoKeyOf } from "../domain/index.js";
import type { NewOutboxItem } from "../outbox/index.js";
import type { Delivery } from "../platform/index.js";
import { dedupeKeyOf } from "../video/hash.js";

/** Where a delivery goes: the callback's workspace, profile and channel. */
export interface ItemCallback {
  teamId: string;
  profileId: string;
  channelId: string;
}

/** The outbox item for a delivery received on `callback` at `receivedAt`, and its dedupe key. */
export function outboxItemOf(
  callback: ItemCallback,
  d: Delivery,
  receivedAt: number,
): { item: NewOutboxItem; dedupeKey: string } {
  const videoId = typeof d.data.video_id === "string" ? d.data.video_id : null;
  return {
    item: {
      teamId: callback.teamId,
      profileId: callback.profileId,
      channelId: callback.channelId,
      videoKey: videoKeyOf(callback.teamId, callback.profileId, videoId),
      delivery: d,
      receivedAt,
    },
    dedupeKey: `${callback.teamId}:${callback.profileId}:${dedupeKeyOf(d)}`,
  };
}
