/**
 * Personal go-live DMs (`/live watch <id> dm`) over the real path: signed slash commands and App
 * Home buttons against the composed bot, the platform sandbox's live-show controls and request
 * log, the Slack stand-in (conversations.open gives the bot's DM with a user: D0MEMBER for
 * U0MEMBER). LIVE_WATCH_INTERVAL_MS is the minimum (1000); the workspace is bound to the studio
 * profile only; a person's users.info answer is kept 300 ms here (5 minutes by default).
 * The caps (per person, per workspace, in all, under concurrency) run on memory, sqlite and Redis.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { eventBody, sendSigned } from "../../fakes/slack/index.js";
import type { StoreUrl } from "../../src/config.js";
import { ACTIONS } from "../../src/messages/index.js";
import { eventually, type Harness, SIGNING_SECRET, startHarness, waitFor } from "../support/harness.js";
import { afterPolls, getsWithin, readsSettled, untilElapsed } from "../support/polls.js";

const TEAM = "T0STANDIN";
const INTERVAL = 1000;
const GRACE = 1000;
const BOUND = SEED.livestreams.offAir; // studio
const OTHER = SEED.livestreams.geoRestricted; // studio
const UNBOUND = SEED.livestreams.onAirAdBreak; // newsroom
const TITLE = "Studio Session";
const MEMBER = "U0MEMBER";
const MEMBER_DM = "D0MEMBER";
const OTTO = "U0OTHER";
const OTTO_DM = "D0OTHER";

const json = (v: unknown) => JSON.stringify(v);

let h: Harness;
beforeAll(async () => {
  h = await startHarness({
    env: {
      LIVE_WATCH_INTERVAL_MS: String(INTERVAL),
      LIVE_OFFAIR_GRACE_MS: String(GRACE),
      PROFILE_BINDINGS: `${TEAM}=${SEED.profiles.studio}`,
    },
    watch: { minUpdateIntervalMs: 0, memberCacheMs: 300 },
  });
});
afterAll(async () => {
  await h?.close();
});
beforeEach(async () => {
  // Nothing watched from a previous test (DM watches included), nothing on air.
  const registry = h.built.watch?.registry;
  for (const ls of (await registry?.livestreams()) ?? [])
    for (const w of (await registry?.watchers(ls)) ?? []) await h.built.watch?.unwatch(w);
  h.sandbox.reset();
  h.slack.reset();
});

const gets = (id: string) =>
  h.sandbox.requests.filter((r) => r.method === "GET" && r.path === `/v2/livestreams/${id}`).length;
/** What the bot posted or changed on its own in a conversation (not answers on response_url). */
const posts = (ch: string) => h.slack.callsTo("chat.postMessage").filter((c) => c.args.channel === ch);
const updates = (ch: string) => h.slack.callsTo("chat.update").filter((c) => c.args.channel === ch);
/** Posts of the bot's own in channels (C…): a DM watch must make none. */
const channelPosts = () =>
  h.slack.callsTo("chat.postMessage").filter((c) => String(c.args.channel).startsWith("C"));
const shown = (ch: string) => h.slack.messages(ch).filter((m) => m.ephemeralTo === undefined);

async function run(text: string, o: { user?: string; channel?: string } = {}) {
  const { responseUrl, status } = await h.slash("/live", text, o);
  expect(status).toBe(200);
  return h.answer(responseUrl);
}

describe("a DM watch", () => {
  it("gets one DM per broadcast, kept up to date and ended in place, and no channel message", async () => {
    const answer = await run(`watch https://www.dailymotion.com/video/${BOUND} dm`, { user: MEMBER });
    expect(answer.response_type).toBe("ephemeral");
    expect(json(answer)).toContain("You will get a DM");
    expect(json(answer)).toContain(`/live unwatch ${BOUND} dm`);
    // The IM is opened with the asker, at once (so a missing im:write is told now).
    expect(h.slack.callsTo("conversations.open").map((c) => c.args.users)).toEqual([MEMBER]);
    await waitFor(() => gets(BOUND) >= 2, 5000, "a first poll (after the authorizing read)");

    h.sandbox.live(BOUND, { action: "on_air" });
    const wentLive = Date.now();
    const live = await waitFor(() => posts(MEMBER_DM)[0], INTERVAL * 1.1 + 1500, "the is-live DM");
    expect(Date.now() - wentLive).toBeLessThan(INTERVAL * 1.1 + 1500);
    expect(json(live.args)).toContain(TITLE);
    expect(json(live.args)).toContain("is live since");
    expect(json(live.args)).toContain(`/live unwatch ${BOUND} dm`);
    expect(live.args.thread_ts).toBeUndefined();

    // An ad break: the same DM is updated in place.
    h.sandbox.live(BOUND, { action: "ad_break", durationMs: 5000 });
    await waitFor(
      () => updates(MEMBER_DM).find((c) => json(c.args).includes("Ad break running")),
      INTERVAL * 2 + 1500,
      "the ad break in the DM",
    );
    h.sandbox.live(BOUND, { action: "off_air" });
    await waitFor(
      () => (shown(MEMBER_DM)[0]?.text ?? "").includes(" ended; "),
      INTERVAL * 3 + GRACE + 2000,
      "the DM ended in place",
    );
    await afterPolls(h, BOUND, 1); // a poll after the end handled
    // One message in the DM (ended), no thread replies, nothing in any channel.
    expect(shown(MEMBER_DM)).toHaveLength(1);
    expect(posts(MEMBER_DM)).toHaveLength(1);
    expect(updates(MEMBER_DM).every((c) => c.args.ts === shown(MEMBER_DM)[0]?.ts)).toBe(true);
    expect(channelPosts()).toEqual([]);
    expect(h.slack.calls.filter((c) => c.method === "chat.postEphemeral")).toEqual([]);

    // The next broadcast is a new DM.
    h.sandbox.live(BOUND, { action: "on_air" });
    await waitFor(() => posts(MEMBER_DM)[1], INTERVAL * 2 + 1500, "the next broadcast's DM");
    expect(channelPosts()).toEqual([]);
  }, 30_000);

  it("one GET per interval for a livestream a channel and two people watch; each told once", async () => {
    h.sandbox.live(BOUND, { action: "on_air" });
    expect((await run(`watch ${BOUND}`, { channel: "C0NEWS" })).response_type).toBe("in_channel");
    expect(json(await run(`watch ${BOUND} dm`, { user: MEMBER }))).toContain("You will get a DM");
    expect(json(await run(`watch ${BOUND} dm`, { user: OTTO }))).toContain("You will get a DM");
    await waitFor(
      () => posts("C0NEWS")[0] && posts(MEMBER_DM)[0] && posts(OTTO_DM)[0],
      5000,
      "the channel and both people told",
    );
    // A rate: the reads that started in 5 intervals of wall time, as the schedule measures it.
    const n = await getsWithin(h, BOUND, INTERVAL * 5);
    // ±10 % jitter: 4 to 6 reads in 5 intervals, never one per watcher (15).
    expect(n).toBeGreaterThanOrEqual(3);
    expect(n).toBeLessThanOrEqual(6);
    expect(posts("C0NEWS")).toHaveLength(1);
    expect(posts(MEMBER_DM)).toHaveLength(1);
    expect(posts(OTTO_DM)).toHaveLength(1);
    // The DMs carry no thread milestones; the channel's message is the one with a thread.
    expect(h.slack.callsTo("chat.postMessage").filter((c) => c.args.thread_ts !== undefined)).toEqual(
      h.slack.callsTo("chat.postMessage").filter((c) => c.args.channel === "C0NEWS" && c.args.thread_ts),
    );
    // Stopping one person's DMs leaves the others' and the channel's.
    expect(json(await run(`unwatch ${BOUND} dm`, { user: OTTO }))).toContain("You no longer get DMs");
    expect(json(await run(`unwatch ${BOUND} dm`, { user: OTTO }))).toContain("You do not get DMs");
    const watchers = (await h.built.watch?.registry.watchers(BOUND))?.map((w) => w.channelId).sort();
    expect(watchers).toEqual(["@U0MEMBER", "C0NEWS"]);
  }, 30_000);

  it("/live watching lists a person's own DM watches to that person only; the App Home's Unwatch stops it", async () => {
    await run(`watch ${BOUND}`, { channel: "C0NEWS" });
    await run(`watch ${BOUND} dm`, { user: MEMBER });
    await run(`watch ${OTHER} dm`, { user: OTTO });

    const mine = await run("watching", { user: MEMBER });
    expect(mine.response_type).toBe("ephemeral");
    expect(json(mine)).toContain("<#C0NEWS>");
    expect(json(mine)).toContain("by DM to you");
    expect(json(mine)).not.toContain(OTHER); // Otto's DM watch
    const otto = json(await run("watching", { user: OTTO }));
    expect(otto).toContain(OTHER);
    expect(otto.match(/by DM to you:/g)).toHaveLength(1);
    const admin = json(await run("watching", { user: "U0ADMIN" }));
    expect(admin).toContain("<#C0NEWS>");
    expect(admin).not.toContain("by DM");
    expect(admin).not.toContain(OTHER);

    // The member's App Home: their DM watch with an Unwatch button; not Otto's.
    let before = h.slack.callsTo("views.publish").length;
    await h.press(ACTIONS.homeRefresh, "", { home: true, user: MEMBER });
    const home = await waitFor(() => h.slack.callsTo("views.publish")[before], 5000, "the member's Home");
    expect(home.args.user_id).toBe(MEMBER);
    expect(json(home.args)).toContain(ACTIONS.watchUnwatchDm);
    expect(json(home.args)).toContain("by DM to you");
    expect(json(home.args)).not.toContain(OTHER);
    expect(json(home.args)).not.toContain(`"${ACTIONS.watchUnwatch}"`); // not a manager

    // Otto pressing Unwatch with the member's livestream stops only Otto's own (he has none there).
    const ottoBefore = h.slack.callsTo("views.publish").length;
    await h.press(ACTIONS.watchUnwatchDm, BOUND, { home: true, user: OTTO });
    await waitFor(
      () =>
        h.slack
          .callsTo("views.publish")
          .slice(ottoBefore)
          .find((c) => c.args.user_id === OTTO),
      5000,
      "Otto's Home published again (his press handled)",
    );
    const kept = (await h.built.watch?.registry.watchers(BOUND))?.map((w) => w.channelId).sort();
    expect(kept).toEqual(["@U0MEMBER", "C0NEWS"]);
    before = h.slack.callsTo("views.publish").length;
    await h.press(ACTIONS.watchUnwatchDm, BOUND, { home: true, user: MEMBER });
    await waitFor(() => h.slack.callsTo("views.publish")[before], 5000, "the Home published again");
    expect((await h.built.watch?.registry.watchers(BOUND))?.map((w) => w.channelId)).toEqual(["C0NEWS"]);
    expect(json(await run("watching", { user: MEMBER }))).not.toContain("by DM to you");
  }, 30_000);

  it("is for anyone who may read the livestream: an unbound one is answered as missing; no im:write says so", async () => {
    const unbound = json(await run(`watch ${UNBOUND} dm`, { user: MEMBER }));
    const missing = json(await run("watch x0nothere dm", { user: MEMBER }));
    expect(unbound).toContain("The platform has no livestream");
    expect(unbound.replaceAll(UNBOUND, "ID")).toBe(missing.replaceAll("x0nothere", "ID"));
    // An installation from before im:write: Slack refuses the DM; nothing is watched. (Oscar: a
    // person whose DM this process has not opened yet.)
    h.slack.addFault({ method: "conversations.open", error: "missing_scope" });
    const refused = json(await run(`watch ${BOUND} dm`, { user: "U0OWNER" }));
    expect(refused).toContain("missing_scope");
    expect(refused).toContain("im:write");
    expect(await h.built.watch?.registry.livestreams()).toEqual([]);
    expect(h.slack.callsTo("conversations.open")).toHaveLength(1);
  });

  it("waits while Slack cannot confirm the person (not told, not ended), then tells them once", async () => {
    await run(`watch ${BOUND} dm`, { user: MEMBER });
    // The first poll (at once) checked the membership, before its read, and its read was answered
    // (before the go-live below). Then the membership the command did not ask for is not cached:
    // the cache's 300 ms are wall time, counted from the last users.info call.
    await waitFor(() => gets(BOUND) >= 2, 5000, "a first poll (after the authorizing read)");
    await readsSettled(h, BOUND);
    await untilElapsed(h.slack.callsTo("users.info").at(-1)?.at ?? Date.now(), 400);
    h.slack.addFault({ method: "users.info", error: "internal_error", times: 1000 });
    h.sandbox.live(BOUND, { action: "on_air" });
    await afterPolls(h, BOUND, 2); // two polls of the on-air livestream handled
    expect(h.slack.callsTo("users.info").length).toBeGreaterThanOrEqual(2);
    expect(posts(MEMBER_DM)).toEqual([]);
    expect((await h.built.watch?.registry.watchers(BOUND))?.length).toBe(1);
    h.slack.clearFaults();
    await waitFor(() => posts(MEMBER_DM)[0], INTERVAL * 2 + 1500, "the DM once Slack answers");
    await afterPolls(h, BOUND, 1);
    expect(posts(MEMBER_DM)).toHaveLength(1);
  }, 30_000);

  /** The DM watch ends within a few intervals, and the livestream is read no more after it. */
  async function endedAndReadNoMore(): Promise<void> {
    await eventually(
      async () => (await h.built.watch?.registry.livestreams())?.length === 0,
      INTERVAL * 3 + 1500,
      "the DM watch ended",
    );
    await readsSettled(h, BOUND); // a read under way may finish
    const reads = gets(BOUND);
    // Not watched: no poll of it to count; 2.5 intervals of wall time, as the schedule measures it.
    await untilElapsed(Date.now(), INTERVAL * 2.5);
    expect(gets(BOUND)).toBe(reads);
  }

  it("ends when the person is deactivated: nothing more is sent to them, the livestream is read no more", async () => {
    h.sandbox.live(BOUND, { action: "on_air" });
    await run(`watch ${BOUND} dm`, { user: MEMBER });
    await waitFor(() => posts(MEMBER_DM)[0], 5000, "the is-live DM");
    const member = h.slack.users.get(MEMBER);
    if (!member) throw new Error("no member");
    member.deleted = true;
    const deactivated = h.slack.calls.length;
    await endedAndReadNoMore();
    // Nothing sent to a deactivated account (Slack would refuse it: user_disabled).
    const after = h.slack.calls.slice(deactivated).map((c) => c.method);
    expect(after.filter((m) => m !== "users.info")).toEqual([]);
    expect(posts(MEMBER_DM)).toHaveLength(1);
  }, 30_000);

  it("ends when users.info names another team: nothing more is sent to the person, the livestream is read no more", async () => {
    h.sandbox.live(BOUND, { action: "on_air" });
    await run(`watch ${BOUND} dm`, { user: MEMBER });
    await waitFor(() => posts(MEMBER_DM)[0], 5000, "the is-live DM");
    const member = h.slack.users.get(MEMBER);
    if (!member) throw new Error("no member");
    // The same user id, now answered as a member of another workspace (reset() seeds it back).
    member.team_id = "T0ELSEWHERE";
    const moved = h.slack.calls.length;
    // Something to tell: an ad break would update the DM in place.
    h.sandbox.live(BOUND, { action: "ad_break", durationMs: 5000 });
    await endedAndReadNoMore();
    // No DM, no update, no notice: only the membership checks.
    const after = h.slack.calls.slice(moved).map((c) => c.method);
    expect(after.filter((m) => m !== "users.info")).toEqual([]);
    expect(posts(MEMBER_DM)).toHaveLength(1);
    expect(updates(MEMBER_DM)).toEqual([]);
  }, 30_000);

  it("ends when the livestream's profile is no longer bound: one DM naming it by id only, then no read", async () => {
    await run(`watch ${BOUND} dm`, { user: MEMBER });
    await waitFor(() => gets(BOUND) >= 2, 5000, "a first poll");
    const ls = h.sandbox.state.livestreams.get(BOUND);
    if (!ls) throw new Error("no livestream");
    ls.profile_id = SEED.profiles.newsroom;
    h.sandbox.live(BOUND, { action: "on_air" });
    const notice = await waitFor(() => posts(MEMBER_DM)[0], INTERVAL + 1500, "the notice");
    const text = json(notice.args);
    expect(text).toContain(BOUND);
    expect(text).toContain("You no longer get DMs");
    expect(text).toContain("no longer has access");
    expect(text).not.toContain(TITLE);
    expect(text).not.toMatch(/on air|live since|recording|ads? /i);
    const reads = gets(BOUND);
    // Not watched: no poll of it to count; 2.5 intervals of wall time, as the schedule measures it.
    await untilElapsed(Date.now(), INTERVAL * 2.5);
    expect(gets(BOUND)).toBe(reads);
    expect(posts(MEMBER_DM)).toHaveLength(1);
    expect(updates(MEMBER_DM)).toEqual([]);
    expect(channelPosts()).toEqual([]);
    expect(await h.built.watch?.registry.livestreams()).toEqual([]);
  }, 30_000);

  it("an uninstall removes the DM watches and their reads", async () => {
    await run(`watch ${BOUND} dm`, { user: MEMBER });
    await run(`watch ${OTHER} dm`, { user: OTTO });
    await waitFor(() => gets(BOUND) >= 2 && gets(OTHER) >= 2, 5000, "first polls");
    const body = eventBody({ teamId: TEAM, event: { type: "app_uninstalled" } });
    expect((await sendSigned(h.eventsUrl, body, SIGNING_SECRET)).status).toBe(200);
    await eventually(
      async () => (await h.built.watch?.registry.listTeam(TEAM))?.length === 0,
      5000,
      "the DM watches gone",
    );
    await readsSettled(h, BOUND); // reads under way may finish
    await readsSettled(h, OTHER);
    const reads = gets(BOUND) + gets(OTHER);
    // Not watched: no poll of them to count; 2.5 intervals of wall time, as the schedule measures it.
    await untilElapsed(Date.now(), INTERVAL * 2.5);
    expect(gets(BOUND) + gets(OTHER)).toBe(reads);
  }, 30_000);
});

// --- The caps, under concurrency, on each store ---------------------------------------------------

const BETA = "T0BETA";
/** Livestreams of the studio profile added to the sandbox for the caps. */
const CAP_LS = Array.from({ length: 25 }, (_, i) => `xdmcap${String(i).padStart(2, "0")}`);
const dir = mkdtempSync(join(tmpdir(), "watch-dm-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const stores: Array<{ name: string; store: StoreUrl; namespace?: string }> = [
  { name: "memory", store: { kind: "memory", url: "memory://" } },
  {
    name: "sqlite",
    store: { kind: "sqlite", path: join(dir, "bot.sqlite"), url: `sqlite://${join(dir, "bot.sqlite")}` },
  },
  {
    name: "redis",
    store: { kind: "redis", url: "redis://127.0.0.1:6379" },
    namespace: `watch-dm-${process.pid}-${randomBytes(3).toString("hex")}`,
  },
];

describe.each(stores)("the caps on $name", ({ store, namespace }) => {
  let c: Harness;
  beforeAll(async () => {
    c = await startHarness({
      store,
      ...(namespace ? { namespace } : {}),
      // Two workspaces under one bot token: an organization-wide install.
      orgWide: "E0ORG",
      env: {
        LIVE_WATCH_INTERVAL_MS: String(INTERVAL),
        LIVE_WATCH_MAX: "14",
        PROFILE_BINDINGS: `${TEAM}=${SEED.profiles.studio};${BETA}=${SEED.profiles.studio}`,
        // Floods of /live watch on purpose: the read budgets are another test's.
        USER_READS_PER_MINUTE: "0",
        WORKSPACE_READS_PER_MINUTE: "0",
      },
      watch: { manual: true, maxWatchesPerTeam: 12 },
    });
    const template = c.sandbox.state.livestreams.get(BOUND);
    if (!template) throw new Error("no seeded livestream");
    for (const id of CAP_LS)
      c.sandbox.state.livestreams.set(id, { ...structuredClone(template), livestream_id: id });
    for (let i = 0; i < 30; i++)
      c.slack.addUser({ id: `U0P${String(i).padStart(2, "0")}`, team_id: TEAM, name: `p${i}` });
  });
  afterAll(async () => {
    const redis = c?.store.backend.redis;
    const keys = namespace ? ((await redis?.keys(`${namespace}:*`)) ?? []) : [];
    if (keys.length > 0) await redis?.del(keys);
    await c?.close();
  });

  const ask = async (text: string, user: string, team = TEAM) => {
    const { responseUrl, status } = await c.slash("/live", text, { user, team });
    expect(status).toBe(200);
    return json(await c.answer(responseUrl));
  };

  it("concurrent DM watches stop exactly at the person's 10, the workspace's cap and the cap in all", async () => {
    const registry = c.built.watch?.registry;
    // One person, 15 livestreams at once: exactly 10.
    const one = await Promise.all(CAP_LS.slice(0, 15).map((ls) => ask(`watch ${ls} dm`, MEMBER)));
    expect(one.filter((a) => a.includes("You will get a DM"))).toHaveLength(10);
    const full = one.filter((a) => !a.includes("You will get a DM"));
    expect(full).toHaveLength(5);
    for (const a of full) expect(a).toContain("the most one person can");
    const mine = (await registry?.listTeam(TEAM))?.filter((w) => w.channelId === "@U0MEMBER") ?? [];
    expect(mine).toHaveLength(10);

    // 20 people at once, on a livestream watched already: the workspace's 12 (DM watches count).
    const ls = mine[0]?.livestreamId ?? "";
    const people = Array.from({ length: 20 }, (_, i) => `U0P${String(i).padStart(2, "0")}`);
    const many = await Promise.all(people.map((u) => ask(`watch ${ls} dm`, u)));
    expect(many.filter((a) => a.includes("You will get a DM"))).toHaveLength(2);
    for (const a of many.filter((x) => !x.includes("You will get a DM")))
      expect(a).toContain("already has 12 watches");
    expect(await registry?.listTeam(TEAM)).toHaveLength(12);

    // Another workspace, 10 new livestreams by 10 people at once: LIVE_WATCH_MAX (14) in all.
    const fresh = CAP_LS.slice(15, 25);
    const more = await Promise.all(fresh.map((x, i) => ask(`watch ${x} dm`, `U0P${20 + i}`, BETA)));
    expect(more.filter((a) => a.includes("You will get a DM"))).toHaveLength(4);
    for (const a of more.filter((x) => !x.includes("You will get a DM")))
      expect(a).toContain("already watches 14 livestreams in all");
    expect(await registry?.livestreams()).toHaveLength(14);
  }, 60_000);
});
