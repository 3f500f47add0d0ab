/**
 * Buttons: Refresh on the livestream card (anyone), and the webhook buttons (managers only; a
 * non-manager is told why, ephemerally, and nothing changes). Webhook buttons live on messages
 * (answered through response_url) and on the App Home (re-published after the change).
 */
import type { AllMiddlewareArgs, App, BlockButtonAction, SlackActionMiddlewareArgs } from "@slack/bolt";
import type { WebClient } from "@slack/web-api";
import type { Logger } from "../../../log.js";
import {
  ACTIONS,
  LIVESTREAM_CARD_FIELDS,
  livestreamCard,
  type Message,
  notManagerMessage,
  testResultMessage,
  webhookRemovedMessage,
} from "../../blocks/index.js";
import { answerErrors, type BotDeps, ephemeral, type Reply, replace, safeRespond } from "../../context.js";
import { openEventsEditor } from "../../events-editor.js";
import { publishHome } from "../../home.js";
import { openManagers, openSetup } from "../../setup-flow.js";
import { removeWebhook, sendTestLifecycle } from "../../webhook-ops.js";

type ButtonArgs = SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs;

function who(body: BlockButtonAction) {
  return { teamId: body.team?.id ?? body.user.team_id ?? "", userId: body.user.id };
}

interface ButtonContext {
  profileId: string;
  teamId: string;
  userId: string;
  body: BlockButtonAction;
  client: WebClient;
  log: Logger;
  /** Shows the outcome where the button was: the message (replace or ephemeral) or the App Home. */
  done(m: Message, how: "replace" | "ephemeral"): Promise<void>;
}

export function register(app: App, deps: BotDeps): void {
  app.action<BlockButtonAction>(ACTIONS.liveRefresh, async ({ ack, body, action, respond }: ButtonArgs) => {
    await ack();
    const { teamId, userId } = who(body);
    const log = deps.logger.child({ team: teamId, user: userId, action: ACTIONS.liveRefresh });
    const id = action.value ?? "";
    await answerErrors(
      respond,
      log,
      `Could not refresh livestream ${id}`,
      async () => {
        const ls = await deps.platform.getLivestream(id, LIVESTREAM_CARD_FIELDS);
        const now = deps.now();
        await respond(replace(livestreamCard(ls, { now, refreshedAt: now, requestedBy: userId })));
      },
      deps.metrics,
    );
  });

  /** A manager-only button: the role is checked first; errors are answered in words. */
  const managerButton = (actionId: string, verb: string, work: (c: ButtonContext) => Promise<void>) => {
    app.action<BlockButtonAction>(actionId, async ({ ack, body, action, respond, client }: ButtonArgs) => {
      await ack();
      const { teamId, userId } = who(body);
      const log = deps.logger.child({ team: teamId, user: userId, action: actionId });
      const profileId = action.value ?? "";
      const onHome = body.view?.type === "home";
      // The App Home has no response_url: answers go to the person as a message from the app.
      const answer: Reply = onHome
        ? (args) =>
            client.chat.postMessage({
              channel: userId,
              text: args.text ?? "",
              blocks: "blocks" in args ? args.blocks : undefined,
            })
        : respond;
      const done = async (m: Message, how: "replace" | "ephemeral") => {
        if (onHome) await publishHome(deps, client, teamId, userId);
        else await respond(how === "replace" ? replace(m) : ephemeral(m));
      };
      await answerErrors(
        answer,
        log,
        `Could not ${verb} for profile ${profileId}`,
        async () => {
          const d = await deps.managers.decide(client, teamId, userId);
          if (!d.manager) {
            await answer(ephemeral(notManagerMessage(verb)));
            return;
          }
          await work({ profileId, teamId, userId, body, client, log, done });
        },
        deps.metrics,
      );
    });
  };

  const remove = async (c: ButtonContext) => {
    await removeWebhook(deps, c.teamId, c.profileId);
    await c.done(webhookRemovedMessage(c.profileId, c.userId, deps.now()), "replace");
  };
  managerButton(ACTIONS.webhookRemove, "remove the webhook", remove);
  managerButton(ACTIONS.webhookRemoveConfirm, "remove the webhook", remove);

  // Not a managerButton: the modal must open within the trigger's 3 s, so the role is checked
  // inside it (a non-manager sees why in the modal).
  app.action<BlockButtonAction>(
    ACTIONS.webhookEditEvents,
    async ({ ack, body, action, client, respond }: ButtonArgs) => {
      await ack();
      const { teamId, userId } = who(body);
      const log = deps.logger.child({ team: teamId, user: userId, action: ACTIONS.webhookEditEvents });
      const profileId = action.value ?? "";
      const reply: Reply = body.view?.type === "home" ? async () => undefined : respond;
      await answerErrors(
        reply,
        log,
        `Could not open the events editor for profile ${profileId}`,
        () =>
          openEventsEditor(
            deps,
            client,
            {
              triggerId: body.trigger_id,
              teamId,
              userId,
              profileId,
              channelId: body.channel?.id,
              responseUrl: body.view?.type === "home" ? undefined : body.response_url,
            },
            log,
          ),
        deps.metrics,
      );
    },
  );

  // The App Home's set-up and managers forms: opened at once, the role is checked inside.
  const formButton = (actionId: string, open: typeof openSetup) => {
    app.action<BlockButtonAction>(actionId, async ({ ack, body, action, client }: ButtonArgs) => {
      await ack();
      const { teamId, userId } = who(body);
      const log = deps.logger.child({ team: teamId, user: userId, action: actionId });
      const profileId = action.value?.trim() || undefined;
      await open(deps, client, { triggerId: body.trigger_id, teamId, userId, profileId }, log).catch(
        (err: unknown) => log.warn({ err }, "could not open the form"),
      );
    });
  };
  formButton(ACTIONS.webhookSetup, openSetup);
  formButton(ACTIONS.managersEdit, openManagers);

  managerButton(ACTIONS.webhookTest, "send a test event", async (c) => {
    const outcome = await sendTestLifecycle(deps, c.teamId, c.profileId);
    await c.done(testResultMessage(c.profileId, outcome), "ephemeral");
  });

  app.action<BlockButtonAction>(ACTIONS.webhookRemoveCancel, async ({ ack, respond, body }: ButtonArgs) => {
    await ack();
    await safeRespond(respond, deps.logger.child({ user: body.user.id }), { delete_original: true });
  });
}
