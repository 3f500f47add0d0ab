/** What a failed Slack Web API call means for the notification worker. */
import { ErrorCode } from "@slack/web-api";

export type SlackFailure =
  | { kind: "rate_limited"; retryAfterSeconds: number }
  /** The token cannot be used for now (expired, missing scope): wait, drop nothing. */
  | { kind: "auth"; code: string }
  /** The app is gone from the workspace (uninstalled, token revoked, workspace closed). */
  | { kind: "gone"; code: string }
  /** Slack refuses for good: record, report once, do not retry. */
  | { kind: "permanent"; code: string }
  /** The parent message is gone (deleted by someone): post a new one. */
  | { kind: "message_gone"; code: string }
  /** Slack or the network failed: back off and try again. */
  | { kind: "transient"; code: string };

/** The channel cannot take the bot's messages: no retry will fix it. */
export const PERMANENT_SLACK_ERRORS = new Set([
  "channel_not_found",
  "not_in_channel",
  "is_archived",
  "restricted_action",
  "ekm_access_denied",
]);

/** The bot's token is not usable: an operator must act; deliveries wait instead of being dropped. */
export const AUTH_SLACK_ERRORS = new Set(["token_expired", "missing_scope"]);

/**
 * The app is no longer in the workspace (uninstalled, token revoked, workspace deleted or closed):
 * no retry will get through, so deliveries become dead letters and the workspace is paused.
 */
export const GONE_SLACK_ERRORS = new Set([
  "invalid_auth",
  "account_inactive",
  "token_revoked",
  "not_authed",
  "team_not_found",
  "team_disabled",
  "team_access_not_granted",
  "app_uninstalled",
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
    if (GONE_SLACK_ERRORS.has(code)) return { kind: "gone", code };
    if (AUTH_SLACK_ERRORS.has(code)) return { kind: "auth", code };
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
