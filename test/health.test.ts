/**
 * /healthz, /readyz (store and token service, 503 with the reason, recovering) and /metrics
 * (Prometheus text that counts what happened).
 */
import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../fakes/platform/server.js";
import { type Harness, startHarness, waitFor } from "./support/harness.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

async function get(path: string) {
  const r = await fetch(`${h.url}${path}`);
  return { status: r.status, text: await r.text(), type: r.headers.get("content-type") ?? "" };
}

describe("health", () => {
  it("/healthz answers while the process is alive", async () => {
    expect((await get("/healthz")).status).toBe(200);
  });

  it("/readyz is 503 with the reason while the token service is down, and recovers", async () => {
    h.sandbox.expireAllTokens();
    h.platform.tokens.invalidate(await h.platform.tokens.getToken());
    h.sandbox.addFault({ path: "/v2/token", status: 503 });
    const down = await get("/readyz");
    expect(down.status).toBe(503);
    // Fixed words naming the dependency, never the platform's own message or status text.
    expect(JSON.parse(down.text)).toEqual({
      status: "not ready",
      problems: { platform: "token service unavailable" },
    });
    expect(down.text).not.toMatch(/503|HTTP_|\/v2\/token|127\.0\.0\.1/);
    // The details go to the log, once for this check.
    const warned = h.logs.filter((l) => l.includes('"msg":"not ready"'));
    expect(warned).toHaveLength(1);
    expect(warned[0]).toContain('"platform":"token service unavailable"');
    h.sandbox.clearFaults();
    await new Promise((r) => setTimeout(r, 5_100)); // the check is cached for 5 s
    const up = await get("/readyz");
    expect(up.status).toBe(200);
    expect(JSON.parse(up.text)).toEqual({ status: "ready" });
  }, 15_000);
});

describe("/metrics", () => {
  it("counts commands, platform requests, deliveries and reports the outbox", async () => {
    const res = await h.slash("/live", `status ${SEED.livestreams.offAir}`, { user: "U0MEMBER" });
    await h.answer(res.responseUrl);
    const set = await h.slash("/webhook", `set ${SEED.profiles.newsroom}`, {
      user: "U0ADMIN",
      channel: "C0NEWS",
    });
    await h.answer(set.responseUrl);
    await h.sandbox.deliverLifecycle(SEED.profiles.newsroom, {
      videoId: "x7metric",
      deliverTo: h.url,
      force: true,
    });
    // The video shown complete (in its first post, or updated: the lifecycle may be folded into one).
    await waitFor(
      () =>
        h.slack
          .messages("C0NEWS")
          .some((m) => !m.thread_ts && JSON.stringify(m).includes("x7metric") && /complete/i.test(m.text)),
      10_000,
      "the video shown complete",
    );
    const m = await get("/metrics");
    expect(m.status).toBe(200);
    expect(m.type).toMatch(/text\/plain/);
    expect(m.text).toMatch(/bot_commands_total\{name="\/live status",outcome="handled"\} 1/);
    expect(m.text).toMatch(
      /bot_platform_request_seconds_count\{operation="getLivestream",status="200"\} \d+/,
    );
    expect(m.text).toMatch(/bot_deliveries_total\{stage="received",result="200"\} 36/);
    expect(m.text).toMatch(/bot_deliveries_total\{stage="posted",result="post"\} [1-9]/);
    expect(m.text).toMatch(/bot_outbox_depth \d+/);
    expect(m.text).toMatch(/bot_outbox_oldest_age_seconds \d/);
    expect(m.text).not.toMatch(/x7metric|C0NEWS|U0ADMIN/);
  });
});

describe("/metrics labels", () => {
  it('a signed request with made-up command, action or view names is counted as "other", never by its own name', async () => {
    await h.slash("/madeup", "status x", { user: "U0ADMIN" });
    await h.press("made_up_action_0123456789", "x");
    await h.press("another_made_up_action", "y");
    const m = await get("/metrics");
    expect(m.text).not.toMatch(/madeup|made_up_action|another_made_up/);
    expect(m.text).toMatch(/bot_commands_total\{name="other status",outcome="handled"\} 1/);
    expect(m.text).toMatch(/bot_commands_total\{name="action:other",outcome="handled"\} 2/);
  });
});

/** A TCP port on 127.0.0.1 that nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

describe("/readyz with the store down", () => {
  it("names the store in fixed words, without its host, port or error text, and logs the details", async () => {
    const port = await closedPort();
    const down = await startHarness({
      store: { kind: "redis", url: `redis://127.0.0.1:${port}` },
      namespace: `health-${process.pid}-${Date.now()}`,
      storeOpTimeoutMs: 300,
      worker: { manual: true },
    });
    try {
      const r = await fetch(`${down.url}/readyz`);
      const text = await r.text();
      expect(r.status).toBe(503);
      expect(JSON.parse(text)).toEqual({ status: "not ready", problems: { store: "unreachable" } });
      expect(text).not.toContain(String(port));
      expect(text).not.toMatch(/127\.0\.0\.1|redis|ECONNREFUSED|closed|timed out|unavailable:/i);
      const warned = down.logs.filter((l) => l.includes('"msg":"not ready"'));
      expect(warned).toHaveLength(1);
      expect(warned[0]).toContain('"store":"unreachable"');
      expect(warned[0]).toMatch(/StoreUnavailableError/);
    } finally {
      await down.close();
    }
  }, 20_000);
});
