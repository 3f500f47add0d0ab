/** Refresh buttons: the livestream card's (anyone; the card is read again) and the App Home's. */
import { LIVESTREAM_CARD_FIELDS, livestreamCard } from "../../../messages/index.js";
import { replace } from "../../context.js";
import type { FlowButton, LivestreamButton } from "../../request.js";
import { publishHome } from "../events/home.js";

export const liveRefresh: LivestreamButton = {
  what: (req) => `Could not refresh livestream ${req.action.value ?? ""}`,
  answerTo: (req) => req.respond,
  access: {
    action: "live.refresh",
    livestream: (req) => req.action.value ?? "",
    fields: LIVESTREAM_CARD_FIELDS,
  },
  run: async ({ deps, subject, respond }, { livestream }) => {
    const now = deps.now();
    await respond(
      replace(livestreamCard(livestream, { now, refreshedAt: now, requestedBy: subject.userId })),
    );
  },
};

/** The App Home's Refresh: publishes the Home again (authorized there, as "home.view"). */
export const homeRefresh: FlowButton = {
  quiet: "could not refresh the App Home",
  access: { action: "home.view", inFlow: true },
  run: (req) => publishHome(req),
};
