/**
 * `/webhook set|show|events|remove|test|managers|subscribe|unsubscribe|subscriptions|help`, following the contract's grammar.
 * Acknowledged first; every subcommand is authorized (src/access) before anything reaches the
 * platform: `/webhook events <profile> <event…>` included.
 */
import type { App, RespondFn } from "@slack/bolt";
import type { Action, Decision, ProfileAction, Resource, Subject } from "../../../access/index.js";
import type { Logger } from "../../../log.js";
import { WEBHOOK_EVENTS } from "../../../platform/index.js";
import {
  channel,
  type Message,
  managersMessage,
  noProfileMessage,
  notOursMessage,
  notSubscribedMessage,
  removeConfirmMessage,
  section,
  subscribedMessage,
  subscriptionsMessage,
  testResultMessage,
  unsubscribedMessage,
  usageError,
  webhookConfigMessage,
  webhookEventsMessage,
  webhookHelp,
  webhookSetMessage,
} from "../../blocks/index.js";
import { answerErrors, type BotDeps, ephemeral, inChannel, subjectOf } from "../../context.js";
import { openEventsEditor } from "../../events-editor.js";
import { parseWebhook, type WebhookCommand } from "../../grammar.js";
import {
  subscribe,
  subscriptionsForEvents,
  type UnsubscribeOutcome,
  unsubscribe,
} from "../../subscription-ops.js";
import { readWebhook, resolveProfileId, sendTestLifecycle, setWebhook } from "../../webhook-ops.js";

interface Ctx {
  deps: BotDeps;
  subject: Subject;
  respond: RespondFn;
  log: Logger;
  teamId: string;
  userId: string;
  channelId: string;
  triggerId: string | undefined;
}

/** Asks the authorizer; a refusal is answered ephemerally (why), and false is returned. */
async function allowed(ctx: Ctx, action: Action, resource: Resource): Promise<Decision | null> {
  const d = await ctx.deps.access.authorize(ctx.subject, action, resource);
  if (d.allowed) return d;
  await ctx.respond(ephemeral(d.message));
  return null;
}

/** The profile a command means (given, or the workspace's one), authorized for `action`. */
async function profileFor(ctx: Ctx, given: string | null, action: ProfileAction): Promise<string | null> {
  const id = await resolveProfileId(ctx.deps, ctx.teamId, given);
  if (id === null) {
    // Still refuse first a workspace that is not allowed or a person who is not a manager.
    if (await allowed(ctx, "help", { kind: "workspace" })) await ctx.respond(ephemeral(noProfileMessage()));
    return null;
  }
  return (await allowed(ctx, action, { kind: "profile", profileId: id })) ? id : null;
}

async function run(ctx: Ctx, cmd: Exclude<WebhookCommand, { kind: "help" }>): Promise<void> {
  const { deps, respond } = ctx;
  switch (cmd.kind) {
    case "set": {
      if (!(await allowed(ctx, "webhook.set", { kind: "profile", profileId: cmd.profileId }))) return;
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
      const id = await resolveProfileId(deps, ctx.teamId, cmd.profileId);
      if (id === null) {
        if (await allowed(ctx, "help", { kind: "workspace" })) await respond(ephemeral(noProfileMessage()));
        return;
      }
      const d = await allowed(ctx, "webhook.show", { kind: "profile", profileId: id });
      if (!d?.allowed) return;
      const view = await readWebhook(deps, ctx.teamId, id);
      await respond(ephemeral(webhookConfigMessage({ ...view, isManager: d.manager, now: deps.now() })));
      return;
    }
    case "events": {
      if (cmd.events === null && ctx.triggerId) {
        // The editor opens at once (the trigger lives 3 s) and is authorized inside.
        const id = await resolveProfileId(deps, ctx.teamId, cmd.profileId);
        if (id === null) {
          if (await allowed(ctx, "help", { kind: "workspace" })) await respond(ephemeral(noProfileMessage()));
          return;
        }
        await openEventsEditor(
          deps,
          ctx.subject,
          { triggerId: ctx.triggerId, profileId: id, channelId: ctx.channelId },
          ctx.log,
        );
        return;
      }
      const id = await profileFor(ctx, cmd.profileId, "webhook.events");
      if (id === null) return;
      if (cmd.events === null) {
        const webhook = await deps.platform.getProfileWebhook(id);
        await respond(ephemeral(webhookEventsMessage({ profileId: id, webhook })));
        return;
      }
      const webhook = await deps.platform.updateWebhookEvents(id, cmd.events);
      const events = [...(webhook.events ?? cmd.events)];
      await deps.settings.updateProfile(ctx.teamId, id, (saved) =>
        saved ? { ...saved, events, subscriptions: subscriptionsForEvents(saved, events) } : undefined,
      );
      await respond(ephemeral(webhookEventsMessage({ profileId: id, webhook, updatedBy: ctx.userId })));
      return;
    }
    case "remove": {
      const id = await profileFor(ctx, cmd.profileId, "webhook.remove");
      if (id === null) return;
      await respond(ephemeral(removeConfirmMessage(id)));
      return;
    }
    case "test": {
      const id = await profileFor(ctx, cmd.profileId, "webhook.test");
      if (id === null) return;
      await respond(ephemeral(testResultMessage(id, await sendTestLifecycle(deps, ctx.teamId, id))));
      return;
    }
    case "subscribe": {
      if (!(await allowed(ctx, "webhook.subscribe", { kind: "profile", profileId: cmd.profileId }))) return;
      const r = await subscribe(deps, {
        teamId: ctx.teamId,
        profileId: cmd.profileId,
        channelId: ctx.channelId,
        userId: ctx.userId,
        events: cmd.events,
        presets: cmd.presets,
        mention: cmd.mention,
      });
      if (r.kind === "not-ours") await respond(ephemeral(notOursMessage(cmd.profileId)));
      else
        await respond(
          inChannel(subscribedMessage({ profileId: cmd.profileId, ...r, allEvents: WEBHOOK_EVENTS.length })),
        );
      return;
    }
    case "unsubscribe": {
      if (!(await allowed(ctx, "webhook.unsubscribe", { kind: "profile", profileId: cmd.profileId }))) return;
      const r = await unsubscribe(deps, ctx.teamId, cmd.profileId, ctx.channelId);
      const m = subscriptionOutcomeMessage(r, cmd.profileId, ctx.channelId, ctx.userId);
      await respond(r.kind === "unsubscribed" ? inChannel(m) : ephemeral(m));
      return;
    }
    case "subscriptions": {
      const id = await resolveProfileId(deps, ctx.teamId, cmd.profileId);
      if (id === null) {
        if (await allowed(ctx, "help", { kind: "workspace" })) await respond(ephemeral(noProfileMessage()));
        return;
      }
      if (!(await allowed(ctx, "webhook.subscriptions", { kind: "profile", profileId: id }))) return;
      // The list is open to anyone; the Unsubscribe buttons only to managers.
      const asManager = await deps.access.authorize(ctx.subject, "webhook.unsubscribe", {
        kind: "profile",
        profileId: id,
      });
      const p = await deps.settings.getProfile(ctx.teamId, id);
      if (!p) {
        await respond(ephemeral(notOursMessage(id)));
        return;
      }
      await respond(
        ephemeral(
          subscriptionsMessage({
            profileId: id,
            subscriptions: p.subscriptions,
            foreign: p.foreignUrl !== null,
            isManager: asManager.allowed,
            allEvents: WEBHOOK_EVENTS.length,
          }),
        ),
      );
      return;
    }
    case "managers": {
      if (cmd.action === "list") {
        if (!(await allowed(ctx, "managers.list", { kind: "workspace" }))) return;
        const added = await deps.settings.listManagers(ctx.teamId);
        await respond(ephemeral(managersMessage({ configured: deps.config.managerUserIds, added })));
        return;
      }
      if (!(await allowed(ctx, "managers.change", { kind: "workspace" }))) return;
      if (cmd.action === "add")
        await deps.settings.addManager(ctx.teamId, cmd.userId, ctx.userId, deps.now());
      else await deps.settings.removeManager(ctx.teamId, cmd.userId);
      const added = await deps.settings.listManagers(ctx.teamId);
      await respond(ephemeral(managersMessage({ configured: deps.config.managerUserIds, added })));
      return;
    }
  }
}

/** What `/webhook unsubscribe` and the Unsubscribe button answer. */
export function subscriptionOutcomeMessage(
  r: UnsubscribeOutcome,
  profileId: string,
  channelId: string,
  userId: string,
): Message {
  switch (r.kind) {
    case "not-ours":
      return notOursMessage(profileId);
    case "not-subscribed":
      return notSubscribedMessage(profileId, channelId);
    case "last": {
      // The last channel: removing its subscription means removing the webhook; asked first.
      const confirm = removeConfirmMessage(profileId);
      const why = `${channel(channelId)} is the only channel that receives the notifications of this profile.`;
      return { ...confirm, blocks: [section(why), ...confirm.blocks] };
    }
    case "unsubscribed":
      return unsubscribedMessage({
        profileId,
        channelId,
        byUser: userId,
        platformChanged: r.platformChanged,
      });
  }
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
        if (!d.allowed) await respond(ephemeral(d.message));
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
