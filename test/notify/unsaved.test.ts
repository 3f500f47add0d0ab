/** UnsavedSlackFacts: what Slack shows survives a failed state write. */
import { describe, expect, it } from "vitest";
import { UnsavedSlackFacts } from "../../src/notify/unsaved.js";
import type { Outbox } from "../../src/outbox/types.js";
import { StoreUnavailableError } from "../../src/store/index.js";
import { initialState, type VideoState } from "../../src/video/state.js";

const KEY = "T1:x2vq8nw:x8v1";
const base = (): VideoState => ({
  ...initialState({ teamId: "T1", profileId: "x2vq8nw", channelId: "C1", videoId: "x8v1", ownerId: null }),
  milestones: [
    { key: "published", type: "video.published", timestamp: 1, posted: false, data: {} },
    { key: "complete", type: "video.complete", timestamp: 2, posted: false, data: {} },
  ],
});
const shown = (): VideoState => ({
  ...base(),
  parentTs: "171.000100",
  renderedHash: "h1",
  lastRenderAt: 5,
  milestones: base().milestones.map((m) => (m.key === "published" ? { ...m, posted: true } : m)),
});

function outbox(fail: number): Outbox & { writes: number } {
  const o = {
    writes: 0,
    async setState() {
      o.writes++;
      if (o.writes <= fail) throw new StoreUnavailableError("down");
      return true;
    },
  };
  return o as unknown as Outbox & { writes: number };
}

const noSleep = async () => undefined;

describe("UnsavedSlackFacts", () => {
  it("retries a failed write and forgets the facts once it is stored", async () => {
    const u = new UnsavedSlackFacts();
    const o = outbox(2);
    expect(await u.writeState(o, "w", KEY, shown(), false, noSleep)).toBe(true);
    expect(o.writes).toBe(3);
    expect(u.size).toBe(0);
    expect(u.apply(KEY, base())).toEqual(base());
  });

  it("after the retries, throws and lays what Slack shows over the older stored state", async () => {
    const u = new UnsavedSlackFacts();
    await expect(u.writeState(outbox(10), "w", KEY, shown(), false, noSleep)).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
    const merged = u.apply(KEY, base());
    expect(merged.parentTs).toBe("171.000100");
    expect(merged.renderedHash).toBe("h1");
    expect(merged.milestones.map((m) => [m.key, m.posted])).toEqual([
      ["published", true],
      ["complete", false],
    ]);
    // Another video is untouched.
    expect(u.apply("T1:x2vq8nw:other", base())).toEqual(base());
  });

  it("a newer stored parent wins over an older remembered one", async () => {
    const u = new UnsavedSlackFacts();
    await u.writeState(outbox(10), "w", KEY, shown(), false, noSleep).catch(() => undefined);
    const stored = { ...base(), parentTs: "172.000200", renderedHash: "h9", lastRenderAt: 9 };
    const merged = u.apply(KEY, stored);
    expect([merged.parentTs, merged.renderedHash, merged.lastRenderAt]).toEqual(["172.000200", "h9", 9]);
  });

  it("other errors are not retried", async () => {
    const u = new UnsavedSlackFacts();
    const o = {
      writes: 0,
      async setState() {
        o.writes++;
        throw new Error("bug");
      },
    };
    await expect(u.writeState(o as unknown as Outbox, "w", KEY, shown(), false, noSleep)).rejects.toThrow(
      "bug",
    );
    expect(o.writes).toBe(1);
  });
});
