/**
 * Events API: the App Home tab, link previews (`link_shared`, src/slack/unfurl.ts), and forgetting a workspace when the app is uninstalled or its bot
 * token revoked (src/slack/uninstall.ts). `tokens_revoked` naming only user tokens changes nothing:
 * the bot asks for no user scopes, and its own token still works.
 */
import type { App } from "@slack/bolt";
import { type AuthContext, type BotDeps, subjectOf } from "../../context.js";
import { publishHome } from "../../home.js";
import { type LinkSharedEvent, previewLinks } from "../../unfurl.js";
import { forgetWorkspace, type UninstallTarget } from "../../uninstall.js";

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
  app.event("app_home_opened", async ({ event, body, client, context }) => {
    if (event.tab !== "home") return;
    const subject = subjectOf(client, context, body);
    const log = deps.logger.child({ team: subject.teamId, user: subject.userId, event: "app_home_opened" });
    // Authorized inside ("home.view"): a workspace that is not allowed is shown why.
    await publishHome(deps, subject).catch((err: unknown) =>
      log.error({ err }, "could not publish the App Home"),
    );
  });

  app.event("link_shared", async ({ event, body, client, context }) => {
    const subject = subjectOf(client, context, body);
    const log = deps.logger.child({ team: subject.teamId, user: subject.userId, event: "link_shared" });
    // Authorized inside ("link.unfurl", per livestream): refused or unknown = no preview.
    await previewLinks(deps, subject, event as LinkSharedEvent, log);
  });

  app.event("app_uninstalled", async ({ context }) => {
    await forgetWorkspace(deps, target(context), "app_uninstalled");
  });

  app.event("tokens_revoked", async ({ event, context }) => {
    const bots = event.tokens.bot ?? [];
    const t = target(context);
    if (bots.length === 0) {
      deps.logger.info(
        { team: t.teamId, users: event.tokens.oauth?.length ?? 0 },
        "user tokens revoked; the bot's installation is kept",
      );
      return;
    }
    await forgetWorkspace(deps, t, "tokens_revoked");
  });
}
