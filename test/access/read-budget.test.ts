/**
 * Read budgets over the real path (USER_READS_PER_MINUTE, WORKSPACE_READS_PER_MINUTE): signed
 * requests to the bot's receiver, GETs counted at the platform sandbox.
 *  - one user looping `/live status x<random>` gets at most the user budget of GETs (plus what
 *    refilled meanwhile), then an ephemeral "try again in N s"; many users of one workspace are
 *    held at the workspace budget; another workspace is unaffected; refusals show in /metrics;
 *  - every surface past the budget (Refresh, ingest, watch, a DM watch, /webhook show, a link
 *    preview) sends nothing to the platform; a read shared with one just answered costs no budget;
 *  - two replicas on one Redis share the buckets (keys with a TTL), and a Redis that is down
 *    leaves each replica counting on its own.
 */
import { randomBytes } from "node:crypto";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { eventBody, linkSharedEvent, sendSigned, slashCommandBody } from "../../fakes/slack/index.js";
import type { Config } from "../../src/config.js";
import { ACTIONS } from "../../src/messages/index.js";
import { type OAuthBot, startOAuthBot } from "../oauth/helper.js";
import {
  type Bot,
  type Harness,
  SIGNING_SECRET,
  startBot,
  startHarness,
  waitFor,
} from "../support/harness.js";

const A = "T0STANDIN";
const B = "T0BETA";
const C = "T0GAMMA";
const A_LIVE = SEED.livestreams.onAirAdBreak; // newsroom
const B_LIVE = SEED.livestreams.offAir; // studio

const json = (v: unknown) => JSON.stringify(v);
const randomId = () => `x${randomBytes(5).toString("hex")}`;
const liveGets = (h: Harness) =>
  h.sandbox.requests.filter((r) => r.path.startsWith("/v2/livestreams/")).length;
const retryAfter = (text: string) => Number(/Try again in (\d+) s\./.exec(text)?.[1] ?? Number.NaN);
const USER_REFUSED = "Your platform read budget is used up for now.";
const WORKSPACE_REFUSED = "This workspace's platform read budget is used up for now.";

describe("one bot, three workspaces (user budget 20, workspace budget 30)", () => {
  let b: OAuthBot;
  const refusals = { user: 0, workspace: 0 };
  beforeAll(async () => {
    b = await startOAuthBot({
      env: {
        ALLOWED_WORKSPACES: `${A},${B},${C}`,
        PROFILE_BINDINGS: `${A}=${SEED.profiles.newsroom};${B}=${SEED.profiles.studio};${C}=${SEED.profiles.newsroom}`,
        WORKSPACE_READS_PER_MINUTE: "30",
      },
    });
    expect(b.config.access.readBudgets.perUserPerMinute).toBe(20);
    expect((await b.install()).status).toBe(200);
    expect((await b.install(B)).status).toBe(200);
    await b.addWorkspace(C);
  });
  afterAll(async () => {
    await b?.close();
  });

  it("one user looping /live status x<random>: at most 20 GETs, then 'try again in N s', nothing sent", async () => {
    const before = liveGets(b);
    const started = Date.now();
    const answers: string[] = [];
    for (let i = 0; i < 26; i++) {
      const r = await b.slash("/live", `status ${randomId()}`, { team: A, user: "U0LOOP" });
      answers.push(json(await b.answer(r.responseUrl)));
    }
    const elapsed = Date.now() - started;
    const gets = liveGets(b) - before;
    // The bucket refills one read every 3 s: what refilled during the loop may have gone through.
    expect(gets).toBeGreaterThanOrEqual(20);
    expect(gets).toBeLessThanOrEqual(20 + Math.floor(elapsed / 3000));
    const refused = answers.filter((a) => a.includes(USER_REFUSED));
    expect(refused).toHaveLength(26 - gets);
    refusals.user += refused.length;
    expect(answers.slice(0, 20).every((a) => a.includes("The platform has no livestream"))).toBe(true);
    for (const a of refused) {
      expect(JSON.parse(a).response_type).toBe("ephemeral");
      const n = retryAfter(a);
      expect(n).toBeGreaterThanOrEqual(1);
      expect(n).toBeLessThanOrEqual(3);
    }
  });

  it("many users of one workspace are held at its budget; another workspace is unaffected", async () => {
    const before = liveGets(b);
    const started = Date.now();
    const sends = Array.from({ length: 40 }, (_, i) => async () => {
      const r = await b.slash("/live", `status ${randomId()}`, { team: C, user: `U0GAMMA${i % 10}` });
      return json(await b.answer(r.responseUrl));
    });
    const answers = await Promise.all(sends.map((s) => s()));
    const elapsed = Date.now() - started;
    const gets = liveGets(b) - before;
    expect(gets).toBeGreaterThanOrEqual(30);
    expect(gets).toBeLessThanOrEqual(30 + Math.floor(elapsed / 2000));
    const refused = answers.filter((a) => a.includes(WORKSPACE_REFUSED));
    expect(refused).toHaveLength(40 - gets);
    refusals.workspace += refused.length;
    for (const a of refused) expect(retryAfter(a)).toBeLessThanOrEqual(2);

    // Workspace B still reads (one GET, the card in the channel).
    const other = liveGets(b);
    const r = await b.slash("/live", `status ${B_LIVE}`, { team: B, user: "U0BETAMEMBER" });
    expect((await b.answer(r.responseUrl)).response_type).toBe("in_channel");
    expect(liveGets(b)).toBe(other + 1);
  });

  it("budget refusals show in /metrics, by budget", async () => {
    const res = await request(`${b.url}/metrics`);
    const text = await res.body.text();
    const count = (budget: string) =>
      Number(
        new RegExp(`^bot_read_budget_refused_total\\{budget="${budget}"\\} (\\d+)$`, "m").exec(text)?.[1],
      );
    expect(refusals.user).toBeGreaterThanOrEqual(1);
    expect(refusals.workspace).toBeGreaterThanOrEqual(1);
    expect(count("user")).toBe(refusals.user);
    expect(count("workspace")).toBe(refusals.workspace);
    expect(text).toMatch(/^bot_livestream_reads_total\{outcome="fetched"\} \d+$/m);
  });
});

describe("every surface past the budget (user budget 1)", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { USER_READS_PER_MINUTE: "1", MANAGER_USER_IDS: "U0LIMITED" } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it("Refresh, ingest, watch, /webhook show and a preview send nothing; a shared read costs nothing", async () => {
    const user = { user: "U0LIMITED", channel: "C0NEWS" };
    const first = await h.slash("/live", `status ${A_LIVE}`, user);
    expect((await h.answer(first.responseUrl)).response_type).toBe("in_channel");
    // `GET /me` (the key's own profile list, cached 5 minutes) may tell a profile's name from its id:
    // it reads nothing of the refused resources and is left out of the count.
    const requestsButMe = () => h.sandbox.requests.filter((r) => r.path !== "/v2/me").length;
    const [gets, requests] = [liveGets(h), requestsButMe()];

    // The same read within 10 s joins the one just answered: no budget, no GET.
    const shared = await h.press(ACTIONS.liveRefresh, A_LIVE, user);
    expect((await h.answer(shared.responseUrl)).replace_original).toBe(true);

    for (const send of [
      () => h.press(ACTIONS.liveRefresh, B_LIVE, user),
      () => h.slash("/live", `status ${B_LIVE}`, user),
      () => h.slash("/live", `ingest ${A_LIVE}`, user),
      () => h.slash("/live", `watch ${B_LIVE}`, user),
      () => h.slash("/live", `watch ${B_LIVE} dm`, user),
      () => h.slash("/webhook", `show ${SEED.profiles.newsroom}`, user),
    ]) {
      const answer = await h.answer((await send()).responseUrl);
      expect(answer.response_type).toBe("ephemeral");
      expect(json(answer)).toContain(USER_REFUSED);
      expect(retryAfter(json(answer))).toBeGreaterThan(50);
    }
    // A pasted link: no preview, no GET (logged at debug).
    const handled = () => h.logs.filter((l) => l.includes('"link_shared handled"')).length;
    const seen = handled();
    const unfurls = h.slack.unfurls().length;
    const event = linkSharedEvent({ urls: [`https://dai.ly/${B_LIVE}`], userId: "U0LIMITED" });
    expect((await sendSigned(h.eventsUrl, eventBody({ event, teamId: A }), SIGNING_SECRET)).status).toBe(200);
    await waitFor(() => handled() > seen, 8000, "link_shared handled");
    expect(h.slack.unfurls().length).toBe(unfurls);
    expect(h.logs.some((l) => l.includes("read budget used up: no preview"))).toBe(true);

    expect(liveGets(h)).toBe(gets);
    expect(requestsButMe()).toBe(requests);
    // Another user of the workspace is not held by this user's budget.
    const other = await h.slash("/live", `status ${B_LIVE}`, { user: "U0MEMBER" });
    expect((await h.answer(other.responseUrl)).response_type).toBe("in_channel");
    expect(liveGets(h)).toBe(gets + 1);
  });
});

describe("two replicas on one Redis", () => {
  let h: Harness;
  const bots: Bot[] = [];
  const ns = `read-budget-${process.pid}-${Date.now()}`;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    const redis = bots[0]?.store.backend.redis;
    await redis
      ?.sendCommand([
        "EVAL",
        "for _,k in ipairs(redis.call('KEYS', ARGV[1])) do redis.call('DEL', k) end",
        "0",
        `${ns}*`,
      ])
      .catch(() => undefined);
    for (const b of bots.splice(0)) await b.close().catch(() => undefined);
    await h?.close();
  });

  /** `/live status <id>` by `user` sent to `bot`; the answer. */
  async function statusOn(bot: Bot, id: string, user: string): Promise<string> {
    const responseUrl = h.slack.newResponseUrl("C0GENERAL", user);
    const body = slashCommandBody({
      command: "/live",
      text: `status ${id}`,
      userId: user,
      teamId: A,
      responseUrl,
    });
    expect((await sendSigned(`${bot.url}/slack/events`, body, SIGNING_SECRET)).status).toBe(200);
    return json(await h.answer(responseUrl));
  }

  it("requests alternating between the two stay within one budget; idle buckets expire", async () => {
    const config: Config = { ...h.config, store: { kind: "redis", url: "redis://127.0.0.1:6379" } };
    bots.push(await startBot(config, h.logger, { namespace: ns }));
    bots.push(await startBot(config, h.logger, { namespace: ns }));
    const before = liveGets(h);
    const started = Date.now();
    const answers: string[] = [];
    for (let i = 0; i < 30; i++) answers.push(await statusOn(bots[i % 2] as Bot, randomId(), "U0REPLICA"));
    const elapsed = Date.now() - started;
    const gets = liveGets(h) - before;
    expect(gets).toBeGreaterThanOrEqual(20);
    expect(gets).toBeLessThanOrEqual(20 + Math.floor(elapsed / 3000));
    expect(answers.filter((a) => a.includes(USER_REFUSED))).toHaveLength(30 - gets);

    const redis = bots[0]?.store.backend.redis;
    if (!redis) throw new Error("no Redis client");
    const keys = (await redis.keys(`${ns}:budget:*`)).sort();
    expect(keys).toEqual([`${ns}:budget:u:${A}:U0REPLICA`, `${ns}:budget:w:${A}`]);
    for (const k of keys) {
      const ttl = await redis.pTTL(k);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60_000);
    }
  });

  it("Redis down: each replica counts on its own (fails open to its own buckets)", async () => {
    const config: Config = { ...h.config, store: { kind: "redis", url: "redis://127.0.0.1:1" } };
    const down = await startBot(config, h.logger, { namespace: `${ns}-down`, storeOpTimeoutMs: 300 });
    bots.push(down);
    const before = liveGets(h);
    const started = Date.now();
    const answers: string[] = [];
    for (let i = 0; i < 23; i++) answers.push(await statusOn(down, randomId(), "U0DOWN"));
    const gets = liveGets(h) - before;
    expect(gets).toBeGreaterThanOrEqual(20);
    expect(gets).toBeLessThanOrEqual(20 + Math.floor((Date.now() - started) / 3000));
    expect(answers.filter((a) => a.includes(USER_REFUSED))).toHaveLength(23 - gets);
    expect(h.logs.some((l) => l.includes("read budgets: the store is unavailable"))).toBe(true);
  });
});

describe("every read a person causes is charged to them", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { USER_READS_PER_MINUTE: "5", WORKSPACE_READS_PER_MINUTE: "1000" } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it("a member looping `/webhook subscriptions x<random>` and `/live status x<random>` makes at most 5 reads", async () => {
    const reads = () =>
      h.sandbox.requests.filter(
        (r) => r.method === "GET" && r.path !== "/v2/token" && r.path.startsWith("/v2/"),
      );
    const before = reads().length;
    const started = Date.now();
    for (let i = 0; i < 12; i++) {
      const sub = await h.slash("/webhook", `subscriptions ${randomId()}`, { user: "U0MEMBER" });
      expect(sub.status).toBe(200);
      expect(typeof (await h.answer(sub.responseUrl)).text).toBe("string");
      const st = await h.slash("/live", `status ${randomId()}`, { user: "U0MEMBER" });
      expect(st.status).toBe(200);
      expect(typeof (await h.answer(st.responseUrl)).text).toBe("string");
    }
    // The budget holds 5 and refills 5 a minute: what it held, plus what refilled meanwhile.
    const refill = Math.ceil(((Date.now() - started) / 60_000) * 5);
    expect(reads().length - before).toBeLessThanOrEqual(5 + refill);
    // A profile read that failed is remembered as long as an answer would be: not made again.
    const id = randomId();
    for (let i = 0; i < 3; i++)
      await h.answer((await h.slash("/webhook", `subscriptions ${id}`)).responseUrl);
    expect(h.sandbox.requests.filter((r) => r.path === `/v2/profiles/${id}`).length).toBeLessThanOrEqual(1);
  });
});
