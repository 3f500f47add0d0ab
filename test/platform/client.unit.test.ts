/**
 * Unit tests of the platform client with undici's MockAgent, for cases the sandbox cannot
 * produce (odd token answers, HTTP-date Retry-After, oversized bodies) and for exact request
 * shapes. Integration against the sandbox over real HTTP is in client.sandbox.test.ts.
 */
import { MockAgent } from "undici";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/log.js";
import { PlatformClient, type PlatformClientOptions, PlatformError } from "../../src/platform/index.js";

const AUTH = "http://auth.test";
const API = "http://api.test";
const TIMEOUTS = { connectMs: 1000, headersMs: 1000, bodyMs: 1000 };

let mock: MockAgent;
let clock: number;
let slept: number[];

function client(extra: Partial<PlatformClientOptions> = {}) {
  return new PlatformClient({
    apiUrl: `${API}/v2`,
    authUrl: AUTH,
    clientId: "cid",
    clientSecret: "super-secret-value",
    scopes: ["live.read", "profile.manage"],
    timeouts: TIMEOUTS,
    logger: silentLogger(),
    dispatcher: mock,
    now: () => clock,
    sleep: async (ms) => {
      slept.push(ms);
      clock += ms;
    },
    random: () => 0.5,
    confirmDelayMs: 10,
    ...extra,
  });
}

function tokenOk(token = "tok-1", extra: Record<string, unknown> = {}) {
  mock
    .get(AUTH)
    .intercept({ path: "/v2/token", method: "POST" })
    .reply(200, {
      access_token: token,
      token_type: "Bearer",
      expires_in: 1800,
      scope: "live.read profile.manage",
      ...extra,
    });
}

const apiPool = () => mock.get(API);

beforeEach(() => {
  mock = new MockAgent();
  mock.disableNetConnect();
  clock = 1_700_000_000_000;
  slept = [];
});
afterEach(async () => {
  await mock.close();
});

describe("token provider", () => {
  it("posts form-encoded client credentials and the requested scopes", async () => {
    let seen: { body: string; headers: Record<string, string> } | undefined;
    mock
      .get(AUTH)
      .intercept({ path: "/v2/token", method: "POST" })
      .reply((opts) => {
        seen = { body: String(opts.body), headers: opts.headers as Record<string, string> };
        return {
          statusCode: 200,
          data: { access_token: "t", token_type: "Bearer", expires_in: 1800, scope: "x" },
        };
      });
    await client().tokens.getToken();
    const form = new URLSearchParams(seen?.body);
    expect(form.get("grant_type")).toBe("client_credentials");
    expect(form.get("client_id")).toBe("cid");
    expect(form.get("client_secret")).toBe("super-secret-value");
    expect(form.get("scope")).toBe("live.read profile.manage");
    expect(seen?.headers["content-type"]).toBe("application/x-www-form-urlencoded");
  });

  it("caches the token until shortly before expires_in runs out, then fetches a new one", async () => {
    tokenOk("first");
    const c = client();
    expect(await c.tokens.getToken()).toBe("first");
    clock += 1700 * 1000; // 100 s before expiry, more than the 60 s margin
    expect(await c.tokens.getToken()).toBe("first");
    clock += 50 * 1000; // 50 s before expiry: inside the margin
    tokenOk("second");
    expect(await c.tokens.getToken()).toBe("second");
    expect(c.tokens.stats.requests).toBe(2);
    mock.assertNoPendingInterceptors();
  });

  it("uses a margin of at most 10% for short-lived tokens", async () => {
    tokenOk("short", { expires_in: 100 });
    const c = client();
    await c.tokens.getToken();
    clock += 89 * 1000;
    expect(await c.tokens.getToken()).toBe("short");
    clock += 2 * 1000; // 91 s: past 90% of the lifetime
    tokenOk("next");
    expect(await c.tokens.getToken()).toBe("next");
  });

  it("accepts a lowercase token_type, a numeric-string expires_in and a missing scope", async () => {
    mock
      .get(AUTH)
      .intercept({ path: "/v2/token", method: "POST" })
      .reply(200, { access_token: "t", token_type: "bearer", expires_in: "1800" });
    const c = client();
    expect(await c.tokens.getToken()).toBe("t");
    expect(c.tokens.grantedScopes).toEqual(["live.read", "profile.manage"]);
  });

  it("keeps a granted bundle scope that differs from the requested one", async () => {
    tokenOk("t", { scope: "bundle.publisher" });
    const c = client();
    await c.tokens.getToken();
    expect(c.tokens.grantedScopes).toEqual(["bundle.publisher"]);
  });

  it("reports a token answer that does not match the spec, naming the field", async () => {
    mock
      .get(AUTH)
      .intercept({ path: "/v2/token", method: "POST" })
      .reply(200, { access_token: "t", token_type: "MAC", expires_in: 1800 });
    const err = await client()
      .tokens.getToken()
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PlatformError);
    expect((err as PlatformError).kind).toBe("token");
    expect((err as PlatformError).message).toMatch(/token_type/);
  });

  it("maps invalid_client to a token error that names the variables and not the secret", async () => {
    mock
      .get(AUTH)
      .intercept({ path: "/v2/token", method: "POST" })
      .reply(401, { error: "invalid_client", error_description: "bad credentials" });
    const err = (await client()
      .tokens.getToken()
      .catch((e: unknown) => e)) as PlatformError;
    expect(err.kind).toBe("token");
    expect(err.code).toBe("invalid_client");
    expect(err.message).toMatch(/PLATFORM_CLIENT_ID/);
    expect(JSON.stringify(err.toJSON())).not.toContain("super-secret-value");
    expect(err.transient).toBe(false);
  });

  it("retries a 5xx of the token service once, then reports it as transient", async () => {
    mock.get(AUTH).intercept({ path: "/v2/token", method: "POST" }).reply(503, "down").times(2);
    const c = client();
    const err = (await c.tokens.getToken().catch((e: unknown) => e)) as PlatformError;
    expect(err.kind).toBe("token");
    expect(err.status).toBe(503);
    expect(err.transient).toBe(true);
    expect(c.tokens.stats.requests).toBe(2);
  });

  it("honours the token service's Retry-After on a 429 for its one retry", async () => {
    mock
      .get(AUTH)
      .intercept({ path: "/v2/token", method: "POST" })
      .reply(429, "", { headers: { "retry-after": "2" } });
    tokenOk("after-429");
    const c = client();
    expect(await c.tokens.getToken()).toBe("after-429");
    expect(slept).toEqual([2000]);
  });

  it("caps the token service's Retry-After at a few seconds and keeps it on the error", async () => {
    mock
      .get(AUTH)
      .intercept({ path: "/v2/token", method: "POST" })
      .reply(429, {
        error: { code: "TOO_MANY_REQUESTS", message: "m", details: { retry_after_seconds: 60 } },
      })
      .times(2);
    const err = (await client()
      .tokens.getToken()
      .catch((e: unknown) => e)) as PlatformError;
    expect(err).toMatchObject({ kind: "token", status: 429, retryAfterSeconds: 60 });
    expect(err.transient).toBe(true);
    expect(slept).toEqual([5000]);
  });

  it("refuses an expires_in that is not a positive integer or a digits-only string", async () => {
    for (const expires_in of [true, "1e3", " ", "", "1.5", -5, 0, "0x10"]) {
      mock
        .get(AUTH)
        .intercept({ path: "/v2/token", method: "POST" })
        .reply(200, { access_token: "t", token_type: "Bearer", expires_in });
      const err = (await client()
        .tokens.getToken()
        .catch((e: unknown) => e)) as PlatformError;
      expect(err.code, JSON.stringify(expires_in)).toBe("INVALID_TOKEN_RESPONSE");
      expect(err.message).toMatch(/expires_in/);
    }
  });

  it("shares one in-flight token request among 1,000 concurrent callers", async () => {
    mock
      .get(AUTH)
      .intercept({ path: "/v2/token", method: "POST" })
      .reply(200, { access_token: "shared", token_type: "Bearer", expires_in: 1800, scope: "live.read" })
      .delay(20);
    const c = client();
    const tokens = await Promise.all(Array.from({ length: 1000 }, () => c.tokens.getToken()));
    expect(new Set(tokens)).toEqual(new Set(["shared"]));
    expect(c.tokens.stats.requests).toBe(1);
  });
});

describe("API requests", () => {
  it("retries a GET after 429 honouring an HTTP-date Retry-After", async () => {
    tokenOk();
    const retryAt = new Date(clock + 3000).toUTCString();
    apiPool()
      .intercept({ path: "/v2/livestreams/x1?fields=title", method: "GET" })
      .reply(
        429,
        { error: { code: "TOO_MANY_REQUESTS", message: "slow down", documentation_url: "d" } },
        {
          headers: { "retry-after": retryAt },
        },
      );
    apiPool()
      .intercept({ path: "/v2/livestreams/x1?fields=title", method: "GET" })
      .reply(200, { title: "Hello" });
    const ls = await client().getLivestream("x1", ["title"]);
    expect(ls.title).toBe("Hello");
    expect(slept).toEqual([3000]);
  });

  it("uses details.retry_after_seconds when there is no Retry-After header", async () => {
    tokenOk();
    apiPool()
      .intercept({ path: "/v2/livestreams/x1?fields=title", method: "GET" })
      .reply(429, {
        error: {
          code: "TOO_MANY_REQUESTS",
          message: "m",
          details: { retry_after_seconds: 2 },
          documentation_url: "d",
        },
      });
    apiPool()
      .intercept({ path: "/v2/livestreams/x1?fields=title", method: "GET" })
      .reply(200, { title: "T" });
    await client().getLivestream("x1", ["title"]);
    expect(slept).toEqual([2000]);
  });

  it("does not wait for a Retry-After beyond the cap: reports it at once with the delay", async () => {
    tokenOk();
    apiPool()
      .intercept({ path: "/v2/livestreams/x1?fields=title", method: "GET" })
      .reply(
        429,
        { error: { code: "TOO_MANY_REQUESTS", message: "m", documentation_url: "d" } },
        {
          headers: { "retry-after": "120" },
        },
      );
    const err = (await client({ maxRetryAfterMs: 10_000 })
      .getLivestream("x1", ["title"])
      .catch((e: unknown) => e)) as PlatformError;
    expect(err.status).toBe(429);
    expect(err.retryAfterSeconds).toBe(120);
    expect(slept).toEqual([]);
  });

  it("turns a gateway's HTML 502 into a typed error after the retries", async () => {
    tokenOk();
    apiPool()
      .intercept({ path: "/v2/livestreams/x1?fields=title", method: "GET" })
      .reply(502, "<html>Bad gateway</html>", { headers: { "content-type": "text/html" } })
      .times(3);
    const err = (await client()
      .getLivestream("x1", ["title"])
      .catch((e: unknown) => e)) as PlatformError;
    expect(err.kind).toBe("http");
    expect(err.status).toBe(502);
    expect(err.code).toBe("HTTP_502");
    expect(err.correlationId).toBeNull();
    expect(slept).toEqual([150, 300]); // backoff 200 then 400 ms, with jitter 0.5
  });

  it("refuses an answer larger than the cap without buffering it all", async () => {
    tokenOk();
    apiPool()
      .intercept({ path: "/v2/livestreams/x1?fields=description", method: "GET" })
      .reply(200, JSON.stringify({ description: "x".repeat(2 * 1024 * 1024) }));
    const err = (await client()
      .getLivestream("x1", ["description"])
      .catch((e: unknown) => e)) as PlatformError;
    expect(err.kind).toBe("invalid_response");
    expect(err.code).toBe("RESPONSE_TOO_LARGE");
  });

  it("sends PATCH as JSON with the bearer token and accepts an empty 204", async () => {
    tokenOk("tok-patch");
    let patched: { body: string; headers: Record<string, string> } | undefined;
    apiPool()
      .intercept({ path: "/v2/profiles/p1?fields=webhook", method: "GET" })
      .reply(200, { webhook: { callback_url: "https://a.example/h", events: ["video.created"] } });
    apiPool()
      .intercept({ path: "/v2/profiles/p1", method: "PATCH" })
      .reply((opts) => {
        patched = { body: String(opts.body), headers: opts.headers as Record<string, string> };
        return { statusCode: 204, data: "" };
      });
    apiPool()
      .intercept({ path: "/v2/profiles/p1?fields=webhook", method: "GET" })
      .reply(200, { webhook: { callback_url: "https://a.example/h", events: ["video.deleted"] } });
    const w = await client().updateWebhookEvents("p1", ["video.deleted"]);
    expect(w.events).toEqual(["video.deleted"]);
    expect(JSON.parse(patched?.body ?? "")).toEqual({ webhook: { events: ["video.deleted"] } });
    expect(patched?.headers.authorization).toBe("Bearer tok-patch");
    expect(patched?.headers["content-type"]).toBe("application/json");
    mock.assertNoPendingInterceptors();
  });

  it("never retries a PATCH that failed with 503", async () => {
    tokenOk();
    apiPool()
      .intercept({ path: "/v2/profiles/p1", method: "PATCH" })
      .reply(503, { error: { code: "UNAVAILABLE", message: "m", documentation_url: "d" } });
    const err = (await client()
      .setWebhook("p1", { callback_url: "https://a.example/h", events: ["video.created"] })
      .catch((e: unknown) => e)) as PlatformError;
    expect(err.status).toBe(503);
    expect(slept).toEqual([]);
    mock.assertNoPendingInterceptors();
  });

  it("re-reads a write that is not visible yet, then reports not_confirmed", async () => {
    tokenOk();
    apiPool().intercept({ path: "/v2/profiles/p1", method: "PATCH" }).reply(200, {});
    apiPool()
      .intercept({ path: "/v2/profiles/p1?fields=webhook", method: "GET" })
      .reply(200, { webhook: { callback_url: null, events: null } })
      .times(3);
    const err = (await client()
      .setWebhook("p1", { callback_url: "https://a.example/h", events: ["video.created"] })
      .catch((e: unknown) => e)) as PlatformError;
    expect(err.kind).toBe("not_confirmed");
    expect(slept).toEqual([10, 10]);
  });

  it("a read-back that catches up on the second read is a success", async () => {
    tokenOk();
    apiPool().intercept({ path: "/v2/profiles/p1", method: "PATCH" }).reply(200, {});
    apiPool()
      .intercept({ path: "/v2/profiles/p1?fields=webhook", method: "GET" })
      .reply(200, { webhook: { callback_url: null, events: null } });
    apiPool()
      .intercept({ path: "/v2/profiles/p1?fields=webhook", method: "GET" })
      .reply(200, { webhook: { callback_url: "https://a.example/h", events: ["video.created"] } });
    const w = await client().setWebhook("p1", {
      callback_url: "https://a.example/h",
      events: ["video.created"],
    });
    expect(w.callback_url).toBe("https://a.example/h");
  });

  it("requires the webhook object in an answer to fields=webhook, naming profile.webhook", async () => {
    tokenOk();
    apiPool()
      .intercept({ path: "/v2/profiles/p1?fields=webhook", method: "GET" })
      .reply(200, { profile_id: "p1" });
    const err = (await client()
      .getProfileWebhook("p1")
      .catch((e: unknown) => e)) as PlatformError;
    expect(err).toBeInstanceOf(PlatformError);
    expect(err.kind).toBe("invalid_response");
    expect(err.field).toBe("profile.webhook");
    expect(err.message).toMatch(/profile\.webhook/);
  });

  it("reads a key missing inside the webhook object as null (lenient)", async () => {
    tokenOk();
    apiPool()
      .intercept({ path: "/v2/profiles/p1?fields=webhook", method: "GET" })
      .reply(200, { webhook: { callback_url: "https://a.example/h" } });
    expect(await client().getProfileWebhook("p1")).toEqual({
      callback_url: "https://a.example/h",
      events: null,
    });
  });

  it("removeWebhook does not report success when the answer has no webhook object", async () => {
    tokenOk();
    apiPool()
      .intercept({ path: "/v2/profiles/p1?fields=webhook", method: "GET" })
      .reply(200, { profile_id: "p1" });
    const err = (await client()
      .removeWebhook("p1")
      .catch((e: unknown) => e)) as PlatformError;
    expect(err.kind).toBe("invalid_response");
    expect(err.field).toBe("profile.webhook");
    mock.assertNoPendingInterceptors();
  });

  it("after a 401 gets one fresh token and retries once, then reports the second 401", async () => {
    tokenOk("old");
    tokenOk("new");
    const auths: string[] = [];
    apiPool()
      .intercept({ path: "/v2/livestreams/x1?fields=title", method: "GET" })
      .reply((opts) => {
        auths.push((opts.headers as Record<string, string>).authorization ?? "");
        return {
          statusCode: 401,
          data: {
            error: {
              code: "INVALID_AUTHORIZATION",
              message: "bad",
              details: { param: "authorization" },
              documentation_url: "d",
            },
          },
        };
      })
      .times(2);
    const c = client();
    const err = (await c.getLivestream("x1", ["title"]).catch((e: unknown) => e)) as PlatformError;
    expect(err.status).toBe(401);
    expect(err.code).toBe("INVALID_AUTHORIZATION");
    expect(auths).toEqual(["Bearer old", "Bearer new"]);
    expect(c.tokens.stats.requests).toBe(2);
    mock.assertNoPendingInterceptors();
  });

  it("rejects ids that would change the path before any request", async () => {
    const err = (await client()
      .getLivestream("../profiles/p1", ["title"])
      .catch((e: unknown) => e)) as PlatformError;
    expect(err.kind).toBe("invalid_request");
    mock.assertNoPendingInterceptors();
  });

  it.each([".", "..", "a.b", "%2e%2e", "a/b", "a?b", "a#b", "a b", "-x", "_x", "é", "x".repeat(129), ""])(
    "rejects the id %j before any request (whitelist, dot segments included)",
    async (id) => {
      const c = client();
      for (const p of [
        c.getLivestream(id, ["title"]),
        c.getProfileWebhook(id),
        c.removeWebhook(id),
        c.setWebhook(id, { callback_url: "https://a.example/h", events: ["video.created"] }),
      ]) {
        const err = (await p.catch((e: unknown) => e)) as PlatformError;
        expect(err.kind).toBe("invalid_request");
        expect(err.code).toBe("INVALID_FORMAT");
      }
      expect(c.tokens.stats.requests).toBe(0);
    },
  );

  it("accepts ids of the whitelist, up to 128 characters", async () => {
    tokenOk();
    const id = `x9_-${"a".repeat(124)}`;
    apiPool()
      .intercept({ path: `/v2/livestreams/${id}?fields=title`, method: "GET" })
      .reply(200, { title: "T" });
    expect((await client().getLivestream(` ${id} `, ["title"])).title).toBe("T");
  });
});

describe("retry timing", () => {
  it("a Retry-After cap below the backoff (even 0) does not disable retries", async () => {
    tokenOk();
    apiPool()
      .intercept({ path: "/v2/livestreams/x1?fields=title", method: "GET" })
      .reply(502, { error: { code: "BAD_GATEWAY", message: "m", documentation_url: "d" } });
    apiPool()
      .intercept({ path: "/v2/livestreams/x1?fields=title", method: "GET" })
      .reply(200, { title: "T" });
    expect((await client({ maxRetryAfterMs: 0 }).getLivestream("x1", ["title"])).title).toBe("T");
    expect(slept).toEqual([150]);
  });

  it("Retry-After: 0 waits the backoff instead of retrying at once", async () => {
    tokenOk();
    apiPool()
      .intercept({ path: "/v2/livestreams/x1?fields=title", method: "GET" })
      .reply(
        429,
        { error: { code: "TOO_MANY_REQUESTS", message: "m" } },
        { headers: { "retry-after": "0" } },
      );
    apiPool()
      .intercept({ path: "/v2/livestreams/x1?fields=title", method: "GET" })
      .reply(200, { title: "T" });
    await client().getLivestream("x1", ["title"]);
    expect(slept).toEqual([150]);
  });

  it("a Retry-After over the cap is reported at once even with a cap of 0", async () => {
    tokenOk();
    apiPool()
      .intercept({ path: "/v2/livestreams/x1?fields=title", method: "GET" })
      .reply(
        429,
        { error: { code: "TOO_MANY_REQUESTS", message: "m" } },
        { headers: { "retry-after": "1" } },
      );
    const err = (await client({ maxRetryAfterMs: 0 })
      .getLivestream("x1", ["title"])
      .catch((e: unknown) => e)) as PlatformError;
    expect(err.status).toBe(429);
    expect(err.retryAfterSeconds).toBe(1);
    expect(slept).toEqual([]);
  });
});

describe("error envelopes from gateways", () => {
  it("keeps code, message and well-typed fields of an envelope with odd fields", async () => {
    tokenOk();
    apiPool()
      .intercept({ path: "/v2/livestreams/x1?fields=title", method: "GET" })
      .reply(404, {
        error: {
          code: "RESOURCE_NOT_FOUND",
          message: "No such livestream",
          correlation_id: 12345,
          details: { object_id: "x1", object_type: "livestream" },
          documentation_url: null,
        },
      });
    const err = (await client()
      .getLivestream("x1", ["title"])
      .catch((e: unknown) => e)) as PlatformError;
    expect(err).toMatchObject({ kind: "http", status: 404, code: "RESOURCE_NOT_FOUND" });
    expect(err.message).toBe("No such livestream");
    expect(err.details).toEqual({ object_id: "x1", object_type: "livestream" });
    expect(err.correlationId).toBeNull();
    expect(err.documentationUrl).toBeNull();
  });

  it("keeps the code when details is an array", async () => {
    tokenOk();
    apiPool()
      .intercept({ path: "/v2/livestreams/x1?fields=title", method: "GET" })
      .reply(422, { error: { code: "INVALID_FORMAT", message: "bad", details: [{ field: "fields" }] } });
    const err = (await client()
      .getLivestream("x1", ["title"])
      .catch((e: unknown) => e)) as PlatformError;
    expect(err.code).toBe("INVALID_FORMAT");
    expect(err.details).toBeNull();
  });
});

describe("writes whose outcome is unknown", () => {
  const hook = "https://a.example/h";
  const readBack = (webhook: Record<string, unknown>, times = 1) =>
    apiPool()
      .intercept({ path: "/v2/profiles/p1?fields=webhook", method: "GET" })
      .reply(200, { webhook })
      .times(times);

  it("a PATCH that lost its connection but shows in the read-back is a success", async () => {
    tokenOk();
    apiPool()
      .intercept({ path: "/v2/profiles/p1", method: "PATCH" })
      .replyWithError(new Error("socket hang up"));
    readBack({ callback_url: hook, events: ["video.created"] });
    const w = await client().setWebhook("p1", { callback_url: hook, events: ["video.created"] });
    expect(w).toEqual({ callback_url: hook, events: ["video.created"] });
    mock.assertNoPendingInterceptors();
  });

  it("a PATCH that lost its connection and does not show is not_confirmed, may or may not", async () => {
    tokenOk();
    apiPool()
      .intercept({ path: "/v2/profiles/p1", method: "PATCH" })
      .replyWithError(new Error("socket hang up"));
    readBack({ callback_url: null, events: null }, 3);
    const err = (await client()
      .setWebhook("p1", { callback_url: hook, events: ["video.created"] })
      .catch((e: unknown) => e)) as PlatformError;
    expect(err.kind).toBe("not_confirmed");
    expect(err.message).toMatch(/may or may not have been applied/);
    expect(err.cause).toBeInstanceOf(PlatformError);
    expect((err.cause as PlatformError).kind).toBe("network");
    expect(err.details).toMatchObject({ write_error: "NETWORK_ERROR" });
    expect(slept).toEqual([10, 10]);
    mock.assertNoPendingInterceptors();
  });

  it("a read-back that fails after an accepted PATCH is not_confirmed, keeping the cause", async () => {
    tokenOk();
    apiPool().intercept({ path: "/v2/profiles/p1", method: "PATCH" }).reply(204, "");
    apiPool()
      .intercept({ path: "/v2/profiles/p1?fields=webhook", method: "GET" })
      .reply(404, { error: { code: "RESOURCE_NOT_FOUND", message: "gone", documentation_url: "d" } });
    const err = (await client()
      .setWebhook("p1", { callback_url: hook, events: ["video.created"] })
      .catch((e: unknown) => e)) as PlatformError;
    expect(err.kind).toBe("not_confirmed");
    expect(err.message).toMatch(/accepted the change/);
    expect((err.cause as PlatformError).status).toBe(404);
    expect(err.details).toMatchObject({ read_error: "RESOURCE_NOT_FOUND" });
  });

  it("a clean HTTP refusal of the PATCH is reported as it is, without a read-back", async () => {
    tokenOk();
    apiPool()
      .intercept({ path: "/v2/profiles/p1", method: "PATCH" })
      .reply(422, { error: { code: "INVALID_FORMAT", message: "m", documentation_url: "d" } });
    const err = (await client()
      .setWebhook("p1", { callback_url: hook, events: ["video.created"] })
      .catch((e: unknown) => e)) as PlatformError;
    expect(err).toMatchObject({ kind: "http", status: 422 });
    mock.assertNoPendingInterceptors();
  });
});

describe("callback URL normalization", () => {
  it("sends new URL(url).href and confirms a read-back that differs only in form", async () => {
    tokenOk();
    let sent: unknown;
    apiPool()
      .intercept({ path: "/v2/profiles/p1", method: "PATCH" })
      .reply((opts) => {
        sent = JSON.parse(String(opts.body));
        return { statusCode: 204, data: "" };
      });
    apiPool()
      .intercept({ path: "/v2/profiles/p1?fields=webhook", method: "GET" })
      .reply(200, { webhook: { callback_url: "https://A.EXAMPLE:443/h", events: ["video.created"] } });
    const w = await client().setWebhook("p1", {
      callback_url: "HTTPS://A.Example/h",
      events: ["video.created"],
    });
    expect(sent).toEqual({ webhook: { callback_url: "https://a.example/h", events: ["video.created"] } });
    expect(w.callback_url).toBe("https://A.EXAMPLE:443/h");
  });

  it("compares a read-back URL that does not parse as a plain string", async () => {
    tokenOk();
    apiPool().intercept({ path: "/v2/profiles/p1", method: "PATCH" }).reply(204, "");
    apiPool()
      .intercept({ path: "/v2/profiles/p1?fields=webhook", method: "GET" })
      .reply(200, { webhook: { callback_url: "not a url", events: ["video.created"] } })
      .times(3);
    const err = (await client()
      .setWebhook("p1", { callback_url: "https://a.example/h", events: ["video.created"] })
      .catch((e: unknown) => e)) as PlatformError;
    expect(err.kind).toBe("not_confirmed");
  });
});

describe("partial webhook state (table 3.3, row 2)", () => {
  const hook = "https://a.example/h";

  it("changes the events when the callback URL is present, even with no events", async () => {
    tokenOk();
    apiPool()
      .intercept({ path: "/v2/profiles/p1?fields=webhook", method: "GET" })
      .reply(200, { webhook: { callback_url: hook, events: null } });
    apiPool().intercept({ path: "/v2/profiles/p1", method: "PATCH" }).reply(204, "");
    apiPool()
      .intercept({ path: "/v2/profiles/p1?fields=webhook", method: "GET" })
      .reply(200, { webhook: { callback_url: hook, events: ["video.created"] } });
    const w = await client().updateWebhookEvents("p1", ["video.created"]);
    expect(w).toEqual({ callback_url: hook, events: ["video.created"] });
    mock.assertNoPendingInterceptors();
  });

  it("refuses to change the URL alone when the events are missing", async () => {
    tokenOk();
    apiPool()
      .intercept({ path: "/v2/profiles/p1?fields=webhook", method: "GET" })
      .reply(200, { webhook: { callback_url: hook, events: null } });
    const err = (await client()
      .updateWebhookUrl("p1", "https://b.example/h")
      .catch((e: unknown) => e)) as PlatformError;
    expect(err).toMatchObject({ kind: "invalid_request", code: "MISSING_REQUIRED_VALUE" });
    expect(err.field).toBe("webhook.events");
    expect(err.details).toMatchObject({ state: "partial" });
  });
});
