/** Events API: the App Home tab. */
import type { App } from "@slack/bolt";
import type { BotDeps } from "../../context.js";
import { publishHome } from "../../home.js";

export function register(app: App, deps: BotDeps): void {
  app.event("app_home_opened", async ({ event, body, client }) => {
    if (event.tab !== "home") return;
    const teamId = body.team_id ?? "";
    const log = deps.logger.child({ team: teamId, user: event.user, event: "app_home_opened" });
    await publishHome(deps, client, teamId, event.user).catch((err: unknown) =>
      log.error({ err }, "could not publish the App Home"),
    );
  });
}
