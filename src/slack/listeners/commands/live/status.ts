/** `/live status <id or URL>` (anyone): a status card in the channel, with Refresh. */
import { LIVESTREAM_CARD_FIELDS, livestreamCard, livestreamPending } from "../../../../messages/index.js";
import { inChannel, safeRespond } from "../../../context.js";
import type { WhileReading } from "../../../grant.js";
import type { Answerable, LivestreamCommand, OfKind } from "../../../request.js";
import type { LiveCommand } from "../grammar.js";

/** How long the platform may take before the channel is told it is slow. */
export const SLOW_CARD_MS = 10_000;

/** The slow-platform notice: whether it was posted (awaited), once the read settled. */
interface SlowNotice extends WhileReading {
  posted(): Promise<boolean>;
}

/**
 * A platform slower than slowCardMs: the channel is told so in place, and the card (or the
 * removal of that notice, before an error or a refusal) follows on the same response_url.
 */
function slowNotice({ deps, subject, respond, log }: Answerable, cmd: { livestreamId: string }): SlowNotice {
  const waitMs = deps.slowCardMs ?? SLOW_CARD_MS;
  let notice: Promise<unknown> | undefined;
  const timer = setTimeout(() => {
    const m = livestreamPending(cmd.livestreamId, Math.round(waitMs / 1000), subject.userId);
    notice = respond(inChannel(m)).catch((err: unknown) => {
      log.warn({ err }, "could not post the slow-platform notice");
      notice = undefined;
    });
  }, waitMs);
  return {
    settled: async (ok) => {
      clearTimeout(timer);
      if (ok || notice === undefined) return;
      await notice;
      if (notice !== undefined) await safeRespond(respond, log, { delete_original: true });
    },
    posted: async () => {
      if (notice !== undefined) await notice;
      return notice !== undefined;
    },
  };
}

export const status: LivestreamCommand<OfKind<LiveCommand, "status">, SlowNotice> = {
  what: (cmd) => `Could not read livestream ${cmd.livestreamId}`,
  access: {
    action: "live.status",
    livestream: (cmd) => cmd.livestreamId,
    fields: LIVESTREAM_CARD_FIELDS,
    whileReading: slowNotice,
  },
  run: async ({ deps, subject, respond }, _cmd, { livestream, reading }) => {
    const now = deps.now();
    const card = livestreamCard(livestream, { now, refreshedAt: now, requestedBy: subject.userId });
    const replacing = (await reading?.posted()) === true;
    await respond(replacing ? { ...inChannel(card), replace_original: true } : inChannel(card));
  },
};
