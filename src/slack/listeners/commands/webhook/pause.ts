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
import type { Runner } from "./ctx.js";

export const pause: Runner<OfKind<ProfileCommand, "pause">> = async (ctx, cmd, id) => {
  const r = await pauseFor(ctx.deps, {
    teamId: ctx.teamId,
    profileId: id,
    channelId: ctx.channelId,
    userId: ctx.userId,
    ms: cmd.ms,
  });
  const profileName = await profileLabel(ctx.deps, ctx.subject, id);
  if (r.kind === "paused")
    await ctx.respond(
      inChannel(
        pausedMessage({
          profileId: id,
          profileName,
          channelId: ctx.channelId,
          byUser: ctx.userId,
          until: r.until,
          extended: r.extended,
        }),
      ),
    );
  else
    await ctx.respond(
      ephemeral(
        r.kind === "not-ours"
          ? notOursMessage(id, profileName)
          : notSubscribedMessage(id, ctx.channelId, profileName),
      ),
    );
};

export const resume: Runner<OfKind<ProfileCommand, "resume">> = async (ctx, _cmd, id) => {
  const r = await resumeNow(ctx.deps, { teamId: ctx.teamId, profileId: id, channelId: ctx.channelId });
  const profileName = await profileLabel(ctx.deps, ctx.subject, id);
  const opts = { profileId: id, profileName, channelId: ctx.channelId };
  await ctx.respond(
    ephemeral(
      r.kind === "resumed"
        ? resumedMessage(opts)
        : r.kind === "not-paused"
          ? notPausedMessage(opts)
          : r.kind === "not-ours"
            ? notOursMessage(id, profileName)
            : notSubscribedMessage(id, ctx.channelId, profileName),
    ),
  );
};
