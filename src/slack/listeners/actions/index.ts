/**
 * Buttons: Refresh on the livestream card (anyone), the webhook buttons and the App Home's Unwatch
 * (managers only; a person's own DM watch: that person). Each
 * is authorized (src/access) before anything reaches the platform; a refused person is told why,
 * ephemerally, and nothing changes. Webhook buttons live on messages (answered through
 * response_url) and on the App Home (re-published after the change).
 */
import type { AllMiddlewareArgs, App, BlockButtonAction, SlackActionMiddlewareArgs } from "@slack/bolt";
import type { ProfileAction, Subject } from "../../../access/index.js";
import type { Logger } from "../../../log.js";
import {
  ACTIONS,
  isPlatformId,
  LIVESTREAM_CARD_FIELDS,
  livestreamCard,
  type Message,
  parseUnsubscribeValue,
  parseUnwatchValue,
  refusalMessage,
  testResultMessage,
  usageError,
  watchDmStoppedMessage,
  watchStoppedMessage,
  watchUnavailableMessage,
  webhookRemovedMessage,
} from "../../../messages/index.js";
import { dmKey } from "../../../watch/registry.js";
import {
  answerErrors,
  type BotDeps,
  ephemeral,
  type Reply,
  replace,
  safeRespond,
  subjectOf,
} from "../../context.js";
import { openEventsEditor } from "../../events-editor.js";
import { publishHome } from "../../home.js";
import { profileLabel } from "../../profiles.js";
import { openManagers, openSetup } from "../../setup-flow.js";
import { unsubscribe } from "../../subscription-ops.js";
import { removeWebhook, sendTestLifecycle } from "../../webhook-ops.js";
import { subscriptionOutcomeMessage } from "../commands/webhook-profile.js";

type ButtonArgs = SlackActionMiddlewareArgs<BlockButtonAction> & AllMiddlewareArgs;

interface ButtonContext {
  profileId: string;
  /** The button's whole value (`<profileId>` or `<profileId> <more>`). */
  value: string;
  subject: Subject;
  body: BlockButtonAction;
  log: Logger;
  /** Answers the person: ephemerally under the message, or a message from the app (App Home). */
  reply: Reply;
  /** Shows the outcome where the button was: the message (replace or ephemeral) or the App Home. */
  done(m: Message, how: "replace" | "ephemeral"): Promise<void>;
}

export function register(app: App, deps: BotDeps): void {
  app.action<BlockButtonAction>(
    ACTIONS.liveRefresh,
    async ({ ack, body, action, respond, client, context }: ButtonArgs) => {
      await ack();
      const subject = subjectOf(client, context, body);
      const log = deps.logger.child({
        team: subject.teamId,
        user: subject.userId,
        action: ACTIONS.liveRefresh,
      });
      const id = action.value ?? "";
      await answerErrors(
        respond,
        log,
        `Could not refresh livestream ${id}`,
        async () => {
          const r = await deps.access.readLivestream(subject, "live.refresh", id, LIVESTREAM_CARD_FIELDS);
          if (!r.allowed) {
            await respond(ephemeral(refusalMessage(r)));
            return;
          }
          const now = deps.now();
          await respond(
            replace(livestreamCard(r.livestream, { now, refreshedAt: now, requestedBy: subject.userId })),
          );
        },
        deps.metrics,
      );
    },
  );

  /** A profile button: authorized first; errors are answered in words. */
  const profileButton = (
    actionId: string,
    action: ProfileAction,
    verb: string,
    work: (c: ButtonContext) => Promise<void>,
  ) => {
    app.action<BlockButtonAction>(
      actionId,
      async ({ ack, body, action: a, respond, client, context }: ButtonArgs) => {
        await ack();
        const subject = subjectOf(client, context, body);
        const log = deps.logger.child({ team: subject.teamId, user: subject.userId, action: actionId });
        // A value is the profile id, or the profile id, a blank and more (Unsubscribe: the channel).
        const value = a.value ?? "";
        const profileId = value.split(" ")[0] ?? "";
        const onHome = body.view?.type === "home";
        // The App Home has no response_url: answers go to the person as a message from the app.
        const answer: Reply = onHome
          ? (args) =>
              client.chat.postMessage({
                channel: subject.userId,
                text: args.text ?? "",
                blocks: "blocks" in args ? args.blocks : undefined,
              })
          : respond;
        const done = async (m: Message, how: "replace" | "ephemeral") => {
          if (onHome) await publishHome(deps, subject);
          else await respond(how === "replace" ? replace(m) : ephemeral(m));
        };
        await answerErrors(
          answer,
          log,
          `Could not ${verb} for profile ${profileId}`,
          async () => {
            const d = await deps.access.authorize(subject, action, { kind: "profile", profileId });
            if (!d.allowed) {
              await answer(ephemeral(refusalMessage(d)));
              return;
            }
            await work({ profileId, value, subject, body, log, reply: answer, done });
          },
          deps.metrics,
        );
      },
    );
  };

  const remove = async (c: ButtonContext) => {
    await removeWebhook(deps, c.subject.teamId, c.profileId);
    const name = await profileLabel(deps, c.profileId);
    await c.done(webhookRemovedMessage(c.profileId, c.subject.userId, deps.now(), name), "replace");
  };
  profileButton(ACTIONS.webhookRemove, "webhook.remove", "remove the webhook", remove);
  profileButton(ACTIONS.webhookRemoveConfirm, "webhook.remove", "remove the webhook", remove);
  profileButton(ACTIONS.webhookTest, "webhook.test", "send a test event", async (c) => {
    const outcome = await sendTestLifecycle(deps, c.subject.teamId, c.profileId);
    await c.done(testResultMessage(c.profileId, outcome, await profileLabel(deps, c.profileId)), "ephemeral");
  });

  profileButton(ACTIONS.webhookUnsubscribe, "webhook.unsubscribe", "unsubscribe the channel", async (c) => {
    const target = parseUnsubscribeValue(c.value);
    if (!target) throw new Error("the button does not name a channel");
    const r = await unsubscribe(deps, c.subject.teamId, target.profileId, target.channelId);
    const name = await profileLabel(deps, target.profileId);
    await c.done(
      subscriptionOutcomeMessage(r, target.profileId, target.channelId, c.subject.userId, name),
      "ephemeral",
    );
  });

  // Not a profileButton: the modal must open within the trigger's 3 s, so it is authorized
  // inside it (a refused person sees why in the modal).
  app.action<BlockButtonAction>(
    ACTIONS.webhookEditEvents,
    async ({ ack, body, action, client, respond, context }: ButtonArgs) => {
      await ack();
      const subject = subjectOf(client, context, body);
      const log = deps.logger.child({
        team: subject.teamId,
        user: subject.userId,
        action: ACTIONS.webhookEditEvents,
      });
      const profileId = action.value ?? "";
      const reply: Reply = body.view?.type === "home" ? async () => undefined : respond;
      await answerErrors(
        reply,
        log,
        `Could not open the events editor for profile ${profileId}`,
        () =>
          openEventsEditor(
            deps,
            subject,
            {
              triggerId: body.trigger_id,
              profileId,
              channelId: subject.channelId,
              responseUrl: body.view?.type === "home" ? undefined : body.response_url,
            },
            log,
          ),
        deps.metrics,
      );
    },
  );

  // The App Home's set-up and managers forms: opened at once, authorized inside.
  const formButton = (actionId: string, open: typeof openSetup) => {
    app.action<BlockButtonAction>(actionId, async ({ ack, body, action, client, context }: ButtonArgs) => {
      await ack();
      const subject = subjectOf(client, context, body);
      const log = deps.logger.child({ team: subject.teamId, user: subject.userId, action: actionId });
      const profileId = action.value?.trim() || undefined;
      await open(deps, subject, { triggerId: body.trigger_id, profileId }, log).catch((err: unknown) =>
        log.warn({ err }, "could not open the form"),
      );
    });
  };
  formButton(ACTIONS.webhookSetup, openSetup);
  formButton(ACTIONS.managersEdit, openManagers);

  // The App Home's Unwatch (managers): authorized as "live.unwatch", no platform read; the Home
  // is published again. Answers (refusals) go to the person as a message from the app.
  app.action<BlockButtonAction>(
    ACTIONS.watchUnwatch,
    async ({ ack, body, action, client, respond, context }: ButtonArgs) => {
      await ack();
      const subject = subjectOf(client, context, body);
      const log = deps.logger.child({
        team: subject.teamId,
        user: subject.userId,
        action: ACTIONS.watchUnwatch,
      });
      const onHome = body.view?.type === "home";
      const answer: Reply = onHome
        ? (args) =>
            client.chat.postMessage({
              channel: subject.userId,
              text: args.text ?? "",
              blocks: "blocks" in args ? args.blocks : undefined,
            })
        : respond;
      const target = parseUnwatchValue(action.value);
      await answerErrors(
        answer,
        log,
        "Could not stop the watch",
        async () => {
          const d = await deps.access.authorize(subject, "live.unwatch", {
            kind: "livestream",
            livestreamId: target?.livestreamId ?? "",
          });
          if (!d.allowed) {
            await answer(ephemeral(refusalMessage(d)));
            return;
          }
          if (target === null) {
            await answer(
              ephemeral(
                usageError(
                  "/live",
                  "This button does not name a watch: use `/live unwatch <id or URL>` in its channel.",
                ),
              ),
            );
            return;
          }
          if (!deps.watch) {
            await answer(ephemeral(watchUnavailableMessage()));
            return;
          }
          const { removed } = await deps.watch.unwatch({ teamId: subject.teamId, ...target });
          if (onHome) await publishHome(deps, subject);
          else await respond(ephemeral(watchStoppedMessage({ ...target, removed })));
        },
        deps.metrics,
      );
    },
  );

  // The App Home's Unwatch of the viewer's own DM watch (anyone): authorized as "live.unwatch.dm",
  // no platform read. The value names the livestream only: the watch is always the presser's own.
  app.action<BlockButtonAction>(
    ACTIONS.watchUnwatchDm,
    async ({ ack, body, action, client, respond, context }: ButtonArgs) => {
      await ack();
      const subject = subjectOf(client, context, body);
      const log = deps.logger.child({
        team: subject.teamId,
        user: subject.userId,
        action: ACTIONS.watchUnwatchDm,
      });
      const onHome = body.view?.type === "home";
      const answer: Reply = onHome
        ? (args) =>
            client.chat.postMessage({
              channel: subject.userId,
              text: args.text ?? "",
              blocks: "blocks" in args ? args.blocks : undefined,
            })
        : respond;
      const livestreamId = action.value ?? "";
      await answerErrors(
        answer,
        log,
        "Could not stop the DMs",
        async () => {
          const d = await deps.access.authorize(subject, "live.unwatch.dm", {
            kind: "livestream",
            livestreamId,
          });
          if (!d.allowed) await answer(ephemeral(refusalMessage(d)));
          else if (!isPlatformId(livestreamId))
            await answer(
              ephemeral(
                usageError("/live", "This button does not name a livestream: use `/live unwatch <id> dm`."),
              ),
            );
          else if (!deps.watch) await answer(ephemeral(watchUnavailableMessage()));
          else {
            const key = { teamId: subject.teamId, channelId: dmKey(subject.userId), livestreamId };
            const { removed } = await deps.watch.unwatch(key);
            if (onHome) await publishHome(deps, subject);
            else await respond(ephemeral(watchDmStoppedMessage({ livestreamId, removed })));
          }
        },
        deps.metrics,
      );
    },
  );

  // The App Home's Refresh: publishes the Home again (authorized there, as "home.view").
  app.action<BlockButtonAction>(ACTIONS.homeRefresh, async ({ ack, body, client, context }: ButtonArgs) => {
    await ack();
    const subject = subjectOf(client, context, body);
    await publishHome(deps, subject).catch((err: unknown) =>
      deps.logger.warn({ err, team: subject.teamId }, "could not refresh the App Home"),
    );
  });

  app.action<BlockButtonAction>(
    ACTIONS.webhookRemoveCancel,
    async ({ ack, respond, body, client, context }: ButtonArgs) => {
      await ack();
      const subject = subjectOf(client, context, body);
      const log = deps.logger.child({ team: subject.teamId, user: subject.userId });
      await answerErrors(respond, log, "Could not dismiss the message", async () => {
        const d = await deps.access.authorize(subject, "message.dismiss", { kind: "workspace" });
        await safeRespond(respond, log, d.allowed ? { delete_original: true } : ephemeral(refusalMessage(d)));
      });
    },
  );
}
