/**
 * Subscriptions over the real path (signed slash commands and buttons, the platform sandbox's
 * deliveries, the bot's delivery route, outbox and worker, the Slack stand-in):
 *  - two channels with different filters get exactly what they asked for, each its own message
 *    per video; the second channel never sees a video its filter matches nothing of;
 *  - the mention goes on the format-error reply only, and nothing else can be asked for;
 *  - the platform's events are the union of the subscriptions', PATCHed only when it changes;
 *  - unsubscribing the last channel asks to remove the webhook; members are refused.
 */

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { eventBody, sendSigned } from "../../fakes/slack/index.js";
import { WEBHOOK_EVENTS } from "../../src/domain/index.js";
import { ACTIONS } from "../../src/messages/index.js";
import { type Harness, SIGNING_SECRET, startHarness, waitFor } from "../support/harness.js";

const PROFILE = SEED.profiles.newsroom;
const ALL = "C0NEWS";
const ERRS = "C0GENERAL";
let h: Harness;
const json = (v: unknown) => JSON.stringify(v);
const patches = () => h.sandbox.requests.filter((r) => r.method === "PATCH").length;
const platformEvents = () => [...(h.sandbox.state.profiles.get(PROFILE)?.webhook.events ?? [])].sort();

async function run(text: string, channel: string, user = "U0ADMIN") {
  const res = await h.slash("/webhook", text, { user, channel });
  return h.answer(res.responseUrl);
}

function videoMessages(channel: string, videoId: string) {
  const all = h.slack.messages(channel);
  const parents = all.filter((m) => !m.thread_ts && json(m).includes(videoId));
  const ts = parents[0]?.ts;
  return { parents, thread: ts ? all.filter((m) => m.thread_ts === ts) : [] };
}
const mentionsIn = (channel: string) => h.slack.messages(channel).filter((m) => json(m).includes("<!here>"));

beforeAll(async () => {
  h = await startHarness({ worker: { coalesceMs: 200, postIntervalMs: 10, pollMs: 10 } });
  await h.configureProfile({ channel: ALL });
});
afterAll(async () => {
  await h.close();
});

describe("two channels, two filters", () => {
  it("a member cannot subscribe: refused, nothing changes", async () => {
    const before = {
      patches: patches(),
      settings: await h.built.deps.settings.getProfile(h.slack.teamId, PROFILE),
    };
    const answer = await run(`subscribe ${PROFILE} format.error`, ERRS, "U0MEMBER");
    expect(json(answer)).toMatch(/Only managers/);
    expect(patches()).toBe(before.patches);
    expect(await h.built.deps.settings.getProfile(h.slack.teamId, PROFILE)).toEqual(before.settings);
  });

  it("a mention other than @here or one person is refused, nothing changes", async () => {
    for (const bad of [
      "mention=@channel",
      "mention=<!channel>",
      "mention=<@U0ADMIN><!everyone>",
      "mention=alex",
    ]) {
      const answer = await run(`subscribe ${PROFILE} format.error ${bad}`, ERRS);
      expect(json(answer)).toMatch(/mention=/);
    }
    const p = await h.built.deps.settings.getProfile(h.slack.teamId, PROFILE);
    expect(p?.subscriptions.map((s) => s.channelId)).toEqual([ALL]);
  });

  it("subscribing a second channel to a subset of the events sends no PATCH (the union is the same)", async () => {
    expect(platformEvents()).toEqual([...WEBHOOK_EVENTS].sort());
    const before = patches();
    const answer = await run(`subscribe ${PROFILE} format.error preset=720p mention=@here`, ERRS);
    expect(answer.response_type).toBe("in_channel");
    expect(json(answer)).toContain("nothing changed on the platform");
    expect(patches()).toBe(before);
    expect(platformEvents()).toEqual([...WEBHOOK_EVENTS].sort());
    const p = await h.built.deps.settings.getProfile(h.slack.teamId, PROFILE);
    expect(p?.subscriptions).toMatchObject([
      { channelId: ALL, events: [...WEBHOOK_EVENTS], presets: [], mention: null },
      { channelId: ERRS, events: ["video.format.error"], presets: ["720p"], mention: "here" },
    ]);
  });

  it("each channel gets exactly what it asked for, each with its own message per video", async () => {
    const send = (videoId: string, formatError?: string) =>
      h.sandbox.deliverLifecycle(PROFILE, {
        videoId,
        presets: ["240p", "720p"],
        progressSteps: 3,
        deliverTo: h.url,
        ...(formatError ? { formatError } : {}),
      });
    for (const r of [
      ...(await send("x7errs720", "720p")),
      ...(await send("x7clean")),
      ...(await send("x7errs240", "240p")),
    ])
      expect(r.status).toBe(200);
    // The all-events channel: the three videos, the 720p error in its thread.
    await waitFor(
      () =>
        ["x7errs720", "x7clean", "x7errs240"].every((v) => videoMessages(ALL, v).parents.length === 1) &&
        videoMessages(ALL, "x7errs720").thread.some((m) => /failed/i.test(m.text ?? "")),
      10_000,
      "the three videos in the all-events channel",
    );
    await waitFor(
      () => videoMessages(ERRS, "x7errs720").thread.length === 1,
      10_000,
      "the 720p error in the errors channel",
    );
    await h.built.worker.drain();
    // The errors channel: one parent for the 720p error, its one reply mentions @here.
    const errs = videoMessages(ERRS, "x7errs720");
    expect(errs.parents).toHaveLength(1);
    expect(errs.thread).toHaveLength(1);
    expect(errs.thread[0]?.text).toMatch(/^<!here> /);
    expect(json(errs.thread[0]?.blocks)).toContain("<!here>");
    // Nothing of the clean video, nor of the 240p error (another format).
    expect(h.slack.messages(ERRS).filter((m) => /x7clean|x7errs240/.test(json(m)))).toEqual([]);
    expect(h.slack.messages(ERRS).filter((m) => !m.thread_ts && /x7/.test(json(m)))).toHaveLength(1);
    // The mention is nowhere else: not on the parent, not in the other channel.
    expect(mentionsIn(ERRS)).toHaveLength(1);
    expect(mentionsIn(ALL)).toHaveLength(0);
    // The all-events channel has its own parent and thread for the same video.
    expect(videoMessages(ALL, "x7errs720").parents[0]?.ts).not.toBe(errs.parents[0]?.ts);
  });

  it("lists every channel with its filters; Unsubscribe buttons for managers only", async () => {
    const forAdmin = json(await run(`subscriptions ${PROFILE}`, ALL));
    expect(forAdmin).toContain(`<#${ALL}>`);
    expect(forAdmin).toContain(`<#${ERRS}>`);
    expect(forAdmin).toContain("720p");
    expect(forAdmin).toContain("@here");
    expect(forAdmin).toContain(ACTIONS.webhookUnsubscribe);
    const forMember = json(await run(`subscriptions ${PROFILE}`, ALL, "U0MEMBER"));
    expect(forMember).toContain(`<#${ERRS}>`);
    expect(forMember).not.toContain(ACTIONS.webhookUnsubscribe);
    const show = json(await run(`show ${PROFILE}`, ALL));
    expect(show).toContain(`<#${ERRS}>`);
    expect(show).toContain(ACTIONS.webhookUnsubscribe);
  });

  it("the App Home lists the subscriptions, with Unsubscribe for managers only", async () => {
    const open = (user: string) =>
      sendSigned(
        h.eventsUrl,
        eventBody({
          teamId: h.slack.teamId,
          event: { type: "app_home_opened", user, channel: "D0HOME", tab: "home" },
        }),
        SIGNING_SECRET,
      );
    expect((await open("U0ADMIN")).status).toBe(200);
    const admin = json(await waitFor(() => h.slack.homeView("U0ADMIN"), 8000, "the admin's home"));
    expect(admin).toContain(`<#${ERRS}>`);
    expect(admin).toContain("720p");
    expect(admin).toContain(ACTIONS.webhookUnsubscribe);
    expect((await open("U0MEMBER")).status).toBe(200);
    const member = json(await waitFor(() => h.slack.homeView("U0MEMBER"), 8000, "the member's home"));
    expect(member).toContain(`<#${ERRS}>`);
    expect(member).not.toContain(ACTIONS.webhookUnsubscribe);
  });

  it("the platform's events follow the union: a PATCH only when it changes", async () => {
    let before = patches();
    // The all-events channel narrows to published: union = published + format.error.
    await run(`subscribe ${PROFILE} published`, ALL);
    expect(patches()).toBe(before + 1);
    expect(platformEvents()).toEqual(["video.format.error", "video.published"]);
    before = patches();
    // The same again: same union, no PATCH.
    await run(`subscribe ${PROFILE} published`, ALL);
    expect(patches()).toBe(before);
    // The errors channel changes only its formats: same union, no PATCH.
    await run(`subscribe ${PROFILE} format.error preset=720p,1080p`, ERRS);
    expect(patches()).toBe(before);
    // A member cannot press Unsubscribe.
    const refused = await h.press(ACTIONS.webhookUnsubscribe, `${PROFILE} ${ERRS}`, { user: "U0MEMBER" });
    expect(json(await h.answer(refused.responseUrl))).toMatch(/Only managers/);
    expect(patches()).toBe(before);
    // A manager can: union = published.
    const pressed = await h.press(ACTIONS.webhookUnsubscribe, `${PROFILE} ${ERRS}`, { user: "U0ADMIN" });
    expect(json(await h.answer(pressed.responseUrl))).toContain("no longer receives");
    expect(patches()).toBe(before + 1);
    expect(platformEvents()).toEqual(["video.published"]);
    const p = await h.built.deps.settings.getProfile(h.slack.teamId, PROFILE);
    expect(p?.subscriptions.map((s) => s.channelId)).toEqual([ALL]);
    expect(p?.events).toEqual(["video.published"]);
  });

  it("unsubscribing the last channel asks to remove the webhook, and changes nothing", async () => {
    const before = patches();
    const answer = await run(`unsubscribe ${PROFILE}`, ALL);
    expect(answer.response_type).toBe("ephemeral");
    expect(json(answer)).toContain("only channel");
    expect(json(answer)).toContain(ACTIONS.webhookRemoveConfirm);
    expect(patches()).toBe(before);
    const p = await h.built.deps.settings.getProfile(h.slack.teamId, PROFILE);
    expect(p?.subscriptions.map((s) => s.channelId)).toEqual([ALL]);
    // A channel that is not subscribed is told so.
    expect(json(await run(`unsubscribe ${PROFILE}`, ERRS))).toContain("does not receive");
    // A member is refused.
    expect(json(await run(`unsubscribe ${PROFILE}`, ALL, "U0MEMBER"))).toMatch(/Only managers/);
  });

  it("`/webhook events` on the only subscription changes its events too", async () => {
    await run(`events ${PROFILE} published deleted`, ALL);
    expect(platformEvents()).toEqual(["video.deleted", "video.published"]);
    const p = await h.built.deps.settings.getProfile(h.slack.teamId, PROFILE);
    expect(p?.subscriptions.map((s) => s.events)).toEqual([["video.published", "video.deleted"]]);
    // Subscribing again with the same events changes nothing on the platform.
    const before = patches();
    await run(`subscribe ${PROFILE} published deleted`, ALL);
    expect(patches()).toBe(before);
  });
});
