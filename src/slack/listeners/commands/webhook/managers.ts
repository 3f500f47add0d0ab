/** `/webhook managers [list|add|remove @person]`: the workspace's added managers. */
import { managersMessage } from "../../../../messages/index.js";
import { ephemeral } from "../../../context.js";
import type { ResourceCommand } from "../../../request.js";
import type { WebhookCommand } from "../grammar.js";

export const managers: ResourceCommand<Extract<WebhookCommand, { kind: "managers" }>> = {
  what: () => "Could not run /webhook managers",
  access: {
    action: (cmd) => (cmd.action === "list" ? "managers.list" : "managers.change"),
    resource: () => ({ kind: "workspace" }),
  },
  run: async ({ deps, subject, respond }, cmd) => {
    const { teamId, userId } = subject;
    if (cmd.action === "add") await deps.settings.addManager(teamId, cmd.userId, userId, deps.now());
    else if (cmd.action === "remove") await deps.settings.removeManager(teamId, cmd.userId);
    const added = await deps.settings.listManagers(teamId);
    await respond(ephemeral(managersMessage({ configured: deps.config.access.managerUserIds, added })));
  },
};
