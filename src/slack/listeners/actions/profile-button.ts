/**
 * A webhook button acting on one profile (managers): authorized first, by the request wrapper, as
 * the action it declares on the profile its value names; a refusal is answered why.
 * On a message the outcome replaces it or shows under it; on the App Home, the Home is published again.
 */
import type { ProfileAction } from "../../../access/index.js";
import type { Message } from "../../../messages/index.js";
import { ephemeral, replace } from "../../context.js";
import type { ActionRequest, ResourceButton } from "../../request.js";
import { publishHome } from "../events/home.js";

export interface ProfileButton extends ActionRequest {
  profileId: string;
  /** The button's whole value (`<profileId>` or `<profileId> <more>`). */
  value: string;
  /** Shows the outcome where the button was: the message (replace or ephemeral) or the App Home. */
  done(m: Message, how: "replace" | "ephemeral"): Promise<void>;
}

// A value is the profile id, or the profile id, a blank and more (Unsubscribe: the channel).
const profileIdOf = (req: ActionRequest) => (req.action.value ?? "").split(" ")[0] ?? "";

export function profileButton(
  action: ProfileAction,
  verb: string,
  work: (c: ProfileButton) => Promise<void>,
): ResourceButton {
  return {
    what: (req) => `Could not ${verb} for profile ${profileIdOf(req)}`,
    access: { action, resource: (req) => ({ kind: "profile", profileId: profileIdOf(req) }) },
    run: async (req) => {
      const profileId = profileIdOf(req);
      const done = async (m: Message, how: "replace" | "ephemeral") => {
        if (req.onHome) await publishHome(req);
        else await req.respond(how === "replace" ? replace(m) : ephemeral(m));
      };
      await work({ ...req, profileId, value: req.action.value ?? "", done });
    },
  };
}
