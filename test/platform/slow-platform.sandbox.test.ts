/**
 * A slow platform (busy, not down) over real HTTP against the sandbox's latency fault: the client
 * waits for it instead of retrying into its own queue.
 *
 * - The default pool (PLATFORM_MAX_CONNECTIONS, 256) is sized for latency: 200 concurrent reads
 *   of a platform answering in 1 s all go out at once and are each answered within about 1 s.
 * - A request that waits locally for a free connection is not a platform failure: with a pool far
 *   smaller than the load, requests that queue longer than the per-attempt deadline still succeed,
 *   with exactly one GET each at the platform (no timeout, no retry).
 * - A platform answering just under the headers timeout gets through, also for requests that
 *   waited behind others on a single connection.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, SEED, startSandbox } from "../../fakes/platform/server.js";
import { loadConfig } from "../../src/config.js";
import { silentLogger } from "../../src/log.js";
import {
  createPlatformClient,
  PlatformClient,
  type PlatformClientOptions,
} from "../../src/platform/index.js";

const ID = SEED.livestreams.offAir;
let sb: Sandbox;
const clients: PlatformClient[] = [];

beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(async () => {
  await sb.close();
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
  sb.clearFaults();
});

function client(o: Partial<PlatformClientOptions>): PlatformClient {
  const c = new PlatformClient({
    apiUrl: sb.apiUrl,
    authUrl: sb.url,
    clientId: sb.clientId,
    clientSecret: sb.clientSecret,
    scopes: ["live.read"],
    timeouts: { connectMs: 1000, headersMs: 1000, bodyMs: 1000 },
    logger: silentLogger(),
    ...o,
  });
  clients.push(c);
  return c;
}

const reads = () => sb.requests.filter((r) => r.method === "GET" && r.path.startsWith("/v2/livestreams/"));

/** Starts `n` reads at once; each one's time from its start, in start order. */
async function concurrentReads(c: PlatformClient, n: number): Promise<number[]> {
  await c.tokens.getToken();
  const from = reads().length;
  const times = await Promise.all(
    Array.from({ length: n }, async () => {
      const started = performance.now();
      const ls = await c.getLivestream(ID, ["title"]);
      expect(ls.title).toBeTruthy();
      return performance.now() - started;
    }),
  );
  // One GET per read: nothing was retried.
  expect(reads().length - from).toBe(n);
  return times;
}

describe("a platform answering slowly", () => {
  it("the default pool sends 200 concurrent reads at once: each answered within latency + margin", async () => {
    const config = loadConfig({
      PUBLIC_URL: "https://bot.example.com",
      SLACK_SIGNING_SECRET: "signing-secret-value",
      SLACK_BOT_TOKEN: "xoxb-111-222-abcdef",
      PLATFORM_API_URL: sb.apiUrl,
      PLATFORM_AUTH_URL: sb.url,
      PLATFORM_CLIENT_ID: sb.clientId,
      PLATFORM_CLIENT_SECRET: sb.clientSecret,
    });
    const c = createPlatformClient(config.platform, silentLogger());
    clients.push(c);
    sb.addFault({ method: "GET", path: "/v2/livestreams/", latencyMs: 1000 });
    const times = await concurrentReads(c, 200);
    // With connections for all of them, none waits for another: 1 s + a generous margin (a
    // 32-connection pool needs 7 rounds, about 7 s).
    expect(Math.max(...times)).toBeLessThan(3500);
  }, 30_000);

  it("requests queued for a free connection longer than the per-attempt deadline still succeed, without retries", async () => {
    // 20 connections, 200 reads, 500 ms each: 10 rounds, about 5 s; the per-attempt deadline is
    // 300 + 1000 + 300 = 1.6 s, so most reads wait in the queue far longer than it.
    const c = client({ maxConnections: 20, timeouts: { connectMs: 300, headersMs: 1000, bodyMs: 300 } });
    sb.addFault({ method: "GET", path: "/v2/livestreams/", latencyMs: 500 });
    const started = performance.now();
    const times = await concurrentReads(c, 200);
    const wall = performance.now() - started;
    // They really queued (10 rounds of 500 ms), yet each took about its place in the queue.
    expect(wall).toBeGreaterThan(4500);
    expect(Math.max(...times)).toBeLessThan(10 * 500 + 4000);
  }, 30_000);

  it("a platform answering just under the headers timeout succeeds, also after waiting for the connection", async () => {
    // One connection, 4 reads: the last waits 3 × 800 ms before it is even sent.
    const c = client({ maxConnections: 1, timeouts: { connectMs: 300, headersMs: 1000, bodyMs: 300 } });
    sb.addFault({ method: "GET", path: "/v2/livestreams/", latencyMs: 800 });
    const times = await concurrentReads(c, 4);
    expect(Math.max(...times)).toBeGreaterThan(4 * 800 - 100);
  }, 30_000);

  it("a platform answering later than the headers timeout is still cut, from when the request was sent", async () => {
    const c = client({
      maxConnections: 1,
      maxAttempts: 1,
      timeouts: { connectMs: 300, headersMs: 400, bodyMs: 300 },
    });
    sb.addFault({ method: "GET", path: "/v2/livestreams/", latencyMs: 1500 });
    await c.tokens.getToken();
    const started = performance.now();
    const err = await c.getLivestream(ID, ["title"]).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ kind: "timeout", phase: "headers" });
    expect(performance.now() - started).toBeLessThan(1400);
  }, 30_000);
});
