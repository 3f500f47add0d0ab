/** `GET /livestreams/{id}` (spec 4.1): scopes, visibility of ingest, sparse fields. */
import { type Caller, requireScopes } from "./auth.js";
import { notFound } from "./errors.js";
import { type ObjectShape, parseFields, project } from "./fields.js";
import { GEO_RESTRICTION_SHAPE, invalidFields, PROFILE_SHAPE, profileView } from "./profiles.js";
import type { SandboxLivestream, SandboxProfile } from "./types.js";

const leaves = (...names: string[]): ObjectShape => ({
  fields: Object.fromEntries(names.map((n) => [n, null])),
});

/** Field names and nested tables of spec 2.1 / 2.2, in the spec's order. */
export const LIVESTREAM_SHAPE: ObjectShape = {
  fields: {
    livestream_id: null,
    title: null,
    livestream_url: null,
    description: null,
    language: null,
    category: null,
    country: null,
    visibility: null,
    is_for_kids: null,
    is_explicit: null,
    is_exclusive_content: null,
    is_ai_altered: null,
    has_paid_partnership: null,
    enable_comments: null,
    profile: PROFILE_SHAPE,
    start_at: null,
    end_at: null,
    ingest: leaves("rtmp_url", "srt_url", "available_servers"),
    status: leaves("onair", "airing_at", "audio_bitrate"),
    recording: leaves("auto_record", "status", "start_at", "end_at"),
    geo_restriction: GEO_RESTRICTION_SHAPE,
    embedding: leaves("enable_embed", "embed_url", "embed_html"),
    advertising: leaves("end_at", "remaining"),
    // Spec: `fields=thumbnail` without sub-fields includes only h1080_url.
    thumbnail: {
      ...leaves("h1080_url", "h720_url", "h480_url", "h240_url", "default_url"),
      wholeDefault: ["h1080_url"],
    },
    created_at: null,
    updated_at: null,
  },
};

/** Choice ("not shown"): without `fields`, only the fields the spec marks "Default field". */
export const LIVESTREAM_DEFAULT_FIELDS = ["livestream_id", "title", "livestream_url", "created_at"];

/**
 * The livestream as `caller` may see it. Owner rights = the caller's client owns the livestream's
 * profile. Others never get `ingest` (spec: "returned only with owner authentication") nor the
 * embedded profile's `webhook` (choice: another owner's configuration is not visible).
 */
export function livestreamView(
  ls: SandboxLivestream,
  profiles: Map<string, SandboxProfile>,
  callerClientId: string,
): Record<string, unknown> {
  const { profile_id, ingest, ...rest } = ls;
  const profile = profiles.get(profile_id);
  const owner = profile !== undefined && profile.owner_client_id === callerClientId;
  return {
    ...rest,
    profile: profile === undefined ? undefined : profileView(profile, owner),
    ingest: owner ? ingest : undefined,
  };
}

export function readLivestream(
  livestreams: Map<string, SandboxLivestream>,
  profiles: Map<string, SandboxProfile>,
  caller: Caller,
  id: string,
  fieldsRaw: string | undefined,
): Record<string, unknown> {
  requireScopes(caller, ["live.read"]);
  const ls = livestreams.get(id);
  if (ls === undefined) throw notFound("livestream", id, "id");
  const parsed = parseFields(fieldsRaw, LIVESTREAM_SHAPE, LIVESTREAM_DEFAULT_FIELDS);
  if (!parsed.ok) throw invalidFields(parsed.invalid, LIVESTREAM_SHAPE);
  return project(livestreamView(ls, profiles, caller.clientId), LIVESTREAM_SHAPE, parsed.selection);
}
