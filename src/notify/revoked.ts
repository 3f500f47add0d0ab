/**
 * Access decided again whenever the worker takes up a video, before anything is fanned out or
 * posted: a workspace where the app is no longer installed, that is no longer in
 * ALLOWED_WORKSPACES, or to which the profile is no longer bound (a restart with new
 * PROFILE_BINDINGS) gets nothing more of it. Its pending items become dead letters with that
 * reason (`not_installed`, `workspace_not_allowed`, `profile_not_bound`), counted like every
 * failure, and nothing is posted; one warn line per profile and reason says so (not one per item
 * or video), again at most once an hour.
 * More: README.md ("revoked.ts").
 */
import { type RevokedCheck, workspaceOfKey } from "../domain/index.js";
import type { OutboxItem } from "../outbox/index.js";
import type { DeadLetterPass } from "./dead-letters.js";

const LOG_EVERY_MS = 3_600_000;
const MAX_PROFILES = 10_000;

/** Per process: when each (profile, reason) was last logged. */
export class RevokedProfiles {
  private readonly logged = new Map<string, number>();

  constructor(private readonly now: () => number) {}

  /** True when this profile and reason were not logged within the last hour (log now). */
  first(profile: string, reason: string): boolean {
    const key = `${profile}\n${reason}`;
    const at = this.logged.get(key);
    if (at !== undefined && this.now() - at < LOG_EVERY_MS) return false;
    this.logged.delete(key);
    if (this.logged.size >= MAX_PROFILES) {
      const oldest = this.logged.keys().next().value;
      if (oldest !== undefined) this.logged.delete(oldest);
    }
    this.logged.set(key, this.now());
    return true;
  }
}

/**
 * Asks `revoked` for the pass's workspace and profile. When revoked: its pending items (`read`)
 * are dead letters with the reason, acknowledged, and the reason and count are returned (the
 * caller posts nothing). Undefined when the video may go on.
 */
export async function setAsideRevoked(
  pass: DeadLetterPass & { read: readonly OutboxItem[]; revokedProfiles: RevokedProfiles },
  revoked: RevokedCheck,
): Promise<{ teamId: string; profileId: string; reason: string; count: number } | undefined> {
  const { opts, key, read } = pass;
  const { teamId, profileId } = workspaceOfKey(key);
  const reason = await revoked(teamId, profileId);
  if (reason === undefined) return undefined;
  for (const item of read) {
    await opts.outbox.deadLetter(item, reason, opts.now());
    opts.onFailed?.(reason);
  }
  if (read.length > 0)
    await opts.outbox.ack(
      opts.owner,
      key,
      read.map((i) => i.id),
    );
  if (pass.revokedProfiles.first(`${teamId}:${profileId}`, reason))
    opts.logger.warn(
      { team: teamId, profile: profileId, reason, deliveries: read.length },
      "the workspace may no longer get this profile's notifications; they are dead-lettered, nothing is posted",
    );
  return { teamId, profileId, reason, count: read.length };
}
