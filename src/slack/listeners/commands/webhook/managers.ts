/** `/webhook managers [list|add|remove @person]`: the workspace's added managers. */
import { managersMessage } from "../../../../messages/index.js";
import { ephemeral } from "../../../context.js";
import type { CommandHandler } from "../../../request.js";
import type { WebhookCommand } from "../grammar.js";
import { allowed, ctxOf } from "./ctx.js";

export const managers: CommandHandler<Extract<WebhookCommand, { kind: "managers" }>> = {
  what: () => "Could not run /webhook managers",
  run: async (req, cmd) => {
    const ctx = ctxOf(req, req.respond, req.triggerId);
    const { deps, respond } = ctx;
    if (cmd.action === "list") {
      if (!(await allowed(ctx, "managers.list", { kind: "workspace" }))) return;
      const added = await deps.settings.listManagers(ctx.teamId);
      await respond(ephemeral(managersMessage({ configured: deps.config.managerUserIds, added })));
      return;
    }
    if (!(await allowed(ctx, "managers.change", { kind: "workspace" }))) return;
    if (cmd.action === "add") await deps.settings.addManager(ctx.teamId, cmd.userId, ctx.userId, deps.now());
    else await deps.settings.removeManager(ctx.teamId, cmd.userId);
    const added = await deps.settings.listManagers(ctx.teamId);
    await respond(ephemeral(managersMessage({ configured: deps.config.managerUserIds, added })));
  },
};
