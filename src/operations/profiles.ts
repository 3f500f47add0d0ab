/**
 * Profiles by name and by picking, on the Slack side: which profile a command means when it names
 * one by id or by name, the profiles a workspace may choose from, the labels shown in messages,
 * and the menu's carried command.
 * More: README.md ("profiles.ts").
 */

import { ACTION_RULES, type Decision, type ProfileAction, refusal, type Subject } from "../access/index.js";
import type { BotDeps } from "../deps.js";
import { isPlatformId } from "../domain/index.js";
import { PICK_BLOCK_PREFIX } from "../messages/index.js";
import { type ManagedProfile, ManagedProfilesError } from "../platform/index.js";

/** How long a message waits for a profile's label before it shows the id. */
export const LABEL_WAIT_MS = 2000;

/** Who a read is charged to: the person who asked (and their workspace), or the workspace alone. */
export interface Payer {
  teamId: string;
  userId?: string | undefined;
}

/**
 * The profile's label (display name, else name), or undefined when only its id is known. A read
 * it needs is charged to `payer` first; past the budget, the id is shown.
 */
export async function profileLabel(
  deps: BotDeps,
  payer: Payer,
  profileId: string,
): Promise<string | undefined> {
  const label = await deps.names.profileName(profileId, {
    signal: AbortSignal.timeout(LABEL_WAIT_MS),
    charge: () => deps.access.chargeRead(payer),
  });
  return label === profileId ? undefined : label;
}

/**
 * Watch rows with their profile's display name (cached an hour; a profile no longer bound to the
 * workspace keeps its id: its name is not read).
 */
export async function withProfileNames<R extends { profileId?: string | null }>(
  deps: BotDeps,
  subject: Subject,
  rows: readonly R[],
): Promise<Array<R & { profileName?: string }>> {
  const ids = [...new Set(rows.flatMap((r) => (r.profileId ? [r.profileId] : [])))];
  const names = new Map<string, string | undefined>(
    await Promise.all(
      ids.map(
        async (id) =>
          [
            id,
            deps.access.profileBound(subject, id) ? await profileLabel(deps, subject, id) : undefined,
          ] as const,
      ),
    ),
  );
  return rows.map((r) => {
    const name = r.profileId ? names.get(r.profileId) : undefined;
    return name === undefined ? r : { ...r, profileName: name };
  });
}

/** Whether PROFILE_BINDINGS lists the workspace's profiles one by one (else every profile is bound). */
function bindingsListed(deps: BotDeps): boolean {
  return deps.config.slack.mode === "oauth" || Object.keys(deps.config.profileBindings).length > 0;
}

/**
 * The profiles the key manages (`GET /me`) that are bound to the workspace. Throws
 * ManagedProfilesError ("no_profile", "unavailable").
 */
export async function boundProfiles(
  deps: BotDeps,
  subject: Pick<Subject, "teamId" | "enterpriseId">,
  signal?: AbortSignal,
): Promise<ManagedProfile[]> {
  // A picker's read is charged to the workspace (the contract: previews, pickers, steps).
  const charge = () => deps.access.chargeRead({ teamId: subject.teamId });
  const managed = await deps.names.managedProfiles(signal ? { signal, charge } : { charge });
  return managed.filter((p) => deps.access.profileBound(subject, p.profileId));
}

/** A word that is a profile id without asking: set up in the workspace, or listed in its bindings. */
export async function isKnownProfileId(deps: BotDeps, subject: Subject, word: string): Promise<boolean> {
  if (bindingsListed(deps) && deps.access.profileBound(subject, word)) return true;
  return (await deps.settings.getProfile(subject.teamId, word)) !== undefined;
}

/**
 * The id of the bound profile `word` names (its id first, then its name, case-insensitive); the
 * word itself when none does or `GET /me` could not be read (then it is taken as an id).
 */
export async function findProfile(
  deps: BotDeps,
  subject: Subject,
  word: string,
  signal?: AbortSignal,
): Promise<string> {
  try {
    const found = deps.names.resolveProfile(word, await boundProfiles(deps, subject, signal));
    return found?.profileId ?? word;
  } catch (err) {
    if (err instanceof ManagedProfilesError) return word;
    throw err;
  }
}

/**
 * The workspace and the person's role for `action`, before anything is asked of the platform to
 * find the profile (the binding is checked once the profile is known). A person who is not a
 * manager is told what `action` needs.
 */
export async function mayAsk(deps: BotDeps, subject: Subject, action: ProfileAction): Promise<Decision> {
  const rule = ACTION_RULES[action];
  const d = await deps.access.authorize(subject, rule.role === "manager" ? "webhook.setup" : "help", {
    kind: "workspace",
  });
  if (d.allowed || d.reason !== "not_manager") return d;
  return refusal("not_manager", { verb: rule.verb, teamId: subject.teamId });
}
