/**
 * The in-process pieces on a fake clock: the read budget's bucket arithmetic and its bound, and
 * the shared reads' lifetime (10 s after the answer, not after the start) and bound.
 */
import { describe, expect, it } from "vitest";
import { MemoryReadBudget, SharedReads } from "../../src/access/index.js";

describe("MemoryReadBudget", () => {
  it("holds a minute's worth, refills one read per 60/N s, and refuses with the wait", async () => {
    let now = 1_000_000;
    const b = new MemoryReadBudget({ perUserPerMinute: 20, perWorkspacePerMinute: 30 }, { now: () => now });
    for (let i = 0; i < 20; i++) expect((await b.take("T1", "U1")).ok).toBe(true);
    const refused = await b.take("T1", "U1");
    expect(refused).toEqual({ ok: false, budget: "user", retryAfterMs: 3000, perMinute: 20 });
    now += 3000;
    expect((await b.take("T1", "U1")).ok).toBe(true);
    // The workspace has 10.5 left (30 - 21, plus 1.5 refilled in 3 s): another user takes 10, then
    // the workspace refuses.
    for (let i = 0; i < 10; i++) expect((await b.take("T1", "U2")).ok).toBe(true);
    const full = await b.take("T1", "U3");
    expect(full.ok || full.budget).toBe("workspace");
    // Another workspace is not held.
    expect((await b.take("T2", "U1")).ok).toBe(true);
  });

  it("0 turns a budget off", async () => {
    const b = new MemoryReadBudget({ perUserPerMinute: 0, perWorkspacePerMinute: 2 });
    expect((await b.take("T1", "U1")).ok).toBe(true);
    expect((await b.take("T1", "U1")).ok).toBe(true);
    const r = await b.take("T1", "U1");
    expect(r.ok || r.budget).toBe("workspace");
  });

  it("is bounded: idle buckets go after a minute, and never more than maxEntries", async () => {
    let now = 0;
    const b = new MemoryReadBudget(
      { perUserPerMinute: 5, perWorkspacePerMinute: 0 },
      { now: () => now, maxEntries: 100 },
    );
    for (let i = 0; i < 1000; i++) await b.take("T1", `U${i}`);
    expect(b.size).toBeLessThanOrEqual(101);
    now += 60_000;
    await b.take("T1", "Ulast");
    expect(b.size).toBe(1);
  });
});

describe("SharedReads", () => {
  it("shares while in flight and for 10 s after the answer, not after the start", async () => {
    let now = 0;
    const reads = new SharedReads<string>({ now: () => now });
    let answer: (v: string) => void = () => undefined;
    let fetches = 0;
    const fetch = () => {
      fetches++;
      return new Promise<string>((r) => {
        answer = r;
      });
    };
    const first = reads.run("k", fetch);
    expect(first.joined).toBe(false);
    now = 5000;
    expect(reads.run("k", fetch).joined).toBe(true);
    answer("v");
    await first.read;
    await Promise.resolve();
    now = 14_999;
    expect(reads.joinable("k")).toBeDefined();
    now = 15_000;
    expect(reads.joinable("k")).toBeUndefined();
    expect(fetches).toBe(1);
  });

  it("drops a failure once settled unless it is kept as an answer", async () => {
    const reads = new SharedReads<string>({ keepFailure: (e) => e === "404" });
    const a = reads.run("a", () => Promise.reject(new Error("500")));
    await a.read.catch(() => undefined);
    await Promise.resolve();
    expect(reads.joinable("a")).toBeUndefined();
    const b = reads.run("b", () => Promise.reject("404"));
    await b.read.catch(() => undefined);
    await Promise.resolve();
    expect(reads.joinable("b")).toBeDefined();
  });

  it("is bounded", () => {
    const reads = new SharedReads<number>({ maxEntries: 10 });
    for (let i = 0; i < 50; i++) reads.run(`k${i}`, () => new Promise<number>(() => undefined));
    expect(reads.size).toBe(10);
  });
});
