/**
 * Posts whose record is lost (src/notify/posted.ts): Slack has the message, the store does not
 * know it. The worker finds the message by the marker its post carried instead of posting again.
 *
 *  - the answer to a post is lost on the way (Slack stored the message, the connection was cut):
 *    the retry finds the message; for the parent and for a thread reply;
 *  - a replica posts, then cannot write its state (cut off from Redis: a Redis restart, a network
 *    split), and another replica takes the video over: it finds the message and updates it;
 *  - Slack refused the post (an error answer): no lookup, the retry posts;
 *  - Slack refuses the lookup for good (no `channels:history` scope): posted again, with a warning.
 *
 * (test/faults/scale-out.test.ts shows the same with replicas killed with SIGKILL and Redis killed
 * and restarted, as processes.)
 */
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { Outbox } from "../../src/outbox/types.js";
import { StoreUnavailableError } from "../../src/store/index.js";
import {
  configureProfile,
  postRetrying,
  shortLifecycle,
  shownOnce,
  videoMessages,
} from "../faults/support.js";
import { type Bot, type Harness, startBot, startHarness, waitFor } from "../support/harness.js";
import { RECENT } from "../support/recent.js";
import { scratchStores } from "../support/stores.js";

const NEWS = "C0NEWS";
const WORKER = { coalesceMs: 100, postIntervalMs: 20, pollMs: 10 };
let h: Harness | undefined;
let b: Bot | undefined;
const stores = scratchStores("lost");

afterEach(async () => {
  await b?.close();
  await h?.close();
  b = undefined;
  h = undefined;
});
afterAll(stores.cleanup);

async function deliver(hook: string, videoId: string, which: number[]) {
  const events = shortLifecycle(videoId, RECENT);
  for (const i of which) {
    const d = events[i];
    if (d) expect(await postRetrying(() => hook, d, 100, 5000)).toEqual([200]);
  }
}

const lookups = (x: Harness) =>
  x.slack.calls.filter((c) => c.method === "conversations.history" || c.method === "conversations.replies");

describe("the answer to a post is lost on the way", () => {
  it("the parent: the retry finds the message it posted and updates it", async () => {
    h = await startHarness({ worker: WORKER });
    const hook = await configureProfile(h, NEWS);
    h.slack.addFault({ method: "chat.postMessage", loseAnswer: true });
    await deliver(hook, "x7lost1", [0, 1, 2]);
    const x = h;
    await waitFor(() => shownOnce(x, NEWS, "x7lost1"), 10_000, "the video complete").catch(() => undefined);
    expect(videoMessages(h, NEWS, "x7lost1").parents).toHaveLength(1);
    expect(shownOnce(h, NEWS, "x7lost1")).toBe(true);
    // The first post carried its marker; the lookup found it.
    const first = h.slack.callsTo("chat.postMessage")[0];
    expect(first?.status).toBe(0);
    expect(first?.args.metadata).toMatchObject({
      event_type: "video_status",
      event_payload: { video_id: "x7lost1", post_id: expect.any(String) },
    });
    expect(lookups(h).map((c) => c.method)).toEqual(["conversations.history"]);
  });

  it("a thread reply: the retry finds it in the thread and does not post it again", async () => {
    h = await startHarness({ worker: WORKER });
    const hook = await configureProfile(h, NEWS);
    await deliver(hook, "x7lost2", [0]);
    const x = h;
    await waitFor(() => videoMessages(x, NEWS, "x7lost2").parents.length === 1, 10_000, "the parent");
    h.slack.addFault({ method: "chat.postMessage", loseAnswer: true });
    await deliver(hook, "x7lost2", [1, 2]);
    await waitFor(() => shownOnce(x, NEWS, "x7lost2"), 10_000, "the video complete").catch(() => undefined);
    const { parents, thread } = videoMessages(h, NEWS, "x7lost2");
    expect(parents).toHaveLength(1);
    expect(thread.filter((t) => /published/i.test(t))).toHaveLength(1);
    expect(shownOnce(h, NEWS, "x7lost2")).toBe(true);
    expect(lookups(h).map((c) => c.method)).toEqual(["conversations.replies"]);
  });
});

describe("a replica cut off from Redis right after its post", () => {
  it("the replica that takes the video over updates that message instead of posting another", async () => {
    const namespace = stores.namespace();
    const store = { kind: "redis" as const, url: "redis://127.0.0.1:6379" };
    const worker = { ...WORKER, leaseMs: 1000 };
    h = await startHarness({ store, namespace, worker: { ...worker, owner: "replica-a" } });
    const hook = await configureProfile(h, NEWS);
    // From its first post on, replica A reaches Redis no more (its state write fails, and so
    // does everything after it): what it posted is known to A's memory only.
    const a: Outbox = h.outbox;
    const x = h;
    const cut = () => x.slack.callsTo("chat.postMessage").some((c) => String(c.args.text).includes("x7take"));
    for (const op of ["setState", "claimDue", "renew", "ack", "release"] as const) {
      const real = a[op].bind(a) as (...args: unknown[]) => Promise<unknown>;
      (a as unknown as Record<string, unknown>)[op] = (...args: unknown[]) =>
        cut() ? Promise.reject(new StoreUnavailableError("Redis unreachable")) : real(...args);
    }
    await deliver(hook, "x7take", [0]);
    await waitFor(cut, 10_000, "replica A's post");
    await waitFor(() => h?.logs.some((l) => l.includes("Slack call failed")), 10_000, "A's failed write");

    b = await startBot(h.config, h.logger, { store, namespace, worker: { ...worker, owner: "replica-b" } });
    await deliver(`${b.url}${new URL(hook).pathname}`, "x7take", [1, 2]);
    await waitFor(() => shownOnce(x, NEWS, "x7take"), 15_000, "the video complete").catch(() => undefined);
    expect(videoMessages(h, NEWS, "x7take").parents).toHaveLength(1);
    expect(shownOnce(h, NEWS, "x7take")).toBe(true);
  }, 30_000);
});

describe("what is not looked up, and what cannot be", () => {
  it("a post Slack answered with an error was not made: no lookup before the retry, one after a lost answer", async () => {
    h = await startHarness({ worker: WORKER });
    const hook = await configureProfile(h, NEWS);
    // Refused (429): nothing posted, the retry posts at once. Its answer is lost: that one is looked for.
    h.slack.addFault({ method: "chat.postMessage", status: 429, retryAfter: 1 });
    h.slack.addFault({ method: "chat.postMessage", loseAnswer: true });
    await deliver(hook, "x7refused", [0, 1, 2]);
    const x = h;
    await waitFor(() => shownOnce(x, NEWS, "x7refused"), 10_000, "the video complete").catch(() => undefined);
    expect(videoMessages(h, NEWS, "x7refused").parents).toHaveLength(1);
    expect(shownOnce(h, NEWS, "x7refused")).toBe(true);
    const methods = h.slack.calls
      .filter((c) => /^(chat\.postMessage|conversations\.history)$/.test(c.method))
      .map((c) => `${c.method}${c.status === 429 ? " 429" : c.status === 0 ? " lost" : ""}`);
    expect(methods.slice(0, 3)).toEqual([
      "chat.postMessage 429",
      "chat.postMessage lost",
      "conversations.history",
    ]);
    expect(lookups(h)).toHaveLength(1);
  });

  it("without the history scope: posted again (nothing lost, maybe twice), one warning", async () => {
    h = await startHarness({ worker: WORKER });
    const hook = await configureProfile(h, NEWS);
    h.slack.addFault({ method: "chat.postMessage", loseAnswer: true });
    h.slack.addFault({ method: "conversations.history", error: "missing_scope" });
    await deliver(hook, "x7noscope", [0, 1, 2]);
    const x = h;
    // The post whose answer was lost is made again (no lookup without the scope): two parents,
    // the second one current.
    const again = () => videoMessages(x, NEWS, "x7noscope").parents.length >= 2;
    await waitFor(again, 10_000, "the video posted again");
    const parents = videoMessages(h, NEWS, "x7noscope").parents;
    expect(parents).toHaveLength(2);
    expect(parents[1]?.text).toMatch(/complete/i);
    const warnings = h.logs.filter((l) => l.includes("channels:history"));
    expect(warnings).toHaveLength(1);
  });
});
