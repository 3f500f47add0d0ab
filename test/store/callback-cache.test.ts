/**
 * CallbackRepo remembers lookups for a few seconds (the delivery route's hot path): put and delete
 * take effect at once for every repository over the same store connection (this replica), and
 * within the cache lifetime on another connection (another replica). Real Redis on 127.0.0.1.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CallbackRepo, newCallbackToken, type Store } from "../../src/store/index.js";
import { captureLogger, redisBackend } from "./helpers.js";

const ROUTE = { teamId: "T0CACHE", profileId: "x1cache", channelId: "C0CACHE" };

describe("CallbackRepo lookup cache", () => {
  const backend = redisBackend();
  const { logger } = captureLogger();
  let a: Store;
  let b: Store;
  beforeAll(async () => {
    a = await backend.open(logger);
    b = await backend.open(logger);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await backend.cleanup();
  });

  it("delete stops a route at once for every repository on this connection", async () => {
    const token = newCallbackToken();
    const reader = new CallbackRepo(a, logger);
    const writer = new CallbackRepo(a, logger);
    await writer.put(token, ROUTE);
    expect(await reader.get(token)).toEqual(ROUTE);
    await writer.delete(token);
    expect(await reader.get(token)).toBeUndefined();
    await writer.put(token, ROUTE);
    expect(await reader.get(token)).toEqual(ROUTE);
  });

  it("another connection (replica) sees the removal once its entry is older than the lifetime", async () => {
    let clock = 2_000_000;
    const token = newCallbackToken();
    const here = new CallbackRepo(a, logger);
    const there = new CallbackRepo(b, logger, { now: () => clock, cacheTtlMs: 5_000 });
    await here.put(token, ROUTE);
    expect(await there.get(token)).toEqual(ROUTE);
    await here.delete(token);
    expect(await here.get(token)).toBeUndefined();
    clock += 4_000;
    expect(await there.get(token)).toEqual(ROUTE);
    clock += 1_001;
    expect(await there.get(token)).toBeUndefined();
  });

  it("a lookup in flight when the route is deleted is not remembered", async () => {
    const token = newCallbackToken();
    const routes = new CallbackRepo(a, logger);
    await routes.put(token, ROUTE);
    const inFlight = routes.get(token);
    await routes.delete(token);
    await inFlight;
    expect(await routes.get(token)).toBeUndefined();
  });

  it("cacheTtlMs 0 reads the store every time", async () => {
    const token = newCallbackToken();
    const here = new CallbackRepo(a, logger);
    const there = new CallbackRepo(b, logger, { cacheTtlMs: 0 });
    await here.put(token, ROUTE);
    expect(await there.get(token)).toEqual(ROUTE);
    await here.delete(token);
    expect(await there.get(token)).toBeUndefined();
  });
});
