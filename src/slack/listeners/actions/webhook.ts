/**
 * The webhook buttons: Remove (and its confirmation), Test, Unsubscribe (profile buttons, managers),
 * Edit events (opens the editor at once, authorized inside) and Cancel (dismisses the question).
 */
import {
  parseUnsubscribeValue,
  testResultMessage,
  usageError,
  webhookRemovedMessage,
} from "../../../messages/index.js";
import { profileLabel } from "../../../operations/profiles.js";
import { unsubscribe as unsubscribeChannel } from "../../../operations/subscriptions.js";
import { removeWebhook, sendTestLifecycle } from "../../../operations/webhook.js";
import { safeRespond } from "../../context.js";
import type { FlowButton, ResourceButton } from "../../request.js";
import { subscriptionOutcomeMessage } from "../answers.js";
import { openEventsEditor } from "../views/events-editor.js";
import { profileButton } from "./profile-button.js";

export const remove = profileButton("webhook.remove", "remove the webhook", async (c) => {
  await removeWebhook(c.deps, c.subject.teamId, c.profileId);
  const name = await profileLabel(c, c.profileId);
  await c.done(webhookRemovedMessage(c.profileId, c.subject.userId, c.deps.now(), name), "replace");
});

export const test = profileButton("webhook.test", "send a test event", async (c) => {
  const outcome = await sendTestLifecycle(c.deps, c.subject.teamId, c.profileId);
  await c.done(testResultMessage(c.profileId, outcome, await profileLabel(c, c.profileId)), "ephemeral");
});

export const unsubscribe = profileButton("webhook.unsubscribe", "unsubscribe the channel", async (c) => {
  const target = parseUnsubscribeValue(c.value);
  if (!target) {
    await c.done(
      usageError(
        "/webhook",
        "This button does not name a channel: use `/webhook unsubscribe <profile>` in it.",
      ),
      "ephemeral",
    );
    return;
  }
  const r = await unsubscribeChannel(c.deps, c.subject.teamId, target.profileId, target.channelId);
  const name = await profileLabel(c, target.profileId);
  await c.done(
    subscriptionOutcomeMessage(r, target.profileId, target.channelId, c.subject.userId, name),
    "ephemeral",
  );
});

// Not a profile button: the modal must open within the trigger's 3 s, so it is authorized
// inside it (a refused person sees why in the modal).
export const editEvents: FlowButton = {
  what: (req) => `Could not open the events editor for profile ${req.action.value ?? ""}`,
  answerTo: (req) => (req.onHome ? async () => undefined : req.respond),
  access: { action: "webhook.events", inFlow: true },
  run: (req) =>
    openEventsEditor(req, {
      triggerId: req.body.trigger_id,
      profileId: req.action.value ?? "",
      channelId: req.subject.channelId,
      responseUrl: req.onHome ? undefined : req.body.response_url,
    }),
};

export const removeCancel: ResourceButton = {
  what: () => "Could not dismiss the message",
  uncounted: true,
  answerTo: (req) => req.respond,
  access: { action: "message.dismiss", resource: () => ({ kind: "workspace" }) },
  run: async ({ respond, log }) => {
    await safeRespond(respond, log, { delete_original: true });
  },
};
