/**
 * The platform client against the in-repo sandbox over real HTTP on 127.0.0.1: every rule of the
 * client (tokens, sparse fields, webhook rules and state table, errors, retries, timeouts).
 */

import { describe, expect, it } from "vitest";
import { type Sandbox, SEED, startSandbox } from "../../fakes/platform/server.js";
import { WEBHOOK_EVENTS } from "../../src/domain/index.js";
import { silentLogger } from "../../src/log.js";
import { ApiTransport } from "../../src/platform/api.js";
import { TokenProvider } from "../../src/platform/auth.js";
import { createPlatformAgent } from "../../src/platform/http.js";
import {
  type PlatformClient,
  type PlatformClientOptions,
  PlatformError,
  ProfileSchema,
} from "../../src/platform/index.js";
import { sandboxClients, TIMEOUTS } from "./sandbox-clients.js";

let sb: Sandbox;
let slept: number[] = [];
const sandbox = sandboxClients({
  started: (s) => {
    sb = s;
  },
  reset: () => {
    slept = [];
  },
});

function client(extra: Partial<PlatformClientOptions> = {}, target: Sandbox = sb): PlatformClient {
  return sandbox.client(target, ["live.read", "profile.manage"], {
    sleep: async (ms) => {
      slept.push(ms);
    },
    confirmDelayMs: 1,
    ...extra,
  });
}

async function failure(p: Promise<unknown>): Promise<PlatformError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(PlatformError);
  return err as PlatformError;
}

const patches = () => sb.requests.filter((r) => r.method === "PATCH").length;
const apiCalls = () => sb.requests.filter((r) => r.path.startsWith("/v2/") && r.path !== "/v2/token").length;

describe("tokens", () => {
  it("1,000 concurrent calls cause exactly one token request", async () => {
    const c = client();
    const results = await Promise.all(
      Array.from({ length: 1000 }, () => c.getLivestream(SEED.livestreams.onAirAdBreak, ["status.onair"])),
    );
    expect(results.every((r) => r.status?.onair === true)).toBe(true);
    expect(sb.stats().tokenRequests).toBe(1);
    expect(c.tokens.stats.requests).toBe(1);
  });

  it("accepts a granted bundle scope different from the requested one", async () => {
    const bundled = await startSandbox({ grantScope: () => "bundle.publisher" });
    try {
      const c = client({}, bundled);
      const ls = await c.getLivestream(SEED.livestreams.offAir, ["title"]);
      expect(ls.title).toBeTruthy();
      expect(c.tokens.grantedScopes).toEqual(["bundle.publisher"]);
    } finally {
      await bundled.close();
    }
  });

  it("on an expired token gets a fresh one and retries the request once", async () => {
    const c = client();
    await c.getLivestream(SEED.livestreams.offAir, ["title"]);
    sb.expireAllTokens();
    const ls = await c.getLivestream(SEED.livestreams.offAir, ["title"]);
    expect(ls.title).toBeTruthy();
    expect(sb.stats().tokenRequests).toBe(2);
    expect(sb.requests.filter((r) => r.status === 401)).toHaveLength(1);
  });

  it("a burst of 401s for one token causes one refresh", async () => {
    const c = client();
    await c.getLivestream(SEED.livestreams.offAir, ["title"]);
    sb.revokeAllTokens();
    await Promise.all(Array.from({ length: 50 }, () => c.getLivestream(SEED.livestreams.offAir, ["title"])));
    expect(sb.stats().tokenRequests).toBe(2);
  });

  it("reports wrong credentials as a token error without retrying", async () => {
    const c = client({ clientSecret: "wrong-secret" });
    const err = await failure(c.getLivestream(SEED.livestreams.offAir, ["title"]));
    expect(err.kind).toBe("token");
    expect(err.code).toBe("invalid_client");
    expect(sb.stats().tokenRequests).toBe(1);
    expect(apiCalls()).toBe(0);
  });

  it("reports a token service that is down as transient", async () => {
    sb.addFault({ path: "/v2/token", status: 503 });
    const err = await failure(client().getLivestream(SEED.livestreams.offAir, ["title"]));
    expect(err.kind).toBe("token");
    expect(err.status).toBe(503);
    expect(err.transient).toBe(true);
  });
});

describe("getLivestream", () => {
  it("sends the sparse fields list and gets exactly those fields", async () => {
    const ls = await client().getLivestream(SEED.livestreams.onAirAdBreak, [
      "title",
      "status.onair",
      "advertising.remaining",
      "advertising.end_at",
    ]);
    expect(Object.keys(ls).sort()).toEqual(["advertising", "status", "title"]);
    expect(ls.status).toEqual({ onair: true });
    expect(ls.advertising?.remaining).toBe(17);
    expect(ls.advertising?.end_at).toBeTruthy();
    const req = sb.requests.find((r) => r.path === `/v2/livestreams/${SEED.livestreams.onAirAdBreak}`);
    expect(req?.query.fields).toBe("title,status.onair,advertising.remaining,advertising.end_at");
  });

  it("gets only h1080_url for a bare thumbnail field", async () => {
    const ls = await client().getLivestream(SEED.livestreams.onAirAdBreak, ["thumbnail"]);
    expect(Object.keys(ls.thumbnail ?? {})).toEqual(["h1080_url"]);
  });

  it("parses every field of every seeded livestream", async () => {
    const all = Object.keys((await import("../../src/platform/schemas.js")).LIVESTREAM_FIELDS);
    for (const id of Object.values(SEED.livestreams)) {
      const ls = await client().getLivestream(id, all);
      expect(ls.livestream_id).toBe(id);
    }
  });

  it("gets ingest addresses only for a livestream of an owned profile", async () => {
    const c = client();
    const own = await c.getLivestream(SEED.livestreams.onAirAdBreak, ["ingest"]);
    expect(own.ingest?.rtmp_url).toContain(SEED.streamKey);
    const foreign = await c.getLivestream(SEED.livestreams.foreign, ["ingest", "title"]);
    expect(foreign.ingest).toBeUndefined();
    expect(foreign.title).toBeTruthy();
  });

  it("refuses unknown field names and bad dot notation before sending", async () => {
    const c = client();
    for (const fields of [["titel"], ["status.nope"], ["title.sub"], ["status.onair.x"], [" "]]) {
      const err = await failure(c.getLivestream(SEED.livestreams.onAirAdBreak, fields));
      expect(err.kind).toBe("invalid_request");
    }
    const err = await failure(c.getLivestream(SEED.livestreams.onAirAdBreak, ["titel", "title"]));
    expect(err.invalidValues).toEqual(["titel"]);
    expect(err.allowedValues).toContain("advertising.end_at");
    expect(sb.requests).toHaveLength(0);
  });

  it("turns a 404 into a typed error with the envelope's fields", async () => {
    const err = await failure(client().getLivestream("x0missing", ["title"]));
    expect(err).toMatchObject({ kind: "http", status: 404, code: "RESOURCE_NOT_FOUND" });
    expect(err.correlationId).toMatch(/\S+/);
    expect(err.documentationUrl).toMatch(/^https:\/\//);
    expect(err.details).toMatchObject({ object_id: "x0missing", object_type: "livestream" });
    expect(err.transient).toBe(false);
  });

  it("keeps required and missing permissions of a 403", async () => {
    const reader = client({
      clientId: SEED.clients.reader.clientId,
      clientSecret: SEED.clients.reader.clientSecret,
    });
    const err = await failure(
      reader.setWebhook(SEED.profiles.newsroom, {
        callback_url: "https://bot.example.com/h",
        events: ["video.created"],
      }),
    );
    expect(err.status).toBe(403);
    expect(err.code).toBe("MISSING_PERMISSIONS");
    expect(err.missingPermissions.length).toBeGreaterThan(0);
    expect(err.requiredPermissions.length).toBeGreaterThan(0);
  });
});

describe("retries and timeouts", () => {
  it("retries a GET after 429, honouring Retry-After", async () => {
    sb.addFault({ path: "/v2/livestreams", status: 429, retryAfterSeconds: 2, times: 1 });
    const ls = await client().getLivestream(SEED.livestreams.offAir, ["title"]);
    expect(ls.title).toBeTruthy();
    expect(slept).toEqual([2000]);
  });

  it("retries a GET on 5xx with backoff, and reports the third failure", async () => {
    sb.addFault({ path: "/v2/livestreams", status: 502, times: 2 });
    expect((await client().getLivestream(SEED.livestreams.offAir, ["title"])).title).toBeTruthy();
    expect(slept).toHaveLength(2);
    expect(slept[1] ?? 0).toBeGreaterThan(slept[0] ?? 0);

    sb.addFault({ path: "/v2/livestreams", status: 503 });
    const err = await failure(client().getLivestream(SEED.livestreams.offAir, ["title"]));
    expect(err.status).toBe(503);
    expect(sb.requests.filter((r) => r.status === 503)).toHaveLength(3);
  });

  it("never retries a PATCH on 5xx", async () => {
    sb.addFault({ method: "PATCH", path: "/v2/profiles", status: 503 });
    const err = await failure(
      client().setWebhook(SEED.profiles.newsroom, {
        callback_url: "https://bot.example.com/h",
        events: ["video.created"],
      }),
    );
    expect(err.status).toBe(503);
    expect(patches()).toBe(1);
  });

  it("times out waiting for headers, names the phase, and retries a GET", async () => {
    sb.addFault({ path: "/v2/livestreams", latencyMs: 1500, times: 3 });
    const c = client({ timeouts: { connectMs: 1000, headersMs: 300, bodyMs: 300 } });
    const err = await failure(c.getLivestream(SEED.livestreams.offAir, ["title"]));
    expect(err.kind).toBe("timeout");
    expect(err.phase).toBe("headers");
    expect(err.transient).toBe(true);
  });

  it("reports a dropped connection as a network error after the retries", async () => {
    sb.addFault({ path: "/v2/livestreams", dropConnection: true });
    const err = await failure(client().getLivestream(SEED.livestreams.offAir, ["title"]));
    expect(err.kind).toBe("network");
    expect(slept).toHaveLength(2);
  });

  it("reports a connection refused as a network error", async () => {
    const gone = await startSandbox();
    await gone.close();
    const err = await failure(client({}, gone).getLivestream(SEED.livestreams.offAir, ["title"]));
    expect(["network", "token"]).toContain(err.kind);
    expect(err.message).toMatch(/ECONNREFUSED|reach/);
  });

  it.each([
    ["schema-mismatch", /livestream\.(title|status)/],
    ["invalid-json", /not JSON/],
    ["html", /not JSON/],
  ] as const)("turns a %s body into an invalid_response error", async (body, message) => {
    sb.addFault({ path: "/v2/livestreams", body });
    const err = await failure(client().getLivestream(SEED.livestreams.offAir, ["title", "status"]));
    expect(err.kind).toBe("invalid_response");
    expect(err.message).toMatch(message);
  });
});

describe("gateway answers (sandbox faults)", () => {
  const get = (c: PlatformClient) => c.getLivestream(SEED.livestreams.offAir, ["title"]);
  const fixed = { random: () => 0.5 };

  it("honours an HTTP-date Retry-After", async () => {
    const at = new Date(Date.now() + 5000).toUTCString();
    sb.addFault({
      path: "/v2/livestreams",
      status: 429,
      retryAfterHeader: at,
      detailsRetryAfter: null,
      times: 1,
    });
    expect((await get(client(fixed))).title).toBeTruthy();
    expect(slept).toHaveLength(1);
    expect(slept[0]).toBeGreaterThanOrEqual(3000);
    expect(slept[0]).toBeLessThanOrEqual(5000);
  });

  it("honours a Retry-After header without details", async () => {
    sb.addFault({
      path: "/v2/livestreams",
      status: 429,
      retryAfterSeconds: 3,
      detailsRetryAfter: null,
      times: 1,
    });
    expect((await get(client(fixed))).title).toBeTruthy();
    expect(slept).toEqual([3000]);
  });

  it("honours details.retry_after_seconds without a header", async () => {
    sb.addFault({
      path: "/v2/livestreams",
      status: 429,
      retryAfterHeader: null,
      detailsRetryAfter: 2,
      times: 1,
    });
    expect((await get(client(fixed))).title).toBeTruthy();
    expect(slept).toEqual([2000]);
  });

  it("falls back to the backoff when neither says when to retry", async () => {
    sb.addFault({
      path: "/v2/livestreams",
      status: 429,
      retryAfterHeader: null,
      detailsRetryAfter: null,
      times: 2,
    });
    expect((await get(client(fixed))).title).toBeTruthy();
    expect(slept).toEqual([150, 300]);
  });

  it("reads Retry-After from a bare 429 without a body, and reports a long one at once", async () => {
    sb.addFault({ path: "/v2/livestreams", status: 429, envelope: false, retryAfterSeconds: 1, times: 1 });
    expect((await get(client(fixed))).title).toBeTruthy();
    expect(slept).toEqual([1000]);
    slept = [];
    sb.addFault({ path: "/v2/livestreams", status: 429, envelope: "html", retryAfterSeconds: 60 });
    const err = await failure(get(client({ ...fixed, maxRetryAfterMs: 10_000 })));
    expect(err).toMatchObject({
      kind: "http",
      status: 429,
      code: "TOO_MANY_REQUESTS",
      retryAfterSeconds: 60,
    });
    expect(slept).toEqual([]);
  });

  it.each([false, "html"] as const)("turns a 502 with envelope %j into a typed error", async (envelope) => {
    sb.addFault({ path: "/v2/livestreams", status: 502, envelope });
    const err = await failure(get(client(fixed)));
    expect(err).toMatchObject({ kind: "http", status: 502, code: "HTTP_502" });
    expect(err.message).toMatch(/without an error body/);
    expect(err.correlationId).toBeNull();
    expect(slept).toEqual([150, 300]);
  });
});

describe("slow bodies and deadlines", () => {
  it("a body that stalls longer than bodyMs is a body timeout", async () => {
    // undici's body timer has a resolution of about a second: the gap is well beyond it.
    sb.addFault({ path: "/v2/livestreams", slowBody: { chunks: 2, intervalMs: 3000 } });
    const c = client({
      timeouts: { connectMs: 1000, headersMs: 1000, bodyMs: 300, totalMs: 10_000 },
      maxAttempts: 1,
    });
    const err = await failure(c.getLivestream(SEED.livestreams.offAir, ["title"]));
    expect(err).toMatchObject({ kind: "timeout", code: "TIMEOUT", phase: "body" });
  });

  it("a body that trickles within bodyMs still ends at the per-attempt deadline", async () => {
    sb.addFault({ path: "/v2/livestreams", slowBody: { chunks: 20, intervalMs: 100 } });
    const c = client({
      timeouts: { connectMs: 1000, headersMs: 1000, bodyMs: 500, totalMs: 600 },
      maxAttempts: 1,
    });
    const started = performance.now();
    const err = await failure(c.getLivestream(SEED.livestreams.offAir, ["title"]));
    expect(err).toMatchObject({ kind: "timeout", code: "TIMEOUT", phase: "total" });
    expect(err.message).toMatch(/within 600 ms/);
    expect(err.transient).toBe(true);
    expect(performance.now() - started).toBeLessThan(1500);
  });

  it("the default deadline is connect + headers + body", async () => {
    sb.addFault({ path: "/v2/livestreams", slowBody: { chunks: 30, intervalMs: 100 } });
    const c = client({ timeouts: { connectMs: 100, headersMs: 300, bodyMs: 300 }, maxAttempts: 1 });
    const err = await failure(c.getLivestream(SEED.livestreams.offAir, ["title"]));
    expect(err).toMatchObject({ kind: "timeout", phase: "total" });
    expect(err.message).toMatch(/within 700 ms/);
  });

  it("a slow body within the limits is read whole", async () => {
    sb.addFault({ path: "/v2/livestreams", slowBody: { chunks: 3, intervalMs: 50 } });
    expect((await client().getLivestream(SEED.livestreams.offAir, ["title"])).title).toBeTruthy();
  });
});

describe("cancellation by the caller", () => {
  it("AbortSignal.timeout() is an ABORTED, non-transient error, never retried", async () => {
    sb.addFault({ path: "/v2/livestreams", latencyMs: 1000 });
    const c = client();
    await c.checkToken();
    const err = await failure(
      c.getLivestream(SEED.livestreams.offAir, ["title"], { signal: AbortSignal.timeout(100) }),
    );
    expect(err).toMatchObject({ kind: "timeout", code: "ABORTED" });
    expect(typeof err.code).toBe("string");
    expect(err.transient).toBe(false);
    expect(slept).toEqual([]);
    expect(apiCalls()).toBe(1);
  });

  it("an AbortController abort is ABORTED and not transient", async () => {
    sb.addFault({ path: "/v2/livestreams", latencyMs: 1000 });
    const c = client();
    await c.checkToken();
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    const err = await failure(c.getLivestream(SEED.livestreams.offAir, ["title"], { signal: ac.signal }));
    expect(err).toMatchObject({ kind: "timeout", code: "ABORTED", transient: false });
    expect(apiCalls()).toBe(1);
  });

  it("an already aborted signal sends nothing", async () => {
    const c = client();
    await c.checkToken();
    const err = await failure(
      c.getLivestream(SEED.livestreams.offAir, ["title"], { signal: AbortSignal.abort() }),
    );
    expect(err.code).toBe("ABORTED");
    expect(apiCalls()).toBe(0);
  });
});

describe("writes without a clean answer", () => {
  const hook = "https://bot.example.com/hooks/platform/abc";

  it("a PATCH whose answer stalls after it was applied is confirmed by the read-back", async () => {
    sb.addFault({
      method: "PATCH",
      path: "/v2/profiles",
      slowBody: { chunks: 2, intervalMs: 5000 },
      times: 1,
    });
    const c = client({ timeouts: { connectMs: 1000, headersMs: 1000, bodyMs: 1000, totalMs: 400 } });
    const w = await c.setWebhook(SEED.profiles.newsroom, { callback_url: hook, events: ["video.created"] });
    expect(w).toEqual({ callback_url: hook, events: ["video.created"] });
    expect(patches()).toBe(1);
  });

  it("a PATCH whose connection dropped and that does not show is not_confirmed", async () => {
    sb.addFault({ method: "PATCH", path: "/v2/profiles", dropConnection: true, times: 1 });
    const err = await failure(
      client().setWebhook(SEED.profiles.newsroom, { callback_url: hook, events: ["video.created"] }),
    );
    expect(err.kind).toBe("not_confirmed");
    expect(err.message).toMatch(/may or may not have been applied/);
    expect((err.cause as PlatformError).kind).toBe("network");
    expect(patches()).toBe(1);
    expect(sb.requests.filter((r) => r.method === "GET").length).toBe(3);
  });

  it("a read-back that fails after an accepted PATCH is not_confirmed with its cause", async () => {
    sb.addFault({ method: "GET", path: "/v2/profiles", status: 503, envelope: false });
    const err = await failure(
      client({ random: () => 0.5 }).setWebhook(SEED.profiles.newsroom, {
        callback_url: hook,
        events: ["video.created"],
      }),
    );
    expect(err.kind).toBe("not_confirmed");
    expect(err.message).toMatch(/accepted the change/);
    expect((err.cause as PlatformError).status).toBe(503);
    expect(sb.state.profiles.get(SEED.profiles.newsroom)?.webhook.callback_url).toBe(hook);
  });
});

describe("read-back over HTTP", () => {
  const hook = "https://bot.example.com/hooks/platform/abc";

  it("re-reads stale read-backs until the change shows (staleReads: 2)", async () => {
    const stale = await startSandbox({ staleReads: 2 });
    try {
      const w = await client({}, stale).setWebhook(SEED.profiles.newsroom, {
        callback_url: hook,
        events: ["video.created"],
      });
      expect(w).toEqual({ callback_url: hook, events: ["video.created"] });
      expect(stale.requests.filter((r) => r.method === "GET").length).toBe(3);
      expect(slept).toEqual([1, 1]);
    } finally {
      await stale.close();
    }
  });

  it("reports not_confirmed when the read-backs stay stale (staleReads: 3), then the change shows", async () => {
    const stale = await startSandbox({ staleReads: 3 });
    try {
      const c = client({}, stale);
      const err = await failure(c.updateWebhookEvents(SEED.profiles.studio, ["video.format.ready"]));
      expect(err.kind).toBe("not_confirmed");
      expect(err.message).toMatch(/accepted the change/);
      expect((await c.getProfileWebhook(SEED.profiles.studio)).events).toEqual(["video.format.ready"]);
    } finally {
      await stale.close();
    }
  });

  it("confirms a URL the platform stores normalized (trailing slash, lower-case host)", async () => {
    const norm = await startSandbox({ normalizeUrls: true });
    try {
      const c = client({}, norm);
      const w = await c.setWebhook(SEED.profiles.newsroom, {
        callback_url: "https://Bot.Example.com",
        events: ["video.created"],
      });
      expect(w.callback_url).toBe("https://bot.example.com/");
      const u = await c.updateWebhookUrl(SEED.profiles.newsroom, "https://OTHER.example.com");
      expect(u.callback_url).toBe("https://other.example.com/");
    } finally {
      await norm.close();
    }
  });
});

describe("webhook", () => {
  const hook = "https://bot.example.com/hooks/platform/abc";

  it.each(["profile", "empty-200", "no-content"] as const)(
    "sets a new webhook and confirms it by reading back (PATCH answers %s)",
    async (patchResponse) => {
      const own = await startSandbox({ patchResponse });
      try {
        const c = client({}, own);
        expect(await c.getProfileWebhook(SEED.profiles.newsroom)).toEqual({
          callback_url: null,
          events: null,
        });
        const w = await c.setWebhook(SEED.profiles.newsroom, {
          callback_url: hook,
          events: ["video.created", "video.created", "video.complete"],
        });
        expect(w).toEqual({ callback_url: hook, events: ["video.created", "video.complete"] });
        expect(own.state.profiles.get(SEED.profiles.newsroom)?.webhook.callback_url).toBe(hook);
      } finally {
        await own.close();
      }
    },
  );

  it("refuses an HTTP callback, unknown events and no events before any request", async () => {
    const c = client();
    const http = await failure(
      c.setWebhook(SEED.profiles.newsroom, { callback_url: "http://x.example/h", events: ["video.created"] }),
    );
    expect(http).toMatchObject({
      kind: "invalid_request",
      code: "INVALID_FORMAT",
      field: "webhook.callback_url",
    });
    const bad = await failure(
      c.setWebhook(SEED.profiles.newsroom, {
        callback_url: hook,
        events: ["video.created", "video.exploded"],
      }),
    );
    expect(bad).toMatchObject({ kind: "invalid_request", code: "INVALID_ENUM_VALUE" });
    expect(bad.invalidValues).toEqual(["video.exploded"]);
    expect(bad.allowedValues).toEqual([...WEBHOOK_EVENTS]);
    const none = await failure(c.setWebhook(SEED.profiles.newsroom, { callback_url: hook, events: [] }));
    expect(none.code).toBe("MISSING_REQUIRED_VALUE");
    expect(sb.requests).toHaveLength(0);
  });

  it("refuses a partial update while no complete webhook exists (state table, last row)", async () => {
    const c = client();
    const err = await failure(c.updateWebhookEvents(SEED.profiles.newsroom, ["video.deleted"]));
    expect(err).toMatchObject({ kind: "invalid_request", code: "MISSING_REQUIRED_VALUE" });
    const err2 = await failure(c.updateWebhookUrl(SEED.profiles.newsroom, hook));
    expect(err2.code).toBe("MISSING_REQUIRED_VALUE");
    expect(patches()).toBe(0);
  });

  it("changes only the events of a configured webhook", async () => {
    const w = await client().updateWebhookEvents(SEED.profiles.studio, ["video.format.error"]);
    expect(w).toEqual({ callback_url: SEED.studioWebhook.callback_url, events: ["video.format.error"] });
  });

  it("changes only the URL of a configured webhook", async () => {
    const w = await client().updateWebhookUrl(SEED.profiles.studio, hook);
    expect(w.callback_url).toBe(hook);
    expect(w.events).toEqual([...SEED.studioWebhook.events]);
  });

  it("removes a webhook (both null) and treats removing none as done without a PATCH", async () => {
    const c = client();
    expect(await c.removeWebhook(SEED.profiles.studio)).toEqual({ callback_url: null, events: null });
    expect(patches()).toBe(1);
    expect(await c.removeWebhook(SEED.profiles.studio)).toEqual({ callback_url: null, events: null });
    expect(patches()).toBe(1);
  });

  it("answers 404 for a profile that does not exist or is not visible", async () => {
    const err = await failure(client().getProfileWebhook(SEED.profiles.foreign));
    expect(err.status).toBe(404);
    expect(err.code).toBe("RESOURCE_NOT_FOUND");
  });

  it("keeps the details of the platform's 422 INVALID_FORMAT and INVALID_ENUM_VALUE", async () => {
    // Bypass the client's own checks to see what the platform says.
    const agent = createPlatformAgent(TIMEOUTS);
    const logger = silentLogger();
    const tokens = new TokenProvider({
      authUrl: sb.url,
      clientId: sb.clientId,
      clientSecret: sb.clientSecret,
      scopes: ["profile.manage"],
      dispatcher: agent,
      timeouts: TIMEOUTS,
      logger,
    });
    const api = new ApiTransport({
      apiUrl: sb.apiUrl,
      tokens,
      dispatcher: agent,
      timeouts: TIMEOUTS,
      logger,
    });
    try {
      const path = `/profiles/${SEED.profiles.newsroom}`;
      const fmt = await failure(
        api.call("PATCH", path, {
          operation: "t",
          schema: ProfileSchema,
          body: { webhook: { callback_url: "http://x.example/h", events: ["video.created"] } },
        }),
      );
      expect(fmt).toMatchObject({ status: 422, code: "INVALID_FORMAT", field: "webhook.callback_url" });
      expect(fmt.details).toMatchObject({ provided: "http://x.example/h" });
      const en = await failure(
        api.call("PATCH", path, {
          operation: "t",
          schema: ProfileSchema,
          body: { webhook: { callback_url: hook, events: ["video.nope"] } },
        }),
      );
      expect(en).toMatchObject({ status: 422, code: "INVALID_ENUM_VALUE", field: "webhook.events" });
      expect(en.invalidValues).toEqual(["video.nope"]);
      expect(en.allowedValues.length).toBeGreaterThan(0);
    } finally {
      await agent.close();
    }
  });
});
