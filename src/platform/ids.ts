/** Ids that go into a request path. */
import { invalid } from "./webhook-rules.js";

/**
 * Ids go into the path, so only a whitelist passes: a letter or digit, then letters, digits, `_`
 * and `-`, at most 128 characters (the sandbox's ids and the slash-command grammar fit). This
 * keeps out `/`, `?`, `#` and the dot segments `.` and `..`, which URL parsing would collapse.
 */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/** The id, trimmed and encoded for a path; an `invalid_request` error when it is not an id. */
export function checkId(kind: "livestream" | "profile" | "video", id: string): string {
  const t = id.trim();
  if (!ID_PATTERN.test(t)) {
    throw invalid("INVALID_FORMAT", `"${id}" is not a valid ${kind} id`, {
      param: kind === "profile" ? "profile_id" : "id",
      provided: id,
    });
  }
  return encodeURIComponent(t);
}
