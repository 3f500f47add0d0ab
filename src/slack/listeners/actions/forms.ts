/** The App Home's set-up and managers forms: opened at once (the trigger lives 3 s), authorized inside. */
import type { ActionHandler } from "../../request.js";
import { openManagers, openSetup } from "../views/setup-flow.js";

function formButton(open: typeof openSetup): ActionHandler {
  return {
    quiet: "could not open the form",
    run: ({ deps, subject, body, action, log }) =>
      open(deps, subject, { triggerId: body.trigger_id, profileId: action.value?.trim() || undefined }, log),
  };
}

export const setup = formButton(openSetup);
export const managersEdit = formButton(openManagers);
