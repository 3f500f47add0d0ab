/**
 * The one bot token (no installations) while Slack cannot be reached: building the bot asks Slack
 * nothing, so no failed call is left behind unhandled; a request that comes while auth.test fails
 * is not served, and the next one, once Slack answers, is; auth.test is then not asked again.
 * (Bolt given the token asks auth.test while the App is built and keeps a failure for good: every
 * request after it was refused until a restart.) Real path: signed slash commands to the bot's
 * receiver, the Slack stand-in answering auth.test with an error once.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { sendSigned, slashCommandBody } from "../../fakes/slack/index.js";
import {
  type Bot,
  type Harness,
  SIGNING_SECRET,
  startBot,
  startHarness,
  waitFor,
} from "../support/harness.js";

let h: Harness;
let bot: Bot | undefined;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await bot?.close();
  await h?.close();
});

/** `/live help` to the second bot; its HTTP status and its response_url. */
async function help(url: string): Promise<{ status: number; responseUrl: string }> {
  const responseUrl = h.slack.newResponseUrl("C0GENERAL", "U0MEMBER");
  const body = slashCommandBody({
    command: "/live",
    text: "help",
    userId: "U0MEMBER",
    teamId: h.slack.teamId,
    channelId: "C0GENERAL",
    responseUrl,
  });
  const res = await sendSigned(`${url}/slack/events`, body, SIGNING_SECRET);
  return { status: res.status, responseUrl };
}

it("Slack failing auth.test at start-up: nothing asked while building, the request after the failure served, auth.test kept once answered", async () => {
  const authTests = () => h.slack.callsTo("auth.test").length;
  h.slack.addFault({ method: "auth.test", error: "service_unavailable", times: 1 });
  const before = authTests();
  bot = await startBot(h.config, h.logger, { worker: { manual: true } });
  expect(authTests()).toBe(before);

  // The first request asks auth.test, which fails: no listener runs, nothing is answered.
  const first = await help(bot.url);
  expect(first.status).toBe(200);
  await waitFor(
    () => h.logs.some((l) => l.includes("Authorization of incoming event did not succeed")),
    10_000,
    "the refused authorization logged",
  );
  expect(authTests()).toBe(before + 1);

  // Slack answers again: the next request is served, and the answer is kept.
  const second = await help(bot.url);
  expect(second.status).toBe(200);
  expect(JSON.stringify(await h.answer(second.responseUrl))).toContain("/live");
  const third = await help(bot.url);
  expect(JSON.stringify(await h.answer(third.responseUrl))).toContain("/live");
  expect(authTests()).toBe(before + 2);
  expect(h.slack.responses(first.responseUrl)).toEqual([]);
});
