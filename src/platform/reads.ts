/**
 * The reads that name things (beyond our spec: the platform's API v2 reference): a video, the
 * profiles the key manages (`GET /me`) and a profile's fields. Each goes through the same transport
 * as every other read (token, retries, error mapping, timeouts, metrics) and is checked with zod.
 */
import type { Logger } from "../log.js";
import type { ApiTransport } from "./api.js";
import { PlatformError } from "./errors.js";
import { validateProfileFields, validateVideoFields } from "./fields.js";
import { checkId } from "./ids.js";
import { type Me, MeProfileSchema, MeResponseSchema, type Video, VideoSchema } from "./read-schemas.js";
import { type Profile, ProfileSchema } from "./schemas.js";

export interface ReadOptions {
  signal?: AbortSignal;
  /** Attempts, the first included (default: the client's). */
  attempts?: number;
}

/** `GET /videos/{id}?fields=…` (scope `video.read`). */
export async function readVideo(
  api: ApiTransport,
  id: string,
  fields: readonly string[] | undefined,
  opts: ReadOptions,
): Promise<Video> {
  const path = `/videos/${checkId("video", id)}`;
  const query = fields ? { fields: validateVideoFields(fields).join(",") } : undefined;
  const video = await api.call("GET", path, {
    operation: "getVideo",
    query,
    schema: VideoSchema,
    resource: "video",
    signal: opts.signal,
    attempts: opts.attempts,
  });
  return video ?? {};
}

/** `GET /profiles/{id}?fields=…`. */
export async function readProfile(
  api: ApiTransport,
  id: string,
  fields: readonly string[] | undefined,
  opts: ReadOptions,
): Promise<Profile> {
  const path = `/profiles/${checkId("profile", id)}`;
  const query = fields ? { fields: validateProfileFields(fields).join(",") } : undefined;
  const profile = await api.call("GET", path, {
    operation: "getProfile",
    query,
    schema: ProfileSchema,
    resource: "profile",
    signal: opts.signal,
  });
  return profile ?? {};
}

/** `GET /me`: the profiles the key manages; entries without a usable id are left out and logged. */
export async function readMe(api: ApiTransport, logger: Logger, opts: ReadOptions): Promise<Me> {
  const me = await api.call("GET", "/me", {
    operation: "getMe",
    schema: MeResponseSchema,
    resource: "me",
    signal: opts.signal,
  });
  if (me === undefined) {
    // Only a `schema: null` call answers undefined; kept as a guard, not expected.
    throw new PlatformError({
      kind: "invalid_response",
      status: 200,
      code: "INVALID_RESPONSE",
      message: "The platform's answer for /me has no profiles list (me.profiles)",
      details: { field: "me.profiles" },
      method: "GET",
      path: "/me",
    });
  }
  const profiles = [];
  for (const entry of me.profiles) {
    const parsed = MeProfileSchema.safeParse(entry);
    if (parsed.success) profiles.push(parsed.data);
  }
  const dropped = me.profiles.length - profiles.length;
  if (dropped > 0) {
    logger.warn({ dropped, kept: profiles.length }, "GET /me listed profiles without a usable profile_id");
  }
  return { ...(me.user_id === undefined ? {} : { user_id: me.user_id }), profiles, dropped };
}
