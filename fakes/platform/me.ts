/**
 * `GET /me` in the shape the platform's API v2 documents ("Collect profile IDs", reference get-me):
 * `{ "user_id": "…", "profiles": [{ "profile_id": "…", "name": "…" }] }`, the profiles the key
 * manages (here: the profiles its client owns, in seed order). `fields` narrows the two top-level
 * names.
 *
 * Choice: any valid token reads it. The platform's reference asks for `account.read`, a scope the
 * bot's default PLATFORM_SCOPES do not request; the sandbox does not enforce it (see
 * docs/platform-client.md).
 */
import { createHash } from "node:crypto";
import type { Caller } from "./auth.js";
import { type ObjectShape, parseFields, project } from "./fields.js";
import { invalidFields } from "./profiles.js";
import type { SandboxProfile } from "./types.js";

export const ME_SHAPE: ObjectShape = { fields: { user_id: null, profiles: null } };

/** The user behind a key: stable per client id, shaped like the platform's ids. */
export function userIdOf(clientId: string): string {
  const n = createHash("sha256").update(clientId).digest().readUInt32BE(0);
  return `x${n.toString(36).padStart(6, "0").slice(0, 6)}`;
}

export function readMe(
  profiles: Map<string, SandboxProfile>,
  caller: Caller,
  fieldsRaw: string | undefined,
): Record<string, unknown> {
  const parsed = parseFields(fieldsRaw, ME_SHAPE, Object.keys(ME_SHAPE.fields));
  if (!parsed.ok) throw invalidFields(parsed.invalid, ME_SHAPE);
  const managed = [...profiles.values()]
    .filter((p) => p.owner_client_id === caller.clientId)
    .map((p) => ({ profile_id: p.profile_id, name: p.name }));
  return project({ user_id: userIdOf(caller.clientId), profiles: managed }, ME_SHAPE, parsed.selection);
}
