/** A profile chosen from the menu (ACTIONS.profilePick): the carried command runs with it, authorized again. */
import type { StaticSelectAction } from "@slack/bolt";
import { pickNotValidMessage, refusalMessage } from "../../../../messages/index.js";
import { ephemeral, type Reply } from "../../../context.js";
import type { ActionRequest, FlowButton } from "../../../request.js";
import { decodePick } from "./pick-codec.js";
import { ACTION_OF } from "./profile.js";
import { runFor } from "./run.js";

/** The answer takes the menu's place; for a message to the channel, the menu goes first. */
function inPlace(req: ActionRequest<StaticSelectAction>): Reply {
  return async (args) => {
    if (args.response_type === "in_channel") {
      await req.respond({ delete_original: true });
      await req.respond(args);
    } else await req.respond({ ...args, replace_original: true });
  };
}

const chosenOf = (req: ActionRequest<StaticSelectAction>) => req.action.selected_option?.value;

/** The carried command's action, once the chosen profile is known; "help" for a choice that reads as none. */
export const pick: FlowButton<StaticSelectAction> = {
  what: (req) => {
    const chosen = chosenOf(req);
    const cmd = decodePick(req.action.block_id, chosen);
    return `Could not run /webhook ${cmd?.kind ?? ""}${chosen ? ` for profile ${chosen}` : ""}`;
  },
  answerTo: inPlace,
  access: {
    action: (req) => {
      const cmd = decodePick(req.action.block_id, chosenOf(req));
      return cmd ? ACTION_OF[cmd.kind] : "help";
    },
    inFlow: true,
  },
  run: async (req) => {
    const reply = inPlace(req);
    const chosen = chosenOf(req);
    const cmd = decodePick(req.action.block_id, chosen);
    if (cmd === null || chosen === undefined) {
      req.log.info({ blockId: req.action.block_id.slice(0, 80) }, "a choice that reads as no command");
      const d = await req.authorize("help", { kind: "workspace" });
      await reply(ephemeral(d.allowed ? pickNotValidMessage() : refusalMessage(d)));
      return;
    }
    await runFor({ ...req, respond: reply, triggerId: req.body.trigger_id || undefined }, cmd, chosen);
  },
};
