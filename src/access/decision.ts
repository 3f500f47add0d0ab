/**
 * What the authorizer answers: allowed, or refused with a stable reason code and the data its
 * words need. The words are src/messages' (refusalMessage, refusalText): access says no, the
 * Slack side says how.
 */
import type { BudgetTake } from "./budget.js";

export type RefusalReason =
  | "workspace_not_allowed"
  | "not_manager"
  | "profile_not_bound"
  | "profile_claimed"
  | "read_budget";

export type Refused =
  | { allowed: false; reason: "workspace_not_allowed"; teamId: string }
  /** `verb`: what was asked ("change the webhook"), for the answer that says who can. */
  | { allowed: false; reason: "not_manager"; verb: string }
  | { allowed: false; reason: "profile_not_bound" | "profile_claimed"; profileId: string }
  /** Whose read budget is used up, its size, and when to try again. */
  | {
      allowed: false;
      reason: "read_budget";
      budget: "user" | "workspace";
      perMinute: number;
      retryAfterSeconds: number;
    };

export type Decision = { allowed: true; manager: boolean } | Refused;

export function refusal(
  reason: Exclude<RefusalReason, "read_budget">,
  opts: { verb: string; teamId: string; profileId?: string },
): Refused {
  switch (reason) {
    case "workspace_not_allowed":
      return { allowed: false, reason, teamId: opts.teamId };
    case "not_manager":
      return { allowed: false, reason, verb: opts.verb };
    case "profile_not_bound":
    case "profile_claimed":
      return { allowed: false, reason, profileId: opts.profileId ?? "" };
  }
}

/** A read budget is used up: whose, and in how many seconds to try again. */
export function budgetRefusal(t: Extract<BudgetTake, { ok: false }>): Refused {
  const retryAfterSeconds = Math.max(1, Math.ceil(t.retryAfterMs / 1000));
  return {
    allowed: false,
    reason: "read_budget",
    budget: t.budget,
    perMinute: t.perMinute,
    retryAfterSeconds,
  };
}
