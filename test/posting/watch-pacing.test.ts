/**
 * The live watch's writes go through the kit (src/posting): paced with the worker's and the
 * digests' ChannelGate when given it (src/watch/announce.ts), classified by the one classifier
 * (ChannelGate.failedCall).
 */
import { ErrorCode, type WebClient } from "@slack/web-api";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { ChannelGate } from "../../src/posting/index.js";
import { Announcer } from "../../src/watch/announce.js";
import type { Broadcast, Effect } from "../../src/watch/broadcast.js";
import type { DirectMessages } from "../../src/watch/dm.js";
import type { LiveDoc, LiveDocs } from "../../src/watch/live-docs.js";
import type { WatchEntry } from "../../src/watch/registry.js";
import type { WatchSchedule } from "../../src/watch/schedule.js";

const refused = (error: string) =>
  Object.assign(new Error(error), { code: ErrorCode.PlatformError, data: { ok: false, error } });
const limited = (retryAfter: number) =>
  Object.assign(new Error("rate limited"), { code: ErrorCode.RateLimitedError, retryAfter });
const http = (status: number) =>
  Object.assign(new Error(`HTTP ${status}`), { code: ErrorCode.HTTPError, statusCode: status });

describe("ChannelGate.failedCall: one classifier, one pace", () => {
  it("a 429 pauses the channel (postMessage) or the method in the workspace; a 5xx backs the channel off; a refusal changes nothing", () => {
    const t = 1_000_000;
    const g = new ChannelGate({ now: () => t });
    expect(g.failedCall("C1", limited(5), { teamId: "T1", method: "chat.postMessage" })).toEqual({
      kind: "rate_limited",
      retryAfterSeconds: 5,
    });
    expect(g.blockedUntil("C1")).toBe(t + 5000);
    g.failedCall("C2", limited(7), { teamId: "T1", method: "chat.update" });
    expect(g.blockedUntil("C2")).toBe(0);
    expect(g.methodBlockedUntil("T1", "chat.update")).toBe(t + 7000);
    expect(g.failedCall("C3", http(503), { teamId: "T1", method: "chat.postMessage" }).kind).toBe(
      "transient",
    );
    expect(g.blockedUntil("C3")).toBe(t + 1000);
    for (const code of ["not_in_channel", "token_revoked", "missing_scope"]) {
      g.failedCall("C4", refused(code), { teamId: "T1", method: "chat.postMessage" });
      expect(g.blockedUntil("C4")).toBe(0);
    }
  });
});

const NOW = 1_700_000_000_000;
const broadcast: Broadcast = {
  id: String(NOW - 60_000),
  phase: "live",
  startedAt: NOW - 60_000,
  lastOnAirAt: NOW,
  offAirSince: null,
  endedAt: null,
  finalized: false,
  title: "Studio Session",
  url: null,
  thumbnailUrl: null,
  adEndAt: null,
  adsRemaining: null,
  recording: null,
  adBreaks: 0,
  recordings: 0,
  quotaUsedUp: false,
};
const watcher = (channelId: string): WatchEntry => ({
  teamId: "T1",
  enterpriseId: null,
  channelId,
  livestreamId: "ls1",
  profileId: "p1",
  by: "U1",
  at: new Date(NOW).toISOString(),
});

/** An announcer over a fake Slack (calls recorded; `fail` decides a call's failure). */
function setup(gate?: ChannelGate) {
  const calls: Array<{ method: string; channel: string }> = [];
  const slack = {
    fail: undefined as ((method: string, channel: string) => Error | undefined) | undefined,
  };
  const call = (method: string) => async (args: { channel: string }) => {
    calls.push({ method, channel: args.channel });
    const err = slack.fail?.(method, args.channel);
    if (err) throw err;
    return { ok: true, ts: `${calls.length}.0` };
  };
  const client = {
    chat: { postMessage: call("chat.postMessage"), update: call("chat.update") },
  } as unknown as WebClient;
  const announcer = new Announcer({
    slackFor: async () => client,
    schedule: { holds: async () => true } as unknown as WatchSchedule,
    live: { write: async () => {} } as unknown as LiveDocs,
    owner: "me",
    log: pino({ level: "silent" }),
    minUpdateMs: 0,
    dms: {} as DirectMessages,
    ...(gate ? { gate } : {}),
  });
  const doc: LiveDoc = { v: 1, broadcast, messages: {}, poll: null };
  const sync: Effect[] = [{ type: "sync" }];
  const poll = (watchers: WatchEntry[], b: Broadcast = broadcast, effects = sync, at = NOW) =>
    announcer.apply("ls1", b, effects, watchers, doc, at);
  return { calls, slack, doc, poll };
}

describe("the live watch paced with the worker's gate", () => {
  it("a channel the worker paused gets nothing this poll (its mark cleared) and is announced once the pause ends", async () => {
    let t = NOW;
    const gate = new ChannelGate({ now: () => t });
    gate.rateLimited("C1", 10);
    const s = setup(gate);
    await s.poll([watcher("C1"), watcher("C2")]);
    expect(s.calls).toEqual([{ method: "chat.postMessage", channel: "C2" }]);
    expect(s.doc.messages["T1:C1"]).toBeUndefined();
    expect(s.doc.messages["T1:C2"]?.ts).toBe("1.0");
    t += 10_000;
    await s.poll([watcher("C1"), watcher("C2")]);
    expect(s.calls.filter((c) => c.channel === "C1")).toEqual([
      { method: "chat.postMessage", channel: "C1" },
    ]);
    expect(s.doc.messages["T1:C1"]?.ts).toBe("2.0");
  });

  it("the watch's own 429 pauses the channel for the worker too; a chat.update 429 the method in the workspace", async () => {
    const t = NOW;
    const gate = new ChannelGate({ now: () => t });
    const s = setup(gate);
    s.slack.fail = (method, channel) =>
      method === "chat.postMessage" && channel === "C1" ? limited(30) : undefined;
    await s.poll([watcher("C1"), watcher("C2")]);
    expect(gate.blockedUntil("C1")).toBe(t + 30_000);
    expect(gate.blockedUntil("C2")).toBe(0);
    // Refused (a 429 is an answer): the mark is cleared, posted again later.
    expect(s.doc.messages["T1:C1"]).toBeUndefined();
    s.slack.fail = (method) => (method === "chat.update" ? limited(20) : undefined);
    const changed = { ...broadcast, title: "New title" };
    await s.poll([watcher("C2")], changed);
    expect(gate.methodBlockedUntil("T1", "chat.update")).toBe(t + 20_000);
    expect(gate.blockedUntil("C2")).toBe(0);
    // chat.update paused in the workspace: no update is tried (another poll will).
    const before = s.calls.length;
    s.slack.fail = undefined;
    await s.poll([watcher("C2")], { ...changed, title: "Newer title" });
    expect(s.calls.slice(before).filter((c) => c.method === "chat.update")).toEqual([]);
  });

  it("an end paused waits for a later poll: the broadcast is not finalized meanwhile", async () => {
    let t = NOW;
    const gate = new ChannelGate({ now: () => t });
    const s = setup(gate);
    await s.poll([watcher("C1")]);
    gate.rateLimited("C1", 5);
    const ended: Broadcast = { ...broadcast, phase: "ended", endedAt: NOW, offAirSince: NOW };
    s.doc.broadcast = ended;
    const end: Effect[] = [{ type: "end" }];
    await s.poll([watcher("C1")], ended, end);
    expect(s.doc.broadcast?.finalized).toBe(false);
    expect(s.doc.messages["T1:C1"]?.ended).toBe(false);
    t += 5_000;
    await s.poll([watcher("C1")], ended, end);
    expect(s.doc.messages["T1:C1"]?.ended).toBe(true);
    expect(s.doc.broadcast?.finalized).toBe(true);
  });

  it("without a gate nothing is paced (as before): a 5xx is logged, the mark kept", async () => {
    const s = setup();
    s.slack.fail = () => http(500);
    await s.poll([watcher("C1")]);
    expect(s.doc.messages["T1:C1"]?.ts).toBeNull();
  });
});
