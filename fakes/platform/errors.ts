/** The spec's error envelope (section 7) and the OAuth 2.0 error format of the token endpoint. */
import { randomBytes } from "node:crypto";

export const DOCUMENTATION_BASE = "https://developers.example.com/api/errors";

export type Details = Record<string, unknown> | null;

/** An API error answered with the section 7 envelope. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: Details = null,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export function correlationId(): string {
  return randomBytes(12).toString("hex");
}

export function envelope(code: string, message: string, details: Details) {
  return {
    error: {
      code,
      message,
      correlation_id: correlationId(),
      details,
      documentation_url: `${DOCUMENTATION_BASE}#${code}`,
    },
  };
}

export const unauthorized = (code: "INVALID_AUTHORIZATION" | "AUTHORIZATION_EXPIRED", message: string) =>
  new ApiError(
    401,
    code,
    message,
    { param: "authorization" },
    { "WWW-Authenticate": 'Bearer error="invalid_token"' },
  );

export const missingPermissions = (required: string[], missing: string[]) =>
  new ApiError(403, "MISSING_PERMISSIONS", `Missing permissions: ${missing.join(", ")}`, {
    required_permissions: required,
    missing_permissions: missing,
  });

export const notFound = (objectType: string, objectId: string, param: string) =>
  new ApiError(404, "RESOURCE_NOT_FOUND", `The ${objectType} "${objectId}" was not found`, {
    object_id: objectId,
    reason: "not_found",
    object_type: objectType,
    param,
  });

export const routeNotFound = (method: string, path: string, hint = "") =>
  new ApiError(404, "RESOURCE_NOT_FOUND", `No route ${method} ${path}${hint}`, {
    object_id: path,
    reason: "not_found",
    object_type: "route",
    param: "path",
  });

export const methodNotAllowed = (method: string, allowed: string[]) =>
  new ApiError(
    405,
    "METHOD_NOT_ALLOWED",
    `Method ${method} is not allowed here; use ${allowed.join(" or ")}`,
    { method, allowed_methods: allowed },
    { Allow: allowed.join(", ") },
  );

export const unprocessable = (code: string, message: string, details: Details) =>
  new ApiError(422, code, message, details);

/** Codes answered by the fault injector (these come from "gateways", not the API process). */
export const FAULT_CODES: Record<number, { code: string; message: string }> = {
  403: { code: "UPSTREAM_ACCESS_DENIED", message: "An upstream service denied access" },
  422: { code: "INVALID_FORMAT", message: "Invalid parameter" },
  429: { code: "TOO_MANY_REQUESTS", message: "Too many requests, retry later" },
  500: { code: "INTERNAL_SERVER_ERROR", message: "Internal server error" },
  502: { code: "BAD_GATEWAY", message: "Bad gateway" },
  503: { code: "SERVICE_UNAVAILABLE", message: "Service unavailable" },
  504: { code: "GATEWAY_TIMEOUT", message: "Gateway timeout" },
};

/**
 * Token endpoint errors. The spec does not show their format ("not shown"); the sandbox uses
 * the OAuth 2.0 standard (RFC 6749 section 5.2): `{error, error_description}`.
 */
export class OAuthError extends Error {
  constructor(
    readonly status: 400 | 401,
    readonly error: "invalid_request" | "invalid_client" | "unsupported_grant_type" | "invalid_scope",
    readonly description: string,
  ) {
    super(description);
    this.name = "OAuthError";
  }
}
