/** Modal submissions, by callback id (forms.ts): each acked with its errors or the saving view. */
import type { App } from "@slack/bolt";
import type { BotDeps } from "../../../deps.js";
import { VIEWS } from "../../../messages/index.js";
import { viewSubmission } from "../../request.js";
import { eventsSubmission, managersSubmission, setupSubmission } from "./forms.js";

export function register(app: App, deps: BotDeps): void {
  app.view(VIEWS.eventsModal, viewSubmission(deps, VIEWS.eventsModal, eventsSubmission));
  app.view(VIEWS.setupModal, viewSubmission(deps, VIEWS.setupModal, setupSubmission));
  app.view(VIEWS.managersModal, viewSubmission(deps, VIEWS.managersModal, managersSubmission));
}
