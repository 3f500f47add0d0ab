/**
 * The reads that name things, against the sandbox over real HTTP: `getVideo`, `getMe` and
 * `getProfile`, through the same transport as every other read (token refresh, retries, error
 * mapping, metrics observation), each answer checked with zod.
 */
import { describe, expect, it } from "vitest";
import { type Sandbox, SEED } from "../../fakes/platform/server.js";
import {
  type PlatformClient,
  type PlatformClientOptions,
  PlatformError,
  type RequestObservation,
} from "../../src/platform/index.js";
import { sandboxClients } from "./sandbox-clients.js";

const V = SEED.videos;
let sb: Sandbox;
let slept: number[] = [];
let seen: RequestObservation[] = [];
const sandbox = sandboxClients({
  started: (s) => {
    sb = s;
  },
  reset: () => {
    slept = [];
    seen = [];
  },
});

function client(extra: Partial<PlatformClientOptions> = {}): PlatformClient {
  return sandbox.client(sb, ["live.read", "profile.manage", "video.read"], {
    sleep: async (ms) => {
      slept.push(ms);
    },
    onRequest: (o) => seen.push(o),
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

const gets = (prefix: string) => sb.requests.filter((r) => r.method === "GET" && r.path.startsWith(prefix));

describe("getVideo", () => {
  it("sends one sparse GET and answers its fields, observed as getVideo", async () => {
    const c = client();
    expect(await c.getVideo(V.published, ["title"])).toEqual({ title: SEED.videoTitles.published });
    expect(gets("/v2/videos/").map((r) => `${r.path}?fields=${r.query.fields}`)).toEqual([
      `/v2/videos/${V.published}?fields=title`,
    ]);
    expect(seen.filter((o) => o.operation === "getVideo")).toMatchObject([
      { method: "GET", status: 200, attempt: 1 },
    ]);
    const full = await c.getVideo(V.studio, [
      "video_id",
      "status",
      "created_at",
      "video_url",
      "profile.name",
      "thumbnail",
    ]);
    expect(full).toMatchObject({
      video_id: V.studio,
      status: "published",
      video_url: `https://www.example-video.com/video/${V.studio}`,
      profile: { name: "northwind-studio" },
      thumbnail: { h1080_url: expect.stringContaining(V.studio) },
    });
  });

  it("a title that is not a string reads as absent; the answer is not refused", async () => {
    sb.addFault({ path: "/v2/videos", body: "schema-mismatch", times: 1 });
    const v = await client().getVideo(V.published, ["video_id", "title", "status", "created_at"]);
    expect(v).toEqual({ video_id: V.published });
  });

  it("an answer that is not a JSON object is an invalid_response", async () => {
    sb.addFault({ path: "/v2/videos", body: "html", times: 1 });
    const err = await failure(client().getVideo(V.published, ["title"]));
    expect(err.kind).toBe("invalid_response");
  });

  it("404, 403 and 5xx are mapped like every read: 5xx retried, 4xx not", async () => {
    const c = client();
    const missing = await failure(c.getVideo("x0nothere", ["title"]));
    expect(missing).toMatchObject({ kind: "http", status: 404, code: "RESOURCE_NOT_FOUND" });
    expect(missing.correlationId).toMatch(/\S/);
    sb.addFault({ path: "/v2/videos", status: 503, times: 2 });
    expect(await c.getVideo(V.published, ["title"])).toEqual({ title: SEED.videoTitles.published });
    expect(seen.filter((o) => o.operation === "getVideo").map((o) => o.status)).toEqual([404, 503, 503, 200]);
    expect(slept).toHaveLength(2);
    const noScope = client({ scopes: ["live.read", "profile.manage"] });
    const forbidden = await failure(noScope.getVideo(V.published, ["title"]));
    expect(forbidden).toMatchObject({ kind: "http", status: 403, code: "MISSING_PERMISSIONS" });
    expect(forbidden.missingPermissions).toEqual(["video.read"]);
  });

  it("gets a fresh token after a 401 and sends the read once more", async () => {
    const c = client();
    await c.getVideo(V.published, ["title"]);
    sb.expireAllTokens();
    expect(await c.getVideo(V.published, ["title"])).toEqual({ title: SEED.videoTitles.published });
    expect(sb.stats().tokenRequests).toBe(2);
  });

  it("refuses a bad id and unknown fields before sending anything", async () => {
    const c = client();
    for (const id of ["../x8nw5fq", "x8nw5fq?fields=ingest", ""]) {
      expect((await failure(c.getVideo(id, ["title"]))).kind).toBe("invalid_request");
    }
    const err = await failure(c.getVideo(V.published, ["title", "owner", "profile.nope"]));
    expect(err.invalidValues).toEqual(["owner", "profile.nope"]);
    expect(err.message).toContain("Unknown video fields");
    expect(sb.requests).toHaveLength(0);
  });
});

describe("getMe", () => {
  it("answers the profiles the key manages", async () => {
    const me = await client().getMe();
    expect(me.user_id).toMatch(/^x/);
    expect(me.profiles).toEqual([
      { profile_id: SEED.profiles.newsroom, name: "northwind-news" },
      { profile_id: SEED.profiles.studio, name: "northwind-studio" },
    ]);
    expect(me.dropped).toBe(0);
    expect(seen.map((o) => o.operation)).toContain("getMe");
  });

  it("a key that manages nothing answers an empty list", async () => {
    const reader = client({
      clientId: SEED.clients.reader.clientId,
      clientSecret: SEED.clients.reader.clientSecret,
    });
    expect((await reader.getMe()).profiles).toEqual([]);
  });

  it("leaves out an entry whose profile_id is not a usable id, keeping the others", async () => {
    const newsroom = sb.state.profiles.get(SEED.profiles.newsroom);
    if (newsroom === undefined) throw new Error("seed");
    sb.state.profiles.set("../odd", { ...newsroom, profile_id: "../odd", name: "odd" });
    const me = await client().getMe();
    expect(me.profiles.map((p) => p.profile_id)).toEqual([SEED.profiles.newsroom, SEED.profiles.studio]);
    expect(me.dropped).toBe(1);
  });

  it("an answer without a profiles list is an invalid_response, never an empty list", async () => {
    sb.addFault({ path: "/v2/me", body: "schema-mismatch", times: 1 });
    const err = await failure(client().getMe());
    expect(err.kind).toBe("invalid_response");
    expect(err.message).toContain("me.profiles");
  });

  it("a failing platform is retried, then reported", async () => {
    sb.addFault({ path: "/v2/me", status: 502 });
    const err = await failure(client().getMe());
    expect(err).toMatchObject({ kind: "http", status: 502 });
    expect(gets("/v2/me")).toHaveLength(3);
  });
});

describe("getProfile", () => {
  it("reads name and display_name with one sparse GET", async () => {
    const c = client();
    expect(await c.getProfile(SEED.profiles.newsroom, ["name", "display_name"])).toEqual({
      name: "northwind-news",
      display_name: "Northwind News",
    });
    expect(gets("/v2/profiles/")[0]?.query).toEqual({ fields: "name,display_name" });
    expect(seen.map((o) => o.operation)).toEqual(["getProfile"]);
  });

  it("404 for a profile that is not visible; unknown fields refused before sending", async () => {
    const c = client();
    expect((await failure(c.getProfile(SEED.profiles.foreign, ["name"]))).status).toBe(404);
    expect((await failure(c.getProfile(SEED.profiles.newsroom, ["nickname"]))).kind).toBe("invalid_request");
    expect((await failure(c.getProfile("x/y", ["name"]))).kind).toBe("invalid_request");
    expect(gets("/v2/profiles/")).toHaveLength(1);
  });
});
