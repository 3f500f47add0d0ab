/**
 * Events API: the App Home tab, link previews (`link_shared`, unfurl.ts) and their details pane
 * (`entity_details_requested`, details.ts), and forgetting a
 * workspace when the app is uninstalled or its bot token revoked (src/install/uninstall.ts).
 * `tokens_revoked` naming only user tokens changes nothing: the bot asks for no user scopes, and
 * its own token still works.
 */
import type { App } from "@slack/bolt";
import type { BotDeps } from "../../../deps.js";
import { forgetWorkspace, type UninstallTarget } from "../../../install/uninstall.js";
import type { AuthContext } from "../../context.js";
import { slackEvent } from "../../request.js";
import { type EntityDetailsEvent, presentDetails } from "./details.js";
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

export function register(app: App, deps: BotDeps): void {
  // Authorized inside ("home.view"): a workspace that is not allowed is shown why.
  app.event(
    "app_home_opened",
    slackEvent(deps, "app_home_opened", {
      access: { action: "home.view", inFlow: true },
      wants: (event) => event.tab === "home",
      run: (req) => publishHome(req),
      failure: "could not publish the App Home",
    }),
  );

  // Authorized inside ("link.unfurl", per livestream): refused or unknown = no preview.
  app.event(
    "link_shared",
    slackEvent(deps, "link_shared", {
      access: { action: "link.unfurl", inFlow: true },
      run: (req) => previewLinks(req, req.event as LinkSharedEvent),
    }),
  );

  // A previewed link's Work Object opened: its details pane, read fresh for whoever opened it
  // (authorized inside, "link.details" / "link.video.details"; unknown or unbound = not_found).
  app.event(
    "entity_details_requested",
    slackEvent(deps, "entity_details_requested", {
      access: {
        action: (event) => (event.external_ref?.type === "video" ? "link.video.details" : "link.details"),
        inFlow: true,
      },
      run: (req) => presentDetails(req, req.event as EntityDetailsEvent),
      failure: "could not answer a link's details pane",
    }),
  );

  app.event(
    "app_uninstalled",
    slackEvent(deps, "app_uninstalled", {
      access: { lifecycle: true },
      run: ({ context }) => forgetWorkspace(deps, target(context), "app_uninstalled"),
    }),
  );

  app.event(
    "tokens_revoked",
    slackEvent(deps, "tokens_revoked", {
      access: { lifecycle: true },
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
