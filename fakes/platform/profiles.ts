/** Profiles (spec 2.3): reading with `fields`, and the webhook state table of 3.3 / rules of 4.2. */

import type { IncomingMessage } from "node:http";
import { WEBHOOK_EVENTS } from "../../src/domain/index.js";
import type { Caller } from "./auth.js";
import { ApiError, missingPermissions, notFound, unprocessable } from "./errors.js";
import { allowedNames, type ObjectShape, parseFields, project } from "./fields.js";
import { mediaType } from "./http.js";
import type { SandboxProfile, SandboxWebhook } from "./types.js";

/**
 * ProfileWebhookEvent (spec 2.4): every value accepted; the same eight the bot knows (test/sandbox
 * checks the sandbox against the spec's list written out).
 */
export { WEBHOOK_EVENTS };

/** The allowed_values of INVALID_ENUM_VALUE: as the spec notes (6.1), that list omits video.published and video.complete. */
export const ENUM_ERROR_ALLOWED_EVENTS = WEBHOOK_EVENTS.filter(
  (e) => e !== "video.published" && e !== "video.complete",
);

const leaves = (...names: string[]): ObjectShape => ({
  fields: Object.fromEntries(names.map((n) => [n, null])),
});

export const GEO_RESTRICTION_SHAPE = leaves("mode", "countries");

export const PROFILE_SHAPE: ObjectShape = {
  fields: {
    profile_id: null,
    name: null,
    display_name: null,
    description: null,
    created_at: null,
    can_change_name: null,
    social_links: leaves("twitter_url", "instagram_url", "facebook_url", "website_url"),
    content_defaults: {
      fields: {
        ...leaves(
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
        ).fields,
        geo_restriction: GEO_RESTRICTION_SHAPE,
      },
    },
    webhook: leaves("callback_url", "events"),
  },
};

/** Returned when `fields` is omitted: the fields the spec marks "Default field". */
export const PROFILE_DEFAULT_FIELDS = ["profile_id", "name", "created_at"];

/** The profile as the API shows it (owner_client_id dropped; webhook only when `withWebhook`). */
export function profileView(p: SandboxProfile, withWebhook: boolean): Record<string, unknown> {
  const { owner_client_id: _owner, webhook, ...rest } = p;
  return withWebhook ? { ...rest, webhook } : rest;
}

export function invalidFields(invalid: string[], shape: ObjectShape): ApiError {
  return unprocessable("INVALID_FORMAT", `Unknown field name(s) in fields: ${invalid.join(", ")}`, {
    param: "fields",
    invalid_values: invalid,
    allowed_values: allowedNames(shape),
  });
}

/**
 * Emulated eventual consistency (`SandboxOptions.staleReads`): after a PATCH changes a profile's
 * webhook, the next `n` reads of that profile that select `webhook` see the value from before it.
 */
export class StaleReads {
  private readonly pending = new Map<string, { webhook: SandboxWebhook; remaining: number }>();

  constructor(private readonly n: number) {}

  /** A PATCH changed `profileId`'s webhook from `previous`. */
  wrote(profileId: string, previous: SandboxWebhook): void {
    if (this.n <= 0) return;
    // A second write before the first one is visible keeps the oldest value: readers lag behind.
    const older = this.pending.get(profileId)?.webhook ?? previous;
    this.pending.set(profileId, { webhook: cloneWebhook(older), remaining: this.n });
  }

  /** The stale webhook for one read of `profileId`, while reads are still to be stale. */
  take(profileId: string): SandboxWebhook | undefined {
    const entry = this.pending.get(profileId);
    if (entry === undefined) return undefined;
    entry.remaining -= 1;
    if (entry.remaining <= 0) this.pending.delete(profileId);
    return cloneWebhook(entry.webhook);
  }

  clear(): void {
    this.pending.clear();
  }
}

const cloneWebhook = (w: SandboxWebhook): SandboxWebhook => ({
  callback_url: w.callback_url,
  events: w.events === null ? null : [...w.events],
});

/**
 * `GET /profiles/{id}`. Choice (scopes not shown): every valid token may read a profile it can see;
 * a client sees only the profiles it owns, others answer 404 like unknown ids.
 */
export function readProfile(
  profiles: Map<string, SandboxProfile>,
  caller: Caller,
  id: string,
  fieldsRaw: string | undefined,
  stale?: StaleReads,
): Record<string, unknown> {
  const profile = profiles.get(id);
  if (profile === undefined || profile.owner_client_id !== caller.clientId)
    throw notFound("profile", id, "profile_id");
  const parsed = parseFields(fieldsRaw, PROFILE_SHAPE, PROFILE_DEFAULT_FIELDS);
  if (!parsed.ok) throw invalidFields(parsed.invalid, PROFILE_SHAPE);
  const staleWebhook = parsed.selection.children.has("webhook") ? stale?.take(id) : undefined;
  const view = profileView(profile, true);
  if (staleWebhook !== undefined) view.webhook = staleWebhook;
  return project(view, PROFILE_SHAPE, parsed.selection);
}

export type PatchResponseMode = "profile" | "empty-200" | "no-content";

export interface PatchOptions {
  mode: PatchResponseMode;
  /** Store callback URLs as `new URL(x).href` (SandboxOptions.normalizeUrls). */
  normalizeUrls?: boolean;
  stale?: StaleReads;
}

/** `PATCH /profiles/{id}`: returns the status and JSON body (null for 204). */
export function patchProfile(
  profiles: Map<string, SandboxProfile>,
  caller: Caller,
  id: string,
  req: IncomingMessage,
  rawBody: Buffer,
  { mode, normalizeUrls = false, stale }: PatchOptions,
): { status: number; body: unknown } {
  const profile = profiles.get(id);
  const required = ["profile.manage", "owner"];
  const missing: string[] = [];
  if (!caller.scopes.has("profile.manage")) missing.push("profile.manage");
  if (profile !== undefined && profile.owner_client_id !== caller.clientId) missing.push("owner");
  if (missing.length > 0) throw missingPermissions(required, missing);
  if (profile === undefined) throw notFound("profile", id, "profile_id");
  const type = mediaType(req);
  if (type !== "application/json") {
    throw new ApiError(415, "UNSUPPORTED_MEDIA_TYPE", "Content-Type must be application/json", {
      param: "content-type",
      provided: type === "" ? null : type,
      allowed_values: ["application/json"],
    });
  }
  let body: unknown;
  try {
    body = JSON.parse(rawBody.toString("utf8"));
  } catch {
    throw unprocessable("INVALID_FORMAT", "The request body is not valid JSON", { param: "body" });
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw unprocessable("INVALID_FORMAT", "The request body must be a JSON object", { param: "body" });
  }
  // Write rules of other profile fields are not shown: other top-level keys are ignored.
  if (Object.hasOwn(body, "webhook")) {
    const previous = profile.webhook;
    profile.webhook = updateWebhook(previous, (body as Record<string, unknown>).webhook, { normalizeUrls });
    const changed =
      previous.callback_url !== profile.webhook.callback_url ||
      JSON.stringify(previous.events) !== JSON.stringify(profile.webhook.events);
    if (changed) stale?.wrote(id, previous);
  }
  // Response body "not shown": see SandboxOptions.patchResponse.
  if (mode === "no-content") return { status: 204, body: null };
  if (mode === "empty-200") return { status: 200, body: {} };
  const parsed = parseFields(undefined, PROFILE_SHAPE, [...PROFILE_DEFAULT_FIELDS, "webhook"]);
  return {
    status: 200,
    body: parsed.ok ? project(profileView(profile, true), PROFILE_SHAPE, parsed.selection) : {},
  };
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function checkUrl(value: unknown, normalize: boolean): string {
  const details = { field: "webhook.callback_url", provided: value, requirement: "https" };
  if (typeof value !== "string")
    throw unprocessable("INVALID_FORMAT", "callback_url must be a string", details);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw unprocessable("INVALID_FORMAT", "callback_url is not a valid URL", details);
  }
  if (url.protocol !== "https:")
    throw unprocessable("INVALID_FORMAT", "callback_url must use HTTPS", details);
  return normalize ? url.href : value;
}

function checkEvents(value: unknown): string[] {
  const field = "webhook.events";
  if (!Array.isArray(value)) {
    throw unprocessable("INVALID_FORMAT", "events must be an array of event names", {
      field,
      provided: value,
      requirement: "array",
    });
  }
  if (value.length === 0) {
    throw unprocessable("MISSING_REQUIRED_VALUE", "events must contain at least one event type", { field });
  }
  const known = WEBHOOK_EVENTS as readonly unknown[];
  const invalid = value.filter((e) => !known.includes(e));
  if (invalid.length > 0) {
    throw unprocessable("INVALID_ENUM_VALUE", `Unknown event type(s): ${invalid.join(", ")}`, {
      field,
      invalid_values: invalid,
      allowed_values: [...ENUM_ERROR_ALLOWED_EVENTS],
    });
  }
  return [...new Set(value as string[])];
}

/**
 * The state table of spec 3.3 with rules 1-5 of 4.2. Values are validated first (rules 1, 2),
 * then completeness (3, 4); both null removes (5). Choice: one value null and the other not is
 * rejected with MISSING_REQUIRED_VALUE on the null one (a webhook is never half-configured).
 */
export function updateWebhook(
  current: SandboxWebhook,
  input: unknown,
  opts: { normalizeUrls?: boolean } = {},
): SandboxWebhook {
  if (!isObject(input)) {
    throw unprocessable("INVALID_FORMAT", "webhook must be an object", {
      field: "webhook",
      provided: input,
      requirement: "object",
    });
  }
  const url = Object.hasOwn(input, "callback_url")
    ? input.callback_url === null
      ? null
      : checkUrl(input.callback_url, opts.normalizeUrls ?? false)
    : undefined;
  const events = Object.hasOwn(input, "events")
    ? input.events === null
      ? null
      : checkEvents(input.events)
    : undefined;
  if (url === null && events === null) return { callback_url: null, events: null };
  const missing = (field: string, message: string) =>
    unprocessable("MISSING_REQUIRED_VALUE", message, { field: `webhook.${field}` });
  const removal = "set both callback_url and events to null to remove the webhook";
  if (url === null) throw missing("callback_url", `callback_url cannot be null alone: ${removal}`);
  if (events === null) throw missing("events", `events cannot be null alone: ${removal}`);
  const configured = current.callback_url !== null && current.events !== null;
  if (!configured) {
    const first = "on first creation both callback_url and events are required";
    if (url === undefined) throw missing("callback_url", first);
    if (events === undefined) throw missing("events", first);
  }
  return { callback_url: url ?? current.callback_url, events: events ?? current.events };
}
