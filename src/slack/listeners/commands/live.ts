/**
 * `/live status <id or URL>` (anyone: a status card in the channel, with Refresh),
 * `/live ingest <id or URL>` (managers: ingest addresses, ephemeral, they carry the stream key),
 * `/live help`. Acknowledged first; the platform is read after the ack.
 */
import type { App } from "@slack/bolt";
import {
  ingestMessage,
  LIVESTREAM_CARD_FIELDS,
  liveHelp,
  livestreamCard,
  notManagerMessage,
  usageError,
} from "../../blocks/index.js";
import { answerErrors, type BotDeps, ephemeral, inChannel, safeRespond } from "../../context.js";
import { parseLive } from "../../grammar.js";

/** Exactly what the ingest message shows. */
export const INGEST_FIELDS = ["livestream_id", "title", "ingest"] as const;

export function register(app: App, deps: BotDeps): void {
  app.command("/live", async ({ command, ack, respond, client }) => {
    await ack();
    const log = deps.logger.child({ team: command.team_id, user: command.user_id, command: "/live" });
    const parsed = parseLive(command.text);
    if (!parsed.ok) {
      await safeRespond(respond, log, ephemeral(usageError("/live", parsed.problem)));
      return;
    }
    const cmd = parsed.value;
    if (cmd.kind === "help") {
      await safeRespond(respond, log, ephemeral(liveHelp()));
      return;
    }
    if (cmd.kind === "status") {
      await answerErrors(
        respond,
        log,
        `Could not read livestream ${cmd.livestreamId}`,
        async () => {
          const ls = await deps.platform.getLivestream(cmd.livestreamId, LIVESTREAM_CARD_FIELDS);
          const now = deps.now();
          await respond(
            inChannel(livestreamCard(ls, { now, refreshedAt: now, requestedBy: command.user_id })),
          );
        },
        deps.metrics,
      );
      return;
    }
    await answerErrors(
      respond,
      log,
      `Could not read the ingest addresses of ${cmd.livestreamId}`,
      async () => {
        const decision = await deps.managers.decide(client, command.team_id, command.user_id);
        if (!decision.manager) {
          await respond(ephemeral(notManagerMessage("see ingest addresses")));
          return;
        }
        const ls = await deps.platform.getLivestream(cmd.livestreamId, INGEST_FIELDS);
        await respond(ephemeral(ingestMessage(ls)));
      },
      deps.metrics,
    );
  });
}
