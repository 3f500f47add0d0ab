/**
 * An uninstall whose clean-up of the watches fails (a store failure injected into the registry's
 * removeTeam, the call forgetWorkspace makes) still stops the reads: every poll asks whether the
 * workspace is still installed (src/access `revoked`: its installation), not only the
 * configuration, so within one watch interval its channel and DM watches end (removed from the
 * registry, no notice: the app is gone from the workspace) and the livestream is read no more.
 * Multi-workspace mode over real HTTP: the OAuth install flow, signed commands and events, the
 * platform sandbox's request log, the Slack stand-in.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { eventually, waitFor } from "../support/harness.js";
import { readsSettled, untilElapsed } from "../support/polls.js";
import { type OAuthBot, startOAuthBot } from "./helper.js";

const TEAM = "T0STANDIN";
const L = SEED.livestreams.offAir; // studio's, bound to the workspace (OAUTH_ENV)
const INTERVAL = 1000;
/** One interval (±10 % jitter), a tick, and room for a loaded machine. */
const WITHIN = INTERVAL * 1.1 + 1500;

let b: OAuthBot | undefined;
afterEach(async () => {
  await b?.close();
  b = undefined;
});

const gets = (bot: OAuthBot) =>
  bot.sandbox.requests.filter((r) => r.method === "GET" && r.path === `/v2/livestreams/${L}`).length;

async function command(bot: OAuthBot, text: string, user: string) {
  const r = await bot.slash("/live", text, { team: TEAM, user, channel: "C0NEWS" });
  return JSON.stringify(await bot.answer(r.responseUrl));
}

describe("app_uninstalled whose watch clean-up fails", () => {
  it("stops the reads within one interval and ends the workspace's watches", async () => {
    const bot = await startOAuthBot({ env: { LIVE_WATCH_INTERVAL_MS: String(INTERVAL) } });
    b = bot;
    expect((await bot.install()).status).toBe(200);
    expect(await command(bot, `watch ${L}`, "U0ADMIN")).toContain("in_channel");
    expect(await command(bot, `watch ${L} dm`, "U0MEMBER")).toContain("You will get a DM");
    await waitFor(() => gets(bot) >= 2, 5000, "a first poll (after the authorizing reads)");
    const watch = bot.built.watch;
    if (!watch) throw new Error("no watch");
    expect(await watch.registry.watchers(L)).toHaveLength(2);

    // The store fails the one clean-up of the watches.
    const removeTeam = vi
      .spyOn(watch.registry, "removeTeam")
      .mockRejectedValueOnce(new Error("store unavailable (injected)"));
    expect((await bot.event({ type: "app_uninstalled" }, TEAM)).status).toBe(200);
    await eventually(
      async () => (await bot.installations.find({ teamId: TEAM })) === undefined,
      5000,
      "the installation deleted",
    );
    await waitFor(
      () => bot.logs.some((l) => l.includes("uninstall: could not remove the watches")),
      5000,
      "the failed clean-up",
    );
    expect(removeTeam).toHaveBeenCalledTimes(1);
    const slackCalls = bot.slack.calls.length;

    // Within one interval the poll finds the workspace uninstalled: both watches end.
    const started = Date.now();
    await eventually(
      async () => (await watch.registry.livestreams()).length === 0,
      WITHIN,
      "the watches ended",
    );
    expect(Date.now() - started).toBeLessThan(WITHIN);
    expect(await watch.registry.listTeam(TEAM)).toEqual([]);
    await readsSettled(bot, L); // a read under way may finish
    const reads = gets(bot);
    // Not watched: no poll of it to count; 3 intervals of wall time, as the schedule measures it.
    await untilElapsed(Date.now(), INTERVAL * 3);
    expect(gets(bot)).toBe(reads);
    // Nothing more to the workspace (its token is gone): no notice, no DM, no update.
    const after = bot.slack.calls.slice(slackCalls).map((c) => c.method);
    expect(after.filter((m) => m.startsWith("chat."))).toEqual([]);
    expect(bot.logs.some((l) => l.includes("watch ended: the app is no longer installed"))).toBe(true);
  }, 30_000);
});
