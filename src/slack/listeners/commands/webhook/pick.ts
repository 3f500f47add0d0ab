/** A profile chosen from the menu (ACTIONS.profilePick): the carried command runs with it, authorized again. */
import type { StaticSelectAction } from "@slack/bolt";
import { pickNotValidMessage, refusalMessage } from "../../../../messages/index.js";
import { ephemeral, type Reply } from "../../../context.js";
import type { ActionHandler, ActionRequest } from "../../../request.js";
import { ctxOf } from "./ctx.js";
import { decodePick } from "./pick-codec.js";
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

export const pick: ActionHandler<StaticSelectAction> = {
  what: (req) => {
    const chosen = chosenOf(req);
    const cmd = decodePick(req.action.block_id, chosen);
    return `Could not run /webhook ${cmd?.kind ?? ""}${chosen ? ` for profile ${chosen}` : ""}`;
  },
  answerTo: inPlace,
  run: async (req) => {
    const reply = inPlace(req);
    const chosen = chosenOf(req);
    const cmd = decodePick(req.action.block_id, chosen);
    if (cmd === null || chosen === undefined) {
      req.log.info({ blockId: req.action.block_id.slice(0, 80) }, "a choice that reads as no command");
      const d = await req.deps.access.authorize(req.subject, "help", { kind: "workspace" });
      await reply(ephemeral(d.allowed ? pickNotValidMessage() : refusalMessage(d)));
      return;
    }
    await runFor(ctxOf(req, reply, req.body.trigger_id || undefined), cmd, chosen);
  },
};
