/**
 * The composed bot stops its live watch gracefully: two bot processes on one Redis (one
 * namespace), one livestream watched; closing the one that reads it hands its lease back, so the
 * other reads it within a tick or two, not after the lease would have run out (~1.5 intervals).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import type { Config } from "../../src/config.js";
import { type Bot, type Harness, startBot, startHarness, waitFor } from "../support/harness.js";

const INTERVAL = 5000;
const ID = SEED.livestreams.offAir;
let h: Harness;
const bots: Bot[] = [];
const ns = `watch-graceful-${process.pid}-${Date.now()}`;

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  for (const b of bots.splice(0)) await b.close().catch(() => undefined);
  await h?.close();
});

const gets = () =>
  h.sandbox.requests.filter((r) => r.method === "GET" && r.path === `/v2/livestreams/${ID}`).length;

it("closing the bot that reads a watched livestream hands it to the other bot at once", async () => {
  const config: Config = {
    ...h.config,
    store: { kind: "redis", url: "redis://127.0.0.1:6379" },
    watch: { ...h.config.watch, intervalMs: INTERVAL, offAirGraceMs: 1000 },
  };
  const b1 = await startBot(config, h.logger, { namespace: ns });
  bots.push(b1);
  const b2 = await startBot(config, h.logger, { namespace: ns });
  bots.push(b2);
  await b1.built.watch?.watch({
    teamId: h.slack.teamId,
    channelId: "C0NEWS",
    livestreamId: ID,
    by: "U0ADMIN",
  });
  const holder = await waitFor(
    () => [b1, b2].find((b) => (b.built.watch?.health().polled ?? 0) > 0),
    3000,
    "first read",
  );
  const other = [b1, b2].find((b) => b !== holder);
  expect(holder).toBeDefined();
  expect(other?.built.watch?.health().polled).toBe(0);
  const before = gets();
  const closed = Date.now();
  await holder?.close();
  bots.splice(bots.indexOf(holder as Bot), 1);
  await waitFor(() => gets() > before, INTERVAL, "the other bot's read");
  expect(Date.now() - closed).toBeLessThan(2000);
  await waitFor(() => other?.built.watch?.health().polled === 1, 2000, "the other bot's poll");
  // Clean the namespace.
  await other?.store.backend.redis?.sendCommand([
    "EVAL",
    "for _,k in ipairs(redis.call('KEYS', ARGV[1])) do redis.call('DEL', k) end",
    "0",
    `${ns}*`,
  ]);
});
