/**
 * `GET /v2/videos/{id}` of the sandbox ("Get a video", beyond our spec): sparse fields, 404 in the
 * error envelope, `video.read` enforced, faults, the seeded videos (the demo's included), the
 * videos a delivery adds, and the control endpoints that add, change and delete videos.
 */
import { beforeEach, describe, expect, it } from "vitest";
import { type Sandbox, SEED, startSandbox } from "../../fakes/platform/server.js";
import { api, at, call, expectEnvelope, keys, tokenFor } from "./helpers.js";
import { sandboxWithReceiver } from "./per-file.js";
import type { Receiver } from "./receiver.js";

const NOW = Date.parse("2025-03-01T10:00:00Z");
const V = SEED.videos;
let sb: Sandbox;
let rx: Receiver;
let owner: string;
sandboxWithReceiver(
  async (s, r) => {
    sb = s;
    rx = r;
    owner = await tokenFor(sb, "live.read profile.manage video.read");
  },
  { now: () => NOW },
);

const get = (id: string, fields?: string, token = owner) =>
  api(
    sb,
    "GET",
    `/videos/${id}${fields === undefined ? "" : `?fields=${encodeURIComponent(fields)}`}`,
    token,
  );
const control = (method: string, path: string, body?: unknown) =>
  call(method, `${sb.url}/_sandbox/${path}`, {
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe("GET /v2/videos/{id}", () => {
  it("answers exactly the requested fields, dot notation included", async () => {
    const r = await get(
      V.published,
      "video_id,title,status,created_at,video_url,thumbnail,profile.profile_id,profile.name",
    );
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toMatch(/^application\/json/);
    expect(r.json).toEqual({
      video_id: V.published,
      title: SEED.videoTitles.published,
      video_url: `https://www.example-video.com/video/${V.published}`,
      status: "published",
      profile: { profile_id: SEED.profiles.newsroom, name: "northwind-news" },
      thumbnail: { h1080_url: `https://s1.example-cdn.com/v/${V.published}/x1080` },
      created_at: "2025-03-01T08:00:00Z",
    });
  });

  it("answers only the title for fields=title (the bot's one read)", async () => {
    for (const [handle, id] of Object.entries(V)) {
      if (handle === "foreignPrivate") continue;
      const r = await get(id, "title");
      expect(r.status, handle).toBe(200);
      expect(r.json, handle).toEqual({ title: SEED.videoTitles[handle as keyof typeof V] });
    }
  });

  it("without fields answers the default fields", async () => {
    const r = await get(V.studio);
    expect(keys(r.json)).toEqual(["video_id", "title", "video_url", "created_at"]);
  });

  it("refuses unknown field names with 422 INVALID_FORMAT", async () => {
    const r = await get(V.published, "title,owner,created_time");
    expectEnvelope(r, 422, "INVALID_FORMAT");
    expect(at(r.json, "error.details.invalid_values")).toEqual(["owner", "created_time"]);
    expect(at(r.json, "error.details.allowed_values")).toContain("profile.display_name");
  });

  it("answers 404 in the envelope for an unknown id, and for another owner's private video", async () => {
    for (const id of ["x0nothere", V.foreignPrivate]) {
      expectEnvelope(await get(id, "title"), 404, "RESOURCE_NOT_FOUND", {
        object_id: id,
        reason: "not_found",
        object_type: "video",
        param: "id",
      });
    }
    // Another owner's public video is readable (as a livestream is), its webhook withheld.
    const foreign = await get(V.foreign, "title,profile.profile_id,profile.webhook");
    expect(foreign.json).toEqual({
      title: SEED.videoTitles.foreign,
      profile: { profile_id: SEED.profiles.foreign },
    });
    // Your own private video is visible to you.
    expect((await get(V.private, "title")).status).toBe(200);
  });

  it("enforces video.read: 403 MISSING_PERMISSIONS without it, whatever the id", async () => {
    const liveOnly = await tokenFor(sb, "live.read profile.manage");
    const reader = await tokenFor(
      sb,
      "video.read",
      SEED.clients.reader.clientId,
      SEED.clients.reader.clientSecret,
    );
    for (const token of [liveOnly, reader]) {
      for (const id of [V.published, "x0nothere"]) {
        expectEnvelope(await get(id, "title", token), 403, "MISSING_PERMISSIONS", {
          required_permissions: ["video.read"],
          missing_permissions: ["video.read"],
        });
      }
    }
    const anonymous = await api(sb, "GET", `/videos/${V.published}?fields=title`, undefined);
    expectEnvelope(anonymous, 401, "INVALID_AUTHORIZATION");
  });

  it("a bundle grant covers video.read", async () => {
    const bundle = await startSandbox({ grantScope: () => "bundle.publisher" });
    try {
      const token = await tokenFor(bundle, "live.read");
      const r = await api(bundle, "GET", `/videos/${V.published}?fields=title`, token);
      expect(r.json).toEqual({ title: SEED.videoTitles.published });
    } finally {
      await bundle.close();
    }
  });

  it("is only GET: other methods answer 405", async () => {
    const r = await api(sb, "PATCH", `/videos/${V.published}`, owner, { title: "x" });
    expectEnvelope(r, 405, "METHOD_NOT_ALLOWED", { method: "PATCH", allowed_methods: ["GET"] });
  });
});

describe("faults on /v2/videos", () => {
  it("latency, a gateway 503 and a broken body apply like on the other routes", async () => {
    sb.addFault({ path: "/v2/videos", latencyMs: 300, times: 1 });
    const started = Date.now();
    expect((await get(V.published, "title")).status).toBe(200);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    sb.addFault({ path: "/v2/videos", status: 503, times: 1 });
    expectEnvelope(await get(V.published, "title"), 503, "SERVICE_UNAVAILABLE");
    sb.addFault({ path: "/v2/videos", body: "schema-mismatch", times: 1 });
    const broken = await get(V.published, "title");
    expect(broken.status).toBe(200);
    expect(at(broken.json, "title")).toBe(42);
    expect((await get(V.published, "title")).json).toEqual({ title: SEED.videoTitles.published });
  });
});

describe("videos a delivery tells of", () => {
  beforeEach(() => {
    sb.setWebhook(SEED.profiles.newsroom, { callback_url: `${rx.origin}/hook`, events: ["video.created"] });
  });

  it("the demo's two videos are seeded with their titles", async () => {
    expect((await get("x8nw5fq", "title")).json).toEqual({ title: SEED.videoTitles.published });
    expect((await get("x8nw6kd", "title")).json).toEqual({ title: SEED.videoTitles.formatError });
  });

  it("a lifecycle of a new video adds it with a realistic title; its status follows the events", async () => {
    const results = await sb.deliverLifecycle(SEED.profiles.newsroom, {
      videoId: "x7fresh1",
      presets: ["720p"],
      progressSteps: 2,
      force: true,
      deleteAtEnd: true,
    });
    expect(results.every((r) => r.status === 200)).toBe(true);
    const r = await get("x7fresh1", "video_id,title,status,profile.profile_id");
    expect(r.status).toBe(200);
    expect(at(r.json, "title")).toMatch(/^[A-Z][\w ',:&-]{10,}$/);
    expect(at(r.json, "title")).not.toContain("x7fresh1");
    // Choice: video.deleted marks it deleted but keeps it readable (arrival order must not matter).
    expect(r.json).toMatchObject({ status: "deleted", profile: { profile_id: SEED.profiles.newsroom } });
    // The same id always gets the same title.
    sb.reset();
    await sb.deliver(SEED.profiles.newsroom, {
      type: "video.created",
      data: { owner_id: SEED.profiles.newsroom, video_id: "x7fresh1" },
    });
    expect((await get("x7fresh1", "title,status")).json).toEqual({
      title: at(r.json, "title"),
      status: "processing",
    });
  });

  it("a random video id of a single event exists once delivered", async () => {
    await sb.deliver(SEED.profiles.newsroom, { type: "video.created" });
    const sent = rx.received[0]?.json?.data.video_id;
    expect(typeof sent).toBe("string");
    expect((await get(String(sent), "title")).status).toBe(200);
  });

  it("unknownVideo leaves the video unknown (404), over HTTP too", async () => {
    await sb.deliverLifecycle(SEED.profiles.newsroom, {
      videoId: "x7forged",
      presets: ["240p"],
      progressSteps: 1,
      unknownVideo: true,
    });
    expect(rx.received.length).toBeGreaterThan(0);
    expect((await get("x7forged", "title")).status).toBe(404);
    const viaControl = await control("POST", "deliver", {
      profile_id: SEED.profiles.newsroom,
      event: { type: "video.created", data: { owner_id: SEED.profiles.newsroom, video_id: "x7forged2" } },
      unknownVideo: true,
    });
    expect(viaControl.status).toBe(200);
    expect((await get("x7forged2", "title")).status).toBe(404);
  });
});

describe("control endpoints for videos", () => {
  it("POST /_sandbox/videos adds (201) or changes (200) a video; DELETE removes it", async () => {
    const added = await control("POST", "videos", {
      video_id: "x7ctl01",
      profile_id: SEED.profiles.studio,
      title: "Brass Band Rehearsal",
    });
    expect(added.status).toBe(201);
    expect(at(added.json, "video.title")).toBe("Brass Band Rehearsal");
    expect((await get("x7ctl01", "title")).json).toEqual({ title: "Brass Band Rehearsal" });
    const renamed = await control("POST", "videos", {
      video_id: "x7ctl01",
      profile_id: SEED.profiles.studio,
      title: "Brass Band Rehearsal (full)",
      visibility: "private",
    });
    expect(renamed.status).toBe(200);
    expect((await get("x7ctl01", "title")).json).toEqual({ title: "Brass Band Rehearsal (full)" });
    expect((await control("DELETE", "videos/x7ctl01")).json).toEqual({ ok: true });
    expect((await get("x7ctl01", "title")).status).toBe(404);
    expectEnvelope(await control("DELETE", "videos/x7ctl01"), 404, "RESOURCE_NOT_FOUND");
    expectEnvelope(await control("GET", "videos/x7ctl01"), 405, "METHOD_NOT_ALLOWED");
  });

  it("refuses a bad body and an unknown profile, changing nothing", async () => {
    const before = sb.state.videos.size;
    expectEnvelope(
      await control("POST", "videos", { video_id: "../x", profile_id: SEED.profiles.studio }),
      422,
      "INVALID_FORMAT",
    );
    expectEnvelope(
      await control("POST", "videos", { video_id: "x7ok", profile_id: SEED.profiles.studio, title: "" }),
      422,
      "INVALID_FORMAT",
    );
    expectEnvelope(
      await control("POST", "videos", { video_id: "x7ok", profile_id: "x0nope" }),
      404,
      "RESOURCE_NOT_FOUND",
    );
    expect(sb.state.videos.size).toBe(before);
  });

  it("reset restores the seeded videos", async () => {
    sb.deleteVideo(V.published);
    sb.putVideo({ video_id: "x7extra", profile_id: SEED.profiles.newsroom });
    sb.reset();
    expect(sb.state.videos.has(V.published)).toBe(true);
    expect(sb.state.videos.has("x7extra")).toBe(false);
  });
});
