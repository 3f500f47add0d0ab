/** What a channel's mode (live, digest, paused) is shown against in `/webhook` answers and the Home. */

import type { BotDeps } from "../deps.js";
import type { ModeClock } from "../messages/index.js";
import { nextDigestAt } from "../store/index.js";

export function modeClock(deps: Pick<BotDeps, "now" | "config">): ModeClock {
  return { now: deps.now(), periodMs: deps.config.digests.periodMs, nextDigestAt };
}
