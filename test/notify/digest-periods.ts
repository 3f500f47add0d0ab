/**
 * The periods digests name (digest, durability and pause tests). A digest states its period in its
 * context line as two Slack date tokens, `<!date^FROM^…|…> – <!date^END^…|…>` (src/messages/digest.ts),
 * and its metadata carries `period_end`. The tests record when each entry was written to the digest
 * log (the runner puts an entry in the period [since + kP, since + (k+1)P) its time falls in) and
 * check the digests against those periods.
 */
import { expect } from "vitest";
import type { ChannelMessage } from "../../fakes/slack/index.js";
import { periodEndOf } from "./digest-helpers.js";

/** The period a digest or catch-up states in its text, in seconds; undefined when it states none. */
export function statedPeriod(m: ChannelMessage): { from: number; end: number } | undefined {
  const match = /<!date\^(\d+)\^[^|>]*\|[^>]*> – <!date\^(\d+)\^/.exec(JSON.stringify(m.blocks ?? []));
  return match ? { from: Number(match[1]), end: Number(match[2]) } : undefined;
}

interface Recordable {
  record(key: string, entryId: string, json: string, dueAt: number): Promise<unknown>;
}

/** Spies on a digest log: the time (`at`) of each entry recorded for a key containing `channel`. */
export function entryTimes(log: Recordable, channel: string, into: number[] = []): number[] {
  const record = log.record.bind(log);
  log.record = (key, entryId, json, dueAt) => {
    if (key.includes(channel)) {
      const at = (JSON.parse(json) as { at?: unknown }).at;
      if (typeof at === "number") into.push(at);
    }
    return record(key, entryId, json, dueAt);
  };
  return into;
}

/** The periods (k: [since + kP, since + (k+1)P)) that entries recorded at `times` fall in, ascending. */
export function periodsOf(times: readonly number[], since: number, periodMs: number): number[] {
  return [...new Set(times.map((t) => Math.floor((t - since) / periodMs)))].sort((a, b) => a - b);
}

const sec = (ms: number) => Math.floor(ms / 1000);

/**
 * One digest per period that had entries, in order, each naming that period in its text (from its
 * start to its end) and in its metadata (`period_end`); returns the periods.
 */
export function expectOnePerPeriod(
  digests: readonly ChannelMessage[],
  times: readonly number[],
  since: number,
  periodMs: number,
): number[] {
  const periods = periodsOf(times, since, periodMs);
  const named = digests.map((d) => ({ stated: statedPeriod(d), end: periodEndOf(d) }));
  const expected = periods.map((k) => ({
    stated: { from: sec(since + k * periodMs), end: sec(since + (k + 1) * periodMs) },
    end: sec(since + (k + 1) * periodMs),
  }));
  expect(named, `the periods the digests name (periods with entries: ${periods.join(",")})`).toEqual(
    expected,
  );
  return periods;
}

/**
 * Digests that may each cover several periods (one posted late, after the bot was down over a
 * digest time): each names a whole number of periods, from a period start to a period end, the end
 * in its metadata too; they do not overlap, and every period that had entries is in exactly one.
 */
export function expectPeriodsCovered(
  digests: readonly ChannelMessage[],
  times: readonly number[],
  since: number,
  periodMs: number,
): void {
  const ranges = digests.map((d) => {
    const stated = statedPeriod(d);
    expect(stated, "a digest names its period").toBeDefined();
    expect(periodEndOf(d)).toBe(stated?.end);
    return stated ?? { from: 0, end: 0 };
  });
  const starts = new Set(Array.from({ length: 10_000 }, (_, k) => sec(since + k * periodMs)));
  for (const r of ranges) {
    expect(starts.has(r.from), `${r.from} starts a period`).toBe(true);
    expect(starts.has(r.end), `${r.end} ends a period`).toBe(true);
    expect(r.end).toBeGreaterThan(r.from);
  }
  for (let i = 1; i < ranges.length; i++)
    expect(ranges[i]?.from ?? 0).toBeGreaterThanOrEqual(ranges[i - 1]?.end ?? 0);
  for (const k of periodsOf(times, since, periodMs)) {
    const start = sec(since + k * periodMs);
    expect(
      ranges.filter((r) => r.from <= start && start < r.end),
      `digests covering period ${k}`,
    ).toHaveLength(1);
  }
}
