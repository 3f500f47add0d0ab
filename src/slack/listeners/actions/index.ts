/**
 * Buttons: Refresh on the livestream card (anyone), and the webhook buttons (managers only; a
 * non-manager is told why, ephemerally, and nothing changes).
 */
import type {
  AllMiddlewareArgs,
  App,
  BlockButtonAction,
  RespondFn,
  SlackActionMiddlewareArgs,
} from "@slack/bolt";
import {
  ACTIONS,
  LIVESTREAM_CARD_FIELDS,
  livestreamCard,
  notManagerMessage,
  testResultMessage,
  webhookEventsMessage,
  webhookRemovedMessage,
} from "../../blocks/index.js";
import { answerErrors, type BotDeps, ephemeral, replace, safeRespond } from "../../context.js";
import { removeWebhook, sendTestLifecycle } from "../../webhook-ops.js";

type ButtonArgs = SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs;

function who(body: BlockButtonAction) {
  return { teamId: body.team?.id ?? body.user.team_id ?? "", userId: body.user.id };
}

export function register(app: App, deps: BotDeps): void {
  app.action<BlockButtonAction>(ACTIONS.liveRefresh, async ({ ack, body, action, respond }: ButtonArgs) => {
    await ack();
    const { teamId, userId } = who(body);
    const log = deps.logger.child({ team: teamId, user: userId, action: ACTIONS.liveRefresh });
    const id = action.value ?? "";
    await answerErrors(respond, log, `Could not refresh livestream ${id}`, async () => {
      const ls = await deps.platform.getLivestream(id, LIVESTREAM_CARD_FIELDS);
      const now = deps.now();
      await respond(replace(livestreamCard(ls, { now, refreshedAt: now, requestedBy: userId })));
    });
  });

  /** Runs a manager-only button: checks the role first, answers errors in words. */
  const managerButton = (
    actionId: string,
    verb: string,
    work: (a: { profileId: string; teamId: string; userId: string; respond: RespondFn }) => Promise<void>,
  ) => {
    app.action<BlockButtonAction>(actionId, async ({ ack, body, action, respond, client }: ButtonArgs) => {
      await ack();
      const { teamId, userId } = who(body);
      const log = deps.logger.child({ team: teamId, user: userId, action: actionId });
      const profileId = action.value ?? "";
      await answerErrors(respond, log, `Could not ${verb} for profile ${profileId}`, async () => {
        const d = await deps.managers.decide(client, teamId, userId);
        if (!d.manager) {
          await respond(ephemeral(notManagerMessage(verb)));
          return;
        }
        await work({ profileId, teamId, userId, respond });
      });
    });
  };

  const remove = async (a: { profileId: string; teamId: string; userId: string; respond: RespondFn }) => {
    await removeWebhook(deps, a.teamId, a.profileId);
    await a.respond(replace(webhookRemovedMessage(a.profileId, a.userId, deps.now())));
  };
  managerButton(ACTIONS.webhookRemove, "remove the webhook", remove);
  managerButton(ACTIONS.webhookRemoveConfirm, "remove the webhook", remove);

  managerButton(ACTIONS.webhookEditEvents, "edit webhook events", async ({ profileId, respond }) => {
    const webhook = await deps.platform.getProfileWebhook(profileId);
    await respond(ephemeral(webhookEventsMessage({ profileId, webhook })));
  });

  managerButton(ACTIONS.webhookTest, "send a test event", async ({ profileId, teamId, respond }) => {
    await respond(ephemeral(testResultMessage(profileId, await sendTestLifecycle(deps, teamId, profileId))));
  });

  app.action<BlockButtonAction>(ACTIONS.webhookRemoveCancel, async ({ ack, respond, body }: ButtonArgs) => {
    await ack();
    await safeRespond(respond, deps.logger.child({ user: body.user.id }), { delete_original: true });
  });
}
