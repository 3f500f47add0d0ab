/** `/webhook subscribe [profile] …`: this channel's subscription (filters, mention, digest). */
import { WEBHOOK_EVENTS } from "../../../../domain/index.js";
import { notOursMessage, subscribedMessage } from "../../../../messages/index.js";
import { modeClock } from "../../../../operations/modes.js";
import { profileLabel } from "../../../../operations/profiles.js";
import { subscribe as save, userTimeZone } from "../../../../operations/subscriptions.js";
import { ephemeral, inChannel } from "../../../context.js";
import type { OfKind } from "../../../request.js";
import type { ProfileCommand } from "../grammar.js";
import { channelOf, type Runner } from "./ctx.js";

/** A digest's time of day when `at=` is not given. */
export const DEFAULT_DIGEST_AT = "09:00";

export const subscribe: Runner<OfKind<ProfileCommand, "subscribe">> = async (req, cmd, id) => {
  const { deps } = req;
  const { teamId, userId } = req.subject;
  // A digest's time of day is the subscriber's, in their Slack time zone.
  const digest =
    cmd.digest === undefined || cmd.digest === "off"
      ? cmd.digest
      : {
          every: cmd.digest.every,
          at: cmd.digest.at ?? DEFAULT_DIGEST_AT,
          ...(await userTimeZone(req.subject.client, userId)),
        };
  const r = await save(deps, {
    teamId,
    profileId: id,
    channelId: channelOf(req),
    userId,
    events: cmd.events,
    presets: cmd.presets,
    mention: cmd.mention,
    ...(digest !== undefined ? { digest } : {}),
    ...(cmd.keepFilters ? { keepFilters: true } : {}),
  });
  const profileName = await profileLabel(req, id);
  if (r.kind === "not-ours") await req.respond(ephemeral(notOursMessage(id, profileName)));
  else
    await req.respond(
      inChannel(
        subscribedMessage({
          profileId: id,
          profileName,
          ...r,
          allEvents: WEBHOOK_EVENTS.length,
          clock: modeClock(deps),
        }),
      ),
    );
};
