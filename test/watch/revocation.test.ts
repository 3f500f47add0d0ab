/**
 * Access to a watched livestream is decided again at every poll, over the real path
 * (multi-workspace mode, the OAuth install flow, a real sqlite file, signed commands, the platform
 * sandbox's request log, the Slack stand-in): the bot is restarted on the same store with new
 * PROFILE_BINDINGS (the profile moved from A to B), or with A removed from ALLOWED_WORKSPACES.
 * Within one interval A's channel gets exactly one notice naming the livestream by its id only,
 * nothing else (no "is live", no update of its message), the livestream is not read for nobody,
 * `/live watching` and the App Home no longer show it, and B can watch it. Then: two replicas on
 * one Redis send the notice once; `app_uninstalled` stops the reads of the workspace's watches.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import type { Config, StoreUrl } from "../../src/config.js";
import { ACTIONS } from "../../src/messages/index.js";
import { type OAuthBot, startOAuthBot } from "../oauth/helper.js";
import { type Bot, eventually, type Harness, startBot, startHarness, waitFor } from "../support/harness.js";
import { afterPolls, readsSettled, untilElapsed } from "../support/polls.js";

const A = "T0STANDIN";
const B = "T0BETA";
const A_ADMIN = { team: A, user: "U0ADMIN", channel: "C0NEWS" };
const B_ADMIN = { team: B, user: "U0BETAADM", channel: "C0GENERAL" };
const STUDIO = SEED.profiles.studio;
const NEWSROOM = SEED.profiles.newsroom;
const L = SEED.livestreams.offAir; // studio's
const TITLE = "Studio Session";
const INTERVAL = 1000;
/** One interval (the first reads after a start are spread over one), a tick, and room for a loaded machine. */
const WITHIN = INTERVAL + 1500;

const dir = mkdtempSync(join(tmpdir(), "watch-revoked-"));
let files = 0;
const newStore = (): StoreUrl => {
  const path = join(dir, `bot-${++files}.sqlite`);
  return { kind: "sqlite", path, url: `sqlite://${path}` };
};
let b: OAuthBot | undefined;
afterEach(async () => {
  await b?.close();
  b = undefined;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const json = (v: unknown) => JSON.stringify(v);
const env = (allowed: string, bindings: string) => ({
  ALLOWED_WORKSPACES: allowed,
  PROFILE_BINDINGS: bindings,
  LIVE_WATCH_INTERVAL_MS: String(INTERVAL),
  LIVE_OFFAIR_GRACE_MS: "1000",
});
const gets = (bot: Harness, id: string) =>
  bot.sandbox.requests.filter((r) => r.method === "GET" && r.path === `/v2/livestreams/${id}`).length;
/** What the bot posted or changed in a channel on its own (not answers on response_url). */
const posts = (bot: Harness, ch: string) =>
  bot.slack.callsTo("chat.postMessage").filter((c) => c.args.channel === ch);
/** The messages everyone in the channel sees (not ephemeral answers). */
const channelMessages = (bot: Harness, ch: string) =>
  bot.slack.messages(ch).filter((m) => m.ephemeralTo === undefined);
const updates = (bot: Harness, ch: string) =>
  bot.slack.callsTo("chat.update").filter((c) => c.args.channel === ch);

async function command(bot: OAuthBot, text: string, who: { team: string; user: string; channel: string }) {
  const r = await bot.slash("/live", text, who);
  return bot.answer(r.responseUrl);
}

/** A's admin watches L in C0NEWS (A bound to studio) and sees it announced live. */
async function watchedByA(store: StoreUrl, allowed: string, bindings: string): Promise<void> {
  b = await startOAuthBot({ store, env: env(allowed, bindings) });
  expect((await b.install()).status).toBe(200);
  expect((await b.install(B)).status).toBe(200);
  const answer = await command(b, `watch ${L}`, A_ADMIN);
  expect(answer.response_type).toBe("in_channel");
  b.sandbox.live(L, { action: "on_air" });
  await waitFor(
    () => posts(b as OAuthBot, "C0NEWS").some((c) => json(c.args).includes("is live")),
    5000,
    "live",
  );
  await b.close();
  b = undefined;
}

/**
 * The bot restarted on `store` with `vars`, the poller not started yet. The Slack stand-in is new
 * too and knows none of the tokens it issued before: both installations get one it accepts.
 */
async function restarted(store: StoreUrl, vars: Record<string, string>): Promise<OAuthBot> {
  const bot = await startOAuthBot({ store, env: vars, watch: { manual: true } });
  await bot.addWorkspace(A);
  await bot.addWorkspace(B);
  return bot;
}

/** After a restart with revoked access and the poller started: the notice, and nothing else. */
async function expectOneNotice(bot: OAuthBot, readsBefore: number) {
  const started = Date.now();
  await bot.built.watch?.start();
  const notice = await waitFor(() => channelMessages(bot, "C0NEWS")[0], WITHIN, "the notice");
  expect(Date.now() - started).toBeLessThan(WITHIN);
  const text = json(notice);
  expect(text).toContain(L);
  expect(text).toContain("no longer has access");
  expect(text).not.toContain(TITLE);
  expect(text).not.toMatch(/on air|live since|recording|ads? /i);
  // Read for nobody: no poll of it to count; 2.5 intervals of wall time, as the schedule measures it.
  await untilElapsed(Date.now(), INTERVAL * 2.5);
  expect(channelMessages(bot, "C0NEWS")).toHaveLength(1);
  expect(posts(bot, "C0NEWS")).toHaveLength(1);
  expect(updates(bot, "C0NEWS")).toHaveLength(0);
  // Nobody may watch it: not read at all since the restart.
  expect(gets(bot, L)).toBe(readsBefore);
  expect(await bot.built.watch?.registry.livestreams()).toEqual([]);
}

describe("a restart with the profile bound to another workspace", () => {
  it("ends A's watch with one notice, shows it no more, reads it for nobody; B can watch it", async () => {
    const store = newStore();
    await watchedByA(store, `${A},${B}`, `${A}=${STUDIO};${B}=${NEWSROOM}`);
    b = await restarted(store, env(`${A},${B}`, `${A}=${NEWSROOM};${B}=${STUDIO}`));
    b.slack.addUser({ id: B_ADMIN.user, team_id: B, name: "beta-admin", is_admin: true });
    b.sandbox.live(L, { action: "on_air" });
    // Before any poll: A's list and Home no longer show it (the registry still has it).
    expect(await b.built.watch?.registry.listTeam(A)).toHaveLength(1);
    expect(json(await command(b, "watching", A_ADMIN))).toContain("watches no livestream");
    await b.press(ACTIONS.homeRefresh, "", { home: true, team: A });
    const home = await waitFor(() => b?.slack.callsTo("views.publish")[0], 5000, "App Home");
    expect(json(home.args)).not.toContain(L);

    await expectOneNotice(b, 0);

    // B, now bound to the profile, watches it: one authorizing read, then announced in its channel.
    const answer = await command(b, `watch ${L}`, B_ADMIN);
    expect(answer.response_type).toBe("in_channel");
    const live = await waitFor(
      () => posts(b as OAuthBot, "C0GENERAL").find((c) => json(c.args).includes("is live")),
      WITHIN,
      "B's live message",
    );
    expect(json(live.args)).toContain(TITLE);
    expect(posts(b, "C0NEWS")).toHaveLength(1);
  }, 60_000);
});

describe("a restart without the workspace in ALLOWED_WORKSPACES", () => {
  it("ends its watch with one notice and reads the livestream for nobody", async () => {
    const store = newStore();
    await watchedByA(store, `${A},${B}`, `${A}=${STUDIO};${B}=${STUDIO}`);
    b = await restarted(store, env(B, `${A}=${STUDIO};${B}=${STUDIO}`));
    b.sandbox.live(L, { action: "on_air" });
    await expectOneNotice(b, 0);
  }, 60_000);
});

describe("the livestream moved to a profile the workspace is not bound to", () => {
  it("is decided again with the profile the read returns: one notice, no live message, no more reads", async () => {
    const h = await startHarness({
      env: { PROFILE_BINDINGS: `${A}=${STUDIO}`, LIVE_WATCH_INTERVAL_MS: String(INTERVAL) },
    });
    try {
      const r = await h.slash("/live", `watch ${L}`, { channel: "C0NEWS" });
      expect((await h.answer(r.responseUrl)).response_type).toBe("in_channel");
      await waitFor(() => gets(h, L) >= 2, WITHIN, "a first poll");
      const ls = h.sandbox.state.livestreams.get(L);
      if (!ls) throw new Error("no livestream");
      ls.profile_id = NEWSROOM;
      h.sandbox.live(L, { action: "on_air" });
      const shown = channelMessages(h, "C0NEWS").length; // the command's answer
      const moved = Date.now();
      const notice = await waitFor(() => channelMessages(h, "C0NEWS")[shown], WITHIN, "the notice");
      expect(Date.now() - moved).toBeLessThan(WITHIN);
      expect(json(notice)).toContain("no longer has access");
      expect(json(notice)).not.toContain(TITLE);
      const reads = gets(h, L);
      // Read for nobody: no poll of it to count; 2.5 intervals of wall time, as the schedule measures it.
      await untilElapsed(Date.now(), INTERVAL * 2.5);
      expect(channelMessages(h, "C0NEWS")).toHaveLength(shown + 1);
      expect(updates(h, "C0NEWS")).toHaveLength(0);
      expect(gets(h, L)).toBe(reads);
    } finally {
      await h.close();
    }
  }, 60_000);
});

describe("two replicas on one Redis", () => {
  const ns = `watch-revoked-${process.pid}-${randomBytes(3).toString("hex")}`;
  let h: Harness | undefined;
  const bots: Bot[] = [];
  afterAll(async () => {
    for (const x of bots) await x.close().catch(() => undefined);
    const redis = h?.store.backend.redis;
    const keys = (await redis?.keys(`${ns}*`)) ?? [];
    if (keys.length > 0) await redis?.del(keys);
    await h?.close();
  });

  it("send the notice once", async () => {
    h = await startHarness({ env: { PROFILE_BINDINGS: `${A}=${STUDIO}` } });
    const base: Config = {
      ...h.config,
      store: { kind: "redis", url: "redis://127.0.0.1:6379" },
      watch: { ...h.config.watch, intervalMs: INTERVAL, offAirGraceMs: 1000 },
    };
    const first = await startBot(base, h.logger, { namespace: ns, watch: { manual: true } });
    bots.push(first);
    await first.built.watch?.watch({
      teamId: A,
      channelId: "C0NEWS",
      livestreamId: L,
      profileId: STUDIO,
      by: "U0ADMIN",
    });
    await first.close();
    bots.pop();
    const moved: Config = { ...base, access: { ...base.access, profileBindings: { [A]: [NEWSROOM] } } };
    for (let i = 0; i < 2; i++) bots.push(await startBot(moved, h.logger, { namespace: ns }));
    await waitFor(() => posts(h as Harness, "C0NEWS")[0], WITHIN, "the notice");
    // Read for nobody: no poll of it to count; 2.5 intervals of wall time, as the schedule measures it.
    await untilElapsed(Date.now(), INTERVAL * 2.5);
    expect(posts(h, "C0NEWS")).toHaveLength(1);
    expect(gets(h, L)).toBe(0);
  }, 60_000);
});

describe("app_uninstalled", () => {
  it("stops the reads of the workspace's watched livestreams, not of the others'", async () => {
    const other = SEED.livestreams.geoRestricted;
    b = await startOAuthBot({ env: env(`${A},${B}`, `${A}=${STUDIO};${B}=${STUDIO}`) });
    expect((await b.install()).status).toBe(200);
    expect((await b.install(B)).status).toBe(200);
    b.slack.addUser({ id: B_ADMIN.user, team_id: B, name: "beta-admin", is_admin: true });
    expect((await command(b, `watch ${L}`, A_ADMIN)).response_type).toBe("in_channel");
    expect((await command(b, `watch ${other}`, A_ADMIN)).response_type).toBe("in_channel");
    expect((await command(b, `watch ${other}`, B_ADMIN)).response_type).toBe("in_channel");
    const bot = b;
    await waitFor(() => gets(bot, L) >= 2 && gets(bot, other) >= 3, 5000, "first polls");

    expect((await b.event({ type: "app_uninstalled" }, A)).status).toBe(200);
    await eventually(
      async () => (await bot.built.watch?.registry.listTeam(A))?.length === 0,
      5000,
      "A's watches gone",
    );
    await readsSettled(bot, L); // a read under way may finish
    const l = gets(b, L);
    const o = gets(b, other);
    // Three polls of the livestream B still watches handled: L's would have been due meanwhile.
    await afterPolls(bot, other, 3, o);
    expect(gets(b, L)).toBe(l);
    expect(gets(b, other)).toBeGreaterThanOrEqual(o + 2); // B still watches it
    expect(await b.built.watch?.registry.livestreams()).toEqual([other]);
  }, 60_000);
});
