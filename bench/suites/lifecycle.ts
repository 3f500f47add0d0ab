/**
 * Slack calls per video lifecycle: the whole bot as the tests run it (test/support/harness.ts:
 * platform sandbox, Slack stand-in, memory store, real HTTP on 127.0.0.1) with the notification
 * worker running at its production settings (the harness's shortened test timings are undone).
 * The channel is configured with `/webhook set`, then the sandbox delivers one lifecycle
 * (1 created, 30 processing over 3 presets with 10 steps each, 3 ready, published, complete) to
 * the bot's callback URL, one delivery after the other, as the platform would.
 *
 * Measured once the channel shows the video complete with its milestones in the thread and the
 * outbox is empty: the chat.postMessage and chat.update calls of the channel, against the naive
 * one post per event.
 */
import { SEED } from "../../fakes/platform/server.js";
import { eventually, type Harness, startHarness, waitFor } from "../../test/support/harness.js";

const CHANNEL = "C0NEWS";
const PRESETS = ["240p", "480p", "720p"];
const PROGRESS_STEPS = 10;

export interface LifecycleResult {
  deliveries: number;
  /** What the sandbox sent, by type. */
  byType: Record<string, number>;
  /** The naive count: one post per event. */
  naiveCalls: number;
  slackWrites: number;
  parentPosts: number;
  threadPosts: number;
  updates: number;
  /** Other Web API calls the bot made meanwhile (method → count). */
  otherCalls: Record<string, number>;
  /** Slack writes that failed (should be none). */
  failedWrites: number;
  /** From the first delivery sent to the channel showing the video complete. */
  msToComplete: number;
  /** How long the sandbox took to deliver the whole lifecycle (sequentially). */
  msToDeliver: number;
  worker: string;
  problems: string[];
}

function videoMessages(h: Harness, videoId: string) {
  const all = h.slack.messages(CHANNEL);
  const parents = all.filter((m) => !m.thread_ts && JSON.stringify(m).includes(videoId));
  const ts = parents[0]?.ts;
  const thread = ts ? all.filter((m) => m.thread_ts === ts && m.ts !== ts) : [];
  return { parents, thread };
}

export async function runLifecycle(log: (line: string) => void): Promise<LifecycleResult> {
  // undefined = the app's own defaults (coalescing 3 s, one new post per second per channel,
  // 250 ms idle poll) instead of the harness's test timings.
  const h = await startHarness({
    worker: { coalesceMs: undefined, postIntervalMs: undefined, pollMs: undefined },
  });
  try {
    const set = await h.slash("/webhook", `set ${SEED.profiles.newsroom}`, {
      user: "U0ADMIN",
      channel: CHANNEL,
    });
    const answer = await h.answer(set.responseUrl);
    if (set.status !== 200) throw new Error(`/webhook set answered HTTP ${set.status}`);
    const callback = h.sandbox.state.profiles.get(SEED.profiles.newsroom)?.webhook.callback_url;
    if (!callback) throw new Error(`/webhook set did not set the callback URL: ${JSON.stringify(answer)}`);

    const videoId = `xbench${Date.now().toString(36)}`;
    const firstCall = h.slack.calls.length;
    log(`  delivering one lifecycle of video ${videoId} to the bot…`);
    const started = Date.now();
    const results = await h.sandbox.deliverLifecycle(SEED.profiles.newsroom, {
      videoId,
      presets: PRESETS,
      progressSteps: PROGRESS_STEPS,
      deliverTo: h.url,
      force: true,
    });
    const msToDeliver = Date.now() - started;
    const refused = results.filter((r) => r.status !== 200);
    if (refused.length > 0) {
      throw new Error(
        `${refused.length} deliveries were not accepted: ${refused
          .slice(0, 3)
          .map((r) => `${r.type} → ${r.status} ${r.body}`)
          .join("; ")}`,
      );
    }
    await waitFor(
      () => {
        const v = videoMessages(h, videoId);
        const thread = v.thread.map((m) => m.text).join("\n");
        return (
          v.parents.length >= 1 &&
          /complete/i.test(v.parents[0]?.text ?? "") &&
          /published/i.test(thread) &&
          /complete/i.test(thread)
        );
      },
      20_000,
      "the channel to show the video complete with its milestones",
    );
    const msToComplete = Date.now() - started;
    await eventually(
      async () => {
        const s = await h.outbox.stats();
        return s.depth === 0 && s.scheduled === 0;
      },
      20_000,
      "the outbox to be empty with nothing scheduled",
    );
    // Quiet period: no late call may be missed.
    let seen = h.slack.calls.length;
    for (;;) {
      await new Promise((r) => setTimeout(r, 750));
      if (h.slack.calls.length === seen) break;
      seen = h.slack.calls.length;
    }

    const calls = h.slack.calls.slice(firstCall);
    const writes = calls.filter(
      (c) => (c.method === "chat.postMessage" || c.method === "chat.update") && c.args.channel === CHANNEL,
    );
    const otherCalls: Record<string, number> = {};
    for (const c of calls) {
      if (writes.includes(c)) continue;
      otherCalls[c.method] = (otherCalls[c.method] ?? 0) + 1;
    }
    const byType: Record<string, number> = {};
    for (const r of results) byType[r.type] = (byType[r.type] ?? 0) + 1;

    const final = videoMessages(h, videoId);
    const problems: string[] = [];
    if (final.parents.length !== 1)
      problems.push(`${final.parents.length} parent messages for the video, not 1`);
    const failedWrites = writes.filter((c) => !c.ok).length;
    if (failedWrites > 0) problems.push(`${failedWrites} Slack writes failed`);

    return {
      deliveries: results.length,
      byType,
      naiveCalls: results.length,
      slackWrites: writes.length,
      parentPosts: writes.filter((c) => c.method === "chat.postMessage" && !c.args.thread_ts).length,
      threadPosts: writes.filter((c) => c.method === "chat.postMessage" && Boolean(c.args.thread_ts)).length,
      updates: writes.filter((c) => c.method === "chat.update").length,
      otherCalls,
      failedWrites,
      msToComplete,
      msToDeliver,
      worker: "the app's defaults (the harness's shortened test timings undone)",
      problems,
    };
  } finally {
    await h.close();
  }
}
