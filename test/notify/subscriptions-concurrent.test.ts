/**
 * Two channels subscribing to one profile at the same moment (signed slash commands over real
 * HTTP, the platform sandbox), one of them widening the platform's events (a PATCH, the slower
 * one) and the other not: both subscriptions are kept, and the platform's events end as the union
 * of every subscription's, like the stored events. The same for two unsubscribes.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { type Harness, startHarness } from "../support/harness.js";

const PROFILE = SEED.profiles.newsroom;
let h: Harness;

async function run(text: string, channel: string) {
  const res = await h.slash("/webhook", text, { user: "U0ADMIN", channel });
  return h.answer(res.responseUrl);
}

beforeAll(async () => {
  h = await startHarness();
  await h.configureProfile({ channel: "C0NEWS" });
});
afterAll(async () => {
  await h.close();
});

it("concurrent subscribes and unsubscribes of two channels: none lost, the platform carries the union", async () => {
  const settings = h.built.deps.settings;
  const platformEvents = () => [...(h.sandbox.state.profiles.get(PROFILE)?.webhook.events ?? [])].sort();
  for (let round = 0; round < 3; round++) {
    expect((await run(`events ${PROFILE} published`, "C0NEWS")).response_type).toBe("ephemeral");
    expect(platformEvents()).toEqual(["video.published"]);
    const answers = await Promise.all([
      run(`subscribe ${PROFILE} deleted`, "C0PUBLICONLY"),
      run(`subscribe ${PROFILE} published`, "C0GENERAL"),
    ]);
    expect(answers.map((a) => a.response_type)).toEqual(["in_channel", "in_channel"]);
    const p = await settings.getProfile(h.slack.teamId, PROFILE);
    expect(p?.subscriptions.map((s) => s.channelId).sort()).toEqual(["C0GENERAL", "C0NEWS", "C0PUBLICONLY"]);
    const union = ["video.deleted", "video.published"];
    expect(platformEvents()).toEqual(union);
    expect([...(p?.events ?? [])].sort()).toEqual(union);
    // Back to the route's channel alone for the next round.
    await Promise.all([
      run(`unsubscribe ${PROFILE}`, "C0PUBLICONLY"),
      run(`unsubscribe ${PROFILE}`, "C0GENERAL"),
    ]);
    const after = await settings.getProfile(h.slack.teamId, PROFILE);
    expect(after?.subscriptions.map((s) => s.channelId)).toEqual(["C0NEWS"]);
    expect(platformEvents()).toEqual(["video.published"]);
  }
});
