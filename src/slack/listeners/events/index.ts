/**
 * Events API: the App Home tab, link previews (`link_shared`, src/slack/unfurl.ts), and forgetting a workspace when the app is uninstalled or its bot
 * token revoked (src/slack/uninstall.ts). `tokens_revoked` naming only user tokens changes nothing:
 * the bot asks for no user scopes, and its own token still works.
 */
import type { App } from "@slack/bolt";
import { type BotDeps, subjectOf } from "../../context.js";
import { publishHome } from "../../home.js";
import { type LinkSharedEvent, previewLinks } from "../../unfurl.js";
import { forgetWorkspace, type UninstallTarget } from "../../uninstall.js";

interface EventEnvelope {
  team_id?: string;
  enterprise_id?: string;
  is_enterprise_install?: boolean;
  authorizations?: Array<{
    team_id?: string | null;
    enterprise_id?: string | null;
    is_enterprise_install?: boolean;
  }>;
}

function target(body: EventEnvelope): UninstallTarget {
  const auth = body.authorizations?.[0];
  const isEnterpriseInstall = body.is_enterprise_install === true || auth?.is_enterprise_install === true;
  return {
    teamId: body.team_id ?? auth?.team_id ?? undefined,
    enterpriseId: body.enterprise_id ?? auth?.enterprise_id ?? undefined,
    isEnterpriseInstall,
  };
}

/**
 * Slack-signed lifecycle events: they forget a workspace and act on nobody's request, so they are
 * not authorized (every other event is, as an entry point of src/access).
 */
export const LIFECYCLE_EVENTS = ["app_uninstalled", "tokens_revoked"] as const;

export function register(app: App, deps: BotDeps): void {
  app.event("app_home_opened", async ({ event, body, client }) => {
    if (event.tab !== "home") return;
    const teamId = body.team_id ?? "";
    const log = deps.logger.child({ team: teamId, user: event.user, event: "app_home_opened" });
    // Authorized inside ("home.view"): a workspace that is not allowed is shown why.
    await publishHome(deps, subjectOf(client, body, event.user)).catch((err: unknown) =>
      log.error({ err }, "could not publish the App Home"),
    );
  });

  app.event("link_shared", async ({ event, body, client }) => {
    const teamId = body.team_id ?? "";
    const log = deps.logger.child({ team: teamId, user: event.user, event: "link_shared" });
    // Authorized inside ("link.unfurl", per livestream): refused or unknown = no preview.
    await previewLinks(deps, subjectOf(client, body, event.user), event as LinkSharedEvent, log);
  });

  app.event("app_uninstalled", async ({ body }) => {
    await forgetWorkspace(deps, target(body as EventEnvelope), "app_uninstalled");
  });

  app.event("tokens_revoked", async ({ event, body }) => {
    const bots = event.tokens.bot ?? [];
    const t = target(body as EventEnvelope);
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
