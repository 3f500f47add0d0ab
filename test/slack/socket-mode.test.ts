/**
 * Socket Mode over a real WebSocket on 127.0.0.1: the bot started with SLACK_APP_TOKEN opens its
 * connection through the Slack stand-in's apps.connections.open, receives slash commands,
 * interactions and events as envelopes and acks each one; its HTTP side (deliveries, health)
 * keeps listening on config.port/host, and Slack's HTTP request URL is not served at all.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { eventData } from "../../src/sandbox/deliver.js";
import { SEED } from "../../src/sandbox/server.js";
import { ACTIONS, BLOCKS, VIEWS } from "../../src/slack/blocks/index.js";
import {
  blockActionsPayload,
  DEFAULT_APP_TOKEN,
  eventPayload,
  sendSigned,
  slashCommandBody,
  slashCommandFields,
  viewSubmissionPayload,
} from "../../src/standin/index.js";
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
    expect(answer.response_type).toBe("in_channel");
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
  }, 20_000);
});
