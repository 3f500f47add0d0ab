/**
 * A leaked callback URL cannot make the bot ping a channel at will: a flood of forged
 * `video.format.error` deliveries (a new video id each) on a subscription with `mention=@here`
 * pings the channel at most 3 times in the hour (the documented bound), across a restart
 * of the bot on the same store (sqlite file, Redis), and with two bots sharing one Redis. Past
 * that, each reply is posted without the mention and says it was held back. Over the real path:
 * signed slash commands, the bot's delivery route, outbox and worker, the Slack stand-in.
 */
import { afterAll, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";

/** The promise (README, docs/notifications.md): at most 3 pings per channel per hour. */
const PINGS_PER_HOUR = 3;

import { type Bot, type Harness, startBot, startHarness, waitFor } from "../support/harness.js";
import { scratchStores } from "../support/stores.js";

const PROFILE = SEED.profiles.newsroom;
const ROUTE_CHANNEL = "C0NEWS";
const ERRS = "C0GENERAL";
const WORKER = { coalesceMs: 50, postIntervalMs: 10, pollMs: 10 };

const { storeFor, cleanup } = scratchStores("mentions");
afterAll(cleanup);

const json = (v: unknown) => JSON.stringify(v);

/** The errors channel's format-error replies: the ones with the mention and the ones held back. */
function replies(h: Harness) {
  const all = h.slack.messages(ERRS).filter((m) => m.thread_ts && /encoding of/i.test(m.text));
  return {
    all,
    pinged: all.filter((m) => json(m).includes("<!here>")),
    heldBack: all.filter((m) => json(m).includes("No mention") && !json(m).includes("<!here>")),
  };
}

/**
 * Forged format errors, a new video id each, to the route's callback URL on `bot`. The videos
 * exist on the platform (so their title read confirms them): made-up ids never ping at all
 * (test/notify/titles.test.ts); this bound is for real ones.
 */
async function flood(h: Harness, hook: string, ids: string[]) {
  for (const videoId of ids) {
    h.sandbox.putVideo({ video_id: videoId, profile_id: PROFILE });
    const res = await fetch(hook, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        type: "video.format.error",
        timestamp: Date.now(),
        data: { owner_id: PROFILE, video_id: videoId, preset_name: "720p" },
      }),
    });
    expect(res.status).toBe(200);
  }
}

describe.each(["sqlite", "redis"] as const)("mentions of a flood of made-up format errors (%s)", (kind) => {
  it(`ping at most ${PINGS_PER_HOUR} times per channel in the hour, across a restart`, async () => {
    const s = storeFor(kind);
    const h = await startHarness({ ...s, worker: WORKER });
    let second: Bot | undefined;
    let third: Bot | undefined;
    try {
      const hook = await h.configureProfile({ channel: ROUTE_CHANNEL });
      const sub = await h.slash("/webhook", `subscribe ${PROFILE} format.error mention=@here`, {
        channel: ERRS,
      });
      expect((await h.answer(sub.responseUrl)).response_type).toBe("in_channel");

      const first = Array.from({ length: 5 }, (_, i) => `x7fake${kind}a${i}`);
      await flood(h, hook, first);
      await waitFor(() => replies(h).all.length === first.length, 15_000, "the first replies");
      expect(replies(h).pinged).toHaveLength(PINGS_PER_HOUR);
      expect(replies(h).heldBack).toHaveLength(first.length - PINGS_PER_HOUR);
      // The callback's own channel subscribed without a mention: never pinged.
      expect(h.slack.messages(ROUTE_CHANNEL).filter((m) => json(m).includes("<!here>"))).toEqual([]);

      // A restart on the same store: the hour's pings are still counted.
      await h.built.stop();
      second = await startBot(h.config, h.logger, { ...s, worker: WORKER });
      const local = (bot: Bot) => `${bot.url}${new URL(hook).pathname}`;
      const more = Array.from({ length: 3 }, (_, i) => `x7fake${kind}b${i}`);
      await flood(h, local(second), more);
      const total = first.length + more.length;
      await waitFor(() => replies(h).all.length === total, 15_000, "the replies after the restart");
      expect(replies(h).pinged).toHaveLength(PINGS_PER_HOUR);
      expect(replies(h).heldBack).toHaveLength(total - PINGS_PER_HOUR);

      if (kind === "redis") {
        // A second replica on the same Redis shares the count.
        third = await startBot(h.config, h.logger, { ...s, worker: { ...WORKER, owner: "replica-2" } });
        const both = Array.from({ length: 4 }, (_, i) => `x7fake${kind}c${i}`);
        await Promise.all([flood(h, local(second), both.slice(0, 2)), flood(h, local(third), both.slice(2))]);
        await waitFor(() => replies(h).all.length === total + both.length, 15_000, "the replicas' replies");
        expect(replies(h).pinged).toHaveLength(PINGS_PER_HOUR);
      }
    } finally {
      await third?.close();
      await second?.close();
      await h.close();
    }
  }, 60_000);
});
