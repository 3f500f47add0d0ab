/**
 * Slack down while videos keep coming: first answering 503 to every call, then refusing
 * connections (the Web API is reached through a relay that can go down). What the user sees: the
 * notifications arrive late, once Slack is back, each video as one message with its milestones
 * once; nothing is dead-lettered and no manager is told of a failure, because the outage is
 * transient. The worker keeps every delivery in the outbox and backs the channel off (1 s doubling,
 * at most 60 s), so the outage costs a handful of calls, not a tight loop.
 *
 * "A minute" is shortened to about 4 s so the file stays well under 20 s: the backoff is fixed in
 * the channel gate (not a worker option), and 4 s already spans three backoff steps (1, 2, 4 s).
 * After a real one-minute outage the first retry comes at most one backoff step (≤ 60 s) after
 * Slack is back. The two 2 s phases are the outage itself (the stimulus whose cost in calls is
 * measured against the gate's wall-clock backoff, which a test cannot reach), not waits for a
 * result; "nothing dead-lettered, nothing twice" is judged once the outbox is empty and the worker
 * idle (test/support/settle.ts).
 */

import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness, waitFor } from "../support/harness.js";
import { RECENT } from "../support/recent.js";
import { settled } from "../support/settle.js";
import { configureProfile, post, Relay, shortLifecycle, shownOnce } from "./support.js";

const NEWS = "C0NEWS";
let h: Harness;
let hook: string;
const relay = new Relay();

beforeAll(async () => {
  await relay.up();
  h = await startHarness({
    env: { SLACK_API_URL: `${relay.url}/api/` },
    worker: { coalesceMs: 200, postIntervalMs: 50, pollMs: 20 },
  });
  relay.target = Number(new URL(h.slack.url).port);
  hook = await configureProfile(h, NEWS);
});
afterAll(async () => {
  await h.close();
  await relay.down();
});

async function deliver(videoIds: string[], t0: number): Promise<void> {
  for (const [i, id] of videoIds.entries()) {
    for (const d of shortLifecycle(id, t0 + i * 10)) expect((await post(hook, d)).status).toBe(200);
  }
}

const videoCalls = () => h.slack.calls.filter((c) => c.method.startsWith("chat.") && c.args.channel === NEWS);

describe("Slack down for a while (503, then connection refused)", () => {
  it("keeps every delivery, retries with backoff, and posts each video once when Slack is back", async () => {
    const first = ["x7out1", "x7out2", "x7out3", "x7out4"];
    const later = ["x7out5", "x7out6"];
    const all = [...first, ...later];
    const callsBefore = videoCalls().length;

    // 1. Slack answers 503 to everything (nothing is posted by a failed call).
    h.slack.addFault({ method: "*", status: 503, times: 100_000 });
    await deliver(first, RECENT);
    await waitFor(() => videoCalls().some((c) => c.status === 503), 5000, "a refused call");
    await sleep(2000);
    // 2. Slack unreachable: connections refused. More videos arrive meanwhile.
    await relay.down();
    h.slack.clearFaults();
    await deliver(later, RECENT + 100000);
    await sleep(2000);

    const during = videoCalls().length - callsBefore;
    expect(h.slack.messages(NEWS).filter((m) => /x7out/.test(m.text))).toEqual([]);
    // Every video is still scheduled: its deliveries are folded into its stored state, whose
    // Slack work is not done yet.
    expect((await h.outbox.stats()).scheduled).toBe(all.length);
    // Backoff, not a tight loop (the worker polls every 20 ms here).
    expect(during).toBeGreaterThan(0);
    expect(during).toBeLessThan(20);

    // 3. Slack is back.
    const back = Date.now();
    await relay.up();
    await waitFor(() => all.every((id) => shownOnce(h, NEWS, id)), 15_000, "every video shown once");
    const lateBy = Date.now() - back;
    console.log(
      `Slack outage of ~4 s: ${during} calls reached Slack (answered 503) during it; all ${all.length} videos shown ${lateBy} ms after Slack came back`,
    );

    // Nothing dead-lettered, nobody told of a failure, nothing posted twice: judged once the bot
    // had its chance (the outbox empty, then several worker polls that found nothing).
    await settled(h.outbox);
    expect(await h.outbox.listDead(h.slack.teamId, 100)).toEqual([]);
    const dms = h.slack.callsTo("chat.postMessage").filter((c) => String(c.args.channel).startsWith("U"));
    expect(dms).toEqual([]);
    for (const id of all) expect(shownOnce(h, NEWS, id), id).toBe(true);
    expect(await h.outbox.stats()).toMatchObject({ depth: 0, scheduled: 0, dead: 0 });
  });
});
