/**
 * `/webhook set|show|events|remove|test|managers|subscribe|unsubscribe|subscriptions|help`, following the contract's grammar.
 * Acknowledged first; every subcommand is authorized (src/access) before anything reaches the
 * platform: `/webhook events <profile> <event…>` included.
 *
 * A profile is named by its id or its name (src/slack/profiles.ts). Without one, the workspace's
 * only profile is meant; with none or several set up, the answer is a menu of the profiles bound
 * to the workspace, and choosing one (ACTIONS.profilePick) runs the command with it, authorized
 * again as if it had been typed (webhook-profile.ts).
 */
import type { App, BlockStaticSelectAction } from "@slack/bolt";
import {
  ACTIONS,
  managersMessage,
  pickNotValidMessage,
  refusalMessage,
  usageError,
  webhookHelp,
} from "../../../messages/index.js";
import { answerErrors, type BotDeps, ephemeral, type Reply, subjectOf } from "../../context.js";
import { parseWebhook, type WebhookCommand } from "../../grammar.js";
import { decodePick } from "../../profiles.js";
import { allowed, type Ctx, chooseProfile, runFor } from "./webhook-profile.js";

async function runManagers(ctx: Ctx, cmd: Extract<WebhookCommand, { kind: "managers" }>): Promise<void> {
  const { deps, respond } = ctx;
  if (cmd.action === "list") {
    if (!(await allowed(ctx, "managers.list", { kind: "workspace" }))) return;
    const added = await deps.settings.listManagers(ctx.teamId);
    await respond(ephemeral(managersMessage({ configured: deps.config.managerUserIds, added })));
    return;
  }
  if (!(await allowed(ctx, "managers.change", { kind: "workspace" }))) return;
  if (cmd.action === "add") await deps.settings.addManager(ctx.teamId, cmd.userId, ctx.userId, deps.now());
  else await deps.settings.removeManager(ctx.teamId, cmd.userId);
  const added = await deps.settings.listManagers(ctx.teamId);
  await respond(ephemeral(managersMessage({ configured: deps.config.managerUserIds, added })));
}

export function register(app: App, deps: BotDeps): void {
  app.command("/webhook", async ({ command, ack, respond, client, context }) => {
    await ack();
    const subject = subjectOf(client, context, command);
    const log = deps.logger.child({ team: subject.teamId, user: subject.userId, command: "/webhook" });
    const parsed = parseWebhook(command.text);
    const cmd = parsed.ok ? parsed.value : undefined;
    if (cmd === undefined || cmd.kind === "help") {
      await answerErrors(respond, log, "Could not answer /webhook", async () => {
        const d = await deps.access.authorize(subject, "help", { kind: "workspace" });
        if (!d.allowed) await respond(ephemeral(refusalMessage(d)));
        else if (!parsed.ok) await respond(ephemeral(usageError("/webhook", parsed.problem)));
        else await respond(ephemeral(webhookHelp()));
      });
      return;
    }
    const ctx: Ctx = {
      deps,
      subject,
      respond,
      log,
      teamId: subject.teamId,
      userId: subject.userId,
      channelId: subject.channelId ?? "",
      triggerId: command.trigger_id || undefined,
    };
    const what = "profile" in cmd && cmd.profile ? ` for profile ${cmd.profile}` : "";
    await answerErrors(
      respond,
      log,
      `Could not run /webhook ${cmd.kind}${what}`,
      async () => {
        if (cmd.kind === "managers") return runManagers(ctx, cmd);
        const id = await chooseProfile(ctx, cmd);
        if (id !== null) await runFor(ctx, cmd, id);
      },
      deps.metrics,
    );
  });

  // A profile chosen from the menu: the carried command runs with it, authorized again.
  app.action<BlockStaticSelectAction>(
    ACTIONS.profilePick,
    async ({ ack, body, action, respond, client, context }) => {
      await ack();
      const subject = subjectOf(client, context, body);
      const log = deps.logger.child({
        team: subject.teamId,
        user: subject.userId,
        action: ACTIONS.profilePick,
      });
      const chosen = action.selected_option?.value;
      const cmd = decodePick(action.block_id, chosen);
      // The answer takes the menu's place; for a message to the channel, the menu goes first.
      const reply: Reply = async (args) => {
        if (args.response_type === "in_channel") {
          await respond({ delete_original: true });
          await respond(args);
        } else await respond({ ...args, replace_original: true });
      };
      await answerErrors(
        reply,
        log,
        `Could not run /webhook ${cmd?.kind ?? ""}${chosen ? ` for profile ${chosen}` : ""}`,
        async () => {
          if (cmd === null || chosen === undefined) {
            log.info({ blockId: action.block_id.slice(0, 80) }, "a choice that reads as no command");
            const d = await deps.access.authorize(subject, "help", { kind: "workspace" });
            await reply(ephemeral(d.allowed ? pickNotValidMessage() : refusalMessage(d)));
            return;
          }
          const ctx: Ctx = {
            deps,
            subject,
            respond: reply,
            log,
            teamId: subject.teamId,
            userId: subject.userId,
            channelId: subject.channelId ?? "",
            triggerId: body.trigger_id || undefined,
          };
          await runFor(ctx, cmd, chosen);
        },
        deps.metrics,
      );
    },
  );
}
