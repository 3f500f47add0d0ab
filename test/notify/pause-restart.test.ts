/**
 * A channel's pause across a restart of the bot on the SAME store (a sqlite file, a Redis
 * namespace), over the real path (signed slash commands to each bot's own receiver, the sandbox's
 * deliveries to each bot's route, the worker, the digest runner, the Slack stand-in):
 *  - paused, then restarted: the next bot still holds the channel (nothing of the profile posted
 *    there, the mode still `⏸️ paused until` the same time) while another channel gets every
 *    video live; what arrived before AND after the restart is kept for the paused channel;
 *    `/webhook resume` on the next bot posts ONE catch-up covering the whole pause (its start,
 *    who paused, every video), then live messages go on; a further restart posts no catch-up
 *    again and keeps the channel live;
 *  - a pause that ends while the bot is down: the next bot posts its catch-up late, once, with
 *    what was kept before the restart, then live messages go on.
 * What pauses promise: README.md (the command table) and docs/notifications.md ("Digests and
 * pauses"). Restarts as test/notify/digest-durability.test.ts does them: the first bot stopped
 * (HTTP, worker, runner), a new one composed on the same store.
 */

import { afterAll, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { sendSigned, slashCommandBody } from "../../fakes/slack/index.js";
import { digestKeyOf } from "../../src/domain/index.js";
import {
  type Bot,
  eventually,
  type Harness,
  SIGNING_SECRET,
  startBot,
  startHarness,
  waitFor,
} from "../support/harness.js";
import { scratchStores } from "../support/stores.js";
import { digestLists, digestsIn, videoPosts } from "./digest-helpers.js";

const PROFILE = SEED.profiles.newsroom;
const LIVE = "C0NEWS";
const PAUSED = "C0GENERAL";
const WORKER = { coalesceMs: 200, postIntervalMs: 10, pollMs: 10 };
const json = (v: unknown) => JSON.stringify(v);
/** Slack date formatting of an instant, as the bot writes it: `<!date^<seconds>^`. */
const slackDateOf = (iso: string) => `<!date^${Math.floor(Date.parse(iso) / 1000)}^`;

const { storeFor, cleanup } = scratchStores("pause-restart");
afterAll(cleanup);

/** The bot process a step talks to: the harness's first bot, or one started after a restart. */
type Target = Pick<Bot, "url" | "built" | "outbox">;

/** A signed `/webhook <text>` by `user` in `channel`, to `bot`'s own receiver; its first answer. */
async function slash(h: Harness, bot: Target, text: string, channel: string, user = "U0ADMIN") {
  const responseUrl = h.slack.newResponseUrl(channel, user);
  const body = slashCommandBody({
    command: "/webhook",
    text,
    userId: user,
    teamId: h.slack.teamId,
    channelId: channel,
    responseUrl,
  });
  expect((await sendSigned(`${bot.url}/slack/events`, body, SIGNING_SECRET)).status).toBe(200);
  return h.answer(responseUrl);
}

/** A whole video lifecycle (created … published, complete) delivered to `bot`'s route. */
async function deliver(h: Harness, bot: Target, videoId: string) {
  const results = await h.sandbox.deliverLifecycle(PROFILE, {
    videoId,
    presets: ["240p", "480p"],
    progressSteps: 2,
    deliverTo: bot.url,
  });
  for (const r of results) expect(r.status).toBe(200);
}

/** The paused channel's digest log as `bot` reads it from the store: its entries' kind and video. */
async function kept(h: Harness, bot: Target): Promise<string[]> {
  const { entries } = await bot.built.digests.log.read(digestKeyOf(h.slack.teamId, PROFILE, PAUSED));
  return entries.map((e) => {
    const entry = JSON.parse(e.json) as { kind: string; videoId?: string };
    return `${entry.kind} ${entry.videoId ?? ""}`;
  });
}

/** The video's message in the live channel says complete. */
const liveComplete = (h: Harness, videoId: string) =>
  videoPosts(h, LIVE, videoId).some((m) => !m.thread_ts && /complete/i.test(m.text));

/**
 * The positive signal that `bot` has processed the video (no blind sleep): its message in the live
 * channel is complete, the video's published and complete milestones are kept for the paused
 * channel in the store, and the outbox is empty (nothing of it left to post anywhere).
 */
async function processedWhilePaused(h: Harness, bot: Target, videoId: string) {
  await waitFor(() => liveComplete(h, videoId), 20_000, `${videoId} live in ${LIVE}`);
  await eventually(
    async () => {
      const k = await kept(h, bot);
      return k.includes(`published ${videoId}`) && k.includes(`complete ${videoId}`);
    },
    20_000,
    `${videoId} kept for the paused channel`,
  );
  await eventually(async () => (await bot.outbox.stats()).depth === 0, 20_000, "the outbox drained");
}

/** The paused channel's subscription as stored (read through `bot`). */
async function pausedSub(h: Harness, bot: Target) {
  const p = await bot.built.deps.settings.getProfile(h.slack.teamId, PROFILE);
  return p?.subscriptions.find((s) => s.channelId === PAUSED);
}

/** Each video once in Published and once in Complete across the channel's digests and catch-ups. */
function listedOnce(h: Harness, ids: readonly string[]) {
  const lists = digestLists(h.slack.messages(PAUSED));
  for (const id of ids) {
    expect(
      (lists["✅ Published"] ?? []).filter((l) => l.includes(id)),
      `published ${id}`,
    ).toHaveLength(1);
    expect(
      (lists["🏁 Complete"] ?? []).filter((l) => l.includes(id)),
      `complete ${id}`,
    ).toHaveLength(1);
  }
}

/** The harness's first bot, subscribed in LIVE (webhook set) and PAUSED (subscribe). */
async function setUp(kind: "sqlite" | "redis") {
  const s = storeFor(kind);
  const h = await startHarness({ ...s, worker: WORKER });
  await h.configureProfile({ channel: LIVE });
  expect((await slash(h, h, `subscribe ${PROFILE}`, PAUSED)).response_type).toBe("in_channel");
  return { s, h };
}

describe.each(["sqlite", "redis"] as const)("a pause across a restart (%s store)", (kind) => {
  it("the next bot still holds the channel, keeps what arrived on both sides of the restart, and resume posts one catch-up for it all", async () => {
    const { s, h } = await setUp(kind);
    let next: Bot | undefined;
    let third: Bot | undefined;
    try {
      const paused = await slash(h, h, `pause ${PROFILE} 1h`, PAUSED);
      expect(paused.response_type).toBe("in_channel");
      expect(json(paused)).toMatch(/⏸️ <#C0GENERAL> gets nothing of profile .* until <!date\^\d+\^/);
      const pause = (await pausedSub(h, h))?.pause;
      expect(pause?.by).toBe("U0ADMIN");
      const until = pause?.until ?? "";
      const at = pause?.at ?? "";
      expect(Date.parse(until) - Date.parse(at)).toBe(3_600_000);

      // Before the restart: held in PAUSED, live in LIVE, kept in the store.
      const before = `x7pr${kind}1`;
      await deliver(h, h, before);
      await processedWhilePaused(h, h, before);
      expect(videoPosts(h, PAUSED, before)).toEqual([]);
      expect(digestsIn(h, PAUSED)).toEqual([]);

      // Restart on the same store.
      await h.built.stop();
      next = await startBot(h.config, h.logger, { ...s, worker: WORKER });
      const bot: Bot = next;

      // The pause is still there: shown as paused until the same time, and stored unchanged
      // (the same end, start and author).
      expect(json(await slash(h, bot, `subscriptions ${PROFILE}`, LIVE))).toContain(
        `<#${PAUSED}>: ⏸️ paused until ${slackDateOf(until)}`,
      );
      expect((await pausedSub(h, bot))?.pause).toEqual(pause);
      // What was kept before the restart is still kept.
      expect(await kept(h, bot)).toEqual(
        expect.arrayContaining([`published ${before}`, `complete ${before}`]),
      );

      // After the restart: still held in PAUSED, live in LIVE, kept beside what came before.
      const after = `x7pr${kind}2`;
      await deliver(h, bot, after);
      await processedWhilePaused(h, bot, after);
      expect(await kept(h, bot)).toEqual(
        expect.arrayContaining([
          `published ${before}`,
          `complete ${before}`,
          `published ${after}`,
          `complete ${after}`,
        ]),
      );
      expect([...videoPosts(h, PAUSED, before), ...videoPosts(h, PAUSED, after)]).toEqual([]);
      expect(digestsIn(h, PAUSED)).toEqual([]);

      // Resume on the next bot: answered only to the manager; ONE catch-up in the channel, over
      // the whole pause (from its start before the restart, by who paused), with both videos.
      const resumed = await slash(h, bot, `resume ${PROFILE}`, PAUSED);
      expect(resumed.response_type).not.toBe("in_channel");
      expect(json(resumed)).toContain("is over");
      await waitFor(() => digestsIn(h, PAUSED).length > 0, 15_000, "the catch-up");
      const [catchUp] = digestsIn(h, PAUSED);
      expect(catchUp?.text).toMatch(/^Catch-up of Northwind News \(x2vq8nw\)/);
      expect(json(catchUp?.blocks)).toContain(
        `While this channel was paused by <@U0ADMIN>: ${slackDateOf(at)}`,
      );
      listedOnce(h, [before, after]);
      // Settled and released: nothing kept, nothing scheduled any more.
      await eventually(
        async () => (await kept(h, bot)).length === 0 && (await bot.built.digests.log.scheduled()) === 0,
        10_000,
        "the catch-up settled",
      );

      // Live again in the paused channel; still one catch-up.
      const resumedLive = `x7pr${kind}3`;
      await deliver(h, bot, resumedLive);
      await waitFor(() => videoPosts(h, PAUSED, resumedLive).length > 0, 20_000, "live after resume");
      expect(digestsIn(h, PAUSED)).toHaveLength(1);

      // A further restart: the resume holds too (live, no second catch-up).
      await bot.close();
      next = undefined;
      third = await startBot(h.config, h.logger, { ...s, worker: WORKER });
      expect(json(await slash(h, third, `subscriptions ${PROFILE}`, LIVE))).toContain(
        `<#${PAUSED}>: 🔔 live`,
      );
      const last = `x7pr${kind}4`;
      await deliver(h, third, last);
      await waitFor(() => videoPosts(h, PAUSED, last).length > 0, 20_000, "live after the second restart");
      await eventually(async () => (await third?.outbox.stats())?.depth === 0, 20_000, "the outbox drained");
      expect(await third.built.digests.log.scheduled()).toBe(0);
      expect(digestsIn(h, PAUSED)).toHaveLength(1);
      expect(await kept(h, third)).toEqual([]);
    } finally {
      await third?.close();
      await next?.close();
      await h.close();
    }
  }, 90_000);

  it("a pause that ends while the bot is down: the next bot posts its catch-up late, once, then live again", async () => {
    const { s, h } = await setUp(kind);
    let next: Bot | undefined;
    try {
      // The shortest pause (5 s): it ends while no bot runs.
      expect((await slash(h, h, `pause ${PROFILE} 5s`, PAUSED)).response_type).toBe("in_channel");
      const pause = (await pausedSub(h, h))?.pause;
      const until = Date.parse(pause?.until ?? "");
      expect(until).toBeGreaterThan(Date.now());

      const held = `x7pe${kind}1`;
      await deliver(h, h, held);
      await processedWhilePaused(h, h, held);
      expect(videoPosts(h, PAUSED, held)).toEqual([]);
      await h.built.stop();
      // Still paused when the first bot stopped; nothing posted in the channel by it.
      expect(Date.now()).toBeLessThan(until);
      expect(digestsIn(h, PAUSED)).toEqual([]);

      // Down until the pause's end has passed (the end as stored, not a fixed sleep).
      await waitFor(() => Date.now() > until + 200, 6000, "the pause's end");
      next = await startBot(h.config, h.logger, { ...s, worker: WORKER });
      const bot: Bot = next;

      // The catch-up, late, once, with what was kept before the restart.
      await waitFor(() => digestsIn(h, PAUSED).length > 0, 15_000, "the late catch-up");
      const [catchUp] = digestsIn(h, PAUSED);
      expect(catchUp?.text).toMatch(/^Catch-up of Northwind News \(x2vq8nw\)/);
      expect(json(catchUp?.blocks)).toContain(
        `While this channel was paused by <@U0ADMIN>: ${slackDateOf(pause?.at ?? "")}`,
      );
      listedOnce(h, [held]);
      // Settled and released: nothing kept, nothing scheduled any more.
      await eventually(
        async () => (await kept(h, bot)).length === 0 && (await bot.built.digests.log.scheduled()) === 0,
        10_000,
        "the catch-up settled",
      );

      // Live again; still one catch-up.
      const after = `x7pe${kind}2`;
      await deliver(h, bot, after);
      await waitFor(() => videoPosts(h, PAUSED, after).length > 0, 20_000, "live after the pause's end");
      expect(digestsIn(h, PAUSED)).toHaveLength(1);
      expect(videoPosts(h, PAUSED, held)).toEqual([]);
    } finally {
      await next?.close();
      await h.close();
    }
  }, 60_000);
});
