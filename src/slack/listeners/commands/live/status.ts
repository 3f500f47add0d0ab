/** `/live status <id or URL>` (anyone): a status card in the channel, with Refresh. */
import {
  LIVESTREAM_CARD_FIELDS,
  livestreamCard,
  livestreamPending,
  refusalMessage,
} from "../../../../messages/index.js";
import { ephemeral, inChannel, safeRespond } from "../../../context.js";
import type { CommandHandler, OfKind } from "../../../request.js";
import type { LiveCommand } from "../grammar.js";

/** How long the platform may take before the channel is told it is slow. */
export const SLOW_CARD_MS = 10_000;

export const status: CommandHandler<OfKind<LiveCommand, "status">> = {
  what: (cmd) => `Could not read livestream ${cmd.livestreamId}`,
  run: async ({ deps, subject, respond, log }, cmd) => {
    // A platform slower than slowCardMs: the channel is told so in place, and the card (or
    // the removal of that notice, before an error) follows on the same response_url.
    const waitMs = deps.slowCardMs ?? SLOW_CARD_MS;
    let notice: Promise<unknown> | undefined;
    const timer = setTimeout(() => {
      const m = livestreamPending(cmd.livestreamId, Math.round(waitMs / 1000), subject.userId);
      notice = respond(inChannel(m)).catch((err: unknown) => {
        log.warn({ err }, "could not post the slow-platform notice");
        notice = undefined;
      });
    }, waitMs);
    const withdraw = async () => {
      if (notice === undefined) return;
      await notice;
      if (notice !== undefined) await safeRespond(respond, log, { delete_original: true });
    };
    let r: Awaited<ReturnType<typeof deps.access.readLivestream>>;
    try {
      r = await deps.access.readLivestream(subject, "live.status", cmd.livestreamId, LIVESTREAM_CARD_FIELDS);
    } catch (err) {
      clearTimeout(timer);
      await withdraw();
      throw err;
    }
    clearTimeout(timer);
    if (!r.allowed) {
      await withdraw();
      await respond(ephemeral(refusalMessage(r)));
      return;
    }
    const now = deps.now();
    const card = livestreamCard(r.livestream, { now, refreshedAt: now, requestedBy: subject.userId });
    if (notice !== undefined) await notice;
    await respond(notice !== undefined ? { ...inChannel(card), replace_original: true } : inChannel(card));
  },
};
