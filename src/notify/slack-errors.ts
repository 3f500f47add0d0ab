/** What a failed Slack Web API call means for the notification worker. */
import { ErrorCode } from "@slack/web-api";

export type SlackFailure =
  | { kind: "rate_limited"; retryAfterSeconds: number }
  /** Slack refuses for good: record, report once, do not retry. */
  | { kind: "permanent"; code: string }
  /** The parent message is gone (deleted by someone): post a new one. */
  | { kind: "message_gone"; code: string }
  /** Slack or the network failed: back off and try again. */
  | { kind: "transient"; code: string };

/** Errors that no retry will fix: the channel or the token is not usable. */
export const PERMANENT_SLACK_ERRORS = new Set([
  "channel_not_found",
  "not_in_channel",
  "is_archived",
  "invalid_auth",
  "account_inactive",
  "token_revoked",
  "not_authed",
  "missing_scope",
  "restricted_action",
  "team_access_not_granted",
  "ekm_access_denied",
]);

export function classifySlackError(err: unknown): SlackFailure {
  const e = err as { code?: string; retryAfter?: number; data?: { error?: string }; statusCode?: number };
  if (e.code === ErrorCode.RateLimitedError)
    return { kind: "rate_limited", retryAfterSeconds: e.retryAfter ?? 1 };
  if (e.code === ErrorCode.PlatformError) {
    const code = e.data?.error ?? "unknown_error";
    if (code === "ratelimited") return { kind: "rate_limited", retryAfterSeconds: 1 };
    if (code === "message_not_found" || code === "cant_update_message") return { kind: "message_gone", code };
    if (PERMANENT_SLACK_ERRORS.has(code)) return { kind: "permanent", code };
    if (
      code === "internal_error" ||
      code === "fatal_error" ||
      code === "service_unavailable" ||
      code === "request_timeout"
    ) {
      return { kind: "transient", code };
    }
    // Anything else Slack refused (invalid_blocks, msg_too_long ...) will not pass on a retry.
    return { kind: "permanent", code };
  }
  if (e.code === ErrorCode.HTTPError) return { kind: "transient", code: `http_${e.statusCode ?? 0}` };
  return { kind: "transient", code: e.code ?? "request_error" };
}
