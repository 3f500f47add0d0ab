/**
 * Shared reads over the real path: identical reads of one livestream (same id, same fields) share
 * one GET while it is in flight and for at most 10 s after it answered. Workspace A is bound to
 * the newsroom profile, B to the studio profile: both press, ask and paste at once, and each
 * person still passes the Authorizer on the shared result (A sees the card, B "no livestream").
 * The 10 s are counted on the shared reads' own clock, held still while the 50 are answered and
 * then moved on by hand, so the window does not depend on how fast 50 previews run (nor is 10 s
 * slept).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { linkSharedEvent } from "../../fakes/slack/index.js";
import { ACTIONS } from "../../src/messages/index.js";
import { type OAuthBot, startOAuthBot } from "../oauth/helper.js";
import { waitFor } from "../support/harness.js";

const A = "T0STANDIN";
const B = "T0BETA";
const LIVE = SEED.livestreams.onAirAdBreak; // newsroom: A's
/**
 * The promised window, written out rather than read from src (SHARED_READ_TTL_MS): a window
 * changed there would move the test's instants with it and go unseen.
 */
const WINDOW_MS = 10_000;
let b: OAuthBot;

const gets = () => b.sandbox.requests.filter((r) => r.path === `/v2/livestreams/${LIVE}`).length;
const json = (v: unknown) => JSON.stringify(v);
/** 25 people of A and 25 of B. */
const people = Array.from({ length: 50 }, (_, i) => ({
  team: i % 2 === 0 ? A : B,
  user: `U0SHARE${String(i).padStart(2, "0")}`,
}));

/**
 * The shared reads' clock (the app's `readsClock`): Date.now, unless a test holds it at a time of
 * its own (`held`), which it then moves by hand.
 */
let held: number | undefined;
const readsClock = () => held ?? Date.now();

beforeAll(async () => {
  b = await startOAuthBot({
    readsClock,
    env: {
      ALLOWED_WORKSPACES: `${A},${B}`,
      PROFILE_BINDINGS: `${A}=${SEED.profiles.newsroom};${B}=${SEED.profiles.studio}`,
    },
  });
  expect((await b.install()).status).toBe(200);
  expect((await b.install(B)).status).toBe(200);
});
afterAll(async () => {
  await b?.close();
});

describe("50 people at once, one livestream", () => {
  it("Refresh presses, statuses and link previews: one GET; none more within 10 s, a new one after", async () => {
    b.built.deps.access.sharedReads.clear();
    // The reads' clock stands still at T: the GET answers at T however long the 50 take.
    const T = Date.now();
    held = T;
    try {
      // A slow platform: the 50 requests arrive while the one GET is in flight.
      b.sandbox.addFault({ method: "GET", path: `/v2/livestreams/${LIVE}`, latencyMs: 500, times: 1 });
      const before = gets();
      const handled = () => b.logs.filter((l) => l.includes('"link_shared handled"')).length;
      const [seen, unfurls] = [handled(), b.slack.unfurls().length];
      const url = `https://www.dailymotion.com/video/${LIVE}`;
      const answers = await Promise.all(
        people.map(async (p, i) => {
          if (i % 3 === 2) {
            expect((await b.event(linkSharedEvent({ urls: [url], userId: p.user }), p.team)).status).toBe(
              200,
            );
            return undefined;
          }
          const r =
            i % 3 === 0
              ? await b.press(ACTIONS.liveRefresh, LIVE, p)
              : await b.slash("/live", `status ${LIVE}`, p);
          return { p, answer: json(await b.answer(r.responseUrl)) };
        }),
      );
      const previews = people.filter((_, i) => i % 3 === 2);
      await waitFor(() => handled() >= seen + previews.length, 15_000, "the link_shared events handled");
      expect(gets()).toBe(before + 1);
      // Each person passed the Authorizer on the shared result: A's see it, B's read "no livestream".
      for (const a of answers) {
        if (a === undefined) continue;
        if (a.p.team === A) expect(a.answer).toContain("Northwind Morning Live");
        else {
          expect(a.answer).toContain("The platform has no livestream");
          expect(a.answer).not.toContain("Northwind");
        }
      }
      const made = b.slack.unfurls().slice(unfurls);
      expect(made).toHaveLength(previews.filter((p) => p.team === A).length);
      const read = b.sandbox.requests.filter((r) => r.path === `/v2/livestreams/${LIVE}`).at(-1);
      expect(read?.query.fields?.split(",")).toContain("profile.profile_id");
      const shared = (await b.built.metrics.livestreamReads.get()).values.find(
        (v) => v.labels.outcome === "shared",
      );
      expect(shared?.value).toBeGreaterThanOrEqual(49);

      // The last instant within 10 s of the answer: shared.
      held = T + WINDOW_MS - 1;
      const again = await b.press(ACTIONS.liveRefresh, LIVE, { team: A, user: "U0LATE" });
      expect(json(await b.answer(again.responseUrl))).toContain("Northwind Morning Live");
      expect(gets(), "GETs at the last instant within 10 s").toBe(before + 1);

      // 10 s after the answer: read again.
      held = T + WINDOW_MS;
      const later = await b.press(ACTIONS.liveRefresh, LIVE, { team: A, user: "U0LATER" });
      expect(json(await b.answer(later.responseUrl))).toContain("Northwind Morning Live");
      expect(gets(), "GETs 10 s after the answer").toBe(before + 2);
    } finally {
      held = undefined;
    }
  }, 40_000);

  it("an unknown id asked about by 50 people at once: one GET, the same answer for each", async () => {
    b.built.deps.access.sharedReads.clear();
    const id = "x0nothere";
    const count = () => b.sandbox.requests.filter((r) => r.path === `/v2/livestreams/${id}`).length;
    const before = count();
    const answers = await Promise.all(
      people.map(async (p) => {
        const r = await b.slash("/live", `status ${id}`, p);
        return json(await b.answer(r.responseUrl));
      }),
    );
    expect(count()).toBe(before + 1);
    expect(new Set(answers).size).toBe(1);
    expect(answers[0]).toContain("The platform has no livestream");
  }, 30_000);
});
