/**
 * `/webhook set|show|events|remove|test|managers|subscribe|unsubscribe|subscriptions|pause|resume|help`,
 * each subcommand's handler by name, and the profile menu's choice (pick.ts). A profile is named by
 * its id or its name; without one, the workspace's only profile is meant, else a menu (profile.ts).
 */
import type { App, BlockStaticSelectAction } from "@slack/bolt";
import type { BotDeps } from "../../../../deps.js";
import { ACTIONS, webhookHelp } from "../../../../messages/index.js";
import { blockAction, type FlowCommand, slashCommand } from "../../../request.js";
import { type ProfileCommand, parseWebhook, type WebhookCommand } from "../grammar.js";
import { helpHandler } from "../help.js";
import { managers } from "./managers.js";
import { pick } from "./pick.js";
import { ACTION_OF, chooseProfile } from "./profile.js";
import { runFor } from "./run.js";

/**
 * A profile command: which profile is meant, then the command for it, authorized as its action
 * (ACTION_OF) on that profile once it is known (a name is looked up, a menu may be offered).
 */
const forProfile: FlowCommand<ProfileCommand> = {
  what: (cmd) => `Could not run /webhook ${cmd.kind}${cmd.profile ? ` for profile ${cmd.profile}` : ""}`,
  access: { action: (cmd) => ACTION_OF[cmd.kind], inFlow: true },
  run: async (req, cmd) => {
    const id = await chooseProfile(req, cmd);
    if (id !== null) await runFor(req, cmd, id);
  },
};

export function register(app: App, deps: BotDeps): void {
  app.command(
    "/webhook",
    slashCommand<WebhookCommand>(deps, "/webhook", parseWebhook, {
      help: helpHandler("/webhook", webhookHelp),
      managers,
      set: forProfile,
      show: forProfile,
      events: forProfile,
      remove: forProfile,
      test: forProfile,
      subscribe: forProfile,
      unsubscribe: forProfile,
      subscriptions: forProfile,
      pause: forProfile,
      resume: forProfile,
    }),
  );
  app.action<BlockStaticSelectAction>(ACTIONS.profilePick, blockAction(deps, ACTIONS.profilePick, pick));
}
