/**
 * Profiles by name and by picking, on the Slack side: which profile a command means when it names
 * one by id or by name, the profiles a workspace may choose from, the labels shown in messages,
 * and the menu's carried command.
 * More: README.md ("profiles.ts").
 */

import {
  ACTION_RULES,
  type Action,
  type Decision,
  type ProfileAction,
  type Resource,
  refusal,
  type Subject,
} from "../access/index.js";
import type { BotDeps } from "../deps.js";
import { type ManagedProfile, ManagedProfilesError } from "../platform/index.js";

/** How long a message waits for a profile's label before it shows the id. */
export const LABEL_WAIT_MS = 2000;

/** Who a read is charged to: the person who asked (and their workspace), or the workspace alone. */
export interface Payer {
  teamId: string;
  userId?: string | undefined;
}

/**
 * What these functions are given: a request of the Slack side, whose decisions are bound to the
 * person asking by its wrapper (src/slack/request.ts, the one caller of the Authorizer).
 */
export interface Asking {
  deps: BotDeps;
  subject: Subject;
  authorize(action: Action, resource: Resource): Promise<Decision>;
  profileBound(profileId: string | undefined): boolean;
  chargeRead(payer: Payer): Promise<boolean>;
}

/**
 * The profile's label (display name, else name), or undefined when only its id is known. A read
 * it needs is charged to the person asking first; past the budget, the id is shown.
 */
export async function profileLabel(req: Asking, profileId: string): Promise<string | undefined> {
  const label = await req.deps.names.profileName(profileId, {
    signal: AbortSignal.timeout(LABEL_WAIT_MS),
    charge: () => req.chargeRead(req.subject),
  });
  return label === profileId ? undefined : label;
}

/**
 * Watch rows with their profile's display name (cached an hour; a profile no longer bound to the
 * workspace keeps its id: its name is not read).
 */
export async function withProfileNames<R extends { profileId?: string | null }>(
  req: Asking,
  rows: readonly R[],
): Promise<Array<R & { profileName?: string }>> {
  const ids = [...new Set(rows.flatMap((r) => (r.profileId ? [r.profileId] : [])))];
  const names = new Map<string, string | undefined>(
    await Promise.all(
      ids.map(async (id) => [id, req.profileBound(id) ? await profileLabel(req, id) : undefined] as const),
    ),
  );
  return rows.map((r) => {
    const name = r.profileId ? names.get(r.profileId) : undefined;
    return name === undefined ? r : { ...r, profileName: name };
  });
}

/** Whether PROFILE_BINDINGS lists the workspace's profiles one by one (else every profile is bound). */
function bindingsListed(deps: BotDeps): boolean {
  return deps.config.slack.mode === "oauth" || Object.keys(deps.config.access.profileBindings).length > 0;
}

/**
 * The profiles the key manages (`GET /me`) that are bound to the workspace. Throws
 * ManagedProfilesError ("no_profile", "unavailable").
 */
export async function boundProfiles(req: Asking, signal?: AbortSignal): Promise<ManagedProfile[]> {
  // A picker's read is charged to the workspace (the contract: previews, pickers, steps).
  const charge = () => req.chargeRead({ teamId: req.subject.teamId });
  const managed = await req.deps.names.managedProfiles(signal ? { signal, charge } : { charge });
  return managed.filter((p) => req.profileBound(p.profileId));
}

/** A word that is a profile id without asking: set up in the workspace, or listed in its bindings. */
export async function isKnownProfileId(req: Asking, word: string): Promise<boolean> {
  if (bindingsListed(req.deps) && req.profileBound(word)) return true;
  return (await req.deps.settings.getProfile(req.subject.teamId, word)) !== undefined;
}

/**
 * The id of the bound profile `word` names (its id first, then its name, case-insensitive); the
 * word itself when none does or `GET /me` could not be read (then it is taken as an id).
 */
export async function findProfile(req: Asking, word: string, signal?: AbortSignal): Promise<string> {
  try {
    const found = req.deps.names.resolveProfile(word, await boundProfiles(req, signal));
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
export async function mayAsk(req: Asking, action: ProfileAction): Promise<Decision> {
  const rule = ACTION_RULES[action];
  const d = await req.authorize(rule.role === "manager" ? "webhook.setup" : "help", { kind: "workspace" });
  if (d.allowed || d.reason !== "not_manager") return d;
  return refusal("not_manager", { verb: rule.verb, teamId: req.subject.teamId });
}
