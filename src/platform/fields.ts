/**
 * Sparse `fields` lists (spec 4.1): names from the allowed list, embedded objects narrowed with one
 * level of dot notation (`advertising.end_at`). Checked before sending, so a typo is our error with
 * a clear message instead of a 422 round trip.
 */
import { PlatformError } from "./errors.js";
import { PROFILE_FIELDS, VIDEO_FIELDS } from "./read-schemas.js";
import { LIVESTREAM_FIELDS } from "./schemas.js";

export function validateLivestreamFields(fields: readonly string[]): string[] {
  return validateFields("livestream", LIVESTREAM_FIELDS, fields);
}

export function validateVideoFields(fields: readonly string[]): string[] {
  return validateFields("video", VIDEO_FIELDS, fields);
}

export function validateProfileFields(fields: readonly string[]): string[] {
  return validateFields("profile", PROFILE_FIELDS, fields);
}

/** `fields` checked against `table` (name → sub-field names, or null for a plain field). */
function validateFields(
  resource: string,
  table: Record<string, readonly string[] | null>,
  fields: readonly string[],
): string[] {
  const invalid: string[] = [];
  const out: string[] = [];
  for (const raw of fields) {
    const f = raw.trim();
    if (f === "") continue;
    const [top, sub, extra] = f.split(".");
    const subs = top === undefined ? undefined : table[top];
    const ok =
      top !== undefined &&
      Object.hasOwn(table, top) &&
      extra === undefined &&
      (sub === undefined || (Array.isArray(subs) && subs.includes(sub)));
    if (!ok) invalid.push(f);
    else if (!out.includes(f)) out.push(f);
  }
  if (invalid.length > 0) {
    const allowed = Object.entries(table).flatMap(([k, s]) => [k, ...(s ?? []).map((x) => `${k}.${x}`)]);
    throw new PlatformError({
      kind: "invalid_request",
      code: "INVALID_FORMAT",
      message: `Unknown ${resource} field${invalid.length > 1 ? "s" : ""}: ${invalid.join(", ")}`,
      details: { param: "fields", invalid_values: invalid, allowed_values: allowed },
    });
  }
  if (out.length === 0) {
    throw new PlatformError({
      kind: "invalid_request",
      code: "MISSING_REQUIRED_VALUE",
      message: "The fields list is empty",
      details: { param: "fields" },
    });
  }
  return out;
}
