/**
 * The App Home tab: every configured profile of the workspace (by name) with its channel, events,
 * last delivery and 24 h counts, the platform connection's health and the scopes the bot works
 * without (video titles off without `video.read`, and how to grant it), the live watches with
 * their state (the channels', and the viewer's own DM watches; a line when reading them fails),
 * and (for managers) the buttons.
 */
import type { BotDeps } from "../../../deps.js";
import { refreshFailureOf } from "../../../install/rotation.js";
import { describePlatformError, homeView, refusalText, refusedHomeView } from "../../../messages/index.js";
import { modeClock } from "../../../operations/modes.js";
import { profileLabel, withProfileNames } from "../../../operations/profiles.js";
import { grantAdvice, isPlatformError } from "../../../platform/index.js";
import type { Request } from "../../shape.js";

const HEALTH_TTL_MS = 30_000;
/** One per bot (its platform client): two bots in one process (tests) never share it. */
const healthOf = new WeakMap<BotDeps, { at: number; value: Parameters<typeof homeView>[0]["platform"] }>();

/** Whether a platform token can be obtained, and the scopes it lacks, cached for 30 s. */
async function platformHealth(deps: BotDeps): Promise<Parameters<typeof homeView>[0]["platform"]> {
  const now = Date.now();
  const health = healthOf.get(deps);
  if (health && now - health.at < HEALTH_TTL_MS) return health.value;
  let value: Parameters<typeof homeView>[0]["platform"];
  try {
    await deps.platform.checkToken();
    value = {
      ok: true,
      grantedScopes: deps.platform.grantedScopes(),
      withheld: deps.platform
        .withheldScopes()
        .map((w) => ({ scope: w.scope, advice: grantAdvice(w.scope, w.reason) })),
    };
  } catch (err) {
    value = {
      ok: false,
      message: isPlatformError(err) ? describePlatformError(err) : "the token service failed",
    };
  }
  healthOf.set(deps, { at: now, value });
  return value;
}

/** Publishes the App Home for the person asking, authorized (through the request) as "home.view". */
export async function publishHome(req: Request): Promise<void> {
  const { deps, subject } = req;
  const { client, teamId, userId } = subject;
  const now = deps.now();
  const decision = await req.authorize("home.view", { kind: "workspace" });
  if (!decision.allowed) {
    // A workspace that is not allowed sees why, and nothing else (no platform health check).
    await client.views.publish({
      user_id: userId,
      view: refusedHomeView(refusalText(decision)),
    });
    return;
  }
  const [profiles, added, platform, installation, watches] = await Promise.all([
    deps.settings.listProfiles(teamId),
    deps.settings.listManagers(teamId),
    platformHealth(deps),
    // Multi-workspace mode: a failed token refresh is shown (src/install/rotation.ts).
    deps.installations?.find({ teamId, enterpriseId: subject.enterpriseId }).catch(() => undefined),
    deps.watch
      ? deps.watch.list(teamId, subject.enterpriseId, userId).then((w) => withProfileNames(req, w))
      : Promise.resolve([]),
  ]);
  // The health line names only this workspace's livestreams.
  const mine = new Set(watches.map((w) => w.livestreamId));
  const failing = deps.watch?.health().failing.filter((f) => mine.has(f.livestreamId)) ?? [];
  const rows = await Promise.all(
    profiles.map(async (p) => {
      // A profile no longer bound to the workspace keeps its id: its name is not read.
      const [a, name] = await Promise.all([
        deps.activity
          ? deps.activity.summary(teamId, p.profileId, now.getTime())
          : { lastDeliveryAt: null, received24h: 0, posted24h: 0, failed24h: 0 },
        req.profileBound(p.profileId) ? profileLabel(req, p.profileId) : undefined,
      ]);
      return { ...p, ...a, name };
    }),
  );
  const view = homeView({
    now,
    isManager: decision.manager,
    platform,
    profiles: rows,
    managers: { configured: [...deps.config.access.managerUserIds], added: added.map((m) => m.userId) },
    tokenRefreshFailure: refreshFailureOf(installation),
    watches,
    watchHealth: { failing },
    modeClock: modeClock(deps),
  });
  await client.views.publish({ user_id: userId, view });
}
