/** `/webhook events <profile> [event…]`: shows the events, or changes only them (the editor: run.ts). */
import { webhookEventsMessage } from "../../../../messages/index.js";
import { profileLabel } from "../../../../operations/profiles.js";
import { subscriptionsForEvents } from "../../../../operations/subscriptions.js";
import { ephemeral } from "../../../context.js";
import type { OfKind } from "../../../request.js";
import type { ProfileCommand } from "../grammar.js";
import type { Runner } from "./ctx.js";

export const events: Runner<OfKind<ProfileCommand, "events">> = async (req, cmd, id) => {
  const { deps } = req;
  if (cmd.events === null) {
    const webhook = await deps.platform.getProfileWebhook({ user: req.subject }, id);
    const profileName = await profileLabel(req, id);
    await req.respond(ephemeral(webhookEventsMessage({ profileId: id, profileName, webhook })));
    return;
  }
  const webhook = await deps.platform.updateWebhookEvents(id, cmd.events);
  const chosen = [...(webhook.events ?? cmd.events)];
  await deps.settings.updateProfile(req.subject.teamId, id, (saved) =>
    saved ? { ...saved, events: chosen, subscriptions: subscriptionsForEvents(saved, chosen) } : undefined,
  );
  const profileName = await profileLabel(req, id);
  await req.respond(
    ephemeral(webhookEventsMessage({ profileId: id, profileName, webhook, updatedBy: req.subject.userId })),
  );
};
