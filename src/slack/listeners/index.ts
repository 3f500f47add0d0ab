/** Registers every Slack surface's listeners on the app. */
import type { App } from "@slack/bolt";
import type { BotDeps } from "../../deps.js";
import { register as actions } from "./actions/index.js";
import { register as live } from "./commands/live/index.js";
import { register as webhook } from "./commands/webhook/index.js";
import { register as events } from "./events/index.js";
import { register as functions } from "./functions/index.js";
import { register as views } from "./views/index.js";

export function registerListeners(app: App, deps: BotDeps): void {
  live(app, deps);
  webhook(app, deps);
  actions(app, deps);
  views(app, deps);
  events(app, deps);
  functions(app, deps);
}
