import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Sandbox, SEED, startSandbox } from "../../src/sandbox/server.js";
import { api, at, call, expectEnvelope, form, tokenFor } from "./helpers.js";

let sb: Sandbox;
let token: string;
beforeAll(async () => {
  sb = await startSandbox({ port: 0 });
  token = await tokenFor(sb);
});
afterAll(async () => {
  await sb.close();
});
beforeEach(() => sb.reset());

const LIVE = `/livestreams/${SEED.livestreams.onAirAdBreak}`;
const getLive = (t: string | undefined = token) => api(sb, "GET", LIVE, t);
const timed = async <T>(f: () => Promise<T>): Promise<[T, number]> => {
  const start = performance.now();
  const value = await f();
  return [value, performance.now() - start];
};
const tokenRequest = () =>
  call(
    "POST",
    `${sb.url}/v2/token`,
    form({
      grant_type: "client_credentials",
      client_id: sb.clientId,
      client_secret: sb.clientSecret,
      scope: "live.read",
    }),
  );

describe("faults", () => {
  it("adds latency and then answers normally", async () => {
    sb.addFault({ path: "/v2/livestreams", latencyMs: 300 });
    const [r, ms] = await timed(() => getLive());
    expect(r.status).toBe(200);
    expect(ms).toBeGreaterThanOrEqual(280);
    const [fast, fastMs] = await timed(() => api(sb, "GET", `/profiles/${SEED.profiles.studio}`, token));
    expect(fast.status).toBe(200);
    expect(fastMs).toBeLessThan(250);
  });

  it("adds latency before a status too", async () => {
    sb.addFault({ latencyMs: 200, status: 503 });
    const [r, ms] = await timed(() => getLive());
    expectEnvelope(r, 503, "SERVICE_UNAVAILABLE", null);
    expect(ms).toBeGreaterThanOrEqual(180);
  });

  it("429 sets Retry-After and details.retry_after_seconds", async () => {
    sb.addFault({ status: 429, retryAfterSeconds: 7 });
    const r = await getLive();
    expectEnvelope(r, 429, "TOO_MANY_REQUESTS", { retry_after_seconds: 7 });
    expect(r.headers["retry-after"]).toBe("7");
  });

  it("answers each 5xx with its envelope", async () => {
    const codes = {
      500: "INTERNAL_SERVER_ERROR",
      502: "BAD_GATEWAY",
      503: "SERVICE_UNAVAILABLE",
      504: "GATEWAY_TIMEOUT",
    };
    for (const [status, code] of Object.entries(codes)) {
      sb.clearFaults();
      sb.addFault({ status: Number(status) as 500 | 502 | 503 | 504 });
      expectEnvelope(await getLive(), Number(status), code, null);
    }
  });

  it("applies `times` times, then stops", async () => {
    sb.addFault({ path: "/v2/livestreams", status: 500, times: 2 });
    expect((await getLive()).status).toBe(500);
    expect((await getLive()).status).toBe(500);
    expect((await getLive()).status).toBe(200);
  });

  it("matches by method, path prefix and RegExp", async () => {
    sb.addFault({ method: "patch", status: 502 });
    sb.addFault({ path: /\/profiles\/x2vq8st$/, status: 504 });
    expect((await getLive()).status).toBe(200);
    expect((await api(sb, "PATCH", `/profiles/${SEED.profiles.newsroom}`, token, {})).status).toBe(502);
    expect((await api(sb, "GET", `/profiles/${SEED.profiles.studio}`, token)).status).toBe(504);
    expect((await api(sb, "GET", `/profiles/${SEED.profiles.newsroom}`, token)).status).toBe(200);
  });

  it("applies before authentication", async () => {
    sb.addFault({ status: 503 });
    expect((await getLive(undefined)).status).toBe(503);
  });

  it("answers broken bodies with 200", async () => {
    sb.addFault({ body: "invalid-json", times: 1 });
    const bad = await getLive();
    expect(bad.status).toBe(200);
    expect(bad.headers["content-type"]).toMatch(/^application\/json/);
    expect(() => JSON.parse(bad.text)).toThrow();

    sb.addFault({ body: "html", times: 1 });
    const html = await getLive();
    expect(html.status).toBe(200);
    expect(html.headers["content-type"]).toMatch(/^text\/html/);
    expect(html.text).toMatch(/^<!DOCTYPE html>/);

    sb.addFault({ body: "schema-mismatch", times: 1 });
    const mismatch = await getLive();
    expect(mismatch.status).toBe(200);
    expect(at(mismatch.json, "livestream_id")).toBe(SEED.livestreams.onAirAdBreak);
    expect(at(mismatch.json, "title")).toBe(42);
    expect(at(mismatch.json, "status.onair")).toBe("yes");

    sb.addFault({ path: "/v2/token", body: "schema-mismatch", times: 1 });
    expect(at((await tokenRequest()).json, "access_token")).toBe(42);
    sb.addFault({ path: "/v2/profiles", body: "schema-mismatch", times: 1 });
    expect(
      at((await api(sb, "GET", `/profiles/${SEED.profiles.studio}`, token)).json, "webhook.events"),
    ).toBe("video.created");
  });

  it("drops the connection without answering, logged with status 0", async () => {
    sb.addFault({ dropConnection: true, times: 1 });
    await expect(getLive()).rejects.toThrow();
    expect(sb.requests.at(-1)).toMatchObject({ method: "GET", path: `/v2${LIVE}`, status: 0 });
    expect((await getLive()).status).toBe(200);
  });

  it("emulates the token endpoint being down while the API still works", async () => {
    sb.addFault({ path: "/v2/token", status: 503 });
    expectEnvelope(await tokenRequest(), 503, "SERVICE_UNAVAILABLE");
    expect((await getLive()).status).toBe(200);
    sb.clearFaults();
    expect((await tokenRequest()).status).toBe(200);
  });

  it("never applies to control endpoints; reset clears faults", async () => {
    sb.addFault({ status: 500 });
    expect((await call("GET", `${sb.url}/_sandbox/stats`)).status).toBe(200);
    sb.reset();
    expect((await getLive()).status).toBe(200);
  });
});

describe("request log and stats", () => {
  it("records every request in order, faulted ones included", async () => {
    sb.addFault({ path: "/v2/profiles", status: 503, times: 1 });
    await tokenRequest();
    await api(sb, "GET", `${LIVE}?fields=title,status.onair`, token);
    await api(sb, "GET", `/profiles/${SEED.profiles.studio}`, undefined);
    await call("POST", `${sb.url}/v1/token`);
    expect(sb.requests.map(({ at: _at, ...r }) => r)).toEqual([
      { method: "POST", path: "/v2/token", query: {}, authorization: "absent", status: 200 },
      {
        method: "GET",
        path: `/v2${LIVE}`,
        query: { fields: "title,status.onair" },
        authorization: "present",
        status: 200,
      },
      {
        method: "GET",
        path: `/v2/profiles/${SEED.profiles.studio}`,
        query: {},
        authorization: "absent",
        status: 503,
      },
      { method: "POST", path: "/v1/token", query: {}, authorization: "absent", status: 404 },
    ]);
    for (const r of sb.requests) expect(Math.abs(r.at - Date.now())).toBeLessThan(5000);
    expect(sb.stats()).toEqual({ tokenRequests: 1, apiRequests: 2, deliveries: 0 });
    sb.reset();
    expect(sb.requests).toEqual([]);
    expect(sb.stats()).toEqual({ tokenRequests: 0, apiRequests: 0, deliveries: 0 });
  });

  it("stamps entries with the sandbox clock and reports them to onRequest", async () => {
    const seen: string[] = [];
    const other = await startSandbox({
      now: () => 1_234_000,
      onRequest: (e) => seen.push(`${e.path} ${e.status}`),
    });
    try {
      await call("GET", `${other.apiUrl}/nowhere`);
      expect(other.requests[0]?.at).toBe(1_234_000);
      expect(seen).toEqual(["/v2/nowhere 404"]);
    } finally {
      await other.close();
    }
  });
});
