/**
 * Requests that claim to come from Slack: the bot acts only on those signed with the signing
 * secret (v0 HMAC-SHA256 over "v0:<timestamp>:<body>") and timestamped within the last 5 minutes,
 * which is Bolt's HTTPReceiver check and Slack's own guidance. Everything else gets 401 and
 * nothing happens: no platform call, no Slack call, no answer.
 *
 * Replays: a request replayed while its timestamp is within the 5 minutes is accepted again
 * (Bolt keeps no record of seen signatures; Slack's guidance is the timestamp window, and a replay
 * needs the plaintext of a request Slack sent over TLS). Once the 5 minutes have passed it is
 * rejected. The commands are safe to run twice (a status card posted again; `/webhook set` again
 * rotates the callback token, which the platform then uses). Only the lower bound of the window is
 * checked: a timestamp in the future can only come from someone holding the secret.
 *
 * "Nothing happens" is judged after the request's answer (the positive signal: it was handled; 401,
 * or 200 for an ssl_check) and a short quiet pause: such a request marks no "done" a test can
 * observe (the bot records nothing for it), so the pause gives stray work after the answer a chance
 * to show.
 */
import { request } from "undici";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import {
  eventBody,
  type SlackSignatureHeaders,
  signSlackRequest,
  slackSignature,
  slashCommandBody,
  urlVerificationBody,
} from "../../fakes/slack/index.js";
import { type Harness, SIGNING_SECRET, startHarness, waitFor } from "../support/harness.js";

let h: Harness;
beforeAll(async () => {
  // No Slack call at start-up: the bot token is checked (auth.test) on the first request that
  // passes the signature check (src/slack/single-token.ts), so a refused one causes no call at all.
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});
beforeEach(() => {
  h.sandbox.reset();
});

const now = () => Math.floor(Date.now() / 1000);

async function raw(
  body: string,
  headers: Record<string, string> | SlackSignatureHeaders,
  contentType?: string,
) {
  const res = await request(h.eventsUrl, {
    method: "POST",
    headers: {
      "content-type":
        contentType ?? (body.startsWith("{") ? "application/json" : "application/x-www-form-urlencoded"),
      ...headers,
    },
    body,
  });
  return { status: res.statusCode, text: await res.body.text() };
}

/** A manager's `/webhook set`: if accepted it PATCHes the platform and answers in the channel. */
function setCommand() {
  const responseUrl = h.slack.newResponseUrl("C0SEC", "U0ADMIN");
  const body = slashCommandBody({
    command: "/webhook",
    text: `set ${SEED.profiles.newsroom}`,
    userId: "U0ADMIN",
    teamId: h.slack.teamId,
    channelId: "C0SEC",
    responseUrl,
  });
  return { body, responseUrl };
}

/**
 * After the request's answer (already received): a quiet pause, nothing observable marking that
 * no work follows it (see the header).
 */
const QUIET_MS = 300;
const quiet = () => new Promise((r) => setTimeout(r, QUIET_MS));

/** After the answer and a quiet pause, checks that the request had no effect at all. */
async function nothingHappened(responseUrl: string, callsBefore: number) {
  await quiet();
  expect(h.sandbox.requests).toEqual([]);
  expect(h.slack.responses(responseUrl)).toEqual([]);
  expect(h.slack.calls.slice(callsBefore).map((c) => c.method)).toEqual([]);
}

type Forge = (body: string) => Record<string, string> | SlackSignatureHeaders;
const signed = (body: string, ts = now(), secret = SIGNING_SECRET) => signSlackRequest(body, secret, ts);

const REJECTED: Array<[string, Forge]> = [
  ["signed with another secret", (b) => signed(b, now(), "not-the-signing-secret")],
  [
    "signature of another body",
    (b) => ({ ...signed(b), "x-slack-signature": slackSignature(`${b}&x=1`, SIGNING_SECRET, now()) }),
  ],
  ["timestamp 5 min 10 s old (correctly signed)", (b) => signed(b, now() - 310)],
  ["timestamp 1 hour old (correctly signed)", (b) => signed(b, now() - 3600)],
  [
    "signed for another timestamp",
    (b) => ({ ...signed(b, now() - 10), "x-slack-request-timestamp": String(now()) }),
  ],
  ["no x-slack-signature", (b) => ({ "x-slack-request-timestamp": signed(b)["x-slack-request-timestamp"] })],
  ["no x-slack-request-timestamp", (b) => ({ "x-slack-signature": signed(b)["x-slack-signature"] })],
  ["no signing headers at all", () => ({})],
  ["timestamp not a number", (b) => ({ ...signed(b), "x-slack-request-timestamp": "soon" })],
  [
    "signature version v1",
    (b) => ({ ...signed(b), "x-slack-signature": signed(b)["x-slack-signature"].replace("v0=", "v1=") }),
  ],
  ["empty signature hash", (b) => ({ ...signed(b), "x-slack-signature": "v0=" })],
];

describe("a slash command that is not signed right", () => {
  it.each(REJECTED)("%s → 401, and nothing happens", async (_name, forge) => {
    const { body, responseUrl } = setCommand();
    const before = h.slack.calls.length;
    const res = await raw(body, forge(body));
    expect(res.status).toBe(401);
    await nothingHappened(responseUrl, before);
  });

  it("the same command signed right is acted on (the checks above can fail)", async () => {
    const { body, responseUrl } = setCommand();
    const res = await raw(body, signed(body, now() - 240));
    expect(res.status).toBe(200);
    const answer = await waitFor(() => h.slack.responses(responseUrl)[0], 8000, "the answer");
    expect(answer.response_type).toBe("in_channel");
    expect(h.sandbox.requests.some((r) => r.method === "PATCH")).toBe(true);
  });

  it("an unsigned ssl_check carrying a smuggled command is answered but runs nothing", async () => {
    const { body, responseUrl } = setCommand();
    const before = h.slack.calls.length;
    const res = await raw(`ssl_check=1&${body}`, {});
    expect(res.status).toBe(200);
    await nothingHappened(responseUrl, before);
  });
});

describe("events and interactions are checked the same way", () => {
  it("an unsigned url_verification and a forged app_home_opened → 401, nothing published", async () => {
    const verification = urlVerificationBody("challenge-abc");
    const v = await raw(verification, {});
    expect(v.status).toBe(401);
    expect(v.text).not.toContain("challenge-abc");
    const event = eventBody({
      event: { type: "app_home_opened", user: "U0ADMIN", channel: "D0HOME", tab: "home" },
      teamId: h.slack.teamId,
    });
    const before = h.slack.calls.length;
    expect((await raw(event, signed(event, now(), "wrong-secret"))).status).toBe(401);
    await quiet();
    expect(h.slack.calls.length).toBe(before);
  });
});

describe("replays", () => {
  it("within the 5 minutes a replay is accepted again (documented window); a stale one is not", async () => {
    const responseUrl = h.slack.newResponseUrl("C0GENERAL", "U0MEMBER");
    const body = slashCommandBody({
      command: "/live",
      text: `status ${SEED.livestreams.offAir}`,
      userId: "U0MEMBER",
      teamId: h.slack.teamId,
      channelId: "C0GENERAL",
      responseUrl,
    });
    const headers = signed(body, now() - 60);
    expect((await raw(body, headers)).status).toBe(200);
    expect((await raw(body, headers)).status).toBe(200);
    await waitFor(() => h.slack.responses(responseUrl)[1], 8000, "two answers");

    // The same request as it would be replayed after the window: its signed timestamp is stale.
    const stale = signed(body, now() - 301);
    const before = h.slack.responses(responseUrl).length;
    expect((await raw(body, stale)).status).toBe(401);
    await quiet();
    expect(h.slack.responses(responseUrl)).toHaveLength(before);
  });
});
