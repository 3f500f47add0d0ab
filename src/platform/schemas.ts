/**
 * zod schemas for everything the platform sends or accepts (spec sections 2, 5, 6 and 7).
 * More: README.md ("schemas.ts").
 */

import { z } from "zod";
import { isWebhookEvent, type WebhookEvent } from "../domain/index.js";

// --- Enumerations (section 2.4) -------------------------------------------------------------------

export const VIDEO_CATEGORIES = [
  "animals",
  "auto",
  "creation",
  "fun",
  "kids",
  "lifestyle",
  "music",
  "news",
  "people",
  "school",
  "sport",
  "tech",
  "travel",
  "tv",
  "videogames",
  "webcam",
] as const;
export const VISIBILITIES = ["public", "private", "password"] as const;
export const PROFILE_DEFAULT_VISIBILITIES = ["public", "private"] as const;
export const GEO_RESTRICTION_MODES = ["allow", "deny"] as const;
export const RECORDING_STATUSES = ["starting", "started", "stopping", "stopped"] as const;

export type RecordingStatus = (typeof RECORDING_STATUSES)[number];

/** A known value of `values`, or another string (kept as-is). */
function tolerantEnum<T extends readonly [string, ...string[]]>(values: T) {
  return z.union([z.enum(values), z.string()]) as unknown as z.ZodType<T[number] | (string & {})>;
}

const timestamp = z.string().refine((s) => !Number.isNaN(Date.parse(s)), "must be an ISO 8601 date-time");
const url = z.string();

// --- Livestream (sections 2.1, 2.2) ---------------------------------------------------------------

export const IngestSchema = z
  .object({
    rtmp_url: z.string(),
    srt_url: z.string().nullable(),
    available_servers: z.record(z.string(), z.string()),
  })
  .partial();

export const LivestreamStatusSchema = z
  .object({
    onair: z.boolean(),
    airing_at: timestamp.nullable(),
    audio_bitrate: z.number().int().nullable(),
  })
  .partial();

export const RecordingSchema = z
  .object({
    auto_record: z.boolean(),
    status: tolerantEnum(RECORDING_STATUSES),
    start_at: timestamp.nullable(),
    end_at: timestamp.nullable(),
  })
  .partial();

export const GeoRestrictionSchema = z
  .object({
    mode: tolerantEnum(GEO_RESTRICTION_MODES),
    countries: z.array(z.string()),
  })
  .partial();

export const EmbeddingSchema = z
  .object({
    enable_embed: z.boolean(),
    embed_url: z.string(),
    embed_html: z.string(),
  })
  .partial();

export const AdvertisingSchema = z
  .object({
    end_at: timestamp.nullable(),
    remaining: z.number().int().min(0),
  })
  .partial();

export const ThumbnailSchema = z
  .object({
    h1080_url: url.nullable(),
    h720_url: url.nullable(),
    h480_url: url.nullable(),
    h240_url: url.nullable(),
    default_url: url.nullable(),
  })
  .partial();

// --- Profile (section 2.3) ------------------------------------------------------------------------

export const WebhookConfigSchema = z
  .object({
    callback_url: z.string().nullable(),
    events: z.array(z.string()).nullable(),
  })
  .partial();

export const SocialLinksSchema = z
  .object({
    twitter_url: url.nullable(),
    instagram_url: url.nullable(),
    facebook_url: url.nullable(),
    website_url: url.nullable(),
  })
  .partial();

export const ContentDefaultsSchema = z
  .object({
    language: z.string().nullable(),
    visibility: tolerantEnum(PROFILE_DEFAULT_VISIBILITIES).nullable(),
    is_for_kids: z.boolean().nullable(),
    title: z.string().nullable(),
    description: z.string().nullable(),
    tags: z.array(z.string()),
    category: tolerantEnum(VIDEO_CATEGORIES).nullable(),
    ai_subtitles: z.array(z.string()),
    enable_comments: z.boolean(),
    enable_ai_chapter_generation: z.boolean(),
    geo_restriction: GeoRestrictionSchema,
  })
  .partial();

export const ProfileSchema = z
  .object({
    profile_id: z.string(),
    name: z.string(),
    display_name: z.string().nullable(),
    description: z.string().nullable(),
    created_at: timestamp,
    can_change_name: z.boolean(),
    social_links: SocialLinksSchema,
    content_defaults: ContentDefaultsSchema,
    webhook: WebhookConfigSchema,
  })
  .partial();

export const LivestreamSchema = z
  .object({
    livestream_id: z.string(),
    title: z.string(),
    livestream_url: url,
    description: z.string().nullable(),
    language: z.string().nullable(),
    category: tolerantEnum(VIDEO_CATEGORIES),
    country: z.string().nullable(),
    visibility: tolerantEnum(VISIBILITIES),
    is_for_kids: z.boolean().nullable(),
    is_explicit: z.boolean(),
    is_exclusive_content: z.boolean(),
    is_ai_altered: z.boolean(),
    has_paid_partnership: z.boolean(),
    enable_comments: z.boolean(),
    profile: ProfileSchema,
    start_at: timestamp.nullable(),
    end_at: timestamp.nullable(),
    ingest: IngestSchema,
    status: LivestreamStatusSchema,
    recording: RecordingSchema,
    geo_restriction: GeoRestrictionSchema,
    embedding: EmbeddingSchema,
    advertising: AdvertisingSchema,
    thumbnail: ThumbnailSchema,
    created_at: timestamp,
    updated_at: timestamp,
  })
  .partial();

/**
 * The answer to `GET /profiles/{id}?fields=webhook` (spec 4.3): the `webhook` object must be there,
 * otherwise "no webhook" could not be told from "not answered". Inside it, a missing key is read as
 * null (lenient: both keys may be null anyway).
 */
export const ProfileWebhookResponseSchema = ProfileSchema.extend({ webhook: WebhookConfigSchema });

export type Livestream = z.infer<typeof LivestreamSchema>;
export type Profile = z.infer<typeof ProfileSchema>;

/** Field names allowed in `fields=` (section 4.1) and, for embedded objects, their sub-fields. */
export const LIVESTREAM_FIELDS: Record<string, readonly string[] | null> = {
  advertising: Object.keys(AdvertisingSchema.shape),
  category: null,
  country: null,
  created_at: null,
  description: null,
  embedding: Object.keys(EmbeddingSchema.shape),
  enable_comments: null,
  end_at: null,
  geo_restriction: Object.keys(GeoRestrictionSchema.shape),
  has_paid_partnership: null,
  ingest: Object.keys(IngestSchema.shape),
  is_ai_altered: null,
  is_exclusive_content: null,
  is_explicit: null,
  is_for_kids: null,
  language: null,
  livestream_id: null,
  livestream_url: null,
  profile: Object.keys(ProfileSchema.shape),
  recording: Object.keys(RecordingSchema.shape),
  start_at: null,
  status: Object.keys(LivestreamStatusSchema.shape),
  thumbnail: Object.keys(ThumbnailSchema.shape),
  title: null,
  updated_at: null,
  visibility: null,
};

// --- Token (section 5) ----------------------------------------------------------------------------

export const TokenResponseSchema = z.object({
  access_token: z.string().min(1),
  token_type: z.string().refine((t) => t.toLowerCase() === "bearer", "must be Bearer"),
  /**
   * Seconds. A positive integer, or a string of digits only (some services quote it); booleans,
   * exponents, signs, blanks and fractions are refused.
   */
  expires_in: z.union([
    z.number().int().positive(),
    z
      .string()
      .regex(/^\d+$/, "must be a positive integer")
      .transform(Number)
      .pipe(z.number().int().positive()),
  ]),
  /** May differ from what was asked (e.g. a bundle scope); absent is tolerated. */
  scope: z.string().optional(),
});
export type TokenResponse = z.infer<typeof TokenResponseSchema>;

/** OAuth 2.0 error body of the token endpoint (its format is not shown in the spec; RFC 6749 5.2). */
export const OAuthErrorSchema = z.object({
  error: z.string(),
  error_description: z.string().optional(),
});

// --- Error envelope (section 7) -------------------------------------------------------------------

/**
 * Lenient on purpose: gateways and older API versions bend the envelope (`documentation_url: null`,
 * an array `details`, a numeric `correlation_id`). `code` must be a string (it is what the bot acts
 * on); every other field is kept when it has the spec's type and dropped otherwise, so one odd
 * field never throws away the code and details of an error.
 */
export const ErrorEnvelopeSchema = z.object({
  error: z.object({
    code: z.string(),
    /** Required by the spec; a missing or non-string message is replaced by a generic one. */
    message: z.string().optional().catch(undefined),
    correlation_id: z.string().nullable().optional().catch(undefined),
    details: z.record(z.string(), z.unknown()).nullable().optional().catch(undefined),
    /** Required by the spec; tolerated when a gateway leaves it out or sends null. */
    documentation_url: z.string().optional().catch(undefined),
  }),
});

// --- Webhook deliveries (section 6) ---------------------------------------------------------------

const videoRef = { owner_id: z.string(), video_id: z.string() };

/** Data shapes the spec shows, and loose shapes for the three it does not. */
export const DELIVERY_DATA_SCHEMAS = {
  "video.created": z.looseObject(videoRef),
  "video.published": z.looseObject(videoRef),
  "video.deleted": z.looseObject(videoRef),
  "video.format.processing": z.looseObject({
    ...videoRef,
    preset_name: z.string(),
    status: z.string(),
    progress: z.number().min(0).max(100),
  }),
  "video.format.ready": z.looseObject({ ...videoRef, preset_name: z.string(), status: z.string() }),
  // Not shown in the spec: expect the video reference, tolerate anything else.
  "video.complete": z.looseObject({ owner_id: z.string().optional(), video_id: z.string() }),
  "video.format.error": z.looseObject({
    owner_id: z.string().optional(),
    video_id: z.string(),
    preset_name: z.string().optional(),
  }),
  "video.format.deleted": z.looseObject({
    owner_id: z.string().optional(),
    video_id: z.string(),
    preset_name: z.string().optional(),
  }),
} satisfies Record<WebhookEvent, z.ZodType>;

export type DeliveryData<T extends WebhookEvent> = z.infer<(typeof DELIVERY_DATA_SCHEMAS)[T]>;

export type KnownDelivery = {
  [T in WebhookEvent]: { type: T; timestamp: number; data: DeliveryData<T>; known: true };
}[WebhookEvent];
export interface GenericDelivery {
  type: string;
  timestamp: number;
  data: Record<string, unknown>;
  known: false;
}
export type Delivery = KnownDelivery | GenericDelivery;

const DeliveryEnvelopeSchema = z.object({
  // At most 200 UTF-16 code units, as the fast check counts (zod's max() counts code points).
  type: z
    .string()
    .min(1)
    .refine((t) => t.length <= 200, "at most 200 characters"),
  timestamp: z.number().int().nonnegative(),
  data: z.record(z.string(), z.unknown()),
});

export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: string };

/** Describes the first problem of a zod error as "path: message". */
export function describeIssue(error: z.ZodError, prefix?: string): string {
  const issue = error.issues[0];
  if (!issue) return "invalid value";
  const path = [prefix, ...issue.path.map(String)].filter((p) => p !== undefined && p !== "").join(".");
  return path ? `${path}: ${issue.message}` : issue.message;
}

/** `parseDelivery` (src/platform/delivery.ts) by the zod schemas alone: the reference the fast check must agree with. */
export function parseDeliveryWithZod(body: unknown): ParseResult<Delivery> {
  const base = DeliveryEnvelopeSchema.safeParse(body);
  if (!base.success) return { ok: false, error: describeIssue(base.error) };
  const { type, timestamp: ts, data } = base.data;
  if (!isWebhookEvent(type)) return { ok: true, value: { type, timestamp: ts, data, known: false } };
  const parsed = DELIVERY_DATA_SCHEMAS[type].safeParse(data);
  if (!parsed.success) return { ok: false, error: describeIssue(parsed.error, "data") };
  return { ok: true, value: { type, timestamp: ts, data: parsed.data, known: true } as KnownDelivery };
}
