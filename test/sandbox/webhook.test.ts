import { describe, expect, it } from "vitest";
import { type Sandbox, SEED } from "../../fakes/platform/server.js";
import { api, at, call, expectEnvelope, tokenFor } from "./helpers.js";
import { sandboxForFile } from "./per-file.js";

let sb: Sandbox;
let token: string;
sandboxForFile(async (s) => {
  sb = s;
  token = await tokenFor(sb, "live.read profile.manage");
});

const P = SEED.profiles;
const NONE = { callback_url: null, events: null };
const HOOK = "https://bot.example.com/hooks/platform/abc123";
const patch = (id: string, body: unknown, contentType?: string) =>
  api(sb, "PATCH", `/profiles/${id}`, token, body, contentType);
const webhookOf = async (id: string) =>
  at((await api(sb, "GET", `/profiles/${id}?fields=webhook`, token)).json, "webhook");

describe("PATCH webhook: state table (spec 3.3)", () => {
  it("none -> configured when both values are valid; answers the profile with its webhook", async () => {
    const r = await patch(P.newsroom, {
      webhook: { callback_url: HOOK, events: ["video.created", "video.format.ready"] },
    });
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      profile_id: P.newsroom,
      name: "northwind-news",
      created_at: "2019-03-14T09:26:53Z",
      webhook: { callback_url: HOOK, events: ["video.created", "video.format.ready"] },
    });
    expect(await webhookOf(P.newsroom)).toEqual({
      callback_url: HOOK,
      events: ["video.created", "video.format.ready"],
    });
  });

  it("configured + only events: only events change", async () => {
    expect((await patch(P.studio, { webhook: { events: ["video.complete"] } })).status).toBe(200);
    expect(await webhookOf(P.studio)).toEqual({
      callback_url: SEED.studioWebhook.callback_url,
      events: ["video.complete"],
    });
  });

  it("configured + only callback_url: only the URL changes", async () => {
    expect((await patch(P.studio, { webhook: { callback_url: HOOK } })).status).toBe(200);
    expect(await webhookOf(P.studio)).toEqual({ callback_url: HOOK, events: [...SEED.studioWebhook.events] });
  });

  it("configured + both null: removed", async () => {
    expect((await patch(P.studio, { webhook: NONE })).status).toBe(200);
    expect(await webhookOf(P.studio)).toEqual(NONE);
    expect(sb.state.profiles.get(P.studio)?.webhook).toEqual(NONE);
  });

  it("none + only one value: rejected, unchanged", async () => {
    expectEnvelope(
      await patch(P.newsroom, { webhook: { callback_url: HOOK } }),
      422,
      "MISSING_REQUIRED_VALUE",
      {
        field: "webhook.events",
      },
    );
    expectEnvelope(
      await patch(P.newsroom, { webhook: { events: ["video.created"] } }),
      422,
      "MISSING_REQUIRED_VALUE",
      {
        field: "webhook.callback_url",
      },
    );
    expectEnvelope(await patch(P.newsroom, { webhook: {} }), 422, "MISSING_REQUIRED_VALUE", {
      field: "webhook.callback_url",
    });
    expect(await webhookOf(P.newsroom)).toEqual(NONE);
  });

  it("none + both null: stays none", async () => {
    expect((await patch(P.newsroom, { webhook: NONE })).status).toBe(200);
    expect(await webhookOf(P.newsroom)).toEqual(NONE);
  });

  it("a half-configured webhook (set directly) counts as none", async () => {
    sb.setWebhook(P.newsroom, { callback_url: HOOK, events: null });
    expectEnvelope(
      await patch(P.newsroom, { webhook: { callback_url: HOOK } }),
      422,
      "MISSING_REQUIRED_VALUE",
      {
        field: "webhook.events",
      },
    );
  });
});

describe("PATCH webhook: rules (spec 4.2)", () => {
  it("rule 1: HTTP is rejected with INVALID_FORMAT", async () => {
    const url = "http://bot.example.com/hooks";
    expectEnvelope(await patch(P.studio, { webhook: { callback_url: url } }), 422, "INVALID_FORMAT", {
      field: "webhook.callback_url",
      provided: url,
      requirement: "https",
    });
    expect(await webhookOf(P.studio)).toEqual(SEED.studioWebhook);
  });

  it("rule 1: not a URL is INVALID_FORMAT too", async () => {
    for (const bad of ["not a url", "https://", "ftp://files.example.com/x", 42]) {
      expectEnvelope(
        await patch(P.newsroom, { webhook: { callback_url: bad, events: ["video.created"] } }),
        422,
        "INVALID_FORMAT",
        { field: "webhook.callback_url", provided: bad, requirement: "https" },
      );
    }
  });

  it("rule 2: an empty events array is MISSING_REQUIRED_VALUE", async () => {
    expectEnvelope(await patch(P.studio, { webhook: { events: [] } }), 422, "MISSING_REQUIRED_VALUE", {
      field: "webhook.events",
    });
  });

  it("rule 2: unknown events are INVALID_ENUM_VALUE whose allowed_values omit published and complete", async () => {
    const r = await patch(P.newsroom, {
      webhook: { callback_url: HOOK, events: ["video.created", "video.updated", "live.started"] },
    });
    expectEnvelope(r, 422, "INVALID_ENUM_VALUE", {
      field: "webhook.events",
      invalid_values: ["video.updated", "live.started"],
      allowed_values: [
        "video.created",
        "video.deleted",
        "video.format.ready",
        "video.format.processing",
        "video.format.error",
        "video.format.deleted",
      ],
    });
    expect(await webhookOf(P.newsroom)).toEqual(NONE);
  });

  it("rule 2: video.published and video.complete are nevertheless accepted, like all eight", async () => {
    const all = [
      "video.created",
      "video.deleted",
      "video.published",
      "video.complete",
      "video.format.ready",
      "video.format.processing",
      "video.format.error",
      "video.format.deleted",
    ];
    expect((await patch(P.newsroom, { webhook: { callback_url: HOOK, events: all } })).status).toBe(200);
    expect(await webhookOf(P.newsroom)).toEqual({ callback_url: HOOK, events: all });
  });

  it("events that are not an array are INVALID_FORMAT", async () => {
    const r = await patch(P.studio, { webhook: { events: "video.created" } });
    expectEnvelope(r, 422, "INVALID_FORMAT", {
      field: "webhook.events",
      provided: "video.created",
      requirement: "array",
    });
  });

  it("stores a duplicated event once", async () => {
    await patch(P.studio, { webhook: { events: ["video.created", "video.deleted", "video.created"] } });
    expect(at(await webhookOf(P.studio), "events")).toEqual(["video.created", "video.deleted"]);
  });

  it("rule 5 only with both: one value null alone is rejected", async () => {
    expectEnvelope(
      await patch(P.studio, { webhook: { callback_url: null } }),
      422,
      "MISSING_REQUIRED_VALUE",
      {
        field: "webhook.callback_url",
      },
    );
    expectEnvelope(
      await patch(P.studio, { webhook: { callback_url: HOOK, events: null } }),
      422,
      "MISSING_REQUIRED_VALUE",
      { field: "webhook.events" },
    );
    expect(await webhookOf(P.studio)).toEqual(SEED.studioWebhook);
  });

  it("checks the URL before the events", async () => {
    const r = await patch(P.newsroom, { webhook: { callback_url: "http://x.example", events: ["nope"] } });
    expectEnvelope(r, 422, "INVALID_FORMAT");
  });

  it("ignores other top-level keys; a body without webhook changes nothing", async () => {
    const r = await patch(P.studio, { display_name: "Renamed", webhook: { events: ["video.deleted"] } });
    expect(r.status).toBe(200);
    expect(sb.state.profiles.get(P.studio)?.display_name).toBe("Northwind Studio");
    expect((await patch(P.studio, { name: "x" })).status).toBe(200);
    expect(await webhookOf(P.studio)).toEqual({
      callback_url: SEED.studioWebhook.callback_url,
      events: ["video.deleted"],
    });
  });

  it("a webhook that is not an object is INVALID_FORMAT", async () => {
    for (const webhook of [null, "https://x.example", [HOOK]]) {
      const r = await patch(P.studio, { webhook });
      expectEnvelope(r, 422, "INVALID_FORMAT", {
        field: "webhook",
        provided: webhook,
        requirement: "object",
      });
    }
  });

  it("a body that is not a JSON object is INVALID_FORMAT param body", async () => {
    for (const body of ["{not json", "[1,2]", "null", '"text"']) {
      expectEnvelope(await patch(P.studio, body), 422, "INVALID_FORMAT", { param: "body" });
    }
  });

  it("requires Content-Type application/json (415 otherwise)", async () => {
    const body = { webhook: { events: ["video.deleted"] } };
    expectEnvelope(await patch(P.studio, JSON.stringify(body), "text/plain"), 415, "UNSUPPORTED_MEDIA_TYPE", {
      param: "content-type",
      provided: "text/plain",
      allowed_values: ["application/json"],
    });
    const bare = await call("PATCH", `${sb.apiUrl}/profiles/${P.studio}`, {
      headers: { authorization: `Bearer ${token}` },
      body: JSON.stringify(body),
    });
    expectEnvelope(bare, 415, "UNSUPPORTED_MEDIA_TYPE", {
      param: "content-type",
      provided: null,
      allowed_values: ["application/json"],
    });
    expect((await patch(P.studio, JSON.stringify(body), "application/json; charset=utf-8")).status).toBe(200);
  });

  it("setWebhook sets state directly and refuses unknown profiles", async () => {
    sb.setWebhook(P.newsroom, { callback_url: HOOK, events: ["video.complete"] });
    expect(await webhookOf(P.newsroom)).toEqual({ callback_url: HOOK, events: ["video.complete"] });
    expect(() => sb.setWebhook("x0nope0", NONE)).toThrow(/unknown profile/);
  });
});
