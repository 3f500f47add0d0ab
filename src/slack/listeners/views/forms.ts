/**
 * Modal submissions: the events editor, the set-up form and the managers form. Each is authorized
 * (src/access) after its ack, before anything reaches the platform; a refusal shows in the modal.
 */
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
} from "../../../messages/index.js";
import type { ViewHandler } from "../../request.js";
import { saveEvents } from "./events-editor.js";
import { saveManagers, saveSetup } from "./setup-flow.js";

type Values<F extends (...args: never[]) => unknown> = Parameters<F>[1];

export const eventsSubmission: ViewHandler<Values<typeof saveEvents>["selected"]> = {
  access: { action: "webhook.events", inFlow: true },
  read: (view) => {
    const selected = parseEventsSubmission(view.state.values);
    // None chosen: the modal stays open with the error under the checkboxes.
    if (selected.length === 0) return { errors: { [BLOCKS.events]: NO_EVENT_CHOSEN } };
    const profileId = decodeMeta(view.private_metadata)?.profileId ?? "";
    return { saving: eventsModalSaving(view.private_metadata, profileId), value: selected };
  },
  save: (req, selected) =>
    saveEvents(req, { viewId: req.view.id, privateMetadata: req.view.private_metadata, selected }),
  failure: "events editor failed",
};

export const setupSubmission: ViewHandler<Values<typeof saveSetup>["parsed"]> = {
  access: { action: "webhook.set", inFlow: true },
  read: (view) => {
    const { values, errors } = parseSetupSubmission(view.state.values);
    // The form stays open with the errors under the fields; nothing is changed.
    if (Object.keys(errors).length > 0) return { errors };
    const text = settingUpText(values.profileId);
    return { saving: formMessage({ kind: "setup", meta: view.private_metadata, text }), value: values };
  },
  save: (req, parsed) =>
    saveSetup(req, { viewId: req.view.id, privateMetadata: req.view.private_metadata, parsed }),
  failure: "set-up form failed",
};

export const managersSubmission: ViewHandler<Values<typeof saveManagers>["chosen"]> = {
  access: { action: "managers.change", inFlow: true },
  read: (view) => ({
    saving: formMessage({ kind: "managers", meta: view.private_metadata, text: FORM_SAVING }),
    value: parseManagersSubmission(view.state.values),
  }),
  save: (req, chosen) =>
    saveManagers(req, { viewId: req.view.id, privateMetadata: req.view.private_metadata, chosen }),
  failure: "managers form failed",
};
