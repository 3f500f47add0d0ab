/** The App Home's set-up and managers forms: opened at once (the trigger lives 3 s), authorized inside. */
import type { Action } from "../../../access/index.js";
import { isPlatformId } from "../../../domain/index.js";
import type { FlowButton } from "../../request.js";
import { openManagers, openSetup } from "../views/setup-flow.js";

/** The profile a button names: its value when it has a platform id's shape (a forged one is ignored). */
function profileOf(value: string | undefined): string | undefined {
  const v = value?.trim();
  return v && isPlatformId(v) ? v : undefined;
}

function formButton(open: typeof openSetup, action: Action): FlowButton {
  return {
    quiet: "could not open the form",
    access: { action, inFlow: true },
    run: (req) => open(req, { triggerId: req.body.trigger_id, profileId: profileOf(req.action.value) }),
  };
}

export const setup = formButton(openSetup, "webhook.setup");
export const managersEdit = formButton(openManagers, "managers.change");
