import { describe, expect, it } from "vitest";
import { AUTH_PAUSE_SECONDS, droppedState, outcomeOf } from "../../src/notify/outcome.js";
import { initialState, type VideoState } from "../../src/video/state.js";

function state(): VideoState {
  return {
    ...initialState({ teamId: "T1", profileId: "P1", channelId: "C1", videoId: "v1" }),
    parentTs: "1.1",
    renderedHash: "h",
    posting: { key: "parent", at: 5 } as unknown as VideoState["posting"],
    milestones: [
      { key: "published", timestamp: 1, posted: true } as VideoState["milestones"][number],
      { key: "complete", timestamp: 2, posted: false } as VideoState["milestones"][number],
    ],
  };
}

describe("outcomeOf: what a Slack failure does to a video", () => {
  it("gone: its items dropped, the workspace marked gone, unposted milestones marked done", () => {
    const s = state();
    const out = outcomeOf({ kind: "gone", code: "account_inactive" }, s);
    expect(out).toMatchObject({ kind: "drop", code: "account_inactive", markGone: true });
    if (out.kind !== "drop") throw new Error(out.kind);
    expect(out.state.milestones.map((m) => m.posted)).toEqual([true, true]);
    expect(out.state.posting).toBeUndefined();
    expect(out.state.parentTs).toBe("1.1");
    expect(out.state).toEqual(droppedState(s));
  });

  it("auth: nothing dropped, the channel waits a minute", () => {
    expect(outcomeOf({ kind: "auth", code: "token_expired" }, state())).toEqual({
      kind: "wait",
      code: "token_expired",
      pauseSeconds: AUTH_PAUSE_SECONDS,
    });
    expect(AUTH_PAUSE_SECONDS).toBe(60);
  });

  it("rate_limited: paused for Slack's Retry-After", () => {
    expect(outcomeOf({ kind: "rate_limited", retryAfterSeconds: 7 }, state())).toEqual({
      kind: "rate_limited",
      retryAfterSeconds: 7,
    });
  });

  it("message_gone: the parent is forgotten, to be posted again; milestones untouched", () => {
    const out = outcomeOf({ kind: "message_gone", code: "message_not_found" }, state());
    if (out.kind !== "repost") throw new Error(out.kind);
    expect(out.state.parentTs).toBeNull();
    expect(out.state.renderedHash).toBeNull();
    expect(out.state.posting).toBeUndefined();
    expect(out.state.milestones.map((m) => m.posted)).toEqual([true, false]);
  });

  it("transient: retried after the channel's back-off, the state as it is", () => {
    expect(outcomeOf({ kind: "transient", code: "http_503" }, state())).toEqual({
      kind: "retry",
      code: "http_503",
    });
  });

  it("permanent: refused for good, every milestone done and the parent to be rendered again", () => {
    const s = state();
    const out = outcomeOf({ kind: "permanent", code: "invalid_blocks" }, s);
    if (out.kind !== "refused") throw new Error(out.kind);
    expect(out.code).toBe("invalid_blocks");
    expect(out.state.milestones.map((m) => m.posted)).toEqual([true, true]);
    expect(out.state.renderedHash).toBeNull();
    expect(out.state.parentTs).toBe("1.1");
    expect(out.state.posting).toBeUndefined();
    // Pure: the given state is left as it was.
    expect(s.milestones[1]?.posted).toBe(false);
    expect(s.renderedHash).toBe("h");
  });
});
