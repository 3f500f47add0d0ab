import { describe, expect, it } from "vitest";
import { type Sandbox, SEED } from "../../fakes/platform/server.js";
import { api, at, call, expectEnvelope, tokenFor } from "./helpers.js";
import { sandboxWithReceiver } from "./per-file.js";
import type { Receiver } from "./receiver.js";

let sb: Sandbox;
let rx: Receiver;
sandboxWithReceiver((s, r) => {
  sb = s;
  rx = r;
});

const control = (method: string, path: string, body?: unknown) =>
  call(method, `${sb.url}/_sandbox/${path}`, {
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
const LIVE = `/livestreams/${SEED.livestreams.onAirAdBreak}`;

describe("control endpoints", () => {
  it("POST reset restores the seed and clears faults and logs", async () => {
    sb.setWebhook(SEED.profiles.studio, { callback_url: null, events: null });
    sb.addFault({ status: 500 });
    const r = await control("POST", "reset");
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ ok: true });
    expect(sb.state.profiles.get(SEED.profiles.studio)?.webhook).toEqual(SEED.studioWebhook);
    expect(sb.requests.map((e) => e.path)).toEqual([]);
    const token = await tokenFor(sb);
    expect((await api(sb, "GET", LIVE, token)).status).toBe(200);
  });

  it("POST faults adds a fault; DELETE faults clears them", async () => {
    const token = await tokenFor(sb);
    expect(
      (
        await control("POST", "faults", {
          path: "/v2/livestreams",
          status: 429,
          retryAfterSeconds: 3,
          times: 1,
        })
      ).status,
    ).toBe(201);
    const limited = await api(sb, "GET", LIVE, token);
    expectEnvelope(limited, 429, "TOO_MANY_REQUESTS", { retry_after_seconds: 3 });
    expect((await api(sb, "GET", LIVE, token)).status).toBe(200);
    await control("POST", "faults", { method: "GET", status: 502 });
    expect((await api(sb, "GET", LIVE, token)).status).toBe(502);
    expect((await control("DELETE", "faults")).status).toBe(200);
    expect((await api(sb, "GET", LIVE, token)).status).toBe(200);
  });

  it("POST faults validates its body", async () => {
    const bad = await control("POST", "faults", { status: 418 });
    expectEnvelope(bad, 422, "INVALID_FORMAT");
    expect(at(bad.json, "error.details.param")).toBe("body");
    expect(at(bad.json, "error.details.issues")).toEqual([expect.objectContaining({ path: "status" })]);
    expectEnvelope(await control("POST", "faults", { pathh: "/v2" }), 422, "INVALID_FORMAT");
    expectEnvelope(await control("POST", "faults", "{"), 422, "INVALID_FORMAT", { param: "body" });
  });

  it("POST expire-tokens and revoke-tokens", async () => {
    const a = await tokenFor(sb);
    expect((await control("POST", "expire-tokens")).json).toEqual({ ok: true });
    expectEnvelope(await api(sb, "GET", LIVE, a), 401, "AUTHORIZATION_EXPIRED");
    const b = await tokenFor(sb);
    expect((await control("POST", "revoke-tokens")).status).toBe(200);
    expectEnvelope(await api(sb, "GET", LIVE, b), 401, "INVALID_AUTHORIZATION");
  });

  it("GET requests and GET stats", async () => {
    const token = await tokenFor(sb);
    await api(sb, "GET", `${LIVE}?fields=title`, token);
    const r = await control("GET", "requests");
    expect(r.status).toBe(200);
    const entries = at(r.json, "requests") as Array<Record<string, unknown>>;
    expect(entries.map((e) => `${e.method} ${e.path} ${e.status}`)).toEqual([
      "POST /v2/token 200",
      `GET /v2${LIVE} 200`,
    ]);
    expect(entries[1]).toMatchObject({ query: { fields: "title" }, authorization: "present" });
    expect((await control("GET", "stats")).json).toEqual({ tokenRequests: 1, apiRequests: 1, deliveries: 0 });
  });

  it("POST deliver sends one event", async () => {
    const r = await control("POST", "deliver", {
      profile_id: SEED.profiles.studio,
      event: { type: "video.created", data: { owner_id: SEED.profiles.studio, video_id: "x1" } },
      deliverTo: rx.origin,
    });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ results: [{ type: "video.created", status: 200, body: "ok" }] });
    expect(rx.received[0]?.json).toMatchObject({ type: "video.created", data: { video_id: "x1" } });
    expect(sb.stats().deliveries).toBe(1);
  });

  it("POST deliver runs a lifecycle", async () => {
    const r = await control("POST", "deliver", {
      profile_id: SEED.profiles.studio,
      lifecycle: { presets: ["720p"], progressSteps: 2, videoId: "x9ctrl1" },
      deliverTo: rx.origin,
      force: true,
    });
    expect(r.status).toBe(200);
    const results = at(r.json, "results") as Array<{ type: string; status: number }>;
    expect(results.map((x) => x.type)).toEqual([
      "video.created",
      "video.format.processing",
      "video.format.processing",
      "video.format.ready",
      "video.published",
      "video.complete",
    ]);
    expect(rx.received).toHaveLength(6);
    const plain = await control("POST", "deliver", {
      profile_id: SEED.profiles.studio,
      lifecycle: true,
      deliverTo: rx.origin,
    });
    expect((at(plain.json, "results") as unknown[]).length).toBe(36);
  });

  it("POST deliver refuses unknown profiles and ambiguous bodies", async () => {
    expectEnvelope(
      await control("POST", "deliver", { profile_id: "x0nope0", event: { type: "video.created" } }),
      404,
      "RESOURCE_NOT_FOUND",
      {
        object_id: "x0nope0",
        reason: "not_found",
        object_type: "profile",
        param: "profile_id",
      },
    );
    expectEnvelope(
      await control("POST", "deliver", { profile_id: SEED.profiles.studio }),
      422,
      "INVALID_FORMAT",
    );
    expectEnvelope(
      await control("POST", "deliver", {
        profile_id: SEED.profiles.studio,
        event: { type: "video.created" },
        lifecycle: true,
      }),
      422,
      "INVALID_FORMAT",
    );
  });

  it("unknown control routes and methods", async () => {
    expectEnvelope(await control("POST", "nope"), 404, "RESOURCE_NOT_FOUND");
    const r = await control("GET", "reset");
    expectEnvelope(r, 405, "METHOD_NOT_ALLOWED", { method: "GET", allowed_methods: ["POST"] });
  });
});
