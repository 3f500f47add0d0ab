/** The App Home's set-up and managers forms: opened at once (the trigger lives 3 s), authorized inside. */
import type { Action } from "../../../access/index.js";
import type { FlowButton } from "../../request.js";
import { openManagers, openSetup } from "../views/setup-flow.js";

function formButton(open: typeof openSetup, action: Action): FlowButton {
  return {
    quiet: "could not open the form",
    access: { action, inFlow: true },
    run: (req) =>
      open(req, { triggerId: req.body.trigger_id, profileId: req.action.value?.trim() || undefined }),
  };
}

export const setup = formButton(openSetup, "webhook.setup");
export const managersEdit = formButton(openManagers, "managers.change");
