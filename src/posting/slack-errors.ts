/**
 * What a failed Slack Web API call means: the one reader of Slack's errors for the bot's
 * background work (the notification worker, digests, watches, DM watches, token rotation) and the
 * request handlers that ask.
 */
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

/** Slack's own error code of a failed Web API call (`user_not_found`, `ratelimited`…), if it sent one. */
export function slackErrorCode(err: unknown): string | undefined {
  const data = (err as { data?: { error?: unknown } } | null | undefined)?.data;
  return typeof data?.error === "string" ? data.error : undefined;
}

/** Slack's error code, else the client's own (`slack_webapi_request_error`…), for a log or a record. */
export function slackErrorText(err: unknown): string {
  const code = slackErrorCode(err) ?? (err as { code?: unknown } | null | undefined)?.code;
  return typeof code === "string" ? code.slice(0, 100) : "request_failed";
}

/** Slack answered the call with a refusal (an error, or 429): the work was not done. */
export function slackRefused(err: unknown): boolean {
  const code = (err as { code?: unknown } | null | undefined)?.code;
  return code === ErrorCode.PlatformError || code === ErrorCode.RateLimitedError;
}

/**
 * The call certainly did not happen: Slack answered with an error (not a 5xx: that may follow the
 * work), or the request never left (connection refused).
 */
export function notPosted(err: unknown): boolean {
  const e = err as { code?: string; original?: { cause?: { code?: string } } };
  if (slackRefused(err)) return true;
  return e.code === ErrorCode.RequestError && e.original?.cause?.code === "ECONNREFUSED";
}
