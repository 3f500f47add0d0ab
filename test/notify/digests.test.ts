/**
 * Digests over the real path (signed slash commands, the platform sandbox's deliveries to the
 * bot's route, the outbox and worker, the digest runner, the Slack stand-in), with
 * DIGEST_PERIOD=2s, on the three stores:
 *  - a channel whose subscription is a daily digest gets no per-video message while the route's
 *    channel gets them live; over at least two periods it gets as many digests as periods that
 *    had something, each headed as the digest it is and naming its own period (text and
 *    metadata), with the videos published, complete, deleted (titled and linked) and the format
 *    errors (which formats); each video once across the digests; an empty period posts nothing;
 *  - `/webhook subscriptions`, `/webhook show` and the App Home show the mode and the next digest;
 *  - `digest=` alone keeps the channel's filter; `digest=off` brings live messages back.
 */
import { afterAll, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { eventBody, sendSigned } from "../../fakes/slack/index.js";
import { escapeMrkdwn } from "../../src/messages/index.js";
import { type Harness, SIGNING_SECRET, startHarness, waitFor } from "../support/harness.js";
import { scratchStores } from "../support/stores.js";
import { digestLists, digestsIn, listedComplete, videoPosts } from "./digest-helpers.js";
import { entryTimes, expectOnePerPeriod } from "./digest-periods.js";

const PROFILE = SEED.profiles.newsroom;
const LIVE = "C0NEWS";
const DIGEST = "C0GENERAL";
const PERIOD_MS = 2000;
const json = (v: unknown) => JSON.stringify(v);

const { storeFor, cleanup } = scratchStores("digest");
afterAll(cleanup);

async function run(h: Harness, text: string, channel: string, user = "U0ADMIN") {
  const res = await h.slash("/webhook", text, { user, channel });
  return h.answer(res.responseUrl);
}

describe.each(["memory", "sqlite", "redis"] as const)(
  "daily digest with DIGEST_PERIOD=2s (%s store)",
  (kind) => {
    it("no per-video messages; one digest per period with the right videos, titles, links and errors; empty periods post nothing; the mode shown; digest=off goes live", async () => {
      const h = await startHarness({
        ...storeFor(kind),
        env: { DIGEST_PERIOD: "2s" },
        worker: { coalesceMs: 200, postIntervalMs: 10, pollMs: 10 },
      });
      try {
        const times = entryTimes(h.built.digests.log, DIGEST);
        await h.configureProfile({ channel: LIVE });
        // A filter first, then the digest alone: the filter stays.
        await run(h, `subscribe ${PROFILE} published complete deleted format.error`, DIGEST);
        const sub = await run(h, `subscribe ${PROFILE} digest=daily at=07:30`, DIGEST);
        expect(sub.response_type).toBe("in_channel");
        expect(json(sub)).toContain("daily digest every 2 s (DIGEST_PERIOD)");
        const stored = (await h.built.deps.settings.getProfile(h.slack.teamId, PROFILE))?.subscriptions.find(
          (s) => s.channelId === DIGEST,
        );
        expect(stored?.events).toEqual([
          "video.published",
          "video.complete",
          "video.deleted",
          "video.format.error",
        ]);
        // The subscriber's Slack time zone (users.info), kept with the subscription.
        expect(stored?.digest).toMatchObject({ every: "daily", at: "07:30", tz: "Europe/Paris" });

        const v = { ok: `x7dg${kind}1`, err: `x7dg${kind}2`, del: `x7dg${kind}3` };
        const deliver = (videoId: string, extra: Record<string, unknown>) =>
          h.sandbox.deliverLifecycle(PROFILE, {
            videoId,
            presets: ["240p", "480p", "720p"],
            progressSteps: 2,
            deliverTo: h.url,
            ...extra,
          });
        for (const r of [
          ...(await deliver(v.ok, {})),
          ...(await deliver(v.err, { formatError: "720p" })),
          ...(await deliver(v.del, { deleteAtEnd: true })),
        ])
          expect(r.status).toBe(200);
        const ids = Object.values(v);

        // The live channel gets each video as it happens.
        await waitFor(
          () => ids.every((id) => videoPosts(h, LIVE, id).length > 0),
          20_000,
          "the live channel's messages",
        );
        // The digest channel: the digests cover the three videos.
        await waitFor(
          () => {
            const l = digestLists(digestsIn(h, DIGEST));
            const some = (title: string) => (l[title] ?? []).length > 0;
            return listedComplete(h, DIGEST, ids) && some("⚠️ Format errors") && some("🗑️ Deleted");
          },
          20_000,
          "the digests of the three videos",
        );
        // One more video once those digests are out: it falls in a later period, so the channel
        // gets digests of at least two periods.
        const later = `x7dg${kind}5`;
        for (const r of await deliver(later, {})) expect(r.status).toBe(200);
        ids.push(later);
        await waitFor(() => listedComplete(h, DIGEST, ids), 20_000, "the digest of the later video");
        const seen = digestsIn(h, DIGEST);
        // Not one per-video message in the digest channel.
        for (const id of ids) expect(videoPosts(h, DIGEST, id)).toEqual([]);
        // As many digests as periods that had entries (two at least), each naming its own period
        // in its text and its metadata; each headed as the daily digest of the profile.
        const since = Date.parse(stored?.digest?.since ?? "");
        expect(expectOnePerPeriod(seen, times, since, PERIOD_MS).length).toBeGreaterThanOrEqual(2);
        for (const d of seen) {
          expect(d.text).toMatch(/^Daily digest of Northwind News \(x2vq8nw\)/);
          expect(json(d.blocks)).toContain("📰 Daily digest of Northwind News (x2vq8nw)");
          expect(json(d.blocks)).toContain("<!date^");
        }
        // Each video once across the digests, in the right lists, titled and linked.
        const lists = digestLists(seen);
        const once = (title: string) => lists[title]?.join("\n") ?? "";
        const count = (title: string, id: string) =>
          (lists[title] ?? []).filter((l) => l.includes(id)).length;
        for (const id of ids) {
          expect(count("✅ Published", id), `published ${id}`).toBe(1);
          expect(count("🏁 Complete", id), `complete ${id}`).toBe(1);
          const title = h.sandbox.state.videos.get(id)?.title ?? "";
          expect(title).not.toBe("");
          expect(once("✅ Published")).toContain(
            `<https://www.dailymotion.com/video/${id}|${escapeMrkdwn(title)}> \`${id}\``,
          );
        }
        expect(lists["⚠️ Format errors"]).toHaveLength(1);
        expect(once("⚠️ Format errors")).toContain(v.err);
        expect(once("⚠️ Format errors")).toMatch(/: `720p`$/);
        expect(lists["🗑️ Deleted"]).toHaveLength(1);
        expect(once("🗑️ Deleted")).toContain(v.del);
        // No thread: short lists stay in the message.
        expect(h.slack.messages(DIGEST).filter((m) => m.thread_ts)).toEqual([]);

        // Nothing more arrives: two more periods post nothing.
        const before = digestsIn(h, DIGEST).length;
        await new Promise((r) => setTimeout(r, 2 * PERIOD_MS + 500));
        expect(digestsIn(h, DIGEST)).toHaveLength(before);

        // The mode and the next digest, everywhere the subscriptions are listed.
        const list = json(await run(h, `subscriptions ${PROFILE}`, LIVE, "U0MEMBER"));
        expect(list).toMatch(/<#C0GENERAL>: 📰 daily digest every 2 s \(DIGEST_PERIOD\), next <!date\^\d+\^/);
        expect(list).toContain("<#C0NEWS>: 🔔 live");
        expect(json(await run(h, `show ${PROFILE}`, LIVE))).toContain("📰 daily digest every 2 s");
        const opened = await sendSigned(
          h.eventsUrl,
          eventBody({
            teamId: h.slack.teamId,
            event: { type: "app_home_opened", user: "U0ADMIN", channel: "D0HOME", tab: "home" },
          }),
          SIGNING_SECRET,
        );
        expect(opened.status).toBe(200);
        const home = json(await waitFor(() => h.slack.homeView("U0ADMIN"), 8000, "the App Home"));
        expect(home).toContain("📰 daily digest every 2 s");

        // digest=off: live messages again, the filter kept.
        const off = await run(h, `subscribe ${PROFILE} digest=off`, DIGEST);
        expect(off.response_type).toBe("in_channel");
        const back = `x7dg${kind}4`;
        for (const r of await deliver(back, {})) expect(r.status).toBe(200);
        await waitFor(() => videoPosts(h, DIGEST, back).length > 0, 20_000, "a live message again");
        const after = (await h.built.deps.settings.getProfile(h.slack.teamId, PROFILE))?.subscriptions.find(
          (s) => s.channelId === DIGEST,
        );
        expect(after?.digest).toBeUndefined();
        expect(after?.events).toEqual(stored?.events);
        expect(digestsIn(h, DIGEST).filter((d) => json(d).includes(back))).toEqual([]);
      } finally {
        await h.close();
      }
    }, 60_000);
  },
);
