/** `/webhook set`, `show`, `remove` (asks first) and `test` for one profile, once authorized. */
import {
  removeConfirmMessage,
  testResultMessage,
  webhookConfigMessage,
  webhookSetMessage,
} from "../../../../messages/index.js";
import { modeClock } from "../../../../operations/modes.js";
import { profileLabel } from "../../../../operations/profiles.js";
import { readWebhook, sendTestLifecycle, setWebhook } from "../../../../operations/webhook.js";
import { ephemeral, inChannel } from "../../../context.js";
import type { OfKind } from "../../../request.js";
import type { ProfileCommand } from "../grammar.js";
import type { Runner } from "./ctx.js";

type Of<K extends ProfileCommand["kind"]> = Runner<OfKind<ProfileCommand, K>>;

export const set: Of<"set"> = async (ctx, cmd, id) => {
  const { deps } = ctx;
  const view = await setWebhook(deps, {
    teamId: ctx.teamId,
    profileId: id,
    channelId: ctx.channelId,
    userId: ctx.userId,
    url: cmd.url,
    events: cmd.events,
  });
  const profileName = await profileLabel(deps, ctx.subject, id);
  await ctx.respond(
    inChannel(webhookSetMessage({ ...view, profileName, byUser: ctx.userId, now: deps.now() })),
  );
};

export const show: Of<"show"> = async (ctx, _cmd, id, d) => {
  const { deps } = ctx;
  const view = await readWebhook(deps, ctx.teamId, id);
  const profileName = await profileLabel(deps, ctx.subject, id);
  await ctx.respond(
    ephemeral(
      webhookConfigMessage({
        ...view,
        profileName,
        isManager: d.manager,
        now: deps.now(),
        modeClock: modeClock(deps),
      }),
    ),
  );
};

export const remove: Of<"remove"> = async (ctx, _cmd, id) => {
  await ctx.respond(ephemeral(removeConfirmMessage(id, await profileLabel(ctx.deps, ctx.subject, id))));
};

export const test: Of<"test"> = async (ctx, _cmd, id) => {
  const outcome = await sendTestLifecycle(ctx.deps, ctx.teamId, id);
  await ctx.respond(ephemeral(testResultMessage(id, outcome, await profileLabel(ctx.deps, ctx.subject, id))));
};
