/**
 * The in-process pieces on a fake clock: the shared reads' lifetime (10 s after the answer, not
 * after the start) and bound.
 */
import { describe, expect, it } from "vitest";
import { SharedReads } from "../../src/access/index.js";

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
