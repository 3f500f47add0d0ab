/**
 * The payload builders and the stand-in against a real Bolt app: Bolt verifies the signatures,
 * parses the bodies, calls the Web API on the stand-in and respond()s to its response_urls.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { App, LogLevel, type SlashCommand } from "@slack/bolt";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  blockActionsBody,
  eventBody,
  type SlackStandin,
  sendSigned,
  slashCommandBody,
  startSlackStandin,
  urlVerificationBody,
  viewSubmissionBody,
} from "../../fakes/slack/index.js";
import { clientFor, waitFor } from "./helpers.js";

const SECRET = "bolt-test-signing-secret";

let s: SlackStandin;
let app: App;
let eventsUrl = "";
const commands: SlashCommand[] = [];
const actions: Array<Record<string, unknown>> = [];
const submissions: Array<Record<string, unknown>> = [];

beforeAll(async () => {
  s = await startSlackStandin();
  app = new App({
    signingSecret: SECRET,
    token: s.botToken,
    clientOptions: { slackApiUrl: s.apiUrl, retryConfig: { retries: 0 } },
    logLevel: LogLevel.ERROR,
  });
  app.command("/live", async ({ ack, command, respond }) => {
    await ack();
    commands.push(command);
    await respond({ response_type: "in_channel", text: `status of ${command.text}` });
  });
  app.action("refresh", async ({ ack, body, respond }) => {
    await ack();
    actions.push(body as unknown as Record<string, unknown>);
    await respond({ replace_original: true, text: "refreshed" });
  });
  app.action("events", async ({ ack, body }) => {
    await ack();
    actions.push(body as unknown as Record<string, unknown>);
  });
  app.view("edit_events", async ({ ack, view }) => {
    submissions.push(view as unknown as Record<string, unknown>);
    await ack();
  });
  app.event("app_home_opened", async ({ event, client }) => {
    await client.views.publish({
      user_id: event.user,
      view: { type: "home", blocks: [{ type: "section", text: { type: "mrkdwn", text: "Hello" } }] },
    });
  });
  const server = (await app.start(0)) as Server;
  eventsUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
});
beforeEach(() => {
  commands.length = 0;
  actions.length = 0;
  submissions.length = 0;
});
afterAll(async () => {
  await app.stop();
  await s.close();
});

describe("Bolt against the stand-in", () => {
  it("parses a slash command and respond()s to the stand-in's response_url", async () => {
    const responseUrl = s.newResponseUrl("C0NEWS", "U0ADMIN");
    const body = slashCommandBody({
      command: "/live",
      text: "status x9b2k4m",
      userId: "U0ADMIN",
      channelId: "C0NEWS",
      responseUrl,
      triggerId: "111.222.abc",
    });
    const res = await sendSigned(eventsUrl, body, SECRET);
    expect(res.status).toBe(200);
    expect(res.ms).toBeGreaterThan(0);
    expect(commands[0]).toMatchObject({
      command: "/live",
      text: "status x9b2k4m",
      user_id: "U0ADMIN",
      user_name: "ada",
      channel_id: "C0NEWS",
      channel_name: "news",
      team_id: "T0STANDIN",
      response_url: responseUrl,
      trigger_id: "111.222.abc",
      is_enterprise_install: "false",
    });
    const answer = await waitFor(() => s.responses(responseUrl)[0], 5000, "respond()");
    expect(answer).toEqual({ response_type: "in_channel", text: "status of status x9b2k4m" });
    expect(s.messages("C0NEWS").map((m) => m.text)).toEqual(["status of status x9b2k4m"]);
    // Bolt authorized the bot token with auth.test on the stand-in.
    expect(s.callsTo("auth.test").length).toBeGreaterThanOrEqual(1);
  });

  it("rejects a command signed with another secret", async () => {
    const body = slashCommandBody({ command: "/live", text: "help", responseUrl: s.newResponseUrl() });
    expect((await sendSigned(eventsUrl, body, "wrong-secret")).status).toBe(401);
    expect(commands).toHaveLength(0);
  });

  it("parses a button click, and respond({replace_original}) edits the clicked message", async () => {
    const card = await clientFor(s).chat.postMessage({ channel: "C0GENERAL", text: "card" });
    const responseUrl = s.newResponseUrl("C0GENERAL", "U0MEMBER", String(card.ts));
    const body = blockActionsBody({
      actionId: "refresh",
      value: "x9b2k4m",
      blockId: "card_actions",
      userId: "U0MEMBER",
      responseUrl,
      messageTs: String(card.ts),
    });
    expect((await sendSigned(eventsUrl, body, SECRET)).status).toBe(200);
    expect(actions[0]).toMatchObject({
      type: "block_actions",
      user: { id: "U0MEMBER" },
      channel: { id: "C0GENERAL" },
      container: { type: "message", message_ts: card.ts, channel_id: "C0GENERAL" },
      message: { ts: card.ts },
      actions: [{ action_id: "refresh", block_id: "card_actions", value: "x9b2k4m", type: "button" }],
    });
    await waitFor(() => s.responses(responseUrl).length === 1, 5000, "respond()");
    expect(s.messages("C0GENERAL")).toEqual([{ ts: card.ts, text: "refreshed", edits: 1, user: "U0BOT" }]);
  });

  it("parses checkbox selections", async () => {
    const body = blockActionsBody({
      actionId: "events",
      responseUrl: s.newResponseUrl(),
      selectedOptions: [{ value: "video.created" }, { value: "video.deleted" }],
    });
    expect((await sendSigned(eventsUrl, body, SECRET)).status).toBe(200);
    expect(actions[0]).toMatchObject({
      container: { is_ephemeral: true },
      actions: [
        { type: "checkboxes", selected_options: [{ value: "video.created" }, { value: "video.deleted" }] },
      ],
    });
    expect(actions[0]).not.toHaveProperty("message");
  });

  it("parses a view submission with its state values and private metadata", async () => {
    const values = {
      events: { pick: { type: "checkboxes", selected_options: [{ value: "video.published" }] } },
    };
    const body = viewSubmissionBody({
      callbackId: "edit_events",
      privateMetadata: "x2vq8nw",
      values,
      viewId: "V0042",
    });
    expect((await sendSigned(eventsUrl, body, SECRET)).status).toBe(200);
    expect(submissions[0]).toMatchObject({
      id: "V0042",
      callback_id: "edit_events",
      private_metadata: "x2vq8nw",
      state: { values },
    });
  });

  it("delivers an event whose listener publishes the App Home on the stand-in", async () => {
    const body = eventBody({
      event: { type: "app_home_opened", user: "U0MEMBER", channel: "D0MEMBER", tab: "home" },
    });
    expect((await sendSigned(eventsUrl, body, SECRET)).status).toBe(200);
    const home = await waitFor(() => s.homeView("U0MEMBER"), 5000, "views.publish");
    expect(home).toMatchObject({ type: "home" });
  });

  it("answers the URL verification challenge", async () => {
    const res = await sendSigned(eventsUrl, urlVerificationBody("chal-123"), SECRET);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ challenge: "chal-123" });
  });
});
