/**
 * Events API: the App Home tab, link previews (`link_shared`, src/slack/unfurl.ts), and forgetting a
 * workspace when the app is uninstalled or its bot token revoked (src/slack/uninstall.ts).
 * `tokens_revoked` naming only user tokens changes nothing: the bot asks for no user scopes, and
 * its own token still works.
 */
import type { App } from "@slack/bolt";
import type { BotDeps } from "../../../deps.js";
import { forgetWorkspace, type UninstallTarget } from "../../../install/uninstall.js";
import type { AuthContext } from "../../context.js";
import { slackEvent } from "../../request.js";
import { publishHome } from "./home.js";
import { type LinkSharedEvent, previewLinks } from "./unfurl.js";

/**
 * The workspace or organization the app left: Bolt's context (for these events Bolt skips the
 * installation lookup and fills it from `authorizations[0]`, else the envelope's ids).
 */
function target(context: AuthContext & { isEnterpriseInstall?: boolean }): UninstallTarget {
  return {
    teamId: context.teamId,
    enterpriseId: context.enterpriseId,
    isEnterpriseInstall: context.isEnterpriseInstall === true,
  };
}

/**
 * Slack-signed lifecycle events: they forget a workspace and act on nobody's request, so they are
 * not authorized (every other event is, as an entry point of src/access).
 */
export const LIFECYCLE_EVENTS = ["app_uninstalled", "tokens_revoked"] as const;

export function register(app: App, deps: BotDeps): void {
  // Authorized inside ("home.view"): a workspace that is not allowed is shown why.
  app.event(
    "app_home_opened",
    slackEvent(deps, "app_home_opened", {
      wants: (event) => event.tab === "home",
      run: ({ subject }) => publishHome(deps, subject),
      failure: "could not publish the App Home",
    }),
  );

  // Authorized inside ("link.unfurl", per livestream): refused or unknown = no preview.
  app.event(
    "link_shared",
    slackEvent(deps, "link_shared", {
      run: ({ subject, event, log }) => previewLinks(deps, subject, event as LinkSharedEvent, log),
    }),
  );

  app.event(
    "app_uninstalled",
    slackEvent(deps, "app_uninstalled", {
      run: ({ context }) => forgetWorkspace(deps, target(context), "app_uninstalled"),
    }),
  );

  app.event(
    "tokens_revoked",
    slackEvent(deps, "tokens_revoked", {
      run: async ({ event, context, log }) => {
        const bots = event.tokens.bot ?? [];
        const t = target(context);
        if (bots.length === 0) {
          log.info(
            { users: event.tokens.oauth?.length ?? 0 },
            "user tokens revoked; the bot's installation is kept",
          );
          return;
        }
        await forgetWorkspace(deps, t, "tokens_revoked");
      },
    }),
  );
}
