import { describe, expect, it } from "vitest";
import { claimFromHeap, type DueEntry, DueHeap } from "../../src/store/lease/index.js";

describe("DueHeap", () => {
  it("pops due entries earliest first, ties by key, and none that is not due", () => {
    const heap = new DueHeap();
    const times = [50, 10, 40, 10, 30, 20, 60];
    times.forEach((dueAt, i) => {
      heap.push({ dueAt, key: `k${times.length - i}` });
    });
    const out: DueEntry[] = [];
    for (let e = heap.popDue(50, () => true); e; e = heap.popDue(50, () => true)) out.push(e);
    expect(out.map((e) => `${e.dueAt}:${e.key}`)).toEqual([
      "10:k4",
      "10:k6",
      "20:k2",
      "30:k3",
      "40:k5",
      "50:k7",
    ]);
    expect(heap.size).toBe(1);
  });

  it("drops stale entries on the way and compacts to the current ones", () => {
    const heap = new DueHeap();
    const current = new Map<string, DueEntry>();
    const put = (key: string, dueAt: number) => {
      const e = { dueAt, key };
      current.set(key, e);
      heap.push(e);
    };
    put("a", 1);
    put("b", 2);
    put("a", 5); // the first entry of a is stale now
    const isCurrent = (e: DueEntry) => current.get(e.key) === e;
    expect(heap.popDue(10, isCurrent)?.key).toBe("b");
    expect(heap.popDue(10, isCurrent)).toEqual({ dueAt: 5, key: "a" });
    put("c", 3);
    put("c", 4);
    heap.compact(isCurrent);
    expect(heap.size).toBe(1);
  });

  it("claimFromHeap stops at max and skips what take refuses", () => {
    const heap = new DueHeap();
    for (const [key, dueAt] of [
      ["a", 1],
      ["b", 2],
      ["c", 3],
      ["d", 4],
    ] as const)
      heap.push({ dueAt, key });
    const taken = claimFromHeap(
      heap,
      10,
      2,
      () => true,
      (key) => key !== "a",
    );
    expect(taken).toEqual(["b", "c"]);
    expect(heap.popDue(10, () => true)?.key).toBe("d");
  });
});
