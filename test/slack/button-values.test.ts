/**
 * A button whose value does not name what it acts on (Slack sends back what the bot put there, so
 * only a forged or a very old message can do this) gets a plain ephemeral answer, changes nothing
 * and logs no error: not "something went wrong on the bot's side".
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { ACTIONS } from "../../src/messages/index.js";
import { type Harness, startHarness } from "../support/harness.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const errorLines = (from: number) => h.logs.slice(from).filter((l) => /"level":(50|"error")/.test(l));

describe("buttons whose value names nothing", () => {
  it("Remove confirmed with no profile: refused plainly, nothing asked of the platform", async () => {
    const logs = h.logs.length;
    const requests = h.sandbox.requests.length;
    const res = await h.press(ACTIONS.webhookRemoveConfirm, "");
    expect(res.status).toBe(200);
    const answer = await h.answer(res.responseUrl);
    expect(answer.response_type).toBe("ephemeral");
    expect(JSON.stringify(answer)).toContain("Nothing was sent to the platform");
    expect(JSON.stringify(answer)).not.toContain("went wrong");
    expect(errorLines(logs)).toEqual([]);
    expect(h.sandbox.requests.length).toBe(requests);
  });

  it("Unsubscribe naming a profile but no channel: a plain answer, no error", async () => {
    const logs = h.logs.length;
    const res = await h.press(ACTIONS.webhookUnsubscribe, SEED.profiles.newsroom);
    const answer = await h.answer(res.responseUrl);
    expect(answer.response_type).toBe("ephemeral");
    expect(JSON.stringify(answer)).toContain("does not name a channel");
    expect(errorLines(logs)).toEqual([]);
  });
});
