/**
 * zod schemas of the reads beyond our spec that name things: a video (the platform's API v2 "Get a
 * video") and `GET /me` (documented: `{ "user_id": "…", "profiles": [{ "profile_id": "…", "name":
 * "…" }] }`).
 * More: README.md ("read-schemas.ts").
 */
import { z } from "zod";
import { ID_PATTERN } from "./ids.js";
import {
  ContentDefaultsSchema,
  ProfileSchema,
  SocialLinksSchema,
  ThumbnailSchema,
  WebhookConfigSchema,
} from "./schemas.js";

/** Kept when it parses, absent otherwise. */
const lenient = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);

const timestamp = z.string().refine((s) => !Number.isNaN(Date.parse(s)), "must be an ISO 8601 date-time");

export const VideoSchema = z.object({
  video_id: lenient(z.string()),
  title: lenient(z.string()),
  description: lenient(z.string().nullable()),
  video_url: lenient(z.string()),
  visibility: lenient(z.string()),
  category: lenient(z.string()),
  language: lenient(z.string().nullable()),
  /** Values not listed anywhere we rely on: every string is taken. */
  status: lenient(z.string()),
  duration: lenient(z.number().nonnegative()),
  profile: lenient(ProfileSchema),
  thumbnail: lenient(ThumbnailSchema),
  created_at: lenient(timestamp),
  updated_at: lenient(timestamp),
  published_at: lenient(timestamp.nullable()),
});
export type Video = z.infer<typeof VideoSchema>;

/** Field names accepted in a video's `fields=` and, for embedded objects, their sub-fields. */
export const VIDEO_FIELDS: Record<string, readonly string[] | null> = {
  category: null,
  created_at: null,
  description: null,
  duration: null,
  language: null,
  profile: Object.keys(ProfileSchema.shape),
  published_at: null,
  status: null,
  thumbnail: Object.keys(ThumbnailSchema.shape),
  title: null,
  updated_at: null,
  video_id: null,
  video_url: null,
  visibility: null,
};

/** Field names accepted in a profile's `fields=` (spec 2.3) and, for its objects, their sub-fields. */
export const PROFILE_FIELDS: Record<string, readonly string[] | null> = {
  can_change_name: null,
  content_defaults: Object.keys(ContentDefaultsSchema.shape),
  created_at: null,
  description: null,
  display_name: null,
  name: null,
  profile_id: null,
  social_links: Object.keys(SocialLinksSchema.shape),
  webhook: Object.keys(WebhookConfigSchema.shape),
};

export const MeProfileSchema = z.object({
  profile_id: z.string().regex(ID_PATTERN),
  name: lenient(z.string().min(1)),
});
export type MeProfile = z.infer<typeof MeProfileSchema>;

export const MeResponseSchema = z.object({
  user_id: lenient(z.string()),
  profiles: z.array(z.unknown()),
});

/** `GET /me` as the client returns it. */
export interface Me {
  user_id?: string;
  /** The profiles the key manages, in the platform's order. */
  profiles: MeProfile[];
  /** Entries of `profiles` left out because they had no usable `profile_id`. */
  dropped: number;
}
