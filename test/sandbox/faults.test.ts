import { request } from "undici";
import { describe, expect, it } from "vitest";
import { type Sandbox, SEED, startSandbox } from "../../fakes/platform/server.js";
import { api, at, call, expectEnvelope, form, tokenFor } from "./helpers.js";
import { sandboxForFile } from "./per-file.js";

let sb: Sandbox;
let token: string;
sandboxForFile(async (s) => {
  sb = s;
  token = await tokenFor(sb);
});

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

describe("gateway-style fault answers", () => {
  it("envelope: false answers the status with an empty body", async () => {
    sb.addFault({ status: 502, envelope: false });
    const r = await getLive();
    expect(r.status).toBe(502);
    expect(r.text).toBe("");
    expect(r.headers["content-type"]).toBeUndefined();
  });

  it('envelope: "html" answers the status with an HTML page', async () => {
    sb.addFault({ status: 503, envelope: "html" });
    const r = await getLive();
    expect(r.status).toBe(503);
    expect(r.headers["content-type"]).toMatch(/^text\/html/);
    expect(r.text).toMatch(/^<!DOCTYPE html>.*503/);
  });

  it("retryAfterHeader sends a raw header value, or none with null", async () => {
    const date = new Date(Date.now() + 30_000).toUTCString();
    sb.addFault({ status: 429, retryAfterHeader: date, times: 1 });
    const dated = await getLive();
    expect(dated.headers["retry-after"]).toBe(date);
    expect(at(dated.json, "error.details.retry_after_seconds")).toBe(1);

    sb.addFault({ status: 429, retryAfterSeconds: 4, retryAfterHeader: null, times: 1 });
    const none = await getLive();
    expect(none.headers["retry-after"]).toBeUndefined();
    expect(at(none.json, "error.details.retry_after_seconds")).toBe(4);
  });

  it("detailsRetryAfter sets details.retry_after_seconds, or leaves it out with null", async () => {
    sb.addFault({ status: 429, retryAfterSeconds: 3, detailsRetryAfter: null, times: 1 });
    const headerOnly = await getLive();
    expectEnvelope(headerOnly, 429, "TOO_MANY_REQUESTS", null);
    expect(headerOnly.headers["retry-after"]).toBe("3");

    sb.addFault({ status: 429, retryAfterHeader: null, detailsRetryAfter: 9, times: 1 });
    const detailsOnly = await getLive();
    expectEnvelope(detailsOnly, 429, "TOO_MANY_REQUESTS", { retry_after_seconds: 9 });
    expect(detailsOnly.headers["retry-after"]).toBeUndefined();

    sb.addFault({ status: 503, detailsRetryAfter: 5, times: 1 });
    expectEnvelope(await getLive(), 503, "SERVICE_UNAVAILABLE", { retry_after_seconds: 5 });
  });

  it("slowBody sends the headers at once and the normal body in pieces", async () => {
    sb.addFault({ path: "/v2/livestreams", slowBody: { chunks: 4, intervalMs: 100 }, times: 1 });
    const chunks: number[] = [];
    const start = performance.now();
    let headersAt = 0;
    const res = await request(`${sb.apiUrl}${LIVE}?fields=title`, {
      headers: { authorization: `Bearer ${token}` },
    });
    headersAt = performance.now() - start;
    let text = "";
    for await (const chunk of res.body) {
      chunks.push(performance.now() - start);
      text += String(chunk);
    }
    expect(res.statusCode).toBe(200);
    expect(headersAt).toBeLessThan(90);
    expect(JSON.parse(text)).toEqual({ title: expect.any(String) });
    expect(chunks.length).toBeGreaterThanOrEqual(2);
    expect(chunks.at(-1)).toBeGreaterThanOrEqual(380);
  });

  it("slowBody also trickles a fault's own answer", async () => {
    sb.addFault({ status: 503, slowBody: { chunks: 3, intervalMs: 60 }, times: 1 });
    const [r, ms] = await timed(() => getLive());
    expectEnvelope(r, 503, "SERVICE_UNAVAILABLE");
    expect(ms).toBeGreaterThanOrEqual(170);
  });

  it("control endpoint accepts the new fault options", async () => {
    const r = await call("POST", `${sb.url}/_sandbox/faults`, {
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        status: 429,
        envelope: false,
        retryAfterHeader: null,
        detailsRetryAfter: null,
        slowBody: { chunks: 2, intervalMs: 1 },
        times: 1,
      }),
    });
    expect(r.status).toBe(201);
    const g = await getLive();
    expect(g.status).toBe(429);
    expect(g.text).toBe("");
    expect(g.headers["retry-after"]).toBeUndefined();
  });
});

describe("close()", () => {
  it("settles handlers waiting on latency or a slow body instead of leaving them hanging", async () => {
    const other = await startSandbox();
    const t = await tokenFor(other);
    other.addFault({ path: "/v2/livestreams", latencyMs: 60_000, times: 1 });
    other.addFault({ path: "/v2/profiles", slowBody: { chunks: 5, intervalMs: 60_000 }, times: 1 });
    const slowLatency = api(other, "GET", LIVE, t).catch((e: unknown) => e);
    const slowBody = api(other, "GET", `/profiles/${SEED.profiles.studio}`, t).catch((e: unknown) => e);
    while (other.requests.length < 3) await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 50));
    expect(other.pendingRequests()).toBe(2);
    const [, ms] = await timed(() => other.close());
    expect(ms).toBeLessThan(2000);
    expect(other.pendingRequests()).toBe(0);
    expect(await slowLatency).toBeInstanceOf(Error);
    expect(await slowBody).toBeInstanceOf(Error);
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
