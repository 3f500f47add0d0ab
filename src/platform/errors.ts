/**
 * One typed error for everything that can go wrong talking to the platform.
 *
 * `kind` tells the failure class (what a person can do about it differs); the other fields carry
 * the spec's error envelope (section 7) unchanged, so one place can word it for Slack.
 */
import type { z } from "zod";
import type { ErrorEnvelopeSchema } from "./schemas.js";

export type PlatformErrorKind =
  /** The API answered non-2xx; code/details come from its error envelope. */
  | "http"
  /** The token service refused or failed (credentials, scopes, down). */
  | "token"
  /**
   * Connect, response-headers, body-idle or whole-attempt timeout; also a request the caller
   * cancelled through its AbortSignal (code ABORTED, not transient: nobody is waiting for it).
   */
  | "timeout"
  /** Connection refused, reset or DNS failure. */
  | "network"
  /** A 2xx whose body is not JSON or does not match the schema. */
  | "invalid_response"
  /** Refused by this client before sending: it would break a rule of the spec. */
  | "invalid_request"
  /**
   * The write may or may not have been applied: it was accepted but reading the webhook back
   * shows something else or failed, or the PATCH itself timed out or lost its connection and the
   * read-back does not show the change. `cause` keeps the underlying error.
   */
  | "not_confirmed";

export interface PlatformErrorInit {
  kind: PlatformErrorKind;
  status?: number;
  code: string;
  message: string;
  correlationId?: string | null;
  details?: Record<string, unknown> | null;
  documentationUrl?: string | null;
  /** Seconds to wait before trying again (429), from Retry-After or details.retry_after_seconds. */
  retryAfterSeconds?: number;
  /** Which timeout fired; "total" is the per-attempt deadline over all phases. */
  phase?: "connect" | "headers" | "body" | "total";
  method?: string;
  /** Path of the request without query, e.g. /livestreams/x8abc. */
  path?: string;
  cause?: unknown;
}

export class PlatformError extends Error {
  readonly kind: PlatformErrorKind;
  /** HTTP status, or 0 when no response came (timeout, network, client-side refusal). */
  readonly status: number;
  readonly code: string;
  readonly correlationId: string | null;
  readonly details: Record<string, unknown> | null;
  readonly documentationUrl: string | null;
  readonly retryAfterSeconds: number | undefined;
  readonly phase: PlatformErrorInit["phase"];
  readonly method: string | undefined;
  readonly path: string | undefined;

  constructor(init: PlatformErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = "PlatformError";
    this.kind = init.kind;
    this.status = init.status ?? 0;
    this.code = init.code;
    this.correlationId = init.correlationId ?? null;
    this.details = init.details ?? null;
    this.documentationUrl = init.documentationUrl ?? null;
    this.retryAfterSeconds = init.retryAfterSeconds;
    this.phase = init.phase;
    this.method = init.method;
    this.path = init.path;
  }

  /** 403 MISSING_PERMISSIONS: what the operation needs. */
  get requiredPermissions(): string[] {
    return stringArray(this.details?.required_permissions);
  }
  /** 403 MISSING_PERMISSIONS: what the token lacks. */
  get missingPermissions(): string[] {
    return stringArray(this.details?.missing_permissions);
  }
  /** 422: the offending field, e.g. webhook.events. */
  get field(): string | undefined {
    const f = this.details?.field ?? this.details?.param;
    return typeof f === "string" ? f : undefined;
  }
  /** 422 INVALID_ENUM_VALUE: values that were not recognized. */
  get invalidValues(): string[] {
    return stringArray(this.details?.invalid_values);
  }
  /** 422 INVALID_ENUM_VALUE: the values the platform accepts (its list may be incomplete). */
  get allowedValues(): string[] {
    return stringArray(this.details?.allowed_values);
  }
  /** Worth trying again later without changing anything. A cancelled request (ABORTED) is not. */
  get transient(): boolean {
    if (this.code === "ABORTED") return false;
    return (
      this.kind === "timeout" ||
      this.kind === "network" ||
      this.status === 429 ||
      this.status >= 500 ||
      (this.kind === "token" && (this.status === 0 || this.status >= 500))
    );
  }

  /** Safe to log: no secrets are ever stored on the error. */
  toJSON(): Record<string, unknown> {
    return {
      kind: this.kind,
      status: this.status,
      code: this.code,
      message: this.message,
      correlation_id: this.correlationId,
      details: this.details,
      documentation_url: this.documentationUrl,
      retry_after_seconds: this.retryAfterSeconds,
      phase: this.phase,
      method: this.method,
      path: this.path,
    };
  }
}

function stringArray(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

export function isPlatformError(err: unknown): err is PlatformError {
  return err instanceof PlatformError;
}

/** Builds the error for a non-2xx API answer from its (possibly absent or foreign) body. */
export function errorFromEnvelope(
  status: number,
  envelope: z.infer<typeof ErrorEnvelopeSchema> | undefined,
  ctx: { method: string; path: string; retryAfterSeconds?: number; statusText?: string },
): PlatformError {
  if (envelope) {
    const e = envelope.error;
    const detailRetry = e.details?.retry_after_seconds;
    return new PlatformError({
      kind: "http",
      status,
      code: e.code,
      message: e.message ?? `The platform answered ${status} (${e.code})`,
      correlationId: e.correlation_id ?? null,
      details: e.details ?? null,
      documentationUrl: e.documentation_url ?? null,
      retryAfterSeconds:
        ctx.retryAfterSeconds ??
        (typeof detailRetry === "number" && Number.isFinite(detailRetry) ? detailRetry : undefined),
      method: ctx.method,
      path: ctx.path,
    });
  }
  // A gateway or CDN answered with something other than the envelope (HTML, empty, ...).
  const code = status === 429 ? "TOO_MANY_REQUESTS" : `HTTP_${status}`;
  return new PlatformError({
    kind: "http",
    status,
    code,
    message: `The platform answered ${status}${ctx.statusText ? ` ${ctx.statusText}` : ""} without an error body`,
    retryAfterSeconds: ctx.retryAfterSeconds,
    method: ctx.method,
    path: ctx.path,
  });
}
