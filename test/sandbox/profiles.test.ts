import { describe, expect, it } from "vitest";
import { type Sandbox, SEED, startSandbox } from "../../fakes/platform/server.js";
import { api, at, expectEnvelope, tokenFor } from "./helpers.js";
import { sandboxForFile } from "./per-file.js";

let sb: Sandbox;
let token: string;
sandboxForFile(async (s) => {
  sb = s;
  token = await tokenFor(sb, "live.read profile.manage");
});

const P = SEED.profiles;
const NONE = { callback_url: null, events: null };

describe("GET /v2/profiles/{id}", () => {
  it("returns the default fields without fields", async () => {
    const r = await api(sb, "GET", `/profiles/${P.newsroom}`, token);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({
      profile_id: P.newsroom,
      name: "northwind-news",
      created_at: "2019-03-14T09:26:53Z",
    });
  });

  it("fields=webhook reads the configuration (both null when none)", async () => {
    expect((await api(sb, "GET", `/profiles/${P.studio}?fields=webhook`, token)).json).toEqual({
      webhook: { callback_url: "https://hooks.example.com/platform", events: [...SEED.studioWebhook.events] },
    });
    expect((await api(sb, "GET", `/profiles/${P.newsroom}?fields=webhook`, token)).json).toEqual({
      webhook: NONE,
    });
  });

  it("supports one level of dot notation into social_links, content_defaults and webhook", async () => {
    const r = await api(
      sb,
      "GET",
      `/profiles/${P.newsroom}?fields=social_links.website_url,content_defaults.geo_restriction,content_defaults.tags,webhook.events`,
      token,
    );
    expect(r.json).toEqual({
      social_links: { website_url: "https://news.northwind.example" },
      content_defaults: {
        tags: ["news", "live", "northwind"],
        geo_restriction: { mode: "deny", countries: [] },
      },
      webhook: { events: null },
    });
  });

  it("refuses dot notation deeper than one level and a repeated fields parameter", async () => {
    const deep = await api(
      sb,
      "GET",
      `/profiles/${P.newsroom}?fields=content_defaults.geo_restriction.mode`,
      token,
    );
    expectEnvelope(deep, 422, "INVALID_FORMAT");
    expect(at(deep.json, "error.details.invalid_values")).toEqual(["content_defaults.geo_restriction.mode"]);
    expect(at(deep.json, "error.details.allowed_values")).toContain("content_defaults.geo_restriction");
    expect(at(deep.json, "error.details.allowed_values")).not.toContain(
      "content_defaults.geo_restriction.mode",
    );
    const repeated = await api(sb, "GET", `/profiles/${P.newsroom}?fields=webhook&fields=name`, token);
    expectEnvelope(repeated, 422, "INVALID_FORMAT");
    expect(at(repeated.json, "error.details.param")).toBe("fields");
  });

  it("returns complete nested objects", async () => {
    const r = await api(
      sb,
      "GET",
      `/profiles/${P.newsroom}?fields=display_name,description,can_change_name,social_links,content_defaults`,
      token,
    );
    expect(Object.keys(at(r.json, "social_links") as object)).toEqual([
      "twitter_url",
      "instagram_url",
      "facebook_url",
      "website_url",
    ]);
    expect(Object.keys(at(r.json, "content_defaults") as object).sort()).toEqual(
      [
        "language",
        "visibility",
        "is_for_kids",
        "title",
        "description",
        "tags",
        "category",
        "ai_subtitles",
        "enable_comments",
        "enable_ai_chapter_generation",
        "geo_restriction",
      ].sort(),
    );
    expect(at(r.json, "display_name")).toBe("Northwind News");
    expect(at(r.json, "can_change_name")).toBe(false);
  });

  it("any valid token reads a profile its client owns", async () => {
    const other = await tokenFor(sb, "video.manage");
    expect((await api(sb, "GET", `/profiles/${P.studio}`, other)).status).toBe(200);
  });

  it("rejects unknown field names", async () => {
    const r = await api(sb, "GET", `/profiles/${P.studio}?fields=webhook.secret,owner_client_id`, token);
    expectEnvelope(r, 422, "INVALID_FORMAT");
    expect(at(r.json, "error.details.param")).toBe("fields");
    expect(at(r.json, "error.details.invalid_values")).toEqual(["webhook.secret", "owner_client_id"]);
    expect(at(r.json, "error.details.allowed_values")).toContain("webhook.callback_url");
  });
});

describe("patchResponse modes", () => {
  const body = { webhook: { events: ["video.deleted"] } };
  for (const [mode, status, text] of [
    ["empty-200", 200, "{}"],
    ["no-content", 204, ""],
  ] as const) {
    it(`${mode} answers ${status} ${text || "(no body)"} and still applies the change`, async () => {
      const other = await startSandbox({ patchResponse: mode });
      try {
        const t = await tokenFor(other, "profile.manage");
        const r = await api(other, "PATCH", `/profiles/${P.studio}`, t, body);
        expect(r.status).toBe(status);
        expect(r.text).toBe(text);
        expect(other.state.profiles.get(P.studio)?.webhook.events).toEqual(["video.deleted"]);
        expectEnvelope(
          await api(other, "PATCH", `/profiles/${P.studio}`, t, { webhook: { events: [] } }),
          422,
          "MISSING_REQUIRED_VALUE",
        );
      } finally {
        await other.close();
      }
    });
  }
});

describe("staleReads and normalizeUrls options", () => {
  it("staleReads: n reads of the webhook after a change still show the value before it", async () => {
    const other = await startSandbox({ staleReads: 2 });
    try {
      const t = await tokenFor(other, "profile.manage");
      const read = async (fields = "webhook") =>
        (await api(other, "GET", `/profiles/${P.studio}?fields=${fields}`, t)).json;
      const before = {
        webhook: { callback_url: SEED.studioWebhook.callback_url, events: [...SEED.studioWebhook.events] },
      };
      const patch = await api(other, "PATCH", `/profiles/${P.studio}`, t, {
        webhook: { events: ["video.deleted"] },
      });
      expect(patch.status).toBe(200);
      // Reads that do not select the webhook do not count.
      expect(await read("name")).toEqual({ name: "northwind-studio" });
      expect(await read()).toEqual(before);
      expect(await read("webhook.events")).toEqual({ webhook: { events: before.webhook.events } });
      expect(await read()).toEqual({
        webhook: { callback_url: SEED.studioWebhook.callback_url, events: ["video.deleted"] },
      });
      // A PATCH that changes nothing does not make reads stale.
      await api(other, "PATCH", `/profiles/${P.studio}`, t, { webhook: { events: ["video.deleted"] } });
      expect(at(await read(), "webhook.events")).toEqual(["video.deleted"]);
      other.reset();
    } finally {
      await other.close();
    }
  });

  it("normalizeUrls stores new URL(x).href; by default the URL is stored as given", async () => {
    const body = { webhook: { callback_url: "https://Hooks.Example.com", events: ["video.created"] } };
    const t = await tokenFor(sb, "profile.manage");
    expect((await api(sb, "PATCH", `/profiles/${P.newsroom}`, t, body)).status).toBe(200);
    expect(sb.state.profiles.get(P.newsroom)?.webhook.callback_url).toBe("https://Hooks.Example.com");
    const other = await startSandbox({ normalizeUrls: true });
    try {
      const t2 = await tokenFor(other, "profile.manage");
      expect((await api(other, "PATCH", `/profiles/${P.newsroom}`, t2, body)).status).toBe(200);
      expect(other.state.profiles.get(P.newsroom)?.webhook.callback_url).toBe("https://hooks.example.com/");
    } finally {
      await other.close();
    }
  });
});
