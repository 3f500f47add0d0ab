import { describe, expect, it } from "vitest";
import {
  ACTIONS,
  type HomeViewOptions,
  homeView,
  parseUnwatchValue,
  unwatchValue,
  type WatchRow,
  watchingMessage,
  watchStartedMessage,
} from "../../src/messages/index.js";
import { assertWithinLimits } from "./limits.js";
import { assertViewWithinLimits } from "./view-limits.js";

const NOW = Date.UTC(2026, 10, 24, 12, 0, 0);

function row(over: Partial<WatchRow> = {}): WatchRow {
  return {
    livestreamId: "x9b2k5p",
    channelId: "C0NEWS",
    by: "U0ADMIN",
    state: "live",
    title: "Evening show",
    since: NOW - 600_000,
    lastPoll: { ok: true, error: null, failures: 0 },
    ...over,
  };
}

const home = (o: Partial<HomeViewOptions>) =>
  homeView({
    now: new Date(NOW),
    isManager: true,
    platform: { ok: true, grantedScopes: [] },
    profiles: [],
    managers: { configured: [], added: [] },
    ...o,
  });

describe("live watch blocks", () => {
  it("escapes a hostile title and never mentions through it", () => {
    const m = watchingMessage([row({ title: "<!channel> *bold* <https://evil.example|x>" })]);
    const text = JSON.stringify(m);
    expect(text).not.toContain("<!channel>");
    expect(text).not.toContain("<https://evil.example");
    expect(assertWithinLimits(m)).toEqual([]);
  });

  it("says each state in words", () => {
    const text = JSON.stringify(
      watchingMessage([
        row(),
        row({ livestreamId: "x2", state: "off_air", since: NOW }),
        row({ livestreamId: "x3", state: "not_polled_yet", since: null, lastPoll: null }),
        row({ livestreamId: "x4", lastPoll: { ok: false, error: "503", failures: 2 } }),
      ]),
    );
    expect(text).toContain("on air since");
    expect(text).toContain("off air (last broadcast ended");
    expect(text).toContain("not read yet");
    expect(text).toContain("last read failed");
  });

  it("a watch confirmation says what happens and how often", () => {
    const m = watchStartedMessage({
      livestreamId: "x9b2k5p",
      title: "Evening show",
      channelId: "C0NEWS",
      by: "U0ADMIN",
      added: true,
      intervalMs: 30_000,
      graceMs: 60_000,
    });
    const text = JSON.stringify(m);
    expect(text).toContain("<#C0NEWS>");
    expect(text).toContain("after 60 s off air");
    expect(text).toContain("Checked every 30 s");
  });

  it("the Unwatch value round-trips and refuses anything else", () => {
    expect(parseUnwatchValue(unwatchValue("C0NEWS", "x9b2k5p"))).toEqual({
      channelId: "C0NEWS",
      livestreamId: "x9b2k5p",
    });
    for (const bad of ["", "C0NEWS", "C0NEWS:", ":x1", "c0news:x1", "C0NEWS:x1:x2", "C0NEWS:../x"])
      expect(parseUnwatchValue(bad), bad).toBeNull();
  });

  it("the App Home lists watches, Unwatch only for managers, a health line when polls fail, within limits", () => {
    const rows = Array.from({ length: 150 }, (_, i) => row({ livestreamId: `x${i}` }));
    const failing = [{ livestreamId: "x1", failures: 3, error: "http 503 SERVICE_UNAVAILABLE" }];
    const manager = home({ watches: rows, watchHealth: { failing } });
    expect(assertViewWithinLimits(manager)).toEqual([]);
    const m = JSON.stringify(manager);
    expect(m).toContain(ACTIONS.watchUnwatch);
    expect(m).toContain("Live watch (150)");
    expect(m).toContain("failed last time");
    expect(m).toContain("/live watching` lists all");
    const member = JSON.stringify(home({ isManager: false, watches: rows.slice(0, 2) }));
    expect(member).not.toContain(ACTIONS.watchUnwatch);
    expect(member).toContain("on air since");
    expect(JSON.stringify(home({}))).not.toContain("Live watch");
  });
});
