/**
 * The delivery route over real HTTP: every answer it gives, and that a 200 means stored.
 */

import { Readable } from "node:stream";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { MAX_DELIVERY_BYTES } from "../../src/deliveries/receive.js";
import { type Harness, PUBLIC_URL, startHarness } from "../support/harness.js";
import { RECENT } from "../support/recent.js";

async function post(url: string, body: string | Buffer, headers: Record<string, string> = {}) {
  const res = await request(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text, json: () => JSON.parse(text) as Record<string, unknown> };
}

async function setUp(h: Harness): Promise<string> {
  const res = await h.slash("/webhook", `set ${SEED.profiles.newsroom}`, {
    user: "U0ADMIN",
    channel: "C0NEWS",
  });
  await h.answer(res.responseUrl);
  const url = h.sandbox.state.profiles.get(SEED.profiles.newsroom)?.webhook.callback_url ?? "";
  return `${h.url}${url.slice(PUBLIC_URL.length)}`;
}

const delivery = (videoId = "x7route", timestamp = RECENT) =>
  JSON.stringify({
    type: "video.created",
    timestamp,
    data: { owner_id: SEED.profiles.newsroom, video_id: videoId },
  });

describe("POST /hooks/platform/<token>", () => {
  let h: Harness;
  let hook: string;
  beforeAll(async () => {
    h = await startHarness({ worker: { manual: true } });
    hook = await setUp(h);
  });
  afterAll(async () => {
    await h.close();
  });

  it("stores a valid delivery and answers 200 only once it is stored", async () => {
    const before = (await h.outbox.stats()).depth;
    const r = await post(hook, delivery("x7stored"));
    expect(r.status).toBe(200);
    expect(r.json()).toEqual({ status: "stored" });
    expect((await h.outbox.stats()).depth).toBe(before + 1);
  });

  it("answers a duplicate 200 without storing it again", async () => {
    const body = delivery("x7dup", RECENT + 123);
    expect((await post(hook, body)).json()).toEqual({ status: "stored" });
    const depth = (await h.outbox.stats()).depth;
    const again = await post(hook, body);
    expect(again.status).toBe(200);
    expect(again.json()).toEqual({ status: "duplicate" });
    expect((await h.outbox.stats()).depth).toBe(depth);
  });

  it("404 for an unknown or malformed token", async () => {
    expect((await post(`${h.url}/hooks/platform/${"A".repeat(32)}`, delivery())).status).toBe(404);
    expect((await post(`${h.url}/hooks/platform/short`, delivery())).status).toBe(404);
  });

  it("400 with a reason for a body that is not JSON or not a delivery", async () => {
    const notJson = await post(hook, "{oops");
    expect(notJson.status).toBe(400);
    expect(notJson.json().error).toMatch(/not JSON/);
    const notDelivery = await post(
      hook,
      JSON.stringify({ type: "video.created", timestamp: "yesterday", data: {} }),
    );
    expect(notDelivery.status).toBe(400);
    expect(notDelivery.json().error).toMatch(/timestamp/);
    const missingVideo = await post(
      hook,
      JSON.stringify({ type: "video.created", timestamp: 1, data: { owner_id: "p" } }),
    );
    expect(missingVideo.json().error).toMatch(/data\.video_id/);
  });

  it("413 for a body over 64 KiB, declared or streamed", async () => {
    const big = JSON.stringify({
      type: "video.created",
      timestamp: 1,
      data: { pad: "x".repeat(MAX_DELIVERY_BYTES) },
    });
    expect((await post(hook, big)).status).toBe(413);
    // Chunked, without content-length: reading stops at the limit.
    const res = await request(hook, {
      method: "POST",
      headers: { "content-type": "application/json", "transfer-encoding": "chunked" },
      body: Readable.from(
        (function* () {
          for (let i = 0; i < 100; i++) yield Buffer.alloc(4096, 0x20);
        })(),
      ),
    }).catch((err: unknown) => err);
    if (!(res instanceof Error)) expect((res as { statusCode: number }).statusCode).toBe(413);
  });

  it("an unknown event type is accepted and stored (the list can change)", async () => {
    const r = await post(
      hook,
      JSON.stringify({ type: "video.moderated", timestamp: RECENT, data: { video_id: "x7mod" } }),
    );
    expect(r.status).toBe(200);
  });
});

describe("source addresses", () => {
  let h: Harness;
  let hook: string;
  beforeAll(async () => {
    h = await startHarness({
      env: { WEBHOOK_ALLOWED_IPS: "127.0.0.2,127.0.0.3/32", TRUST_PROXY: "false" },
      worker: { manual: true },
    });
    hook = await setUp(h);
  });
  afterAll(async () => {
    await h.close();
  });

  it("403 from an address outside WEBHOOK_ALLOWED_IPS; 200 from an allowed one", async () => {
    expect((await post(hook, delivery("x7ip1"))).status).toBe(403);
    const path = new URL(hook).pathname;
    const sb = h.sandbox;
    sb.setWebhook(SEED.profiles.newsroom, {
      callback_url: `${PUBLIC_URL}${path}`,
      events: ["video.created"],
    });
    const r = await sb.deliver(
      SEED.profiles.newsroom,
      { type: "video.created", data: { owner_id: SEED.profiles.newsroom, video_id: "x7ip2" } },
      { deliverTo: h.url, localAddress: "127.0.0.2" },
    );
    expect(r.status).toBe(200);
  });

  it("ignores X-Forwarded-For when TRUST_PROXY is off", async () => {
    expect((await post(hook, delivery("x7ip3"), { "x-forwarded-for": "127.0.0.2" })).status).toBe(403);
  });
});

describe("behind a trusted proxy", () => {
  let h: Harness;
  let hook: string;
  beforeAll(async () => {
    h = await startHarness({
      env: { WEBHOOK_ALLOWED_IPS: "203.0.113.7", TRUST_PROXY: "true" },
      worker: { manual: true },
    });
    hook = await setUp(h);
  });
  afterAll(async () => {
    await h.close();
  });

  it("takes the address the proxy appended (the last X-Forwarded-For entry)", async () => {
    expect((await post(hook, delivery("x7p1"), { "x-forwarded-for": "203.0.113.7" })).status).toBe(200);
    expect(
      (await post(hook, delivery("x7p2"), { "x-forwarded-for": "203.0.113.7, 198.51.100.1" })).status,
    ).toBe(403);
    expect((await post(hook, delivery("x7p3"))).status).toBe(403);
  });
});

describe("a store that cannot be reached", () => {
  it("answers 503 with Retry-After, never 200", async () => {
    const h = await startHarness({ worker: { manual: true } });
    try {
      const hook = await setUp(h);
      const token = new URL(hook).pathname.split("/").pop() ?? "";
      // The route's token lookup fails like an unreachable store.
      const routes = h.built.deps.callbacks;
      const original = routes.get.bind(routes);
      const { StoreUnavailableError } = await import("../../src/store/index.js");
      routes.get = async () => {
        throw new StoreUnavailableError("route lookup failed", { cause: new Error("down") });
      };
      const r = await request(hook, { method: "POST", body: delivery("x7down") });
      expect(r.statusCode).toBe(503);
      expect(r.headers["retry-after"]).toBe("5");
      await r.body.text();
      routes.get = original;
      expect(token.length).toBeGreaterThanOrEqual(32);
    } finally {
      await h.close();
    }
  });
});
