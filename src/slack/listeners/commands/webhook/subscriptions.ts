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
import type { Runner } from "./ctx.js";

export const unsubscribe: Runner<OfKind<ProfileCommand, "unsubscribe">> = async (ctx, _cmd, id) => {
  const r = await remove(ctx.deps, ctx.teamId, id, ctx.channelId);
  const name = await profileLabel(ctx.deps, ctx.subject, id);
  const m = subscriptionOutcomeMessage(r, id, ctx.channelId, ctx.userId, name);
  await ctx.respond(r.kind === "unsubscribed" ? inChannel(m) : ephemeral(m));
};

export const subscriptions: Runner<OfKind<ProfileCommand, "subscriptions">> = async (ctx, _cmd, id) => {
  const { deps } = ctx;
  // The list is open to anyone; the Unsubscribe buttons only to managers.
  const asManager = await deps.access.authorize(ctx.subject, "webhook.unsubscribe", {
    kind: "profile",
    profileId: id,
  });
  const p = await deps.settings.getProfile(ctx.teamId, id);
  const profileName = await profileLabel(deps, ctx.subject, id);
  if (!p) {
    await ctx.respond(ephemeral(notOursMessage(id, profileName)));
    return;
  }
  await ctx.respond(
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
