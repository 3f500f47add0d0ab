/**
 * The front listener (src/deliveries/front.ts) over real HTTP: plain delivery paths are answered before
 * Bolt's router, every other spelling still reaches the same handler through Bolt, and the rest
 * of the server (Slack requests, health routes, unknown paths) behaves as before.
 */

import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { plainDeliveryToken } from "../../src/deliveries/front.js";
import { type Harness, startHarness } from "../support/harness.js";
import { RECENT } from "../support/recent.js";

async function post(url: string, body: string) {
  const res = await request(url, { method: "POST", headers: { "content-type": "application/json" }, body });
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
}

const delivery = (videoId: string, timestamp: number) =>
  JSON.stringify({
    type: "video.created",
    timestamp,
    data: { owner_id: SEED.profiles.newsroom, video_id: videoId },
  });

describe("plainDeliveryToken", () => {
  it("takes a base64url segment right after the prefix, nothing else", () => {
    expect(plainDeliveryToken("/hooks/platform/abcDEF_123-x")).toBe("abcDEF_123-x");
    expect(plainDeliveryToken("/hooks/platform/abc?x=1")).toBeNull();
    expect(plainDeliveryToken("/hooks/platform/abc/")).toBeNull();
    expect(plainDeliveryToken("/hooks/platform/a%62c")).toBeNull();
    expect(plainDeliveryToken("/hooks/platform/")).toBeNull();
    expect(plainDeliveryToken("/hooks/platformabc")).toBeNull();
    expect(plainDeliveryToken(undefined)).toBeNull();
  });
});

describe("front listener", () => {
  let h: Harness;
  let hook: string;
  beforeAll(async () => {
    h = await startHarness({ worker: { manual: true } });
    hook = await h.configureProfile();
  });
  afterAll(async () => {
    await h.close();
  });

  it("answers a plain delivery with a length, not chunked, and stores it", async () => {
    const before = (await h.outbox.stats()).depth;
    const r = await post(hook, delivery("x7front", RECENT + 100000));
    expect(r.status).toBe(200);
    expect(JSON.parse(r.text)).toEqual({ status: "stored" });
    expect(r.headers["content-length"]).toBe(String(Buffer.byteLength(r.text)));
    expect(r.headers["transfer-encoding"]).toBeUndefined();
    expect((await h.outbox.stats()).depth).toBe(before + 1);
  });

  it("a query string goes through Bolt's router to the same handler", async () => {
    const before = (await h.outbox.stats()).depth;
    const r = await post(`${hook}?via=bolt`, delivery("x7query", RECENT + 100001));
    expect(r.status).toBe(200);
    expect(JSON.parse(r.text)).toEqual({ status: "stored" });
    expect((await h.outbox.stats()).depth).toBe(before + 1);
    const unknown = await post(`${h.url}/hooks/platform/${"A".repeat(43)}?via=bolt`, delivery("x7q2", 1));
    expect(unknown.status).toBe(404);
  });

  it("other methods and paths are Bolt's: GET on a delivery path, /healthz, unknown paths", async () => {
    const get = await request(hook, { method: "GET" });
    await get.body.text();
    expect(get.statusCode).toBe(404);
    const health = await request(`${h.url}/healthz`);
    expect(await health.body.json()).toEqual({ status: "ok" });
    const other = await request(`${h.url}/nowhere`, { method: "POST", body: "{}" });
    await other.body.text();
    expect(other.statusCode).toBe(404);
  });
});
