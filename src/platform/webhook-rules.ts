/**
 * The spec's webhook rules as pure checks (section 4.2 rules 1-5, state table 3.3): what the
 * client enforces before a request is sent, and how read-backs are compared with what was sent.
 */
import { isWebhookEvent, WEBHOOK_EVENTS, type WebhookEvent } from "../domain/index.js";
import { PlatformError } from "./errors.js";

export function invalid(code: string, message: string, details: Record<string, unknown>): PlatformError {
  return new PlatformError({ kind: "invalid_request", code, message, details });
}

/** Rule 1: an absolute HTTPS URL. Returns it normalized (`new URL(url).href`), as it is sent. */
export function checkCallbackUrl(url: string): string {
  let u: URL | undefined;
  try {
    u = new URL(url);
  } catch {
    u = undefined;
  }
  if (u?.protocol !== "https:" || u.hostname === "" || /\s/.test(url)) {
    throw invalid(
      "INVALID_FORMAT",
      u && u.protocol === "http:"
        ? "The callback URL must use HTTPS; the platform rejects HTTP"
        : "The callback URL must be an absolute https:// URL",
      { field: "webhook.callback_url", provided: url, requirement: "https" },
    );
  }
  return u.href;
}

/** Whether a read-back URL is the one sent (`sent` is normalized); an unparsable one compares as is. */
export function sameUrl(readBack: string | null, sent: string): boolean {
  if (readBack === null) return false;
  try {
    return new URL(readBack).href === sent;
  } catch {
    return readBack === sent;
  }
}

/** Rule 2: at least one event, every one of the enumeration. Duplicates are dropped, order kept. */
export function checkEvents(events: readonly string[]): WebhookEvent[] {
  const unknown = events.filter((e) => !isWebhookEvent(e));
  if (unknown.length > 0) {
    throw invalid(
      "INVALID_ENUM_VALUE",
      `Unknown webhook event${unknown.length > 1 ? "s" : ""}: ${unknown.join(", ")}`,
      { field: "webhook.events", invalid_values: unknown, allowed_values: [...WEBHOOK_EVENTS] },
    );
  }
  const unique = [...new Set(events)] as WebhookEvent[];
  if (unique.length === 0) {
    throw invalid("MISSING_REQUIRED_VALUE", "Choose at least one webhook event", {
      field: "webhook.events",
      allowed_values: [...WEBHOOK_EVENTS],
    });
  }
  return unique;
}

export function sameEvents(a: readonly string[] | null, b: readonly string[] | null): boolean {
  if (a === null || b === null) return a === b;
  const sa = new Set(a);
  const sb = new Set(b);
  return sa.size === sb.size && [...sa].every((x) => sb.has(x));
}
