/**
 * `/webhook set|show|events|remove|test|managers|help`, following the contract's grammar.
 * Acknowledged first; managers are checked before anything reaches the platform.
 */
import type { App, RespondFn } from "@slack/bolt";
import type { WebClient } from "@slack/web-api";
import type { Logger } from "../../../log.js";
import {
  managersMessage,
  noProfileMessage,
  notManagerMessage,
  removeConfirmMessage,
  testResultMessage,
  usageError,
  webhookConfigMessage,
  webhookEventsMessage,
  webhookHelp,
  webhookSetMessage,
} from "../../blocks/index.js";
import { answerErrors, type BotDeps, ephemeral, inChannel, safeRespond } from "../../context.js";
import { openEventsEditor } from "../../events-editor.js";
import { parseWebhook, type WebhookCommand } from "../../grammar.js";
import { readWebhook, resolveProfileId, sendTestLifecycle, setWebhook } from "../../webhook-ops.js";

interface Ctx {
  deps: BotDeps;
  client: WebClient;
  respond: RespondFn;
  log: Logger;
  teamId: string;
  userId: string;
  channelId: string;
  triggerId: string | undefined;
}

async function requireManager(ctx: Ctx, action: string): Promise<boolean> {
  const d = await ctx.deps.managers.decide(ctx.client, ctx.teamId, ctx.userId);
  if (!d.manager) {
    await ctx.respond(ephemeral(notManagerMessage(action)));
    return false;
  }
  return true;
}

async function profileOrExplain(ctx: Ctx, given: string | null): Promise<string | null> {
  const id = await resolveProfileId(ctx.deps, ctx.teamId, given);
  if (id === null) await ctx.respond(ephemeral(noProfileMessage()));
  return id;
}

async function run(ctx: Ctx, cmd: Exclude<WebhookCommand, { kind: "help" }>): Promise<void> {
  const { deps, respond } = ctx;
  switch (cmd.kind) {
    case "set": {
      if (!(await requireManager(ctx, "set a webhook"))) return;
      const view = await setWebhook(deps, {
        teamId: ctx.teamId,
        profileId: cmd.profileId,
        channelId: ctx.channelId,
        userId: ctx.userId,
        url: cmd.url,
        events: cmd.events,
      });
      await respond(inChannel(webhookSetMessage({ ...view, byUser: ctx.userId, now: deps.now() })));
      return;
    }
    case "show": {
      const id = await profileOrExplain(ctx, cmd.profileId);
      if (id === null) return;
      const [view, decision] = await Promise.all([
        readWebhook(deps, ctx.teamId, id),
        deps.managers.decide(ctx.client, ctx.teamId, ctx.userId),
      ]);
      await respond(
        ephemeral(webhookConfigMessage({ ...view, isManager: decision.manager, now: deps.now() })),
      );
      return;
    }
    case "events": {
      if (cmd.events === null && ctx.triggerId) {
        // The editor opens at once (the trigger lives 3 s) and checks the role inside.
        const id = await profileOrExplain(ctx, cmd.profileId);
        if (id === null) return;
        await openEventsEditor(
          deps,
          ctx.client,
          {
            triggerId: ctx.triggerId,
            teamId: ctx.teamId,
            userId: ctx.userId,
            profileId: id,
            channelId: ctx.channelId,
          },
          ctx.log,
        );
        return;
      }
      if (!(await requireManager(ctx, "edit webhook events"))) return;
      const id = await profileOrExplain(ctx, cmd.profileId);
      if (id === null) return;
      if (cmd.events === null) {
        const webhook = await deps.platform.getProfileWebhook(id);
        await respond(ephemeral(webhookEventsMessage({ profileId: id, webhook })));
        return;
      }
      const webhook = await deps.platform.updateWebhookEvents(id, cmd.events);
      const saved = await deps.settings.getProfile(ctx.teamId, id);
      if (saved)
        await deps.settings.saveProfile(ctx.teamId, {
          ...saved,
          events: [...(webhook.events ?? cmd.events)],
        });
      await respond(ephemeral(webhookEventsMessage({ profileId: id, webhook, updatedBy: ctx.userId })));
      return;
    }
    case "remove": {
      if (!(await requireManager(ctx, "remove a webhook"))) return;
      const id = await profileOrExplain(ctx, cmd.profileId);
      if (id === null) return;
      await respond(ephemeral(removeConfirmMessage(id)));
      return;
    }
    case "test": {
      if (!(await requireManager(ctx, "send a test event"))) return;
      const id = await profileOrExplain(ctx, cmd.profileId);
      if (id === null) return;
      await respond(ephemeral(testResultMessage(id, await sendTestLifecycle(deps, ctx.teamId, id))));
      return;
    }
    case "managers": {
      if (cmd.action === "list") {
        const added = await deps.settings.listManagers(ctx.teamId);
        await respond(ephemeral(managersMessage({ configured: deps.config.managerUserIds, added })));
        return;
      }
      if (!(await requireManager(ctx, "change who the managers are"))) return;
      if (cmd.action === "add")
        await deps.settings.addManager(ctx.teamId, cmd.userId, ctx.userId, deps.now());
      else await deps.settings.removeManager(ctx.teamId, cmd.userId);
      const added = await deps.settings.listManagers(ctx.teamId);
      await respond(ephemeral(managersMessage({ configured: deps.config.managerUserIds, added })));
      return;
    }
  }
}

export function register(app: App, deps: BotDeps): void {
  app.command("/webhook", async ({ command, ack, respond, client }) => {
    await ack();
    const log = deps.logger.child({ team: command.team_id, user: command.user_id, command: "/webhook" });
    const parsed = parseWebhook(command.text);
    if (!parsed.ok) {
      await safeRespond(respond, log, ephemeral(usageError("/webhook", parsed.problem)));
      return;
    }
    const cmd = parsed.value;
    if (cmd.kind === "help") {
      await safeRespond(respond, log, ephemeral(webhookHelp()));
      return;
    }
    const ctx: Ctx = {
      deps,
      client,
      respond,
      log,
      teamId: command.team_id,
      userId: command.user_id,
      channelId: command.channel_id,
      triggerId: command.trigger_id || undefined,
    };
    const what = "profileId" in cmd && cmd.profileId ? ` for profile ${cmd.profileId}` : "";
    await answerErrors(
      respond,
      log,
      `Could not run /webhook ${cmd.kind}${what}`,
      () => run(ctx, cmd),
      deps.metrics,
    );
  });
}
