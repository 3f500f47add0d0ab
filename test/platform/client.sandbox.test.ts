/**
 * The platform client against the in-repo sandbox over real HTTP on 127.0.0.1: every rule of the
 * client (tokens, sparse fields, webhook rules and state table, errors, retries, timeouts).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../src/log.js";
import { ApiTransport } from "../../src/platform/api.js";
import { TokenProvider } from "../../src/platform/auth.js";
import { createPlatformAgent } from "../../src/platform/http.js";
import {
  PlatformClient,
  type PlatformClientOptions,
  PlatformError,
  ProfileSchema,
  WEBHOOK_EVENTS,
} from "../../src/platform/index.js";
import { type Sandbox, SEED, startSandbox } from "../../src/sandbox/server.js";

const TIMEOUTS = { connectMs: 2000, headersMs: 2000, bodyMs: 2000 };
let sb: Sandbox;
const clients: PlatformClient[] = [];
let slept: number[] = [];

function client(extra: Partial<PlatformClientOptions> = {}, target: Sandbox = sb): PlatformClient {
  const c = new PlatformClient({
    apiUrl: target.apiUrl,
    authUrl: target.url,
    clientId: target.clientId,
    clientSecret: target.clientSecret,
    scopes: ["live.read", "profile.manage"],
    timeouts: TIMEOUTS,
    logger: silentLogger(),
    sleep: async (ms) => {
      slept.push(ms);
    },
    confirmDelayMs: 1,
    ...extra,
  });
  clients.push(c);
  return c;
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

beforeAll(async () => {
  sb = await startSandbox();
});
afterAll(async () => {
  await sb.close();
});
beforeEach(() => {
  sb.reset();
  slept = [];
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

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
