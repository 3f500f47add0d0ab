/**
 * Token rotation in multi-workspace mode, over the real path: the Slack stand-in issues bot tokens
 * that expire (and refuses them with token_expired afterwards) with single-use refresh tokens.
 * The bot refreshes an expiring token before using it, for Bolt's requests (commands, events) and
 * for the notification worker; a refresh that fails is a clear log line and an App Home notice.
 * "Expired" is waited for, not slept: until the wall clock (the stand-in's and the bot's) is past
 * the token's expiry as the installation records it.
 */
import { afterEach, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { eventBody, sendSigned } from "../../fakes/slack/index.js";
import { waitFor } from "../support/harness.js";
import { deliverCreated, type OAuthBot, SIGNING_SECRET, startOAuthBot } from "./helper.js";

const TEAM = "T0STANDIN";
let bot: OAuthBot | undefined;

afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

/**
 * Until the workspace's current bot token is expired at the stand-in: the installation records
 * its expiry in whole seconds (floored when it was received), the stand-in in ms from when it
 * issued it, so a second past the recorded one is past both.
 */
async function untilExpired(b: OAuthBot): Promise<void> {
  const expiresAt = (await b.installations.find({ teamId: TEAM }))?.bot?.expiresAt;
  if (expiresAt === undefined) throw new Error("the installation records no expiry");
  const at = (expiresAt + 1) * 1000;
  await waitFor(() => Date.now() >= at, 10_000, "the token to expire");
}

const refreshCalls = (b: OAuthBot) =>
  b.slack.callsTo("oauth.v2.access").filter((c) => c.args.grant_type === "refresh_token");

describe("token rotation", () => {
  it("an expired token is refreshed before use: commands and notifications keep working", async () => {
    const b = await startOAuthBot();
    bot = b;
    b.slack.setTokenRotation({ expiresInS: 1 });
    expect((await b.install()).status).toBe(200);
    const first = await b.installations.find({ teamId: TEAM });
    const firstToken = first?.bot?.token ?? "";
    expect(first?.bot?.refreshToken).toBeTruthy();
    expect(first?.bot?.expiresAt).toBeTypeOf("number");
    // Let it expire at the stand-in (it now answers token_expired to it).
    await untilExpired(b);

    // A command that needs the workspace's token (users.info for the manager check).
    const res = await b.slash("/webhook", `set ${SEED.profiles.newsroom}`, {
      user: "U0ADMIN",
      channel: "C0NEWS",
    });
    expect((await b.answer(res.responseUrl)).response_type).toBe("in_channel");
    expect(refreshCalls(b).length).toBeGreaterThanOrEqual(1);
    expect(refreshCalls(b).every((c) => c.ok)).toBe(true);
    const usersInfo = b.slack.callsTo("users.info").at(-1);
    expect(usersInfo?.ok).toBe(true);
    expect(usersInfo?.token).not.toBe(firstToken);
    expect(b.slack.calls.some((c) => c.error === "token_expired")).toBe(false);

    // The worker after expiry again: its post goes out with a refreshed token.
    await untilExpired(b);
    expect(await deliverCreated(b, SEED.profiles.newsroom, "x7rot1")).toBe(200);
    const post = await waitFor(
      () => b.slack.callsTo("chat.postMessage").find((c) => JSON.stringify(c.args).includes("x7rot1")),
      8000,
      "the video's message",
    );
    expect(post.ok).toBe(true);
    expect(post.token).not.toBe(firstToken);
    expect(b.slack.calls.some((c) => c.error === "token_expired")).toBe(false);
    const stored = await b.installations.find({ teamId: TEAM });
    expect(stored?.bot?.token).not.toBe(firstToken);
    expect(b.logs.some((l) => l.includes("Slack token refresh failed"))).toBe(false);
  });

  it("a refresh that fails is logged and shown on the App Home; the current token goes on", async () => {
    const b = await startOAuthBot();
    bot = b;
    // Within the refresh window (2 h) at once, but not expired during the test.
    b.slack.setTokenRotation({ expiresInS: 600 });
    expect((await b.install()).status).toBe(200);
    const refresh = (await b.installations.find({ teamId: TEAM }))?.bot?.refreshToken ?? "";
    b.slack.addFault({ method: "oauth.v2.access", error: "invalid_refresh_token", times: 10 });

    const before = b.slack.callsTo("views.publish").length;
    const event = { type: "app_home_opened", user: "U0ADMIN", channel: "D0ADMIN", tab: "home" };
    expect((await sendSigned(b.eventsUrl, eventBody({ event, teamId: TEAM }), SIGNING_SECRET)).status).toBe(
      200,
    );
    const publish = await waitFor(() => b.slack.callsTo("views.publish")[before], 8000, "the App Home");
    expect(publish.ok).toBe(true);
    const home = JSON.stringify(publish.args.view);
    expect(home).toContain("could not refresh its Slack token");
    expect(home).toContain("invalid_refresh_token");

    const line = b.logs.find((l) => l.includes("Slack token refresh failed"));
    expect(line).toContain(TEAM);
    expect(line).toContain("invalid_refresh_token");
    expect(line).toContain('"level":"error"');
    expect(b.logs.join("\n")).not.toContain(refresh);
  });
});
