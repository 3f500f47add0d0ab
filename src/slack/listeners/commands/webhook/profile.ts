/**
 * Which profile a `/webhook` subcommand means (named by id or name, the workspace's only one, or a
 * menu to choose from: src/operations/profiles.ts), authorized (src/access) before anything reaches the
 * platform.
 */
import type { ProfileAction } from "../../../../access/index.js";
import {
  describePlatformError,
  profileMenuProblemMessage,
  profilePickerMessage,
  refusalMessage,
} from "../../../../messages/index.js";
import { boundProfiles, findProfile, isKnownProfileId, mayAsk } from "../../../../operations/profiles.js";
import { isPlatformError, ManagedProfilesError } from "../../../../platform/index.js";
import { ephemeral } from "../../../context.js";
import type { CommandRequest } from "../../../request.js";
import type { ProfileCommand } from "../grammar.js";
import { pickCarry } from "./pick-codec.js";

/** The action each profile command is authorized as. */
export const ACTION_OF: Record<ProfileCommand["kind"], ProfileAction> = {
  set: "webhook.set",
  show: "webhook.show",
  events: "webhook.events",
  remove: "webhook.remove",
  test: "webhook.test",
  subscribe: "webhook.subscribe",
  unsubscribe: "webhook.unsubscribe",
  subscriptions: "webhook.subscriptions",
  pause: "webhook.pause",
  resume: "webhook.pause",
};

/** The editor's trigger lives 3 s: a name is looked up for at most this long before it opens. */
const EDITOR_LOOKUP_MS = 1500;

/**
 * The profile a command means: the one named (by id, or by name among the bound profiles), else
 * the workspace's only one. Null when answered already: refused before asking the platform, or no
 * profile given and none or several set up (the menu, or why there is none).
 */
export async function chooseProfile(req: CommandRequest, cmd: ProfileCommand): Promise<string | null> {
  const action = ACTION_OF[cmd.kind];
  const refused = async () => {
    const d = await mayAsk(req, action);
    if (!d.allowed) await req.respond(ephemeral(refusalMessage(d)));
    return !d.allowed;
  };
  if (cmd.profile !== null) {
    if (await isKnownProfileId(req, cmd.profile)) return cmd.profile;
    if (cmd.kind === "events" && cmd.events === null && req.triggerId !== undefined) {
      // The editor: a refusal shows in it (it authorizes inside), and the lookup is brief.
      if (!(await mayAsk(req, action)).allowed) return cmd.profile;
      return findProfile(req, cmd.profile, AbortSignal.timeout(EDITOR_LOOKUP_MS));
    }
    if (await refused()) return null;
    return findProfile(req, cmd.profile);
  }
  const only = await req.deps.settings.defaultProfileId(req.subject.teamId);
  if (only !== undefined) return only;
  if (await refused()) return null;
  const carry = pickCarry(cmd);
  let profiles: Awaited<ReturnType<typeof boundProfiles>>;
  try {
    profiles = await boundProfiles(req);
  } catch (err) {
    if (!(err instanceof ManagedProfilesError)) throw err;
    const e = err.platformError;
    const detail = e && isPlatformError(e) ? describePlatformError(e) : undefined;
    req.log.info({ problem: err.problem }, "no menu of profiles");
    await req.respond(ephemeral(profileMenuProblemMessage(err.problem, { carry, detail })));
    return null;
  }
  await req.respond(
    ephemeral(
      profiles.length === 0
        ? profileMenuProblemMessage("none_bound", { carry })
        : profilePickerMessage({ carry, profiles }),
    ),
  );
  return null;
}
