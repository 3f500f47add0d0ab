/** A profile command for a profile: authorized as its action, then its runner. */

import { authorizeOrAnswer } from "../../../grant.js";
import type { CommandRequest, OfKind } from "../../../request.js";
import { openEventsEditor } from "../../views/events-editor.js";
import type { ProfileCommand } from "../grammar.js";
import { channelOf, type Runner } from "./ctx.js";
import { events } from "./events.js";
import { pause, resume } from "./pause.js";
import { ACTION_OF } from "./profile.js";
import { remove, set, show, test } from "./settings.js";
import { subscribe } from "./subscribe.js";
import { subscriptions, unsubscribe } from "./subscriptions.js";

export type { Runner } from "./ctx.js";

const RUNNERS: { [K in ProfileCommand["kind"]]: Runner<OfKind<ProfileCommand, K>> } = {
  set,
  show,
  events,
  remove,
  test,
  subscribe,
  unsubscribe,
  subscriptions,
  pause,
  resume,
};

export async function runFor(req: CommandRequest, cmd: ProfileCommand, id: string): Promise<void> {
  if (cmd.kind === "events" && cmd.events === null && req.triggerId) {
    // The editor opens at once (the trigger lives 3 s) and is authorized inside.
    await openEventsEditor(req, { triggerId: req.triggerId, profileId: id, channelId: channelOf(req) });
    return;
  }
  const d = await authorizeOrAnswer(req, ACTION_OF[cmd.kind], { kind: "profile", profileId: id });
  if (!d) return;
  await (RUNNERS[cmd.kind] as Runner<ProfileCommand>)(req, cmd, id, d);
}
