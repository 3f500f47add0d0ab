/** ChannelGate (src/notify/pacing.ts): what a 429 pauses, by method: the channel or the workspace's method. */
import { describe, expect, it } from "vitest";
import { ChannelGate } from "../../src/notify/pacing.js";

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
