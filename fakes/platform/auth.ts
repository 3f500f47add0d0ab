/** The token endpoint (spec section 5) and Bearer authentication of API requests. */
import type { IncomingMessage } from "node:http";
import { missingPermissions, OAuthError, unauthorized } from "./errors.js";
import { mediaType } from "./http.js";
import { effectiveScopes, KNOWN_SCOPES, safeEqual, type TokenClaims, type TokenIssuer } from "./tokens.js";
import type { KeyScopes } from "./types.js";

export interface ClientRecord {
  secret: string;
  /** When set, the token always carries exactly this scope whatever is asked. */
  fixedScope?: string;
  /** The key's permissions (default: every known scope); changed by `setKeyScopes`. */
  key?: KeyScopes;
}

export interface TokenContext {
  clients: Map<string, ClientRecord>;
  issuer: TokenIssuer;
  grantScope: ((requested: string[]) => string) | undefined;
}

export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  scope: string;
}

/** Handles `POST /v2/token`; throws OAuthError for every refusal. */
export function issueToken(req: IncomingMessage, body: Buffer, ctx: TokenContext): TokenResponse {
  if (mediaType(req) !== "application/x-www-form-urlencoded") {
    throw new OAuthError(400, "invalid_request", "Content-Type must be application/x-www-form-urlencoded");
  }
  const form = new URLSearchParams(body.toString("utf8"));
  const param = (name: string): string | undefined => {
    const all = form.getAll(name);
    if (all.length > 1) throw new OAuthError(400, "invalid_request", `Parameter ${name} is repeated`);
    const v = all[0];
    return v === undefined || v === "" ? undefined : v;
  };
  const grantType = param("grant_type");
  const clientId = param("client_id");
  const clientSecret = param("client_secret");
  const scopeRaw = param("scope");
  for (const [name, value] of [
    ["grant_type", grantType],
    ["client_id", clientId],
    ["client_secret", clientSecret],
  ] as const) {
    if (value === undefined)
      throw new OAuthError(400, "invalid_request", `Missing required parameter ${name}`);
  }
  const client = clientId === undefined ? undefined : ctx.clients.get(clientId);
  // Compare against a dummy for unknown clients too, so timing does not reveal known ids.
  const secretOk = safeEqual(clientSecret ?? "", client?.secret ?? "\u0000unknown-client\u0000");
  if (client === undefined || !secretOk) {
    throw new OAuthError(401, "invalid_client", "Client authentication failed");
  }
  if (grantType !== "client_credentials") {
    throw new OAuthError(400, "unsupported_grant_type", "Only grant_type=client_credentials is supported");
  }
  if (scopeRaw === undefined || scopeRaw.trim() === "") {
    throw new OAuthError(400, "invalid_request", "Missing required parameter scope");
  }
  const requested = [...new Set(scopeRaw.split(" ").filter((s) => s !== ""))];
  const unknown = requested.filter((s) => !(KNOWN_SCOPES as readonly string[]).includes(s));
  if (unknown.length > 0) throw new OAuthError(400, "invalid_scope", `Unknown scope: ${unknown.join(" ")}`);
  const allowed = keyAllows(client.key, requested);
  const scope = client.fixedScope ?? (ctx.grantScope ? ctx.grantScope(allowed) : allowed.join(" "));
  const { token } = ctx.issuer.issue(clientId ?? "", scope);
  return { access_token: token, token_type: "Bearer", expires_in: ctx.issuer.lifetimeSeconds, scope };
}

/**
 * The requested scopes the key has. A scope it lacks is left out of the grant ("narrow", RFC 6749
 * 3.3: the response's `scope` then says what was granted) or refuses the request ("refuse",
 * invalid_scope); a request left with no scope at all is refused either way.
 */
function keyAllows(key: KeyScopes | undefined, requested: string[]): string[] {
  if (key === undefined || key.scopes === null) return requested;
  const has = new Set(key.scopes);
  const missing = requested.filter((s) => !has.has(s));
  if (missing.length === 0) return requested;
  const granted = requested.filter((s) => has.has(s));
  if (key.onMissing === "refuse" || granted.length === 0) {
    throw new OAuthError(
      400,
      "invalid_scope",
      `The API key does not have the scope${missing.length > 1 ? "s" : ""}: ${missing.join(" ")}`,
    );
  }
  return granted;
}

export interface Caller {
  clientId: string;
  scopes: Set<string>;
  claims: TokenClaims;
}

/** Verifies `Authorization: Bearer <jwt>`; throws the 401 ApiError otherwise. */
export function authenticate(req: IncomingMessage, issuer: TokenIssuer): Caller {
  const header = req.headers.authorization;
  if (header === undefined || header.trim() === "") {
    throw unauthorized("INVALID_AUTHORIZATION", "Missing Authorization header with a Bearer token");
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  const token = match?.[1];
  if (token === undefined)
    throw unauthorized("INVALID_AUTHORIZATION", "Authorization must be: Bearer <token>");
  const result = issuer.verify(token);
  if (!result.ok) throw unauthorized(result.code, result.message);
  return { clientId: result.claims.sub, scopes: effectiveScopes(result.claims.scope), claims: result.claims };
}

/** 403 MISSING_PERMISSIONS unless the caller holds every scope. */
export function requireScopes(caller: Caller, required: string[]): void {
  const missing = required.filter((s) => !caller.scopes.has(s));
  if (missing.length > 0) throw missingPermissions(required, missing);
}
