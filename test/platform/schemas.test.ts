import { describe, expect, it } from "vitest";
import { WEBHOOK_EVENT_DESCRIPTIONS, WEBHOOK_EVENTS } from "../../src/domain/index.js";
import { parseDelivery } from "../../src/platform/delivery.js";
import {
  ErrorEnvelopeSchema,
  LivestreamSchema,
  ProfileSchema,
  ProfileWebhookResponseSchema,
  TokenResponseSchema,
} from "../../src/platform/schemas.js";

const full = {
  livestream_id: "x8live",
  title: "Evening news",
  livestream_url: "https://www.example.com/live/x8live",
  description: null,
  language: null,
  category: "news",
  country: null,
  visibility: "public",
  is_for_kids: null,
  is_explicit: false,
  is_exclusive_content: false,
  is_ai_altered: false,
  has_paid_partnership: false,
  enable_comments: true,
  profile: { profile_id: "p1", name: "newsroom", display_name: null, description: null },
  start_at: null,
  end_at: null,
  ingest: {
    rtmp_url: "rtmp://in.example/live/key",
    srt_url: null,
    available_servers: { eu: "rtmp://eu/live" },
  },
  status: { onair: true, airing_at: null, audio_bitrate: null },
  recording: { auto_record: true, status: "started", start_at: null, end_at: null },
  geo_restriction: { mode: "deny", countries: [] },
  embedding: { enable_embed: true, embed_url: "https://e/x8live", embed_html: "<iframe></iframe>" },
  advertising: { end_at: null, remaining: 0 },
  thumbnail: { h1080_url: null, h720_url: null, h480_url: null, h240_url: null, default_url: null },
  created_at: "2026-11-01T10:00:00Z",
  updated_at: "2026-11-01T10:00:00.123+01:00",
};

describe("livestream schema", () => {
  it("accepts a full livestream with null wherever the spec allows null", () => {
    expect(LivestreamSchema.safeParse(full).success).toBe(true);
  });

  it("accepts sparse answers and tolerates unknown fields", () => {
    const r = LivestreamSchema.safeParse({ title: "Only a title", future_field: { a: 1 } });
    expect(r.success).toBe(true);
    expect(LivestreamSchema.safeParse({}).success).toBe(true);
    expect(LivestreamSchema.safeParse({ status: { onair: false } }).success).toBe(true);
  });

  it.each([
    ["title", { title: null }],
    ["livestream_url", { livestream_url: null }],
    ["category", { category: null }],
    ["visibility", { visibility: null }],
    ["is_explicit", { is_explicit: null }],
    ["status.onair", { status: { onair: null } }],
    ["recording.auto_record", { recording: { auto_record: null } }],
    ["recording.status", { recording: { status: null } }],
    ["advertising.remaining", { advertising: { remaining: null } }],
    ["ingest.rtmp_url", { ingest: { rtmp_url: null } }],
    ["created_at", { created_at: null }],
    ["embedding.embed_url", { embedding: { embed_url: null } }],
    ["geo_restriction.countries", { geo_restriction: { countries: null } }],
  ])("rejects null where the spec does not allow it: %s", (_name, value) => {
    expect(LivestreamSchema.safeParse(value).success).toBe(false);
  });

  it("rejects wrong types and names the field", () => {
    const r = LivestreamSchema.safeParse({ title: 42, status: { onair: "yes" } });
    expect(r.success).toBe(false);
    const paths = r.error?.issues.map((i) => i.path.join("."));
    expect(paths).toContain("title");
    expect(paths).toContain("status.onair");
  });

  it("rejects a timestamp that is not a date", () => {
    expect(LivestreamSchema.safeParse({ start_at: "tomorrow-ish" }).success).toBe(false);
  });

  it("keeps enumeration values the spec does not list (lists can change)", () => {
    const r = LivestreamSchema.safeParse({ category: "podcasts", recording: { status: "paused" } });
    expect(r.success).toBe(true);
    expect(r.data?.category).toBe("podcasts");
  });

  it("rejects a negative advertising quota", () => {
    expect(LivestreamSchema.safeParse({ advertising: { remaining: -1 } }).success).toBe(false);
  });
});

describe("profile schema", () => {
  it("accepts webhook values of null and lists", () => {
    expect(ProfileSchema.safeParse({ webhook: { callback_url: null, events: null } }).success).toBe(true);
    expect(
      ProfileSchema.safeParse({ webhook: { callback_url: "https://h.example/x", events: ["video.created"] } })
        .success,
    ).toBe(true);
  });
  it("the fields=webhook answer must hold the webhook object; keys inside may be missing", () => {
    expect(ProfileWebhookResponseSchema.safeParse({ profile_id: "p" }).success).toBe(false);
    expect(ProfileWebhookResponseSchema.safeParse({ webhook: null }).success).toBe(false);
    expect(ProfileWebhookResponseSchema.safeParse({ webhook: {} }).success).toBe(true);
    expect(
      ProfileWebhookResponseSchema.safeParse({ webhook: { callback_url: null, events: null } }).success,
    ).toBe(true);
  });
  it("rejects a null name and a non-array events", () => {
    expect(ProfileSchema.safeParse({ name: null }).success).toBe(false);
    expect(ProfileSchema.safeParse({ webhook: { events: "video.created" } }).success).toBe(false);
  });
});

describe("token and error schemas", () => {
  it("parses the token response of section 5", () => {
    const r = TokenResponseSchema.parse({
      access_token: "a.b.c",
      token_type: "Bearer",
      expires_in: 1800,
      scope: "x",
    });
    expect(r.expires_in).toBe(1800);
    expect(
      TokenResponseSchema.safeParse({ access_token: "", token_type: "Bearer", expires_in: 1 }).success,
    ).toBe(false);
    expect(
      TokenResponseSchema.safeParse({ access_token: "t", token_type: "Bearer", expires_in: 0 }).success,
    ).toBe(false);
  });

  it("parses the error envelope with optional correlation id and details", () => {
    expect(
      ErrorEnvelopeSchema.safeParse({
        error: {
          code: "RESOURCE_NOT_FOUND",
          message: "m",
          correlation_id: null,
          details: null,
          documentation_url: "u",
        },
      }).success,
    ).toBe(true);
    expect(ErrorEnvelopeSchema.safeParse({ error: { code: "X", message: "m" } }).success).toBe(true);
    expect(ErrorEnvelopeSchema.safeParse({ error: { message: "m" } }).success).toBe(false);
  });

  it("keeps code, message and each well-typed field of a bent envelope, dropping the others", () => {
    const r = ErrorEnvelopeSchema.safeParse({
      error: {
        code: "MISSING_PERMISSIONS",
        message: "m",
        correlation_id: 42,
        details: { missing_permissions: ["profile.manage"] },
        documentation_url: null,
      },
    });
    expect(r.success).toBe(true);
    expect(r.data?.error).toEqual({
      code: "MISSING_PERMISSIONS",
      message: "m",
      details: { missing_permissions: ["profile.manage"] },
    });
    const arr = ErrorEnvelopeSchema.safeParse({
      error: { code: "X", message: 7, details: ["a"], correlation_id: "c1", documentation_url: "u" },
    });
    expect(arr.data?.error).toEqual({ code: "X", correlation_id: "c1", documentation_url: "u" });
    expect(ErrorEnvelopeSchema.safeParse({ error: { code: 5, message: "m" } }).success).toBe(false);
  });

  it.each([
    [1800, true],
    ["1800", true],
    [true, false],
    ["1e3", false],
    [" ", false],
    ["", false],
    ["0", false],
    ["-5", false],
    ["1.5", false],
    [1.5, false],
    ["0x10", false],
    [" 60", false],
  ])("expires_in %j is accepted: %s", (expires_in, ok) => {
    const r = TokenResponseSchema.safeParse({ access_token: "t", token_type: "Bearer", expires_in });
    expect(r.success).toBe(ok);
    if (ok) expect(r.data?.expires_in).toBe(1800);
  });
});

describe("webhook deliveries", () => {
  const ref = { owner_id: "p1", video_id: "x9v" };
  const samples: Record<string, Record<string, unknown>> = {
    "video.created": ref,
    "video.published": ref,
    "video.deleted": ref,
    "video.format.processing": { ...ref, preset_name: "720p", status: "processing", progress: 40 },
    "video.format.ready": { ...ref, preset_name: "720p", status: "ready" },
    "video.complete": ref,
    "video.format.error": { ...ref, preset_name: "1080p", status: "error" },
    "video.format.deleted": { ...ref, preset_name: "1080p" },
  };

  it("parses all eight event types as known events", () => {
    for (const type of WEBHOOK_EVENTS) {
      const r = parseDelivery({ type, timestamp: 1_700_000_000_000, data: samples[type] });
      expect(r.ok, type).toBe(true);
      if (r.ok) expect(r.value.known).toBe(true);
    }
    expect(Object.keys(WEBHOOK_EVENT_DESCRIPTIONS).sort()).toEqual([...WEBHOOK_EVENTS].sort());
  });

  it("parses an unknown type as a generic event instead of rejecting it", () => {
    const r = parseDelivery({ type: "video.moderated", timestamp: 1, data: { anything: true } });
    expect(r).toEqual({
      ok: true,
      value: { type: "video.moderated", timestamp: 1, data: { anything: true }, known: false },
    });
  });

  it("keeps extra data fields", () => {
    const r = parseDelivery({ type: "video.created", timestamp: 1, data: { ...ref, title: "T" } });
    expect(r.ok && r.value.data).toMatchObject({ title: "T" });
  });

  it.each([
    [{ timestamp: 1, data: ref }, "type"],
    [{ type: "video.created", timestamp: "1", data: ref }, "timestamp"],
    [{ type: "video.created", timestamp: 1.5, data: ref }, "timestamp"],
    [{ type: "video.created", timestamp: 1 }, "data"],
    [{ type: "video.created", timestamp: 1, data: { owner_id: "p1" } }, "data.video_id"],
    [
      { type: "video.format.processing", timestamp: 1, data: { ...ref, preset_name: "x", status: "p" } },
      "data.progress",
    ],
    [[], ""],
    [null, ""],
  ])("rejects %j, naming %s", (body, field) => {
    const r = parseDelivery(body);
    expect(r.ok).toBe(false);
    if (!r.ok && field) expect(r.error.startsWith(field)).toBe(true);
  });
});
