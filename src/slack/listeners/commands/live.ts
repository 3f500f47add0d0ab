/**
 * `/live status <id or URL>` (anyone: a status card in the channel, with Refresh),
 * `/live ingest <id or URL>` (managers: ingest addresses, ephemeral, they carry the stream key),
 * `/live help`. Acknowledged first; every subcommand is authorized (src/access) before the
 * platform is read, and a livestream of a profile not bound to the workspace reads as missing.
 */
import type { App } from "@slack/bolt";
import {
  ingestMessage,
  LIVESTREAM_CARD_FIELDS,
  liveHelp,
  livestreamCard,
  usageError,
} from "../../blocks/index.js";
import { answerErrors, type BotDeps, ephemeral, inChannel, subjectOf } from "../../context.js";
import { parseLive } from "../../grammar.js";

/** Exactly what the ingest message shows. */
export const INGEST_FIELDS = ["livestream_id", "title", "ingest"] as const;

export function register(app: App, deps: BotDeps): void {
  app.command("/live", async ({ command, ack, respond, client }) => {
    await ack();
    const log = deps.logger.child({ team: command.team_id, user: command.user_id, command: "/live" });
    const subject = subjectOf(client, command);
    const parsed = parseLive(command.text);
    const cmd = parsed.ok ? parsed.value : undefined;
    if (cmd === undefined || cmd.kind === "help") {
      await answerErrors(respond, log, "Could not answer /live", async () => {
        const d = await deps.access.authorize(subject, "help", { kind: "workspace" });
        if (!d.allowed) await respond(ephemeral(d.message));
        else if (!parsed.ok) await respond(ephemeral(usageError("/live", parsed.problem)));
        else await respond(ephemeral(liveHelp()));
      });
      return;
    }
    if (cmd.kind === "status") {
      await answerErrors(
        respond,
        log,
        `Could not read livestream ${cmd.livestreamId}`,
        async () => {
          const r = await deps.access.readLivestream(
            subject,
            "live.status",
            cmd.livestreamId,
            LIVESTREAM_CARD_FIELDS,
          );
          if (!r.allowed) {
            await respond(ephemeral(r.message));
            return;
          }
          const now = deps.now();
          await respond(
            inChannel(livestreamCard(r.livestream, { now, refreshedAt: now, requestedBy: command.user_id })),
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
        const r = await deps.access.readLivestream(subject, "live.ingest", cmd.livestreamId, INGEST_FIELDS);
        if (!r.allowed) {
          await respond(ephemeral(r.message));
          return;
        }
        await respond(ephemeral(ingestMessage(r.livestream)));
      },
      deps.metrics,
    );
  });
}
