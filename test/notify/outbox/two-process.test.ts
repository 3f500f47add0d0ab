/**
 * Two worker processes (claimer.ts) on one Redis namespace while this process enqueues 500 items
 * over 50 videos: every item is acknowledged exactly once, and no video is ever held by two
 * processes at the same time (exact check: a holder sentinel; coarse check: processing intervals).
 */
import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, expect, it } from "vitest";
import { RedisOutbox } from "../../../src/outbox/index.js";
import { spawnJsonLines } from "../../support/json-lines.js";
import { newItem, redisOutboxBackend, uniqueNamespace } from "./harness.js";

const CLAIMER = fileURLToPath(new URL("./claimer.ts", import.meta.url));

interface Batch {
  owner: string;
  key: string;
  ids: string[];
  ns: number[];
  acked: boolean;
  t0: number;
  t1: number;
}

interface Child {
  proc: ChildProcess;
  lines: Array<Record<string, unknown>>;
  ready: Promise<void>;
  exited: Promise<void>;
}

function startClaimer(namespace: string, owner: string): Child {
  const lines: Array<Record<string, unknown>> = [];
  const { proc, ready } = spawnJsonLines(CLAIMER, ["redis://127.0.0.1:6379", namespace, owner], (line) =>
    lines.push(line),
  );
  const exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  return { proc, lines, ready, exited };
}

const namespace = uniqueNamespace();
const backend = redisOutboxBackend(namespace);
const children: Child[] = [];
afterAll(async () => {
  for (const c of children) if (c.proc.exitCode === null) c.proc.kill("SIGKILL");
  await backend.cleanup();
});

it("two processes process 500 items over 50 videos, each exactly once, one holder per video", async () => {
  children.push(startClaimer(namespace, "P1"), startClaimer(namespace, "P2"));
  await Promise.all(children.map((c) => c.ready));
  const outbox = await backend.open();
  expect(outbox).toBeInstanceOf(RedisOutbox);

  // 10 rounds; in each, one item per video, the 50 videos concurrently.
  for (let round = 0; round < 10; round++) {
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, v) =>
        outbox.enqueue(newItem(`T1:P1:v${v}`, round * 50 + v, Date.now()), `d${round}-${v}`, Date.now()),
      ),
    );
    expect(results.every((r) => r === "stored")).toBe(true);
  }
  const deadline = Date.now() + 15_000;
  for (;;) {
    const s = await outbox.stats();
    if (s.depth === 0 && s.scheduled === 0) break;
    if (Date.now() > deadline) throw new Error(`not drained: ${JSON.stringify(s)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
  for (const c of children) c.proc.stdin?.end();
  await Promise.all(children.map((c) => c.exited));

  const all = children.flatMap((c) => c.lines);
  expect(all.filter((l) => "violation" in l)).toEqual([]);
  const batches = all as unknown as Batch[];
  expect(batches.every((b) => b.acked)).toBe(true);
  const ns = batches.flatMap((b) => b.ns).sort((a, b) => a - b);
  expect(ns).toEqual(Array.from({ length: 500 }, (_, n) => n));
  expect(new Set(batches.flatMap((b) => b.ids)).size).toBe(500);
  for (const owner of ["P1", "P2"]) expect(batches.some((b) => b.owner === owner)).toBe(true);

  // Per video, batches of different owners never overlap in time.
  const byKey = new Map<string, Batch[]>();
  for (const b of batches) byKey.set(b.key, [...(byKey.get(b.key) ?? []), b]);
  for (const [key, list] of byKey) {
    list.sort((a, b) => a.t0 - b.t0 || a.t1 - b.t1);
    for (let i = 1; i < list.length; i++) {
      const prev = list[i - 1];
      const cur = list[i];
      if (prev && cur && prev.owner !== cur.owner && cur.t0 < prev.t1) {
        throw new Error(`${key}: ${cur.owner} from ${cur.t0} while ${prev.owner} until ${prev.t1}`);
      }
    }
  }
}, 60_000);
