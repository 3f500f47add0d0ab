/**
 * The live-watch schedule reads each livestream at most once per interval, whatever watches it and
 * however often the watches come and go: `/live watch <id> dm` then `/live unwatch <id> dm` in a
 * loop (signed commands against the composed bot, the platform sandbox's request log) makes one
 * poll read of the livestream per interval, not one per loop. The `/live watch` command's own
 * check read (the livestream exists and is bound to the workspace) is charged to the person's read
 * budget and shared for 10 s (src/access), and counted apart. On memory (the in-process schedule)
 * and on Redis (the shared one).
 */
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import type { StoreUrl } from "../../src/config.js";
import { silentLogger } from "../../src/log.js";
import { openStore } from "../../src/store/index.js";
import { MemorySchedule, RedisSchedule, type WatchSchedule } from "../../src/watch/schedule.js";
import { type Harness, startHarness, waitFor } from "../support/harness.js";
import { untilElapsed } from "../support/polls.js";

const TEAM = "T0STANDIN";
/** Long: any second poll read during the test is one too many. */
const INTERVAL = 60_000;
const BOUND = SEED.livestreams.offAir; // studio
const MEMBER = "U0MEMBER";
const LOOPS = 10;

const json = (v: unknown) => JSON.stringify(v);

const stores: Array<{ name: string; store: StoreUrl; namespace?: string }> = [
  { name: "memory", store: { kind: "memory", url: "memory://" } },
  {
    name: "redis",
    store: { kind: "redis", url: "redis://127.0.0.1:6379" },
    namespace: `watch-once-${process.pid}-${randomBytes(3).toString("hex")}`,
  },
];

describe.each(stores)("a DM watch and unwatch loop on $name", ({ store, namespace }) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      store,
      ...(namespace ? { namespace } : {}),
      env: {
        LIVE_WATCH_INTERVAL_MS: String(INTERVAL),
        PROFILE_BINDINGS: `${TEAM}=${SEED.profiles.studio}`,
      },
      // A tick every 20 ms: a livestream due now is claimed and read at once.
      watch: { tickMs: 20 },
    });
  });
  afterAll(async () => {
    const redis = h?.store.backend.redis;
    const keys = namespace ? ((await redis?.keys(`${namespace}:*`)) ?? []) : [];
    if (keys.length > 0) await redis?.del(keys);
    await h?.close();
  });

  const reads = () =>
    h.sandbox.requests.filter((r) => r.method === "GET" && r.path === `/v2/livestreams/${BOUND}`);
  /** The poller's reads (its sparse field list carries the on-air state). */
  const pollReads = () => reads().filter((r) => (r.query.fields ?? "").includes("status.onair")).length;
  /** The `/live watch` command's check reads (existence and binding). */
  const checkReads = () => reads().filter((r) => !(r.query.fields ?? "").includes("status.onair")).length;

  async function run(text: string) {
    const { responseUrl, status } = await h.slash("/live", text, { user: MEMBER });
    expect(status).toBe(200);
    return json(await h.answer(responseUrl));
  }

  it("makes one poll read per interval, not one per watch", async () => {
    const started = Date.now();
    for (let i = 0; i < LOOPS; i++) {
      expect(await run(`watch ${BOUND} dm`)).toContain("You will get a DM");
      if (i === 0) await waitFor(() => pollReads() === 1, 5000, "the first poll read");
      // Several ticks: a livestream due again now would be read now. Any read is one too many, so
      // there is no poll to count: the ticks' 20 ms are wall time.
      else await untilElapsed(Date.now(), 150);
      expect(await run(`unwatch ${BOUND} dm`)).toContain("You no longer get DMs");
    }
    // Watched again at the end: still not due before the interval is over.
    expect(await run(`watch ${BOUND} dm`)).toContain("You will get a DM");
    await untilElapsed(Date.now(), 300); // several ticks (wall time, as above)
    const elapsed = Date.now() - started;
    expect(elapsed).toBeLessThan(INTERVAL * 0.9);
    expect(pollReads()).toBe(1);
    // The command's own reads: shared for 10 s, each one charged to the person's budget.
    expect(checkReads()).toBeGreaterThanOrEqual(1);
    expect(checkReads()).toBeLessThanOrEqual(Math.ceil(elapsed / 10_000));
    expect(await h.built.watch?.registry.livestreams()).toEqual([BOUND]);
    // Still scheduled, at the next due time of the one read (±10 % jitter), not sooner.
    const redis = h.store.backend.redis;
    if (redis) {
      const due = Number(await redis.zScore(`${namespace}:watch:sched`, BOUND));
      const read = reads().find((r) => (r.query.fields ?? "").includes("status.onair"))?.at ?? 0;
      expect(due).toBeGreaterThanOrEqual(read + INTERVAL * 0.89);
      expect(due).toBeLessThanOrEqual(read + INTERVAL * 1.11 + 1000);
    }
  }, 60_000);
});

describe.each([
  ["memory", async () => ({ s: new MemorySchedule() as WatchSchedule, close: async () => {} })],
  [
    "redis",
    async () => {
      const namespace = `watch-kept-${process.pid}-${randomBytes(3).toString("hex")}`;
      const store = await openStore({ kind: "redis", url: "redis://127.0.0.1:6379" }, silentLogger(), {
        namespace,
      });
      const redis = store.backend.redis;
      if (!redis) throw new Error("no redis");
      const close = async () => {
        const keys = await redis.keys(`${namespace}:*`);
        if (keys.length > 0) await redis.del(keys);
        await store.close();
      };
      return { s: new RedisSchedule(store, redis) as WatchSchedule, close };
    },
  ],
] as const)("the schedule on %s", (_name, open) => {
  it("keeps a removed livestream's due time for a watch added again, once; not without keepDue", async () => {
    const { s, close } = await open();
    try {
      const t = Date.now();
      await s.add("ls", t);
      expect(await s.claimDue("A", t, 5, 60_000)).toEqual(["ls"]);
      expect(await s.reschedule("A", "ls", t + 60_000, t + 90_000)).toBe(true);
      await s.remove("ls", true);
      await s.add("ls", t + 10);
      expect(await s.claimDue("A", t + 1000, 5, 60_000)).toEqual([]);
      expect(await s.claimDue("A", t + 60_000, 5, 60_000)).toEqual(["ls"]);
      // Used once: removed without keepDue, a watch added again is due when asked.
      await s.remove("ls");
      await s.add("ls", t + 20);
      expect(await s.claimDue("A", t + 20, 5, 60_000)).toEqual(["ls"]);
    } finally {
      await close();
    }
  });
});
