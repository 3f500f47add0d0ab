/** `/webhook unsubscribe [profile]` (this channel) and `/webhook subscriptions [profile]` (the list). */
import { WEBHOOK_EVENTS } from "../../../../domain/index.js";
import { notOursMessage, subscriptionsMessage } from "../../../../messages/index.js";
import { modeClock } from "../../../../operations/modes.js";
import { profileLabel } from "../../../../operations/profiles.js";
import { unsubscribe as remove } from "../../../../operations/subscriptions.js";
import { ephemeral, inChannel } from "../../../context.js";
import type { OfKind } from "../../../request.js";
import { subscriptionOutcomeMessage } from "../../answers.js";
import type { ProfileCommand } from "../grammar.js";
import { channelOf, type Runner } from "./ctx.js";

export const unsubscribe: Runner<OfKind<ProfileCommand, "unsubscribe">> = async (req, _cmd, id) => {
  const channelId = channelOf(req);
  const r = await remove(req.deps, req.subject.teamId, id, channelId);
  const name = await profileLabel(req, id);
  const m = subscriptionOutcomeMessage(r, id, channelId, req.subject.userId, name);
  await req.respond(r.kind === "unsubscribed" ? inChannel(m) : ephemeral(m));
};

export const subscriptions: Runner<OfKind<ProfileCommand, "subscriptions">> = async (req, _cmd, id) => {
  const { deps } = req;
  // The list is open to anyone; the Unsubscribe buttons only to managers.
  const asManager = await req.authorize("webhook.unsubscribe", { kind: "profile", profileId: id });
  const p = await deps.settings.getProfile(req.subject.teamId, id);
  const profileName = await profileLabel(req, id);
  if (!p) {
    await req.respond(ephemeral(notOursMessage(id, profileName)));
    return;
  }
  await req.respond(
    ephemeral(
      subscriptionsMessage({
        profileId: id,
        profileName,
        subscriptions: p.subscriptions,
        foreign: p.foreignUrl !== null,
        isManager: asManager.allowed,
        allEvents: WEBHOOK_EVENTS.length,
        clock: modeClock(deps),
      }),
    ),
  );
};
