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
import { channelOf, type Runner } from "./ctx.js";

type Of<K extends ProfileCommand["kind"]> = Runner<OfKind<ProfileCommand, K>>;

export const set: Of<"set"> = async (req, cmd, id) => {
  const { deps } = req;
  const { teamId, userId } = req.subject;
  const view = await setWebhook(deps, {
    teamId,
    profileId: id,
    channelId: channelOf(req),
    userId,
    url: cmd.url,
    events: cmd.events,
  });
  const profileName = await profileLabel(req, id);
  await req.respond(inChannel(webhookSetMessage({ ...view, profileName, byUser: userId, now: deps.now() })));
};

export const show: Of<"show"> = async (req, _cmd, id, d) => {
  const { deps } = req;
  const view = await readWebhook(deps, req.subject.teamId, id, { user: req.subject });
  const profileName = await profileLabel(req, id);
  await req.respond(
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

export const remove: Of<"remove"> = async (req, _cmd, id) => {
  await req.respond(ephemeral(removeConfirmMessage(id, await profileLabel(req, id))));
};

export const test: Of<"test"> = async (req, _cmd, id) => {
  const outcome = await sendTestLifecycle(req.deps, req.subject.teamId, id);
  await req.respond(ephemeral(testResultMessage(id, outcome, await profileLabel(req, id))));
};
