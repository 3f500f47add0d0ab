/**
 * app_uninstalled / tokens_revoked over real HTTP: the workspace's installation, settings, routes,
 * activity and claims go; its platform webhooks are removed when they still point at its route,
 * left (and reported) otherwise; deliveries already queued (for every subscribed channel) are
 * dead-lettered, never posted, with one line for the route; the subscriptions go with the settings.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { eventBody, sendSigned } from "../../fakes/slack/index.js";
import { eventually, SIGNING_SECRET, startHarness } from "../support/harness.js";
import { deliverCreated, type OAuthBot, startOAuthBot } from "./helper.js";

const TEAM = "T0STANDIN";
const P = SEED.profiles;
let b: OAuthBot;

beforeEach(async () => {
  b = await startOAuthBot({ manualWorker: true });
  expect((await b.install()).status).toBe(200);
});
afterEach(async () => {
  await b?.close();
});

async function set(text: string, channel = "C0NEWS") {
  const r = await b.slash("/webhook", text, { team: TEAM, user: "U0ADMIN", channel });
  const answer = await b.answer(r.responseUrl);
  expect(JSON.stringify(answer)).not.toContain("⚠️");
}
const hookOf = (profileId: string) => b.sandbox.state.profiles.get(profileId)?.webhook;
const deliver = (profileId: string, videoId: string) => deliverCreated(b, profileId, videoId);
const warnLines = () =>
  b.logs
    .filter((l) => l.includes("uninstall: platform webhook"))
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe("app_uninstalled", () => {
  it("forgets the workspace and removes the platform webhooks that still point at its routes", async () => {
    await set(`set ${P.newsroom}`);
    await set(`set ${P.studio} url=https://hooks.example.org/in`);
    const deps = b.built.deps;
    await deps.settings.addManager(TEAM, "U0MEMBER", "U0ADMIN", new Date());
    const newsroomToken = hookOf(P.newsroom)?.callback_url?.split("/").pop() ?? "";
    const newsroomRoute = (await deps.settings.getProfile(TEAM, P.newsroom))?.callbackId ?? "";
    expect(await deps.callbacks.get(newsroomToken)).toBeDefined();
    expect(await deps.callbacks.getById(newsroomRoute)).toBeDefined();
    // A delivery waits in the outbox (the worker is manual), and has counted activity.
    expect(await deliver(P.newsroom, "x7queued")).toBe(200);
    await deps.activity?.record(TEAM, P.newsroom, { received: 1 }, Date.now());

    const r = await b.event({ type: "app_uninstalled" }, TEAM);
    expect(r.status).toBe(200);
    await eventually(
      async () => (await deps.settings.listProfiles(TEAM)).length === 0,
      8000,
      "settings gone",
    );

    expect(await b.installations.find({ teamId: TEAM })).toBeUndefined();
    expect(await deps.settings.listManagers(TEAM)).toEqual([]);
    expect(await deps.callbacks.get(newsroomToken)).toBeUndefined();
    expect(await deps.callbacks.getById(newsroomRoute)).toBeUndefined();
    for (const p of [P.newsroom, P.studio]) expect(await deps.settings.claims.owner(p)).toBeUndefined();
    expect((await deps.activity?.summary(TEAM, P.newsroom, Date.now()))?.received24h).toBe(0);

    // Platform: ours removed, the foreign URL the workspace chose left as it is.
    expect(hookOf(P.newsroom)?.callback_url ?? null).toBeNull();
    expect(hookOf(P.studio)?.callback_url).toBe("https://hooks.example.org/in");
    const lines = warnLines();
    expect(lines.map((l) => [l.profile, l.webhook]).sort()).toEqual(
      [
        [P.newsroom, "removed"],
        [P.studio, "left_foreign"],
      ].sort(),
    );
    expect(lines.every((l) => l.level === "warn" && typeof l.why === "string")).toBe(true);
    const metrics = await b.built.metrics.registry.metrics();
    expect(metrics).toContain('bot_uninstall_webhooks_total{outcome="removed"} 1');
    expect(metrics).toContain('bot_uninstall_webhooks_total{outcome="left_foreign"} 1');

    // The route is gone for the platform; what was queued is dead-lettered, never posted.
    expect(await deliver(P.newsroom, "x7after")).toBe(404);
    const posts = b.slack.callsTo("chat.postMessage").length;
    await b.built.worker.drain();
    expect(b.slack.callsTo("chat.postMessage").length).toBe(posts);
    expect(
      b.logs.filter((l) => l.includes("may no longer get this profile") && l.includes('"not_installed"')),
    ).toHaveLength(1);
    expect(await b.built.metrics.registry.metrics()).toContain(
      'bot_deliveries_total{stage="failed",result="not_installed"} 1',
    );

    // Requests from the workspace are no longer answered.
    const cmd = await b.slash("/webhook", "show", { team: TEAM, user: "U0ADMIN", channel: "C0NEWS" });
    await new Promise((res) => setTimeout(res, 200));
    expect(b.slack.responses(cmd.responseUrl)).toEqual([]);
  });

  it("queued deliveries of every subscribed channel are dead letters, never posted; the subscriptions are gone", async () => {
    const deps = b.built.deps;
    await set(`set ${P.newsroom}`);
    await set(`subscribe ${P.newsroom}`, "C0GENERAL");
    expect((await deps.settings.getProfile(TEAM, P.newsroom))?.subscriptions).toHaveLength(2);
    // One video shown in both channels, then three more queued (the worker is manual).
    expect(await deliver(P.newsroom, "x7both")).toBe(200);
    await b.built.worker.drain();
    for (const channel of ["C0NEWS", "C0GENERAL"])
      expect(b.slack.messages(channel).some((m) => JSON.stringify(m).includes("x7both"))).toBe(true);
    for (const v of ["x7q1", "x7q2", "x7q3"]) expect(await deliver(P.newsroom, v)).toBe(200);
    const posts = b.slack.callsTo("chat.postMessage").length;

    await b.event({ type: "app_uninstalled" }, TEAM);
    await eventually(
      async () => (await deps.settings.listProfiles(TEAM)).length === 0,
      8000,
      "settings gone",
    );
    // Its subscriptions went with its settings; later deliveries find no route.
    expect(await deps.settings.getProfile(TEAM, P.newsroom)).toBeUndefined();
    expect(await deliver(P.newsroom, "x7later")).toBe(404);

    await b.built.worker.drain();
    expect(b.slack.callsTo("chat.postMessage").length).toBe(posts);
    const dead = await b.outbox.listDead(TEAM, 10);
    expect(dead.map((d) => [d.item.delivery.data.video_id, d.reason]).sort()).toEqual([
      ["x7q1", "not_installed"],
      ["x7q2", "not_installed"],
      ["x7q3", "not_installed"],
    ]);
    // One line for the route, not one per video.
    expect(b.logs.filter((l) => l.includes("may no longer get this profile"))).toHaveLength(1);
    // Installed again, the workspace starts with no subscription.
    expect((await b.install()).status).toBe(200);
    const r = await b.slash("/webhook", `subscriptions ${P.newsroom}`, { team: TEAM, user: "U0ADMIN" });
    const listed = JSON.stringify(await b.answer(r.responseUrl));
    expect(listed).toContain("does not send its events to this bot");
    expect(listed).not.toContain("<#C0GENERAL>");
    expect(listed).not.toContain("<#C0NEWS>");
  });

  it("reports a platform webhook it could not remove", async () => {
    await set(`set ${P.newsroom}`);
    const callback = hookOf(P.newsroom)?.callback_url;
    // The platform fails the removal.
    b.sandbox.addFault({ method: "PATCH", path: "/v2/profiles", status: 500 });
    await b.event({ type: "app_uninstalled" }, TEAM);
    await eventually(async () => warnLines().length === 1, 8000, "the report line");
    const [line] = warnLines();
    expect(line).toMatchObject({ profile: P.newsroom, webhook: "left_error", level: "warn" });
    expect(String(line?.why)).toMatch(/remove it on the platform/);
    expect(hookOf(P.newsroom)?.callback_url).toBe(callback);
    // The rest of the workspace is forgotten all the same.
    await eventually(
      async () => (await b.built.deps.settings.listProfiles(TEAM)).length === 0,
      8000,
      "settings",
    );
    expect(await b.installations.find({ teamId: TEAM })).toBeUndefined();
    expect(await b.built.metrics.registry.metrics()).toContain(
      'bot_uninstall_webhooks_total{outcome="left_error"} 1',
    );
  });
});

describe("tokens_revoked", () => {
  it("keeps the installation when only user tokens were revoked", async () => {
    await set(`set ${P.newsroom}`);
    const r = await b.event({ type: "tokens_revoked", tokens: { oauth: ["U0ADMIN"] } }, TEAM);
    expect(r.status).toBe(200);
    await eventually(async () => b.logs.some((l) => l.includes("user tokens revoked")), 8000, "the log line");
    expect(await b.installations.find({ teamId: TEAM })).toBeDefined();
    expect(await b.built.deps.settings.getProfile(TEAM, P.newsroom)).toBeDefined();
    expect(hookOf(P.newsroom)?.callback_url).toMatch(/\/hooks\/platform\//);
  });

  it("forgets the workspace when its bot token was revoked", async () => {
    await set(`set ${P.newsroom}`);
    await set(`set ${P.studio}`);
    // The studio's webhook was changed on the platform since: it no longer points at the bot.
    const studio = b.sandbox.state.profiles.get(P.studio);
    if (studio) studio.webhook.callback_url = "https://elsewhere.example.org/hook";
    await b.event({ type: "tokens_revoked", tokens: { oauth: [], bot: ["U0BOT"] } }, TEAM);
    await eventually(
      async () => (await b.installations.find({ teamId: TEAM })) === undefined,
      8000,
      "uninstalled",
    );
    await eventually(async () => warnLines().length === 2, 8000, "the report lines");
    expect(hookOf(P.newsroom)?.callback_url ?? null).toBeNull();
    expect(hookOf(P.studio)?.callback_url).toBe("https://elsewhere.example.org/hook");
    expect(warnLines().find((l) => l.profile === P.studio)).toMatchObject({ webhook: "left_elsewhere" });
    await eventually(
      async () => (await b.built.deps.settings.listProfiles(TEAM)).length === 0,
      8000,
      "settings",
    );
    // The workspace can install again and set the profile again (its claim was released).
    expect((await b.install()).status).toBe(200);
    await set(`set ${P.newsroom}`);
    expect(await b.built.deps.settings.claims.owner(P.newsroom)).toBe(TEAM);
  });
});

describe("single-workspace mode", () => {
  it("app_uninstalled forgets the workspace's settings and routes, and removes its platform webhook", async () => {
    const h = await startHarness({ worker: { manual: true } });
    try {
      const r = await h.slash("/webhook", `set ${P.newsroom}`, { channel: "C0NEWS" });
      await h.answer(r.responseUrl);
      const token = h.sandbox.state.profiles.get(P.newsroom)?.webhook.callback_url?.split("/").pop() ?? "";
      expect(await h.built.deps.callbacks.get(token)).toBeDefined();
      const res = await sendSigned(
        h.eventsUrl,
        eventBody({ event: { type: "app_uninstalled" }, teamId: TEAM }),
        SIGNING_SECRET,
      );
      expect(res.status).toBe(200);
      await eventually(
        async () => (await h.built.deps.settings.listProfiles(TEAM)).length === 0,
        8000,
        "settings",
      );
      expect(await h.built.deps.callbacks.get(token)).toBeUndefined();
      expect(h.sandbox.state.profiles.get(P.newsroom)?.webhook.callback_url ?? null).toBeNull();
    } finally {
      await h.close();
    }
  });
});
