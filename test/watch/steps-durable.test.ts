/**
 * Waiting steps kept in a shared store: a restart in the middle of a wait (a real sqlite file),
 * two replicas on one Redis, a binding revoked while a step waits. Signed `function_executed`
 * events go to a bot's receiver; the Slack stand-in records each completion, so a step completed
 * twice would show.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import type { Config, StoreUrl } from "../../src/config.js";
import { type Bot, eventually, type Harness, startBot, startHarness, waitFor } from "../support/harness.js";
import { POLL_CEILING_MS, untilElapsed } from "../support/polls.js";
import { completion, completionsOf, runStep } from "../support/steps.js";

const TEAM = "T0STANDIN";
const INTERVAL = 1000;
const L = SEED.livestreams.offAir; // studio's
const dir = mkdtempSync(join(tmpdir(), "steps-durable-"));
const ns = `steps-durable-${process.pid}-${randomBytes(3).toString("hex")}`;

let h: Harness;
const bots: Bot[] = [];
beforeAll(async () => {
  h = await startHarness({ watch: { manual: true } });
});
beforeEach(() => {
  h.sandbox.reset();
  h.slack.reset();
});
afterEach(async () => {
  for (const b of bots.splice(0)) await b.close().catch(() => undefined);
});
afterAll(async () => {
  await h?.close();
  rmSync(dir, { recursive: true, force: true });
});

function config(store: StoreUrl, bound: string): Config {
  return {
    ...h.config,
    store,
    access: { ...h.config.access, profileBindings: { [TEAM]: [bound] } },
    watch: { ...h.config.watch, intervalMs: INTERVAL, offAirGraceMs: 1000 },
  };
}
async function bot(store: StoreUrl, bound: string = SEED.profiles.studio, namespace?: string): Promise<Bot> {
  const b = await startBot(config(store, bound), h.logger, { watch: { tickMs: 20 }, namespace });
  bots.push(b);
  return b;
}
const sqlite = (name: string): StoreUrl => {
  const path = join(dir, `${name}.sqlite`);
  return { kind: "sqlite", path, url: `sqlite://${path}` };
};
const redis: StoreUrl = { kind: "redis", url: "redis://127.0.0.1:6379" };
/** The schedule's reads (its field list has the large thumbnail; a step's own read does not). */
const pollReads = () =>
  h.sandbox.requests.filter(
    (r) =>
      r.method === "GET" &&
      r.path === `/v2/livestreams/${L}` &&
      (r.query.fields ?? "").includes("thumbnail.h720_url"),
  ).length;
/** A first poll of the waiting step handled: a second one started. */
const polledOnce = (from: number) =>
  waitFor(() => pollReads() >= from + 2, POLL_CEILING_MS, "a poll of the waiting step handled");
/**
 * Completed or failed, nobody else watches it: no poll of it to count. Stored as no longer
 * waiting, then `ms` of wall time, as the schedule measures it, for a second completion to show.
 */
const settled = async (b: Bot, ms: number) => {
  await eventually(async () => (await waiting(b)) === 0, POLL_CEILING_MS, "the step no longer waiting");
  await untilElapsed(Date.now(), ms);
};
const waiting = async (b: Bot) => (await b.built.watch?.registry.listTeam(TEAM))?.length ?? 0;
async function waitOn(b: Bot): Promise<string> {
  const id = await runStep(h.slack, `${b.url}/slack/events`, "wait_until_live", { livestream: L });
  await eventually(async () => (await waiting(b)) === 1, 5000, "the waiting step stored");
  return id;
}

it("a restart in the middle of a wait (sqlite) completes it once", async () => {
  const store = sqlite("restart");
  const b1 = await bot(store);
  const reads = pollReads();
  const id = await waitOn(b1);
  await polledOnce(reads); // in the middle of the wait
  await b1.close();
  bots.splice(bots.indexOf(b1), 1);
  const b2 = await bot(store);
  expect(await waiting(b2)).toBe(1);
  h.sandbox.live(L, { action: "on_air" });
  const c = await completion(h.slack, id, 4 * INTERVAL + 3000);
  expect(c).toMatchObject({ outcome: "success", by: "bot" });
  await settled(b2, 2 * INTERVAL);
  expect(completionsOf(h.slack, id)).toHaveLength(1);
  expect(await waiting(b2)).toBe(0);
}, 30_000);

it("two replicas on one Redis complete a wait exactly once", async () => {
  const b1 = await bot(redis, SEED.profiles.studio, ns);
  const b2 = await bot(redis, SEED.profiles.studio, ns);
  const reads = pollReads();
  const ids = [await waitOn(b1)];
  ids.push(await runStep(h.slack, `${b2.url}/slack/events`, "wait_until_live", { livestream: L }));
  await eventually(async () => (await waiting(b1)) === 2, 5000, "both waiting steps stored");
  await polledOnce(reads);
  h.sandbox.live(L, { action: "on_air" });
  for (const id of ids) await completion(h.slack, id, 4 * INTERVAL + 3000);
  await settled(b2, 2 * INTERVAL);
  for (const id of ids) expect(completionsOf(h.slack, id)).toHaveLength(1);
  expect(h.slack.callsTo("functions.completeSuccess").filter((c) => c.ok)).toHaveLength(2);
  expect(await waiting(b2)).toBe(0);
  const client = b1.store.backend.redis;
  const keys = (await client?.keys(`${ns}:*`)) ?? [];
  if (keys.length > 0) await client?.del(keys);
}, 30_000);

it("a binding revoked while a step waits fails it within one interval", async () => {
  const store = sqlite("revoked");
  const b1 = await bot(store);
  const id = await waitOn(b1);
  await b1.close();
  bots.splice(bots.indexOf(b1), 1);
  // The profile moved to another workspace: the restarted bot no longer binds it to this one.
  const started = Date.now();
  const b2 = await bot(store, SEED.profiles.newsroom);
  const c = await completion(h.slack, id, INTERVAL + 2500);
  expect(Date.now() - started).toBeLessThan(INTERVAL + 2500);
  expect(c).toMatchObject({ outcome: "error", by: "bot" });
  expect(c.error).toMatch(/no longer available to this workspace/);
  h.sandbox.live(L, { action: "on_air" });
  await settled(b2, 2 * INTERVAL);
  expect(completionsOf(h.slack, id)).toHaveLength(1);
  expect(await waiting(b2)).toBe(0);
}, 30_000);
