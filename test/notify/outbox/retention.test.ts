/**
 * State retention (src/outbox/common.ts, "State retention"), on every backend: a state left
 * alone past its retention is dropped, a fresh one stays, and the state of a video a worker holds
 * is never dropped under it. memory/sqlite run on a fake clock and drop states in `sweepStates`;
 * Redis runs on wall time and drops them by itself (PX), hence the short retentions.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/log.js";
import { STATE_RETENTION_MS } from "../../../src/outbox/common.js";
import type { Outbox } from "../../../src/outbox/types.js";
import { openStore } from "../../../src/store/index.js";
import { BACKENDS, newItem, type OutboxBackend, sqliteOutboxBackend } from "./harness.js";

/** Retention of a state written as not final / final, and the lease of the writes. */
const NORMAL = 1200;
const FINAL = 400;
const LEASE = 100;

describe.each(BACKENDS)("%s outbox state retention", (name, make) => {
  let b: OutboxBackend;
  let o: Outbox;
  let t: () => number;
  let n = 0;
  beforeEach(async () => {
    b = make();
    o = await b.open({ stateRetentionMs: NORMAL, finalStateRetentionMs: FINAL });
    t = b.clock.now;
  });
  afterEach(async () => {
    await b.cleanup();
  });

  /** One worker pass: a delivery, claimed, its state written, acknowledged, released. */
  const pass = async (video: string, state: unknown, final = false, lease = LEASE) => {
    n++;
    await o.enqueue(newItem(video, n, t()), `d-${n}`, t());
    expect(await o.claimDue("W", t(), 1, lease)).toEqual([video]);
    expect(await o.setState("W", video, state, { final })).toBe(true);
    const items = await o.pending(video, 10);
    expect(
      await o.ack(
        "W",
        video,
        items.map((i) => i.id),
      ),
    ).toBe(true);
    await o.release("W", video, null);
  };
  /** memory/sqlite: a sweep now, and how many it dropped; Redis: 0 (it expires keys itself). */
  const sweep = () => o.sweepStates(500);

  it("drops a state left alone past its retention (a final one sooner) and keeps a fresh one", async () => {
    await pass("old", { v: "old" });
    await pass("done", { v: "done" }, true);
    await b.clock.advance(FINAL + LEASE + 200);
    expect(await sweep()).toBe(name === "redis" ? 0 : 1);
    expect(await o.getState("done")).toBeUndefined();
    expect(await o.getState("old")).toEqual({ v: "old" });

    await pass("fresh", { v: "fresh" });
    await b.clock.advance(NORMAL - FINAL);
    expect(await sweep()).toBe(name === "redis" ? 0 : 1);
    expect(await o.getState("old")).toBeUndefined();
    expect(await o.getState("fresh")).toEqual({ v: "fresh" });
    expect(await sweep()).toBe(0);

    // A late delivery for the dropped video finds no state: the worker starts the video anew.
    await o.enqueue(newItem("old", 99, t()), "late", t());
    expect(await o.claimDue("W", t(), 5, LEASE)).toEqual(["old"]);
    expect(await o.getState("old")).toBeUndefined();
  });

  it("never drops the state of a video a worker holds, even one written long ago", async () => {
    const start = t();
    await pass("v1", { step: 1 });
    // A delivery just before the state would expire; the worker claims it with a long lease.
    await b.clock.advance(NORMAL - 200);
    await o.enqueue(newItem("v1", 2, t()), "d-late", t());
    expect(await o.claimDue("A", t(), 1, 1000)).toEqual(["v1"]);
    await b.clock.advance(600); // past the expiry the old write gave the state
    expect(t() - start).toBeGreaterThan(NORMAL + LEASE + 200);
    expect(await sweep()).toBe(0);
    expect(await o.getState("v1")).toEqual({ step: 1 });
    expect(await o.renew("A", "v1", t() + 1500)).toBe(true);
    await b.clock.advance(900); // past what the claim gave it: the renewal kept it
    expect(await sweep()).toBe(0);
    expect(await o.getState("v1")).toEqual({ step: 1 });
    expect(await o.setState("A", "v1", { step: 2 }, { final: true })).toBe(true);
    expect(await o.getState("v1")).toEqual({ step: 2 });
  });

  it("keeps the state of a scheduled video; sweeps are bounded", async ({ skip }) => {
    if (name === "redis") skip(); // Redis: no sweep; a scheduled video is claimed within seconds
    for (const v of ["a", "b", "c"]) await pass(v, { v });
    await o.enqueue(newItem("c", 50, t()), "d-c-later", t() + 10 * NORMAL); // due much later
    await b.clock.advance(NORMAL + LEASE + 1);
    expect(await o.sweepStates(1)).toBe(1);
    expect(await o.sweepStates(500)).toBe(1);
    expect(await o.sweepStates(500)).toBe(0);
    expect(await o.getState("c")).toEqual({ v: "c" });
    // claimDue sweeps by itself (at most once a minute): once c is done, its state goes too.
    await b.clock.advance(10 * NORMAL);
    expect(await o.claimDue("W", t(), 1, LEASE)).toEqual(["c"]);
    for (const i of await o.pending("c", 10)) await o.ack("W", "c", [i.id]);
    await o.release("W", "c", null);
    await b.clock.advance(LEASE + FINAL + 60_000);
    expect(await o.claimDue("W", t(), 1, LEASE)).toEqual([]);
    expect(await o.getState("c")).toBeUndefined();
  });
});

describe("sqlite outbox state retention, defaults and upgrade", () => {
  it("an existing file's states get the full retention from the upgrade on", async () => {
    const b = sqliteOutboxBackend();
    try {
      // A file written before states expired: outbox_state without expires_at.
      const old = await openStore(
        { kind: "sqlite", path: b.file, url: `sqlite://${b.file}` },
        silentLogger(),
      );
      const q = old.backend.sqlite?.query.bind(old.backend.sqlite);
      if (!q) throw new Error("no sqlite");
      await q("CREATE TABLE outbox_state (video_key TEXT PRIMARY KEY, json TEXT NOT NULL)");
      await q("INSERT INTO outbox_state (video_key, json) VALUES ('T1:P1:v1', '{\"kept\":true}')");
      await old.close();

      const o = await b.open();
      expect(await o.getState("T1:P1:v1")).toEqual({ kept: true });
      await b.clock.advance(STATE_RETENTION_MS - 1000);
      expect(await o.sweepStates(500)).toBe(0);
      await b.clock.advance(2000);
      expect(await o.sweepStates(500)).toBe(1);
      expect(await o.getState("T1:P1:v1")).toBeUndefined();
      // Opening again finds the column and changes nothing.
      await b.closeAll();
      await b.open();
    } finally {
      await b.cleanup();
    }
  });
});
