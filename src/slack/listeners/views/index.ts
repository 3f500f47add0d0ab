/**
 * Modal submissions: the events editor, the set-up form and the managers form. Each is authorized
 * (src/access) after its ack, before anything reaches the platform; a refusal shows in the modal.
 */
import type { App } from "@slack/bolt";
import {
  BLOCKS,
  decodeMeta,
  eventsModalSaving,
  FORM_SAVING,
  formMessage,
  NO_EVENT_CHOSEN,
  parseEventsSubmission,
  parseManagersSubmission,
  parseSetupSubmission,
  settingUpText,
  VIEWS,
} from "../../../messages/index.js";
import { type BotDeps, subjectOf } from "../../context.js";
import { saveEvents } from "../../events-editor.js";
import { saveManagers, saveSetup } from "../../setup-flow.js";

export function register(app: App, deps: BotDeps): void {
  app.view(VIEWS.eventsModal, async ({ ack, body, view, client, context }) => {
    const selected = parseEventsSubmission(view.state.values);
    if (selected.length === 0) {
      // Keeps the modal open with the error under the checkboxes.
      await ack({
        response_action: "errors",
        errors: { [BLOCKS.events]: NO_EVENT_CHOSEN },
      });
      return;
    }
    const subject = subjectOf(client, context, body);
    const profileId = decodeMeta(view.private_metadata)?.profileId ?? "";
    await ack({ response_action: "update", view: eventsModalSaving(view.private_metadata, profileId) });
    const log = deps.logger.child({ team: subject.teamId, user: subject.userId, view: VIEWS.eventsModal });
    await saveEvents(
      deps,
      subject,
      { viewId: view.id, privateMetadata: view.private_metadata, selected },
      log,
    ).catch((err: unknown) => log.error({ err }, "events editor failed"));
  });

  app.view(VIEWS.setupModal, async ({ ack, body, view, client, context }) => {
    const { values, errors } = parseSetupSubmission(view.state.values);
    if (Object.keys(errors).length > 0) {
      // Keeps the form open with the errors under the fields; nothing is changed.
      await ack({ response_action: "errors", errors });
      return;
    }
    const subject = subjectOf(client, context, body);
    await ack({
      response_action: "update",
      view: formMessage({
        kind: "setup",
        meta: view.private_metadata,
        text: settingUpText(values.profileId),
      }),
    });
    const log = deps.logger.child({ team: subject.teamId, user: subject.userId, view: VIEWS.setupModal });
    await saveSetup(
      deps,
      subject,
      { viewId: view.id, privateMetadata: view.private_metadata, parsed: values },
      log,
    ).catch((err: unknown) => log.error({ err }, "set-up form failed"));
  });

  app.view(VIEWS.managersModal, async ({ ack, body, view, client, context }) => {
    const chosen = parseManagersSubmission(view.state.values);
    const subject = subjectOf(client, context, body);
    await ack({
      response_action: "update",
      view: formMessage({ kind: "managers", meta: view.private_metadata, text: FORM_SAVING }),
    });
    const log = deps.logger.child({ team: subject.teamId, user: subject.userId, view: VIEWS.managersModal });
    await saveManagers(
      deps,
      subject,
      { viewId: view.id, privateMetadata: view.private_metadata, chosen },
      log,
    ).catch((err: unknown) => log.error({ err }, "managers form failed"));
  });
}
