/**
 * Fan-out: a profile's notifications go to several channels, each with its own filter
 * (src/store/subscriptions.ts).
 * More: README.md ("fanout.ts").
 */
import { channelKeyOf, profileOfVideoKey, type VideoKey, WEBHOOK_EVENTS } from "../domain/index.js";
import type { OutboxItem } from "../outbox/index.js";
import type { SettingsRepo } from "../store/index.js";
import { matchesSubscription } from "../store/index.js";
import { dedupeKeyOf } from "../video/state.js";
import { type DeadLetterDeps, setAsideDamaged } from "./dead-letters.js";

/** How soon profile-key items wait when a channel's copies are over its quota. */
export const FANOUT_RETRY_MS = 5_000;

export interface FanOutDeps extends DeadLetterDeps {
  settings: SettingsRepo;
  batch: number;
}

export interface FanOutResult {
  dueAt: number | null;
  /** Profile-key items handled (copied, or matching no channel). */
  handled: OutboxItem[];
}

/**
 * Whether a profile key's items can be shown in place, without copies: the profile has no
 * subscription, or only one, for the callback's own channel, and this video was never copied to
 * that channel's key. Returns the subscription's filter for the items, or null (copy them).
 */
export async function directFilter(pass: {
  key: VideoKey;
  read: readonly OutboxItem[];
  opts: Pick<FanOutDeps, "settings" | "outbox">;
}): Promise<((item: OutboxItem) => boolean) | null> {
  const { opts, key } = pass;
  const first = pass.read[0];
  if (!first) return null;
  const profile = await opts.settings.getProfile(first.teamId, first.profileId);
  const subs = profile?.subscriptions ?? [];
  const only = subs[0];
  if (subs.length > 1 || (only !== undefined && only.channelId !== first.channelId)) return null;
  if ((await opts.outbox.getState(channelKeyOf(key, first.channelId))) !== undefined) return null;
  if (only === undefined) return () => true;
  return (item) => matchesSubscription(only, item.delivery.type, item.delivery.data, WEBHOOK_EVENTS);
}

/** Copies a profile key's pending items to the matching channels' keys, then acknowledges them. */
export async function fanOut(pass: { key: VideoKey; opts: FanOutDeps }): Promise<FanOutResult> {
  const { opts, key } = pass;
  const { outbox, owner } = opts;
  const read = await outbox.pending(key, opts.batch);
  const good = read.filter((i) => i.damaged === undefined);
  if (good.length < read.length && !(await setAsideDamaged(pass, read))) return { dueAt: null, handled: [] };
  const first = good[0];
  if (!first) return { dueAt: null, handled: [] };
  const profile = await opts.settings.getProfile(first.teamId, first.profileId);
  const subs = profile && profile.subscriptions.length > 0 ? profile.subscriptions : null;
  const handled: OutboxItem[] = [];
  let dueAt: number | null = null;
  outer: for (const item of good) {
    const d = item.delivery;
    const channels =
      subs === null
        ? [item.channelId]
        : subs.filter((s) => matchesSubscription(s, d.type, d.data, WEBHOOK_EVENTS)).map((s) => s.channelId);
    const hash = dedupeKeyOf(d);
    for (const channelId of channels) {
      const videoKey = channelKeyOf(key, channelId);
      const { id: _id, damaged: _d, ...rest } = item;
      const outcome = await outbox.enqueue(
        { ...rest, channelId, videoKey },
        `${profileOfVideoKey(videoKey)}:${hash}`,
        opts.now(),
      );
      if (outcome === "full") {
        opts.logger.warn(
          { video: key, channel: channelId },
          "a channel's notifications are over quota; waiting",
        );
        dueAt = opts.now() + FANOUT_RETRY_MS;
        break outer;
      }
    }
    handled.push(item);
  }
  if (
    handled.length > 0 &&
    !(await outbox.ack(
      owner,
      key,
      handled.map((i) => i.id),
    ))
  )
    return { dueAt: null, handled: [] };
  return { dueAt, handled };
}
