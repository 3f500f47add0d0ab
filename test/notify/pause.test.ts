/**
 * Pauses over the real path (signed slash commands, the sandbox's deliveries to the bot's route,
 * the worker, the digest runner, the Slack stand-in), on the three stores:
 *  - while a channel is paused it gets nothing of the profile, while another channel of the same
 *    profile gets every video live; what arrives is kept in the store for the paused channel;
 *  - `/webhook resume` posts ONE catch-up message with what happened meanwhile, then live messages
 *    go on; a pause that ends by itself does the same;
 *  - only managers pause; the mode shows in `/webhook subscriptions`.
 */

import { afterAll, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { digestKeyOf } from "../../src/domain/index.js";
import { eventually, type Harness, startHarness, waitFor } from "../support/harness.js";
import { scratchStores } from "../support/stores.js";
import { digestLists, digestsIn, videoPosts } from "./digest-helpers.js";

const PROFILE = SEED.profiles.newsroom;
const LIVE = "C0NEWS";
const PAUSED = "C0GENERAL";
const json = (v: unknown) => JSON.stringify(v);

const { storeFor, cleanup } = scratchStores("pause");
afterAll(cleanup);

async function run(h: Harness, text: string, channel: string, user = "U0ADMIN") {
  const res = await h.slash("/webhook", text, { user, channel });
  return h.answer(res.responseUrl);
}

describe.each(["memory", "sqlite", "redis"] as const)("pause and resume (%s store)", (kind) => {
  it("a paused channel gets nothing while another gets every video live; resume posts one catch-up, then live again; a pause that ends by itself too", async () => {
    const h = await startHarness({
      ...storeFor(kind),
      worker: { coalesceMs: 200, postIntervalMs: 10, pollMs: 10 },
    });
    try {
      await h.configureProfile({ channel: LIVE });
      await run(h, `subscribe ${PROFILE}`, PAUSED);
      const deliver = async (videoId: string, extra: Record<string, unknown> = {}) => {
        const results = await h.sandbox.deliverLifecycle(PROFILE, {
          videoId,
          presets: ["240p", "480p", "720p"],
          progressSteps: 2,
          deliverTo: h.url,
          ...extra,
        });
        for (const r of results) expect(r.status).toBe(200);
      };

      // A member cannot pause: refused, nothing changes.
      expect(json(await run(h, `pause ${PROFILE} 1h`, PAUSED, "U0MEMBER"))).toMatch(/Only managers/);
      expect(json(await run(h, `pause ${PROFILE} 8d`, PAUSED))).toContain("from 5s to 7d");
      const unchanged = await h.built.deps.settings.getProfile(h.slack.teamId, PROFILE);
      expect(unchanged?.subscriptions.every((s) => s.pause === undefined)).toBe(true);

      const paused = await run(h, `pause ${PROFILE} 1h`, PAUSED);
      expect(paused.response_type).toBe("in_channel");
      expect(json(paused)).toMatch(/⏸️ <#C0GENERAL> gets nothing of profile .* until <!date\^\d+\^/);
      expect(json(await run(h, `subscriptions ${PROFILE}`, LIVE))).toMatch(
        /<#C0GENERAL>: ⏸️ paused until <!date\^\d+\^/,
      );

      const held = [`x7ps${kind}1`, `x7ps${kind}2`];
      await deliver(held[0] ?? "");
      await deliver(held[1] ?? "", { formatError: "720p" });
      // The other channel gets them live.
      await waitFor(() => held.every((id) => videoPosts(h, LIVE, id).length > 0), 20_000, "live messages");
      // What arrives is kept for the paused channel: published and complete of both, the error.
      const key = digestKeyOf(h.slack.teamId, PROFILE, PAUSED);
      await eventually(
        async () => (await h.built.digests.log.read(key)).entries.length >= 5,
        20_000,
        "the paused channel's entries in the store",
      );
      await h.built.worker.drain();
      expect(held.flatMap((id) => videoPosts(h, PAUSED, id))).toEqual([]);
      expect(digestsIn(h, PAUSED)).toEqual([]);

      // Resume: one catch-up with what happened meanwhile.
      const resumed = await run(h, `resume ${PROFILE}`, PAUSED);
      expect(json(resumed)).toContain("is over");
      await waitFor(() => digestsIn(h, PAUSED).length > 0, 10_000, "the catch-up");
      const [catchUp] = digestsIn(h, PAUSED);
      expect(catchUp?.text).toMatch(/^Catch-up of Northwind News \(x2vq8nw\)/);
      expect(json(catchUp?.blocks)).toContain("While this channel was paused by <@U0ADMIN>");
      const lists = digestLists(digestsIn(h, PAUSED));
      for (const id of held) {
        expect((lists["✅ Published"] ?? []).filter((l) => l.includes(id))).toHaveLength(1);
        expect((lists["🏁 Complete"] ?? []).filter((l) => l.includes(id))).toHaveLength(1);
      }
      expect(lists["⚠️ Format errors"]?.join()).toContain(`${held[1]}\`: \`720p\``);
      // Settled once posted: the entries go.
      await eventually(
        async () => (await h.built.digests.log.read(key)).entries.length === 0,
        5000,
        "settled",
      );

      // Live again; still one catch-up.
      const after = `x7ps${kind}3`;
      await deliver(after);
      await waitFor(() => videoPosts(h, PAUSED, after).length > 0, 20_000, "a live message after resume");
      expect(digestsIn(h, PAUSED)).toHaveLength(1);
      expect(json(await run(h, `resume ${PROFILE}`, PAUSED))).toContain("is not paused");

      // A pause that ends by itself: its own catch-up at the end, then live again.
      await run(h, `pause ${PROFILE} 8s`, PAUSED);
      const during = `x7ps${kind}4`;
      await deliver(during);
      await waitFor(() => videoPosts(h, LIVE, during).length > 0, 20_000, "the live channel");
      await waitFor(() => digestsIn(h, PAUSED).length === 2, 15_000, "the second catch-up");
      expect(videoPosts(h, PAUSED, during)).toEqual([]);
      const second = digestsIn(h, PAUSED)[1];
      expect(json(second)).toContain(during);
      expect(json(second)).not.toContain(held[0]);
      const last = `x7ps${kind}5`;
      await deliver(last);
      await waitFor(() => videoPosts(h, PAUSED, last).length > 0, 20_000, "live again after the pause's end");
      expect(digestsIn(h, PAUSED)).toHaveLength(2);
    } finally {
      await h.close();
    }
  }, 60_000);
});
