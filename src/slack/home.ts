/**
 * The App Home tab: every configured profile of the workspace with its channel, events, last
 * delivery and 24 h counts, the platform connection's health, the live watches with their state
 * (and a line when reading them fails), and (for managers) the buttons.
 */
import type { Subject } from "../access/index.js";
import { isPlatformError } from "../platform/index.js";
import { describePlatformError, homeView } from "./blocks/index.js";
import type { BotDeps } from "./context.js";
import { refreshFailureOf } from "./rotation.js";

const HEALTH_TTL_MS = 30_000;
let health: { at: number; value: Parameters<typeof homeView>[0]["platform"] } | undefined;

/** Whether a platform token can be obtained, cached for 30 s. */
async function platformHealth(deps: BotDeps): Promise<Parameters<typeof homeView>[0]["platform"]> {
  const now = Date.now();
  if (health && now - health.at < HEALTH_TTL_MS) return health.value;
  let value: Parameters<typeof homeView>[0]["platform"];
  try {
    await deps.platform.checkToken();
    value = { ok: true, grantedScopes: deps.platform.tokens.grantedScopes };
  } catch (err) {
    value = {
      ok: false,
      message: isPlatformError(err) ? describePlatformError(err) : "the token service failed",
    };
  }
  health = { at: now, value };
  return value;
}

export async function publishHome(deps: BotDeps, subject: Subject): Promise<void> {
  const { client, teamId, userId } = subject;
  const now = deps.now();
  const decision = await deps.access.authorize(subject, "home.view", { kind: "workspace" });
  if (!decision.allowed) {
    // A workspace that is not allowed sees why, and nothing else (no platform health check).
    await client.views.publish({
      user_id: userId,
      view: { type: "home", blocks: [{ type: "section", text: { type: "mrkdwn", text: decision.text } }] },
    });
    return;
  }
  const [profiles, added, platform, installation, watches] = await Promise.all([
    deps.settings.listProfiles(teamId),
    deps.settings.listManagers(teamId),
    platformHealth(deps),
    // Multi-workspace mode: a failed token refresh is shown (src/slack/rotation.ts).
    deps.installations?.find({ teamId, enterpriseId: subject.enterpriseId }).catch(() => undefined),
    deps.watch ? deps.watch.list(teamId, subject.enterpriseId) : Promise.resolve([]),
  ]);
  // The health line names only this workspace's livestreams.
  const mine = new Set(watches.map((w) => w.livestreamId));
  const failing = deps.watch?.health().failing.filter((f) => mine.has(f.livestreamId)) ?? [];
  const rows = await Promise.all(
    profiles.map(async (p) => {
      const a = deps.activity
        ? await deps.activity.summary(teamId, p.profileId, now.getTime())
        : { lastDeliveryAt: null, received24h: 0, posted24h: 0, failed24h: 0 };
      return { ...p, ...a };
    }),
  );
  const view = homeView({
    now,
    isManager: decision.manager,
    platform,
    profiles: rows,
    managers: { configured: [...deps.config.managerUserIds], added: added.map((m) => m.userId) },
    tokenRefreshFailure: refreshFailureOf(installation),
    watches,
    watchHealth: { failing },
  });
  await client.views.publish({ user_id: userId, view });
}
