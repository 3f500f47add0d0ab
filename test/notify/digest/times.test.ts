/**
 * When digests are due (src/store/digest-times.ts): at HH:MM in the subscriber's time zone on the
 * local calendar (a daylight-saving change keeps the hour), weekly on the weekday of the first,
 * every period from the subscription time when DIGEST_PERIOD is shorter than a day, a fixed offset
 * for a zone this runtime does not know; and which subscriptions hold their messages back.
 */
import { describe, expect, it } from "vitest";
import {
  DAY_MS,
  type DigestMode,
  holdOf,
  lastDigestAt,
  nextDigestAt,
  periodOf,
} from "../../../src/store/index.js";

const at = (iso: string) => Date.parse(iso);
const digest = (o: Partial<DigestMode>): DigestMode => ({
  every: "daily",
  at: "09:00",
  tz: "Europe/Paris",
  tzOffset: 3600,
  since: "2026-03-28T12:00:00Z",
  ...o,
});

describe("digest times", () => {
  it("daily at 09:00 Paris time, the hour kept across the switch to summer time", () => {
    const d = digest({});
    // Saturday 28 March 2026, 13:00 in Paris: the first digest is Sunday 09:00 (CEST, UTC+2).
    expect(nextDigestAt(d, DAY_MS, at(d.since))).toBe(at("2026-03-29T07:00:00Z"));
    expect(nextDigestAt(d, DAY_MS, at("2026-03-29T07:00:00Z"))).toBe(at("2026-03-30T07:00:00Z"));
    expect(lastDigestAt(d, DAY_MS, at("2026-03-29T06:59:59Z"))).toBeNull();
    expect(lastDigestAt(d, DAY_MS, at("2026-03-31T12:00:00Z"))).toBe(at("2026-03-31T07:00:00Z"));
    // In winter the same 09:00 is 08:00 UTC.
    expect(nextDigestAt(d, DAY_MS, at("2026-11-25T12:00:00Z"))).toBe(at("2026-11-26T08:00:00Z"));
  });

  it("weekly: every 7 periods, on the weekday of the first digest", () => {
    const d = digest({ every: "weekly", tz: "UTC", tzOffset: 0, since: "2026-11-26T10:00:00Z" });
    expect(periodOf(d, DAY_MS)).toBe(7 * DAY_MS);
    expect(nextDigestAt(d, DAY_MS, at(d.since))).toBe(at("2026-11-27T09:00:00Z"));
    expect(nextDigestAt(d, DAY_MS, at("2026-11-27T09:00:00Z"))).toBe(at("2026-12-04T09:00:00Z"));
    expect(lastDigestAt(d, DAY_MS, at("2026-12-10T00:00:00Z"))).toBe(at("2026-12-04T09:00:00Z"));
  });

  it("a period shorter than a day ignores at= and counts from the subscription time", () => {
    const since = at("2026-11-26T10:00:00.500Z");
    const d = digest({ since: new Date(since).toISOString() });
    expect(nextDigestAt(d, 2000, since)).toBe(since + 2000);
    expect(nextDigestAt(d, 2000, since + 1999)).toBe(since + 2000);
    expect(nextDigestAt(d, 2000, since + 2000)).toBe(since + 4000);
    expect(lastDigestAt(d, 2000, since + 1999)).toBeNull();
    expect(lastDigestAt(d, 2000, since + 5000)).toBe(since + 4000);
    expect(nextDigestAt({ ...d, every: "weekly" }, 2000, since)).toBe(since + 14_000);
  });

  it("a zone this runtime does not know: its fixed offset from Slack", () => {
    const d = digest({ tz: "Mars/Olympus_Mons", tzOffset: 5.5 * 3600, since: "2026-11-26T00:00:00Z" });
    // 09:00 at UTC+05:30 is 03:30 UTC.
    expect(nextDigestAt(d, DAY_MS, at(d.since))).toBe(at("2026-11-26T03:30:00Z"));
  });

  it("holds a channel's messages while paused, or for its digest; not once the pause ended", () => {
    const now = at("2026-11-26T10:00:00Z");
    const pause = { until: "2026-11-26T12:00:00Z", at: "2026-11-26T09:00:00Z", by: "U0ADMIN" };
    expect(holdOf({ pause }, DAY_MS, now)).toEqual({ why: "pause", dueAt: at(pause.until) });
    expect(holdOf({ pause }, DAY_MS, at("2026-11-26T12:00:00Z"))).toBeNull();
    const d = digest({ tz: "UTC", tzOffset: 0, since: "2026-11-20T00:00:00Z" });
    expect(holdOf({ pause, digest: d }, DAY_MS, at("2026-11-26T13:00:00Z"))).toEqual({
      why: "digest",
      dueAt: at("2026-11-27T09:00:00Z"),
    });
    expect(holdOf({}, DAY_MS, now)).toBeNull();
  });
});
