/** What the authorizer answers: allowed, or refused with a stable reason code and the words to show. */

import {
  code,
  type Message,
  notManagerMessage,
  profileClaimedMessage,
  profileNotBoundMessage,
  readBudgetMessage,
  workspaceNotAllowedMessage,
} from "../messages/index.js";
import type { BudgetTake } from "./budget.js";

export type RefusalReason =
  | "workspace_not_allowed"
  | "not_manager"
  | "profile_not_bound"
  | "profile_claimed"
  | "read_budget";

export interface Refused {
  allowed: false;
  reason: RefusalReason;
  /** For a message (ephemeral answer). */
  message: Message;
  /** One paragraph of mrkdwn, for a modal. */
  text: string;
}

export type Decision = { allowed: true; manager: boolean } | Refused;

const NOTHING = "Nothing was sent to the platform.";

export function refusal(
  reason: Exclude<RefusalReason, "read_budget">,
  o: { verb: string; teamId: string; profileId?: string },
): Refused {
  const id = o.profileId ?? "";
  switch (reason) {
    case "workspace_not_allowed":
      return {
        allowed: false,
        reason,
        message: workspaceNotAllowedMessage(o.teamId),
        text: `🔒 This Slack workspace is not allowed to use this bot (its operator's ALLOWED_WORKSPACES does not list it). ${NOTHING}`,
      };
    case "not_manager":
      return {
        allowed: false,
        reason,
        message: notManagerMessage(o.verb),
        text: `🔒 Only managers (workspace admins and owners, the users in MANAGER_USER_IDS and the users added as managers) can ${o.verb}. Ask one of them. Nothing was changed.`,
      };
    case "profile_not_bound":
      return {
        allowed: false,
        reason,
        message: profileNotBoundMessage(id),
        text: `🔒 Profile ${code(id, 100)} is not bound to this Slack workspace: the bot's operator decides which profiles each workspace may use (PROFILE_BINDINGS). ${NOTHING}`,
      };
    case "profile_claimed":
      return {
        allowed: false,
        reason,
        message: profileClaimedMessage(id),
        text: `🔒 Profile ${code(id, 100)} is managed from another Slack workspace through this bot: only that workspace can change it. Nothing was changed.`,
      };
  }
}

/** A read budget is used up: the ephemeral answer says whose and in how many seconds to try again. */
export function budgetRefusal(t: Extract<BudgetTake, { ok: false }>): Refused {
  const retryAfterSeconds = Math.max(1, Math.ceil(t.retryAfterMs / 1000));
  const m = readBudgetMessage({ budget: t.budget, perMinute: t.perMinute, retryAfterSeconds });
  return { allowed: false, reason: "read_budget", message: m, text: m.text };
}
