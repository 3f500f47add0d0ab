/**
 * Multi-workspace mode: the install flow over real HTTP (install page → Slack's consent screen →
 * redirect with code and state → installation stored), its failure pages, and requests from the
 * installed workspace answered with that workspace's own token.
 */
import { readFileSync } from "node:fs";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { STANDIN } from "../../fakes/slack/index.js";
import { loadConfig } from "../../src/config.js";
import { BOT_SCOPES } from "../../src/install/oauth.js";
import { ENTITY_TYPE } from "../../src/messages/index.js";
import { eventually, waitFor } from "../support/harness.js";
import { CLIENT_ID, localHook, type OAuthBot, PUBLIC_URL, startOAuthBot } from "./helper.js";

const TEAM = "T0STANDIN";
let b: OAuthBot;

beforeAll(async () => {
  b = await startOAuthBot();
});
afterAll(async () => {
  await b?.close();
});

describe("install flow", () => {
  it("asks for exactly the bot scopes of manifest.yml", () => {
    const manifest = readFileSync(new URL("../../manifest.yml", import.meta.url), "utf8");
    const bot = /scopes:\s*\n\s*bot:\s*\n((?:\s+(?:#.*|- .*)\n)+)/.exec(manifest)?.[1] ?? "";
    const scopes = [...bot.matchAll(/- ([a-z:.]+)/g)].map((m) => m[1]);
    expect(scopes).toEqual(BOT_SCOPES);
  });

  it("manifest.yml: unfurl_domains equal the default UNFURL_DOMAINS; link_shared, entity_details_requested and the entity type declared; rotation on", () => {
    const manifest = readFileSync(new URL("../../manifest.yml", import.meta.url), "utf8");
    const block = /\n {2}unfurl_domains:\s*\n((?:\s+(?:#.*|- .*)\n)+)/.exec(manifest)?.[1] ?? "";
    const domains = [...block.matchAll(/- ([a-z0-9.-]+)/g)].map((m) => m[1]);
    const defaults = loadConfig({
      PUBLIC_URL,
      SLACK_SIGNING_SECRET: "s",
      SLACK_BOT_TOKEN: "xoxb-1",
      PLATFORM_CLIENT_ID: "c",
      PLATFORM_CLIENT_SECRET: "s",
    }).unfurlDomains;
    expect(domains).toEqual(defaults);
    const events = /bot_events:\s*\n((?:\s+(?:#.*|- .*)\n)+)/.exec(manifest)?.[1] ?? "";
    expect(events).toMatch(/- link_shared\n/);
    // Work Objects: the entity type the previews send, and the event their details pane answers.
    expect(events).toMatch(/- entity_details_requested\n/);
    expect(manifest).toMatch(
      /\n {2}rich_previews:\n {4}is_active: true\n {4}entity_types:\n {6}- slack#\/entities\/item\n/,
    );
    expect(ENTITY_TYPE).toBe("slack#/entities/item");
    expect(manifest).toMatch(/\n {2}token_rotation_enabled: true\n/);
  });

  it("GET /slack/install redirects to Slack's consent screen with a state also set as an HttpOnly cookie", async () => {
    const r = await b.beginInstall();
    expect(r.status).toBe(302);
    const loc = new URL(r.location);
    expect(`${loc.origin}${loc.pathname}`).toBe("https://slack.com/oauth/v2/authorize");
    expect(loc.searchParams.get("client_id")).toBe(CLIENT_ID);
    expect(loc.searchParams.get("scope")).toBe(BOT_SCOPES.join(","));
    expect(loc.searchParams.get("redirect_uri")).toBe(`${PUBLIC_URL}/slack/oauth_redirect`);
    expect(r.state.length).toBeGreaterThan(20);
    expect(r.cookie).toBe(`slack-app-oauth-state=${r.state}`);
  });

  it("rejects a state that is not this browser's, without calling Slack", async () => {
    const first = await b.beginInstall();
    const second = await b.beginInstall();
    const before = b.slack.callsTo("oauth.v2.access").length;
    // The state of one install attempt with the cookie of another.
    const r = await b.redirect({ code: STANDIN.goodCode, state: first.state }, second.cookie);
    expect(r.status).toBe(400);
    expect(r.body).toContain("Installation did not complete");
    expect(r.body).toContain("opened in another browser");
    // A forged state, with a matching cookie: not signed with SLACK_STATE_SECRET.
    const forged = await b.redirect(
      { code: STANDIN.goodCode, state: "forged-state" },
      "slack-app-oauth-state=forged-state",
    );
    expect(forged.status).toBe(400);
    expect(b.slack.callsTo("oauth.v2.access").length).toBe(before);
    expect(await b.installations.find({ teamId: TEAM })).toBeUndefined();
  });

  it("shows a failure page for a code Slack refuses, and stores nothing", async () => {
    const s = await b.beginInstall();
    const r = await b.redirect({ code: "bad-code", state: s.state }, s.cookie);
    expect(r.status).toBe(400);
    expect(r.body).toContain("Slack did not accept the installation");
    expect(r.body).toContain('href="/slack/install"');
    const call = b.slack.callsTo("oauth.v2.access").at(-1);
    expect(call?.error).toBe("invalid_code");
    expect(await b.installations.find({ teamId: TEAM })).toBeUndefined();
  });

  it("stores the installation for a good code, shows a helpful page and logs the team without the token", async () => {
    const r = await b.install();
    expect(r.status).toBe(200);
    expect(r.body).toContain("The app is installed in <strong>Standin Workspace</strong>");
    expect(r.body).toContain("/webhook set");
    const installed = await b.installations.find({ teamId: TEAM });
    const token = installed?.bot?.token ?? "";
    expect(token).toMatch(/^xoxb-installed-T0STANDIN-/);
    expect(b.slack.issuedTokens()).toContain(token);
    expect(installed?.bot?.scopes).toEqual(BOT_SCOPES);
    // The exchange and its auth.test went to SLACK_API_URL (the stand-in), with the client id.
    expect(b.slack.callsTo("oauth.v2.access").at(-1)).toMatchObject({ ok: true });
    expect(b.slack.callsTo("auth.test").at(-1)?.token).toBe(token);
    const line = b.logs.find((l) => l.includes('"app installed"')) ?? "";
    expect(JSON.parse(line)).toMatchObject({ team: TEAM, orgWide: false, installer: STANDIN.installingUser });
    expect(b.logs.join("\n")).not.toContain(token);
    // Without STORE_ENCRYPTION_KEY, one warning at start-up.
    expect(b.logs.filter((l) => l.includes("STORE_ENCRYPTION_KEY is not set")).length).toBe(1);
  });

  it("answers a signed command from the installed workspace with that workspace's token, and posts its notifications with it", async () => {
    const token = (await b.installations.find({ teamId: TEAM }))?.bot?.token ?? "";
    const res = await b.slash("/webhook", `set ${SEED.profiles.newsroom}`, {
      team: TEAM,
      user: "U0ADMIN",
      channel: "C0NEWS",
    });
    expect(res.status).toBe(200);
    const answer = await b.answer(res.responseUrl);
    expect(answer.response_type).toBe("in_channel");
    // The manager check (users.info) used the installation's token.
    const info = b.slack.callsTo("users.info").at(-1);
    expect(info?.token).toBe(token);
    // A delivery: the worker posts with the same token.
    const hook = b.sandbox.state.profiles.get(SEED.profiles.newsroom)?.webhook.callback_url ?? "";
    const delivered = await request(localHook(b, hook), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        type: "video.created",
        timestamp: Date.now(),
        data: { owner_id: SEED.profiles.newsroom, video_id: "x7oauth1" },
      }),
    });
    await delivered.body.dump();
    expect(delivered.statusCode).toBe(200);
    const post = await waitFor(
      () => b.slack.callsTo("chat.postMessage").find((c) => c.args.channel === "C0NEWS"),
      8000,
      "the notification",
    );
    expect(post.token).toBe(token);
    expect(post.ok).toBe(true);
  });

  it("App Home of the installed workspace is published with its token", async () => {
    const token = (await b.installations.find({ teamId: TEAM }))?.bot?.token ?? "";
    const r = await b.event(
      { type: "app_home_opened", user: "U0ADMIN", tab: "home", channel: "D0HOME" },
      TEAM,
    );
    expect(r.status).toBe(200);
    const publish = await eventually(
      async () => b.slack.callsTo("views.publish").at(-1),
      8000,
      "views.publish",
    );
    expect(publish.token).toBe(token);
  });

  it("does not answer a workspace that never installed the app", async () => {
    const before = b.slack.calls.length;
    const res = await b.slash("/live", "help", { team: "T0NEVER", user: "U0ADMIN", channel: "C0GENERAL" });
    // Bolt acknowledges (so Slack does not retry) and calls no listener.
    expect(res.status).toBe(200);
    await new Promise((r) => setTimeout(r, 200));
    expect(b.slack.responses(res.responseUrl)).toEqual([]);
    expect(b.logs.some((l) => l.includes("Authorization of incoming event did not succeed"))).toBe(true);
    expect(b.slack.calls.slice(before).filter((c) => c.method !== "response_url")).toEqual([]);
  });
});
