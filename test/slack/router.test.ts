/**
 * src/slack/router.ts: listeners registered by name are found with one lookup instead of Bolt
 * trying each listener's chain, and get what Bolt would have given them. A real Bolt app (HTTP
 * receiver, signature checks) on 127.0.0.1, the Slack stand-in for its auth.test, signed requests.
 * What ran for a request is read once Bolt is done with it (a first global middleware counts the
 * requests whose middleware and listeners have all finished), not after a fixed wait.
 */
import type { AddressInfo } from "node:net";
import { App, HTTPReceiver, LogLevel } from "@slack/bolt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  blockActionsBody,
  eventBody,
  type SlackStandin,
  sendSigned,
  slashCommandBody,
  startSlackStandin,
  viewSubmissionBody,
} from "../../fakes/slack/index.js";
import { routedApp } from "../../src/slack/router.js";
import { waitFor } from "../support/harness.js";

const SECRET = "router-test-secret-0123456789abcdef";

let slack: SlackStandin;
let receiver: HTTPReceiver;
let app: App;
let url: string;
/** What each listener was called with: its name, and the names of its arguments. */
const calls: Array<{ who: string; keys: string[] }> = [];
const seen = (who: string, args: object) => calls.push({ who, keys: Object.keys(args).sort() });
/** Requests Bolt is done with: every middleware and listener that ran for them has finished. */
let handled = 0;

beforeAll(async () => {
  slack = await startSlackStandin();
  receiver = new HTTPReceiver({ signingSecret: SECRET, logLevel: LogLevel.ERROR });
  app = new App({
    receiver,
    token: slack.botToken,
    logLevel: LogLevel.ERROR,
    clientOptions: { slackApiUrl: slack.apiUrl },
    convoStore: false,
  });
  // First of the global middleware (the router's is the last): its `next` resolves once the
  // router's listener, or every one of Bolt's listeners that matched, has finished.
  app.use(async ({ next }) => {
    try {
      await next();
    } finally {
      handled++;
    }
  });
  const routed = routedApp(app);
  routed.command("/named", async ({ ack, ...rest }) => {
    await ack();
    seen("named command", { ack, ...rest });
  });
  routed.action("named_action", async ({ ack, ...rest }) => {
    await ack();
    seen("named action", { ack, ...rest });
  });
  routed.view("named_view", async ({ ack, ...rest }) => {
    await ack();
    seen("named view", { ack, ...rest });
  });
  routed.event("app_mention", async (args) => {
    seen("named event", args);
  });
  // Registered by pattern: Bolt's own listeners, as before (the catch-all acks for both).
  routed.command(/^\/pattern/, async (args) => {
    seen("pattern command", args);
  });
  app.command(/.*/, async ({ ack }) => {
    await ack();
    seen("catch-all", {});
  });
  const server = await receiver.start({ port: 0, host: "127.0.0.1" });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`;
});
afterAll(async () => {
  await receiver.stop();
  await slack.close();
});

async function send(body: string): Promise<void> {
  calls.length = 0;
  const before = handled;
  expect((await sendSigned(url, body, SECRET)).status).toBe(200);
  // The listeners record after their ack: read them once Bolt is done with the request.
  await waitFor(() => handled > before, 8000, "Bolt done with the request");
}

const command = (name: string) =>
  slashCommandBody({
    command: name,
    text: "status",
    userId: "U0ADMIN",
    teamId: slack.teamId,
    channelId: "C0GENERAL",
    responseUrl: slack.newResponseUrl(),
  });

describe("listeners by name", () => {
  it("a command registered by name gets exactly what Bolt gives a listener, and Bolt's other listeners do not run", async () => {
    await send(command("/pattern-one"));
    const fromBolt = calls.find((c) => c.who === "pattern command")?.keys;
    expect(fromBolt).toContain("respond");
    // Bolt ran every matching listener: the pattern's and the catch-all.
    expect(calls.map((c) => c.who).sort()).toEqual(["catch-all", "pattern command"]);

    await send(command("/named"));
    expect(calls).toEqual([{ who: "named command", keys: fromBolt }]);
  });

  it("actions, views and events by name; a name nobody registered goes on to Bolt's listeners", async () => {
    await send(
      blockActionsBody({ actionId: "named_action", value: "v", responseUrl: slack.newResponseUrl() }),
    );
    expect(calls.map((c) => c.who)).toEqual(["named action"]);
    expect(calls[0]?.keys).toEqual(
      expect.arrayContaining(["action", "body", "payload", "respond", "context"]),
    );

    await send(viewSubmissionBody({ callbackId: "named_view", values: {} }));
    expect(calls.map((c) => c.who)).toEqual(["named view"]);
    expect(calls[0]?.keys).toEqual(expect.arrayContaining(["view", "body", "payload", "context"]));

    await send(
      eventBody({ event: { type: "app_mention", user: "U0ADMIN", text: "hi", channel: "C0GENERAL" } }),
    );
    expect(calls.map((c) => c.who)).toEqual(["named event"]);
    expect(calls[0]?.keys).toEqual(expect.arrayContaining(["event", "body", "payload", "context"]));

    await send(command("/unregistered"));
    expect(calls.map((c) => c.who)).toEqual(["catch-all"]);
  });

  it("two listeners for one name are refused when the second is registered", () => {
    const routed = routedApp(
      new App({
        receiver: new HTTPReceiver({ signingSecret: SECRET, logLevel: LogLevel.ERROR }),
        token: slack.botToken,
        logLevel: LogLevel.ERROR,
        clientOptions: { slackApiUrl: slack.apiUrl },
      }),
    );
    routed.action("twice", async () => {});
    expect(() => routed.action("twice", async () => {})).toThrow(/two listeners for the action "twice"/);
  });
});
