/**
 * Workflow Builder steps (manifest.yml, `functions`): `livestream_status`, `wait_until_live` and
 * `wait_until_off_air`, each through the request wrapper's `slackFunction` (Bolt's `app.function`).
 */
import type { App } from "@slack/bolt";
import type { BotDeps } from "../../../deps.js";
import { slackFunction } from "../../request.js";
import { livestreamStatus } from "./status.js";
import { waitStep } from "./wait.js";

export function register(app: App, deps: BotDeps): void {
  app.function("livestream_status", slackFunction(deps, "livestream_status", livestreamStatus));
  for (const kind of ["wait_until_live", "wait_until_off_air"] as const)
    app.function(kind, slackFunction(deps, kind, waitStep(kind)));
}
