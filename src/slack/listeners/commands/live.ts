/**
 * `/live status <id or URL>` (anyone: a status card in the channel, with Refresh),
 * `/live ingest <id or URL>` (managers: ingest addresses, ephemeral, they carry the stream key),
 * `/live watch|unwatch <id or URL> [dm]` and `/live watching` (live-watch.ts), `/live help`.
 * Acknowledged first; every subcommand is authorized (src/access) before the platform is read, and
 * a livestream of a profile not bound to the workspace reads as missing.
 */
import type { App } from "@slack/bolt";
import {
  ingestMessage,
  LIVESTREAM_CARD_FIELDS,
  liveHelp,
  livestreamCard,
  livestreamPending,
  refusalMessage,
  usageError,
} from "../../../messages/index.js";
import { answerErrors, type BotDeps, ephemeral, inChannel, safeRespond, subjectOf } from "../../context.js";
import { parseLive } from "../../grammar.js";
import { answerWatch } from "./live-watch.js";

/** `/live status`: how long the platform may take before the channel is told it is slow. */
export const SLOW_CARD_MS = 10_000;

/** Exactly what the ingest message shows. */
export const INGEST_FIELDS = ["livestream_id", "title", "ingest"] as const;

export function register(app: App, deps: BotDeps): void {
  app.command("/live", async ({ command, ack, respond, client, context }) => {
    await ack();
    const subject = subjectOf(client, context, command);
    const log = deps.logger.child({ team: subject.teamId, user: subject.userId, command: "/live" });
    const parsed = parseLive(command.text);
    const cmd = parsed.ok ? parsed.value : undefined;
    if (cmd === undefined || cmd.kind === "help") {
      await answerErrors(respond, log, "Could not answer /live", async () => {
        const d = await deps.access.authorize(subject, "help", { kind: "workspace" });
        if (!d.allowed) await respond(ephemeral(refusalMessage(d)));
        else if (!parsed.ok) await respond(ephemeral(usageError("/live", parsed.problem)));
        else await respond(ephemeral(liveHelp()));
      });
      return;
    }
    if (cmd.kind === "watch" || cmd.kind === "unwatch" || cmd.kind === "watching") {
      await answerErrors(
        respond,
        log,
        cmd.kind === "watching"
          ? "Could not list the watched livestreams"
          : `Could not ${cmd.kind} ${cmd.livestreamId}`,
        () => answerWatch(deps, subject, cmd, respond, log),
        deps.metrics,
      );
      return;
    }
    if (cmd.kind === "status") {
      await answerErrors(
        respond,
        log,
        `Could not read livestream ${cmd.livestreamId}`,
        async () => {
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
            r = await deps.access.readLivestream(
              subject,
              "live.status",
              cmd.livestreamId,
              LIVESTREAM_CARD_FIELDS,
            );
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
          await respond(
            notice !== undefined ? { ...inChannel(card), replace_original: true } : inChannel(card),
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
          await respond(ephemeral(refusalMessage(r)));
          return;
        }
        await respond(ephemeral(ingestMessage(r.livestream)));
      },
      deps.metrics,
    );
  });
}
