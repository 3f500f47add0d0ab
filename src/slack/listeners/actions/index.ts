/**
 * Buttons, by action id: Refresh on the livestream card (anyone), the webhook buttons and the App
 * Home's Unwatch (managers only; a person's own DM watch: that person), the App Home's forms and
 * Refresh. Each is authorized (src/access) before anything reaches the platform; a refused person
 * is told why, ephemerally, and nothing changes. The profile menu's choice: commands/webhook.
 */
import type { App, BlockButtonAction } from "@slack/bolt";
import type { BotDeps } from "../../../deps.js";
import { ACTIONS } from "../../../messages/index.js";
import { type ActionHandler, blockAction } from "../../request.js";
import { managersEdit, setup } from "./forms.js";
import { homeRefresh, liveRefresh } from "./refresh.js";
import { watchUnwatch, watchUnwatchDm } from "./unwatch.js";
import { editEvents, remove, removeCancel, test, unsubscribe } from "./webhook.js";

const BUTTONS: ReadonlyArray<readonly [string, ActionHandler]> = [
  [ACTIONS.liveRefresh, liveRefresh],
  [ACTIONS.webhookRemove, remove],
  [ACTIONS.webhookRemoveConfirm, remove],
  [ACTIONS.webhookTest, test],
  [ACTIONS.webhookUnsubscribe, unsubscribe],
  [ACTIONS.webhookEditEvents, editEvents],
  [ACTIONS.webhookSetup, setup],
  [ACTIONS.managersEdit, managersEdit],
  [ACTIONS.watchUnwatch, watchUnwatch],
  [ACTIONS.watchUnwatchDm, watchUnwatchDm],
  [ACTIONS.homeRefresh, homeRefresh],
  [ACTIONS.webhookRemoveCancel, removeCancel],
];

export function register(app: App, deps: BotDeps): void {
  for (const [id, handler] of BUTTONS) app.action<BlockButtonAction>(id, blockAction(deps, id, handler));
}
