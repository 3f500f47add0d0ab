/**
 * Sparse `fields` lists (spec 4.1): names from the allowed list, embedded objects narrowed with one
 * level of dot notation (`advertising.end_at`). Checked before sending, so a typo is our error with
 * a clear message instead of a 422 round trip.
 */
import { PlatformError } from "./errors.js";
import { LIVESTREAM_FIELDS } from "./schemas.js";

export function validateLivestreamFields(fields: readonly string[]): string[] {
  const invalid: string[] = [];
  const out: string[] = [];
  for (const raw of fields) {
    const f = raw.trim();
    if (f === "") continue;
    const [top, sub, extra] = f.split(".");
    const subs = top === undefined ? undefined : LIVESTREAM_FIELDS[top];
    const ok =
      top !== undefined &&
      Object.hasOwn(LIVESTREAM_FIELDS, top) &&
      extra === undefined &&
      (sub === undefined || (Array.isArray(subs) && subs.includes(sub)));
    if (!ok) invalid.push(f);
    else if (!out.includes(f)) out.push(f);
  }
  if (invalid.length > 0) {
    const allowed = Object.entries(LIVESTREAM_FIELDS).flatMap(([k, s]) => [
      k,
      ...(s ?? []).map((x) => `${k}.${x}`),
    ]);
    throw new PlatformError({
      kind: "invalid_request",
      code: "INVALID_FORMAT",
      message: `Unknown livestream field${invalid.length > 1 ? "s" : ""}: ${invalid.join(", ")}`,
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
