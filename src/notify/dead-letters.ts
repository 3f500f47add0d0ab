/**
 * Deliveries the worker cannot show: refused by Slack for good (reported to the workspace's
 * managers once a day per channel and code), damaged in the store, refused by the reducer
 * (malformed or hostile data) or failing again and again (set aside once each).
 */

import type { WebClient } from "@slack/web-api";
import type { VideoKey } from "../domain/index.js";
import type { Logger } from "../log.js";
import { refusedNotice } from "../messages/index.js";
import type { Outbox, OutboxItem } from "../outbox/index.js";
import type { SettingsRepo } from "../store/index.js";
import type { VideoState } from "../video/state.js";

export interface DeadLetterDeps {
  outbox: Outbox;
  logger: Logger;
  owner: string;
  now: () => number;
  settings: SettingsRepo;
  /** The workspace's managers to tell (the commands' manager policy: src/access/managers.ts). */
  managersOf: (teamId: string) => Promise<readonly string[]>;
  slackFor: (teamId: string) => Promise<WebClient>;
  onFailed?: ((reason: string) => void) | undefined;
}

/** What setting items aside reads of a pass (src/notify/pass.ts): its video and the worker's options. */
export interface DeadLetterPass {
  readonly key: VideoKey;
  readonly opts: DeadLetterDeps;
}

/** Records the deliveries Slack refused for good and tells the workspace's managers once. */
export async function reportRefused(
  pass: Pick<DeadLetterPass, "opts">,
  state: VideoState,
  items: OutboxItem[],
  code: string,
): Promise<void> {
  const { opts } = pass;
  const { outbox, logger } = opts;
  opts.onFailed?.(code);
  logger.error({ team: state.teamId, channel: state.channelId, code }, "Slack refused the notification");
  for (const item of items) await outbox.deadLetter(item, code, opts.now());
  const first = await outbox.once(`report:${state.teamId}:${state.channelId}:${code}`, 24 * 3600_000);
  if (!first) return;
  const profile = await opts.settings.getProfile(state.teamId, state.profileId).catch(() => undefined);
  const recipients = new Set([...(profile ? [profile.setBy] : []), ...(await opts.managersOf(state.teamId))]);
  const client = await opts.slackFor(state.teamId);
  const text = refusedNotice(state, code);
  for (const user of recipients) {
    try {
      await client.chat.postMessage({ channel: user, text });
    } catch (err) {
      logger.warn({ err, user }, "could not report the refused notification to a manager");
    }
  }
}

/** Unreadable items (damaged in the store) become dead letters, once; false if the lease is lost. */
export async function setAsideDamaged(pass: DeadLetterPass, read: readonly OutboxItem[]): Promise<boolean> {
  const { opts, key } = pass;
  const damaged = read.filter((i) => i.damaged !== undefined);
  for (const item of damaged) {
    await opts.outbox.deadLetter(item, `damaged in the store (${item.damaged})`, opts.now());
    opts.onFailed?.("damaged");
  }
  opts.logger.error(
    { video: key, items: damaged.map((i) => i.id) },
    "outbox items damaged in the store were set aside as dead letters",
  );
  return opts.outbox.ack(
    opts.owner,
    key,
    damaged.map((i) => i.id),
  );
}

/** An item the worker will not try again, and why. */
export interface Refused {
  item: OutboxItem;
  reason: string;
}

/**
 * Items the reducer refused (or that failed MAX_ATTEMPTS times) become dead letters, with one
 * error line for the lot; the caller acknowledges them with the rest of its batch.
 */
export async function setAsideRefused(pass: DeadLetterPass, refused: readonly Refused[]): Promise<void> {
  if (refused.length === 0) return;
  const { opts, key } = pass;
  for (const { item, reason } of refused) {
    await opts.outbox.deadLetter(item, reason, opts.now());
    opts.onFailed?.("refused");
  }
  opts.logger.error(
    { video: key, items: refused.map((r) => r.item.id), reason: refused[0]?.reason },
    "outbox items the worker cannot apply were set aside as dead letters; the video goes on",
  );
}
