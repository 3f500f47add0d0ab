/** `/webhook pause [profile] <duration>` and `/webhook resume [profile]`: this channel's subscription. */
import {
  notOursMessage,
  notPausedMessage,
  notSubscribedMessage,
  pausedMessage,
  resumedMessage,
} from "../../../../messages/index.js";
import { profileLabel } from "../../../../operations/profiles.js";
import { pause as pauseFor, resume as resumeNow } from "../../../../operations/subscriptions.js";
import { ephemeral, inChannel } from "../../../context.js";
import type { OfKind } from "../../../request.js";
import type { ProfileCommand } from "../grammar.js";
import { channelOf, type Runner } from "./ctx.js";

export const pause: Runner<OfKind<ProfileCommand, "pause">> = async (req, cmd, id) => {
  const { teamId, userId } = req.subject;
  const channelId = channelOf(req);
  const r = await pauseFor(req.deps, { teamId, profileId: id, channelId, userId, ms: cmd.ms });
  const profileName = await profileLabel(req, id);
  if (r.kind === "paused")
    await req.respond(
      inChannel(
        pausedMessage({
          profileId: id,
          profileName,
          channelId,
          byUser: userId,
          until: r.until,
          extended: r.extended,
        }),
      ),
    );
  else
    await req.respond(
      ephemeral(
        r.kind === "not-ours"
          ? notOursMessage(id, profileName)
          : notSubscribedMessage(id, channelId, profileName),
      ),
    );
};

export const resume: Runner<OfKind<ProfileCommand, "resume">> = async (req, _cmd, id) => {
  const channelId = channelOf(req);
  const r = await resumeNow(req.deps, { teamId: req.subject.teamId, profileId: id, channelId });
  const profileName = await profileLabel(req, id);
  const opts = { profileId: id, profileName, channelId };
  await req.respond(
    ephemeral(
      r.kind === "resumed"
        ? resumedMessage(opts)
        : r.kind === "not-paused"
          ? notPausedMessage(opts)
          : r.kind === "not-ours"
            ? notOursMessage(id, profileName)
            : notSubscribedMessage(id, channelId, profileName),
    ),
  );
};
