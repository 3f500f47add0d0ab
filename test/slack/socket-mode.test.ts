/**
 * Socket Mode over a real WebSocket on 127.0.0.1: the bot started with SLACK_APP_TOKEN opens its
 * connection through the Slack stand-in's apps.connections.open, receives slash commands,
 * interactions and events as envelopes and acks each one; its HTTP side (deliveries, health)
 * keeps listening on config.port/host, and Slack's HTTP request URL is not served at all.
 */

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { WebSocket } from "ws";
import { botEnvForFakes } from "../../fakes/env.js";
import { eventData } from "../../fakes/platform/deliver.js";
import { type Sandbox, SEED, startSandbox } from "../../fakes/platform/server.js";
import {
  blockActionsPayload,
  DEFAULT_APP_TOKEN,
  eventPayload,
  STANDIN,
  sendSigned,
  slashCommandBody,
  slashCommandFields,
  startSlackStandin,
  viewSubmissionPayload,
} from "../../fakes/slack/index.js";
import type { SlackStandin } from "../../fakes/slack/types.js";
import { type BuiltApp, composeApp } from "../../src/compose.js";
import { type Config, loadConfig } from "../../src/config.js";
import { createLogger } from "../../src/log.js";
import { ACTIONS, BLOCKS, VIEWS } from "../../src/messages/index.js";
import { createOutbox } from "../../src/outbox/index.js";
import { createPlatformClient } from "../../src/platform/index.js";
import {
  CallbackRepo,
  InstallationRepo,
  openStore,
  SettingsRepo,
  type Store,
} from "../../src/store/index.js";
import { type Harness, SIGNING_SECRET, startHarness, waitFor } from "../support/harness.js";

let h: Harness;
const TEAM = "T0STANDIN";
const json = (v: unknown) => JSON.stringify(v);

beforeAll(async () => {
  h = await startHarness({ env: { SLACK_APP_TOKEN: DEFAULT_APP_TOKEN } });
});
afterAll(async () => {
  // Also scans the logs and Slack calls for every secret, the app token included.
  await h?.close();
});
beforeEach(() => {
  h.sandbox.reset();
  h.sandbox.clearFaults();
});

/** A slash command as a Socket Mode envelope; resolves with the ack and the response_url. */
async function command(text: string, o: { command?: string; user?: string; channel?: string } = {}) {
  const channel = o.channel ?? "C0GENERAL";
  const user = o.user ?? "U0ADMIN";
  const responseUrl = h.slack.newResponseUrl(channel, user);
  const fields = slashCommandFields({
    command: o.command ?? "/live",
    text,
    userId: user,
    teamId: TEAM,
    channelId: channel,
    responseUrl,
  });
  const started = Date.now();
  const ack = await h.slack.socket.send("slash_commands", fields);
  return { ack, ackMs: Date.now() - started, responseUrl };
}

describe("connection", () => {
  it("opens with the app token through apps.connections.open and stays connected", () => {
    const opens = h.slack.callsTo("apps.connections.open");
    expect(opens).toHaveLength(1);
    expect(opens[0]?.token).toBe(DEFAULT_APP_TOKEN);
    expect(opens[0]?.ok).toBe(true);
    expect(h.slack.socket.connections).toBe(1);
    expect(h.slack.socket.connects).toBe(1);
  });

  it("apps.connections.open refuses a bot token or a wrong app token", async () => {
    const open = (token: string) =>
      fetch(`${h.slack.apiUrl}apps.connections.open`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}` },
      }).then((r) => r.json() as Promise<{ ok: boolean; error?: string }>);
    expect(await open(h.slack.botToken)).toEqual({ ok: false, error: "not_allowed_token_type" });
    expect(await open("xapp-1-A0OTHER-1-nope")).toEqual({ ok: false, error: "invalid_auth" });
  });
});

describe("over the WebSocket", () => {
  it("/live status is acked at once and answered through response_url", async () => {
    const { ack, ackMs, responseUrl } = await command(`status ${SEED.livestreams.onAirAdBreak}`, {
      user: "U0MEMBER",
    });
    expect(ack.payload ?? {}).toEqual({});
    expect(ackMs).toBeLessThan(2_000);
    const answer = await h.answer(responseUrl);
    expect(answer.response_type).toBe("in_channel");
    expect(String(answer.text)).toMatch(/on air/i);
    expect(json(answer)).not.toContain(SEED.streamKey);
  });

  it("a button press (interactive envelope) re-reads and replaces the card", async () => {
    const responseUrl = h.slack.newResponseUrl("C0GENERAL", "U0MEMBER");
    const payload = blockActionsPayload({
      actionId: ACTIONS.liveRefresh,
      value: SEED.livestreams.recording,
      userId: "U0MEMBER",
      teamId: TEAM,
      channelId: "C0GENERAL",
      responseUrl,
    });
    const ack = await h.slack.socket.send("interactive", payload);
    expect(ack.payload ?? {}).toEqual({});
    const answer = await h.answer(responseUrl);
    expect(answer.replace_original).toBe(true);
    expect(json(answer)).toContain("U0MEMBER");
    expect(h.sandbox.requests.filter((r) => r.path.startsWith("/v2/livestreams/"))).toHaveLength(1);
  });

  it("a modal's answer travels in the ack (response_action)", async () => {
    const payload = viewSubmissionPayload({
      callbackId: VIEWS.eventsModal,
      privateMetadata: "",
      values: { [BLOCKS.events]: { [BLOCKS.eventsInput]: { type: "checkboxes", selected_options: [] } } },
      userId: "U0ADMIN",
      teamId: TEAM,
    });
    const ack = await h.slack.socket.send("interactive", payload);
    expect(ack.payload).toMatchObject({
      response_action: "errors",
      errors: { [BLOCKS.events]: expect.any(String) },
    });
    expect(h.sandbox.requests.filter((r) => r.method === "PATCH")).toHaveLength(0);
  });

  it("app_home_opened (events_api envelope) publishes the Home", async () => {
    const before = h.slack.callsTo("views.publish").length;
    const event = { type: "app_home_opened", user: "U0MEMBER", channel: "D0HOME", tab: "home" };
    const ack = await h.slack.socket.send("events_api", eventPayload({ teamId: TEAM, event }));
    expect(ack.envelope_id).toBeTruthy();
    const publish = await waitFor(
      () => h.slack.callsTo("views.publish").slice(before)[0],
      8000,
      "views.publish",
    );
    expect(publish.args.user_id).toBe("U0MEMBER");
    expect(h.slack.homeView("U0MEMBER")).toMatchObject({ type: "home" });
  });

  it("an envelope nobody handles is still acked (Slack would retry it otherwise)", async () => {
    const event = { type: "reaction_added", user: "U0MEMBER", reaction: "tada" };
    const ack = await h.slack.socket.send("events_api", eventPayload({ teamId: TEAM, event }));
    expect(ack.envelope_id).toBeTruthy();
  });
});

describe("HTTP side in Socket Mode", () => {
  it("serves /healthz on config.port/host and no Slack request URL, signed or not", async () => {
    expect(h.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(h.url).not.toBe("http://127.0.0.1:0");
    const health = await fetch(`${h.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    // Slack sends nothing over HTTP in Socket Mode: a correctly signed request is not taken.
    const responseUrl = h.slack.newResponseUrl("C0GENERAL", "U0ADMIN");
    const body = slashCommandBody({
      command: "/live",
      text: `status ${SEED.livestreams.offAir}`,
      responseUrl,
    });
    const res = await sendSigned(h.eventsUrl, body, SIGNING_SECRET);
    expect(res.status).toBe(404);
    await new Promise((r) => setTimeout(r, 300));
    expect(h.slack.responses(responseUrl)).toEqual([]);
    expect(h.sandbox.requests).toHaveLength(0);
  });

  it("/webhook set over the socket, then a platform delivery on the HTTP side is posted in the channel", async () => {
    const { responseUrl } = await command(`set ${SEED.profiles.newsroom} created`, {
      command: "/webhook",
      channel: "C0NEWS",
    });
    const answer = await h.answer(responseUrl);
    expect(answer.response_type, JSON.stringify(answer)).toBe("in_channel");
    const posts = h.slack.callsTo("chat.postMessage").length;
    const r = await h.sandbox.deliver(
      SEED.profiles.newsroom,
      { type: "video.created", data: eventData("video.created", SEED.profiles.newsroom, "x7sock") },
      { deliverTo: h.url },
    );
    expect(r.status, r.body).toBe(200);
    const post = await waitFor(
      () =>
        h.slack
          .callsTo("chat.postMessage")
          .slice(posts)
          .find((c) => c.args.channel === "C0NEWS"),
      8000,
      "the notification",
    );
    expect(json(post.args)).toContain("x7sock");
  });
});

describe("reconnection", () => {
  it("disconnect(refresh_requested) leads to a new connection and commands keep working", async () => {
    const opens = h.slack.callsTo("apps.connections.open").length;
    const connects = h.slack.socket.connects;
    h.slack.socket.disconnect("refresh_requested");
    // The app closes its socket, then (after its reconnect delay, 5 s by default) opens a new one.
    await waitFor(() => h.slack.socket.connections === 0, 3000, "the old connection to close");
    await h.slack.socket.waitForConnects(connects + 1, 12_000);
    expect(h.slack.callsTo("apps.connections.open")).toHaveLength(opens + 1);
    expect(h.slack.socket.connections).toBe(1);
    const { responseUrl } = await command(`status ${SEED.livestreams.offAir}`);
    const answer = await h.answer(responseUrl);
    expect(answer.response_type).toBe("in_channel");
    // The app pings every clientPingTimeout / 3 (about 1.7 s); the stand-in's pongs keep it connected.
    await waitFor(() => h.slack.socket.pingsFromApp > 0, 4000, "a ping from the app");
    expect(h.slack.socket.connects).toBe(connects + 1);
    expect(h.slack.socket.connections).toBe(1);
  }, 20_000);

  it("a connection dropped without a close frame is reopened too", async () => {
    const connects = h.slack.socket.connects;
    h.slack.socket.drop();
    await h.slack.socket.waitForConnects(connects + 1, 12_000);
    const { responseUrl } = await command(`status ${SEED.livestreams.offAir}`);
    expect((await h.answer(responseUrl)).response_type).toBe("in_channel");
  }, 20_000);
});

describe("the stand-in's Socket Mode protocol, with a plain WebSocket client", () => {
  let s: SlackStandin;
  beforeAll(async () => {
    s = await startSlackStandin({ socketPingIntervalMs: 100 });
  });
  afterAll(async () => {
    await s?.close();
  });

  async function ticketUrl(): Promise<string> {
    const res = await fetch(`${s.apiUrl}apps.connections.open`, {
      method: "POST",
      headers: { authorization: `Bearer ${s.socket.appToken}` },
    });
    const body = (await res.json()) as { ok: boolean; url: string };
    expect(body.ok).toBe(true);
    expect(body.url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/link\/\?ticket=[0-9a-f-]{36}&app_id=A0STANDIN$/);
    return body.url;
  }

  /** Connects and collects what the server sends (text messages parsed, pings counted). */
  async function connect(url: string) {
    const ws = new WebSocket(url);
    const messages: Array<Record<string, unknown>> = [];
    const seen = { pings: 0, pongs: 0 };
    ws.on("message", (data) => messages.push(JSON.parse(String(data)) as Record<string, unknown>));
    ws.on("ping", () => {
      seen.pings += 1;
    });
    ws.on("pong", () => {
      seen.pongs += 1;
    });
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => resolve());
      ws.once("error", reject);
    });
    return { ws, messages, seen };
  }

  it("a ticket opens one connection: hello first, pings from the server, pongs to the client's pings", async () => {
    const url = await ticketUrl();
    const { ws, messages, seen } = await connect(url);
    await waitFor(() => messages[0], 2000, "hello");
    expect(messages[0]).toMatchObject({
      type: "hello",
      num_connections: 1,
      connection_info: { app_id: "A0STANDIN" },
    });
    ws.ping();
    await waitFor(() => seen.pongs > 0 && seen.pings > 0, 2000, "a pong and a ping");
    // The ticket is used up: a second connection with it is refused.
    await expect(connect(url)).rejects.toThrow(/401/);
    ws.close();
    await waitFor(() => s.socket.connections === 0, 2000, "the close");
  });

  it("an envelope has Slack's shape; the ack resolves send() with its payload; no ack rejects it", async () => {
    const { ws, messages } = await connect(await ticketUrl());
    await waitFor(() => messages[0], 2000, "hello");
    const sent = s.socket.send("slash_commands", { command: "/live", text: "help" }, { envelopeId: "env-1" });
    const envelope = await waitFor(() => messages[1], 2000, "the envelope");
    expect(envelope).toEqual({
      envelope_id: "env-1",
      type: "slash_commands",
      payload: { command: "/live", text: "help" },
      accepts_response_payload: true,
    });
    ws.send(JSON.stringify({ envelope_id: "env-1", payload: { text: "ok" } }));
    expect(await sent).toMatchObject({ envelope_id: "env-1", payload: { text: "ok" } });
    expect(s.socket.acks.map((a) => a.envelope_id)).toContain("env-1");

    const event = s.socket.send("events_api", { event: { type: "x" } }, { timeoutMs: 200 });
    await expect(event).rejects.toThrow(/not acked in 200 ms/);
    expect(messages[2]).toMatchObject({
      type: "events_api",
      accepts_response_payload: false,
      retry_attempt: 0,
      retry_reason: "",
    });

    s.socket.disconnect("refresh_requested");
    await waitFor(() => messages[3], 2000, "the disconnect message");
    expect(messages[3]).toMatchObject({ type: "disconnect", reason: "refresh_requested" });
    ws.close();
    await waitFor(() => s.socket.connections === 0, 2000, "the close");
  });

  it("drop() cuts the connection without a close frame", async () => {
    const { ws } = await connect(await ticketUrl());
    const closed = new Promise<number>((resolve) => ws.once("close", (code) => resolve(code)));
    s.socket.drop();
    expect(await closed).toBe(1006);
    expect(s.socket.connections).toBe(0);
  });
});

describe("bots built directly (OAuth mode, a refused app token)", () => {
  let slack: SlackStandin;
  let sandbox: Sandbox;
  const stores: Store[] = [];
  const bots: BuiltApp[] = [];
  let url = "";

  /** composeApp in Socket Mode with these variables on top of the stand-in's and the sandbox's. */
  async function build(env: Record<string, string>, port = 0): Promise<BuiltApp> {
    const base = loadConfig({
      ...botEnvForFakes({
        sandbox,
        slack,
        publicUrl: "https://bot.example.test",
        signingSecret: "unused-in-socket-mode",
        store: "memory://",
        botToken: false,
      }),
      SLACK_APP_TOKEN: slack.socket.appToken,
      ...env,
    });
    const config: Config = { ...base, port, host: "127.0.0.1" };
    const logger = createLogger({ level: "silent" });
    const store = await openStore(config.store, logger);
    stores.push(store);
    const built = composeApp(config, {
      platform: createPlatformClient(config.platform, logger),
      outbox: await createOutbox(store, logger),
      settings: new SettingsRepo(store, logger),
      callbacks: new CallbackRepo(store, logger),
      installations: new InstallationRepo(store, logger),
      tuning: { worker: { manual: true } },
      logger,
    });
    bots.push(built);
    return built;
  }

  beforeAll(async () => {
    sandbox = await startSandbox();
    slack = await startSlackStandin();
    const built = await build({
      SLACK_CLIENT_ID: "1111.2222",
      SLACK_CLIENT_SECRET: "oauth-client-secret-socket-0123",
      SLACK_STATE_SECRET: "oauth-state-secret-socket-0123456789",
      ALLOWED_WORKSPACES: "T0STANDIN",
    });
    const server = await built.start();
    url = `http://127.0.0.1:${(server?.address() as AddressInfo | undefined)?.port}`;
  });
  afterAll(async () => {
    for (const b of bots) await b.stop();
    for (const s of stores) await s.close();
    await slack?.close();
    await sandbox?.close();
  });

  it("a refused app token fails start-up at once and frees the HTTP port", async () => {
    const free = createServer();
    await new Promise<void>((resolve) => free.listen(0, "127.0.0.1", resolve));
    const port = (free.address() as AddressInfo).port;
    await new Promise((resolve) => free.close(resolve));
    const bot = await build(
      { SLACK_BOT_TOKEN: slack.botToken, SLACK_APP_TOKEN: "xapp-1-A0OTHER-1-revoked" },
      port,
    );
    const started = Date.now();
    await expect(bot.start()).rejects.toThrow(/invalid_auth/);
    expect(Date.now() - started).toBeLessThan(3000);
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  });

  it("the install pages are on the HTTP side; the installed workspace's envelopes use its own token", async () => {
    const begin = await fetch(`${url}/slack/install`, { redirect: "manual" });
    expect(begin.status).toBe(302);
    const state = new URL(begin.headers.get("location") ?? "").searchParams.get("state") ?? "";
    const cookie = /slack-app-oauth-state=[^;]+/.exec(begin.headers.get("set-cookie") ?? "")?.[0] ?? "";
    const done = await fetch(
      `${url}/slack/oauth_redirect?${new URLSearchParams({ code: STANDIN.goodCode, state })}`,
      { headers: { cookie } },
    );
    expect(done.status).toBe(200);
    const [installed] = slack.issuedTokens();
    expect(installed).toMatch(/^xoxb-installed-/);
    const event = { type: "app_home_opened", user: "U0ADMIN", channel: "D0HOME", tab: "home" };
    await slack.socket.send("events_api", eventPayload({ teamId: TEAM, event }));
    const publish = await waitFor(() => slack.callsTo("views.publish")[0], 8000, "views.publish");
    expect(publish.token).toBe(installed);
  });
});
