/** ChannelGate (src/posting/pacing.ts): what a 429 pauses (the channel or the workspace's method), turns under a flood, one pass per channel in Slack. */
import { describe, expect, it } from "vitest";
import { ChannelGate, MAX_TURNS_PER_CHANNEL } from "../../src/posting/pacing.js";

describe("ChannelGate 429s", () => {
  let t = 1_000_000;
  const gate = () => new ChannelGate({ postIntervalMs: 10, now: () => t });

  it("a chat.update 429 pauses chat.update in that workspace only, not the channel's posts", () => {
    const g = gate();
    const until = g.rateLimited("CA", 5, { teamId: "T1", method: "chat.update" });
    expect(until).toBe(t + 5000);
    expect(g.methodBlockedUntil("T1", "chat.update")).toBe(until);
    expect(g.methodBlockedUntil("T2", "chat.update")).toBe(0);
    expect(g.methodBlockedUntil("T1", "chat.delete")).toBe(0);
    expect(g.blockedUntil("CA")).toBe(0);
    expect(g.takePostSlot("CA")).toBe(0);
    // A shorter Retry-After later does not shorten the pause.
    expect(g.rateLimited("CB", 1, { teamId: "T1", method: "chat.update" })).toBe(until);
    t += 5000;
    expect(g.methodBlockedUntil("T1", "chat.update")).toBe(0);
  });

  it("a chat.postMessage 429 (or one without a method) pauses the channel only", () => {
    const g = gate();
    const until = g.rateLimited("CA", 2, { teamId: "T1", method: "chat.postMessage" });
    expect(g.blockedUntil("CA")).toBe(until);
    expect(g.takePostSlot("CA")).toBe(until);
    expect(g.takePostSlot("CB")).toBe(0);
    expect(g.methodBlockedUntil("T1", "chat.postMessage")).toBe(0);
    expect(g.rateLimited("CC", 3)).toBe(t + 3000);
    expect(g.blockedUntil("CC")).toBe(t + 3000);
  });
});

describe("ChannelGate under a flood of new videos", () => {
  it("keeps at most MAX_TURNS_PER_CHANNEL turns per channel; the videos beyond come back after them", () => {
    const t = 1_000_000;
    const g = new ChannelGate({ postIntervalMs: 1_000, now: () => t });
    expect(g.takePostSlot("CA", "v0")).toBe(0);
    const turns = Array.from({ length: MAX_TURNS_PER_CHANNEL }, (_, i) => g.takePostSlot("CA", `v${i + 1}`));
    // One turn per interval, in order, each kept (asking again gives the same turn).
    expect(turns[0]).toBe(t + 1_000);
    expect(turns.at(-1)).toBe(t + MAX_TURNS_PER_CHANNEL * 1_000);
    expect(g.takePostSlot("CA", "v1")).toBe(t + 1_000);
    // Beyond the bound: no turn kept, a time after the last turn given.
    const last = t + MAX_TURNS_PER_CHANNEL * 1_000;
    for (let i = 0; i < 5_000; i++) {
      const at = g.takePostSlot("CA", `late${i}`);
      expect(at).toBeGreaterThan(last);
      expect(at).toBeLessThanOrEqual(last + (MAX_TURNS_PER_CHANNEL + 1) * 1_000);
    }
    // Another channel is not affected.
    expect(g.takePostSlot("CB", "w0")).toBe(0);
    // The kept turns are still the same ones (nothing was overwritten).
    expect(g.takePostSlot("CA", `v${MAX_TURNS_PER_CHANNEL}`)).toBe(last);
  });

  it("lets one pass per channel into Slack at a time, never blocking another channel", () => {
    const t = 1_000_000;
    const g = new ChannelGate({ postIntervalMs: 1_000, now: () => t });
    expect(g.enter("CA")).toBe(true);
    expect(g.enter("CA")).toBe(false);
    expect(g.enter("CB")).toBe(true);
    expect(g.retryAt()).toBe(t + 250);
    g.leave("CA");
    expect(g.enter("CA")).toBe(true);
  });
});
