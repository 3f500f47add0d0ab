/**
 * Fuzzing the way from the delivery route to Slack: random valid deliveries (spec 6.2) for a few
 * videos, in random order, through the running bot with its worker on. Everything stored is
 * posted (nothing left, nothing dead-lettered), one parent message per video, and every message
 * and update the worker sends fits Block Kit and pings nobody.
 */
import { randomUUID } from "node:crypto";
import { createClient } from "@keyv/redis";
import fc from "fast-check";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import type { Message } from "../../src/messages/index.js";
import { assertWithinLimits } from "../messages/limits.js";
import { eventually, type Harness, startHarness } from "../support/harness.js";
import { FUZZ_TIMEOUT, runs, validDeliveryArb } from "./arbitraries.js";
import { blockKitProblems, guardUnhandled, injectionProblems } from "./checks.js";

vi.setConfig({ testTimeout: FUZZ_TIMEOUT });

const REDIS = "redis://127.0.0.1:6379";
const guard = guardUnhandled();
afterAll(() => {
  guard.dispose();
  guard.check();
});

for (const kind of ["memory", "redis"] as const) {
  describe(`deliveries to Slack, fuzzed (${kind} store)`, () => {
    let h: Harness;
    let hook: string;
    let run = 0;
    const namespace = `test-fuzz-${randomUUID()}`;

    beforeAll(async () => {
      h = await startHarness({
        worker: { postIntervalMs: 0, coalesceMs: 30, pollMs: 10 },
        env: { LOG_LEVEL: "warn" },
        ...(kind === "redis" ? { store: { kind: "redis", url: REDIS }, namespace } : {}),
      });
      hook = await h.configureProfile();
    });
    afterAll(async () => {
      await h.close();
      if (kind === "redis") {
        const client = createClient({ url: REDIS });
        await client.connect();
        for await (const keys of client.scanIterator({ MATCH: `${namespace}*`, COUNT: 500 })) {
          if (keys.length > 0) await client.del(keys);
        }
        await client.quit();
      }
    });

    it("all posted, one parent per video, every message within Block Kit limits", async () => {
      const deliveries = fc.array(
        fc.tuple(validDeliveryArb(SEED.profiles.newsroom), fc.integer({ min: 0, max: 2 })),
        { minLength: 1, maxLength: 25 },
      );
      await fc.assert(
        fc.asyncProperty(deliveries, async (list) => {
          run++;
          const from = h.slack.calls.length;
          const topBefore = h.slack.messages("C0NEWS").filter((m) => m.thread_ts === undefined).length;
          const videos = new Set<string>();
          for (const [d, v] of list) {
            // A few videos per run, named apart from other runs.
            const videoId = `r${run}v${v}`;
            videos.add(videoId);
            const body = JSON.stringify({ ...d, data: { ...d.data, video_id: videoId } });
            const res = await request(hook, {
              method: "POST",
              headers: { "content-type": "application/json" },
              body,
            });
            await res.body.text();
            expect(res.statusCode).toBe(200);
          }
          await eventually(
            async () => {
              const s = await h.outbox.stats();
              return s.depth === 0 && s.scheduled === 0;
            },
            10_000,
            "the outbox to drain",
          );
          expect((await h.outbox.stats()).dead).toBe(0);
          const top = h.slack.messages("C0NEWS").filter((m) => m.thread_ts === undefined).length;
          expect(top - topBefore).toBe(videos.size);
          for (const call of h.slack.calls.slice(from)) {
            if (call.method !== "chat.postMessage" && call.method !== "chat.update") continue;
            expect(call.ok).toBe(true);
            const msg = { text: call.args.text, blocks: call.args.blocks } as Message;
            expect(assertWithinLimits(msg)).toEqual([]);
            expect(blockKitProblems(msg)).toEqual([]);
            expect(injectionProblems(msg)).toEqual([]);
          }
          guard.check();
        }),
        { numRuns: runs(kind === "redis" ? 15 : 40), endOnFailure: true },
      );
    });
  });
}
