/** `/live help` and `/webhook help` (and a text that does not parse: its usage). Anyone allowed in the workspace. */
import { type Message, usageError } from "../../../messages/index.js";
import { ephemeral } from "../../context.js";
import type { ResourceCommand } from "../../request.js";

export function helpHandler(
  command: "/live" | "/webhook",
  help: () => Message,
): ResourceCommand<{ kind: "help" }> {
  return {
    what: () => `Could not answer ${command}`,
    uncounted: true,
    access: { action: "help", resource: () => ({ kind: "workspace" }) },
    run: async (req) => {
      if (req.usage !== undefined) await req.respond(ephemeral(usageError(command, req.usage)));
      else await req.respond(ephemeral(help()));
    },
  };
}
