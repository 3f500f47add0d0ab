/**
 * The app was uninstalled from a workspace (`app_uninstalled`), or its bot token was revoked
 * (`tokens_revoked` naming bot tokens): the bot forgets the workspace.
 * More: README.md ("uninstall.ts").
 */
import { Counter } from "prom-client";
import { ReadRefusedError } from "../access/index.js";
import type { BotDeps } from "../deps.js";
import type { Logger } from "../log.js";
import type { Metrics } from "../metrics.js";
import { isOurCallback } from "../operations/webhook.js";
import { isPlatformError } from "../platform/index.js";
import type { ProfileSettings } from "../store/index.js";

export type WebhookOutcome = "removed" | "left_foreign" | "left_elsewhere" | "left_error";

export interface UninstallTarget {
  teamId: string | undefined;
  enterpriseId: string | undefined;
  isEnterpriseInstall: boolean;
}

const counters = new WeakMap<Metrics, Counter<"outcome">>();

function counterFor(metrics: Metrics | undefined): Counter<"outcome"> | undefined {
  if (!metrics) return undefined;
  let c = counters.get(metrics);
  if (!c) {
    c = new Counter({
      name: "bot_uninstall_webhooks_total",
      help: "Platform webhooks of uninstalled workspaces, by what the bot did (removed or left, and why)",
      labelNames: ["outcome"] as const,
      registers: [metrics.registry],
    });
    counters.set(metrics, c);
  }
  return c;
}

async function settleWebhook(
  deps: BotDeps,
  teamId: string,
  p: ProfileSettings,
): Promise<{ outcome: WebhookOutcome; reason: string }> {
  if (p.foreignUrl !== null || p.callbackId === null)
    return {
      outcome: "left_foreign",
      reason: "the workspace pointed it at its own URL, not at this bot; it does not depend on the app",
    };
  const callbackId = p.callbackId;
  try {
    // Charged to the workspace whose uninstall causes it.
    const webhook = await deps.platform.getProfileWebhook({ workspace: teamId }, p.profileId);
    if (!isOurCallback(deps.config.publicUrl, webhook.callback_url, callbackId))
      return {
        outcome: "left_elsewhere",
        reason: "it no longer points at this workspace's route (changed outside the bot)",
      };
    await deps.platform.removeWebhook(p.profileId);
    return { outcome: "removed", reason: "it pointed at this workspace's route" };
  } catch (err) {
    const why =
      err instanceof ReadRefusedError
        ? "the workspace's read budget is used up"
        : isPlatformError(err)
          ? `${err.kind} ${err.status} ${err.code}`
          : "unexpected error";
    return {
      outcome: "left_error",
      reason: `the platform call failed (${why}); it still points at a route that no longer exists: remove it on the platform`,
    };
  }
}

async function attempt(log: Logger, what: string, fn: () => Promise<unknown>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    log.error({ err }, `uninstall: could not ${what}`);
  }
}

export async function forgetWorkspace(deps: BotDeps, t: UninstallTarget, reason: string): Promise<void> {
  const log = deps.logger.child({ team: t.teamId, enterprise: t.enterpriseId, reason });
  const installations = deps.installations;
  if (installations) {
    await attempt(log, "delete the installation", () =>
      installations.deleteInstallation({
        teamId: t.teamId,
        enterpriseId: t.enterpriseId,
        isEnterpriseInstall: t.isEnterpriseInstall,
      }),
    );
  }
  const teamId = t.teamId;
  const watch = deps.watch;
  if (watch && teamId && !t.isEnterpriseInstall) {
    // Its live watches: its livestreams nobody else watches leave the schedule (not read again).
    await attempt(log, "remove the watches", () => watch.forgetTeam(teamId));
  }
  if (t.isEnterpriseInstall || !teamId) {
    log.warn("org-wide installation removed; per-workspace settings are kept (not listed in the event)");
    return;
  }
  let profiles: ProfileSettings[] = [];
  await attempt(log, "list the profiles", async () => {
    profiles = await deps.settings.listProfiles(teamId);
  });
  const counter = counterFor(deps.metrics);
  for (const p of profiles) {
    const { outcome, reason: why } = await settleWebhook(deps, teamId, p);
    counter?.inc({ outcome });
    log.warn(
      { profile: p.profileId, webhook: outcome, why },
      outcome === "removed"
        ? "uninstall: platform webhook removed"
        : "uninstall: platform webhook left in place",
    );
    const callbackId = p.callbackId;
    if (callbackId) await attempt(log, "delete a route", () => deps.callbacks.deleteById(callbackId));
    if (deps.activity) {
      const activity = deps.activity;
      await attempt(log, "delete activity", () => activity.remove(teamId, p.profileId));
    }
    await attempt(log, "release a claim", () => deps.settings.claims.release(p.profileId, teamId));
  }
  await attempt(log, "delete the settings", () => deps.settings.removeTeam(teamId));
  log.info({ profiles: profiles.length }, "workspace forgotten");
}
