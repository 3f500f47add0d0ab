/** Refresh buttons: the livestream card's (anyone; the card is read again) and the App Home's. */
import { LIVESTREAM_CARD_FIELDS, livestreamCard, refusalMessage } from "../../../messages/index.js";
import { ephemeral, replace } from "../../context.js";
import type { ActionHandler } from "../../request.js";
import { publishHome } from "../events/home.js";

export const liveRefresh: ActionHandler = {
  what: (req) => `Could not refresh livestream ${req.action.value ?? ""}`,
  answerTo: (req) => req.respond,
  run: async ({ deps, subject, respond, action }) => {
    const id = action.value ?? "";
    const r = await deps.access.readLivestream(subject, "live.refresh", id, LIVESTREAM_CARD_FIELDS);
    if (!r.allowed) {
      await respond(ephemeral(refusalMessage(r)));
      return;
    }
    const now = deps.now();
    await respond(
      replace(livestreamCard(r.livestream, { now, refreshedAt: now, requestedBy: subject.userId })),
    );
  },
};

/** The App Home's Refresh: publishes the Home again (authorized there, as "home.view"). */
export const homeRefresh: ActionHandler = {
  quiet: "could not refresh the App Home",
  run: ({ deps, subject }) => publishHome(deps, subject),
};
