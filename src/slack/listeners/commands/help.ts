/** `/live help` and `/webhook help` (and a text that does not parse: its usage). Anyone allowed in the workspace. */
import { type Message, refusalMessage, usageError } from "../../../messages/index.js";
import { ephemeral } from "../../context.js";
import type { CommandHandler, CommandRequest } from "../../request.js";

export function helpHandler(
  command: "/live" | "/webhook",
  help: () => Message,
): CommandHandler<{ kind: "help" }> {
  return {
    what: () => `Could not answer ${command}`,
    uncounted: true,
    run: async (req: CommandRequest) => {
      const d = await req.deps.access.authorize(req.subject, "help", { kind: "workspace" });
      if (!d.allowed) await req.respond(ephemeral(refusalMessage(d)));
      else if (req.usage !== undefined) await req.respond(ephemeral(usageError(command, req.usage)));
      else await req.respond(ephemeral(help()));
    },
  };
}
