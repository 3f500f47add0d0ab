/**
 * JWT-shaped access tokens (HS256, random per-instance key) and the scope rules of spec section 5.
 * Payload: {sub: client_id, scope, iat, exp, jti}; iat and exp in Unix seconds.
 */
import { createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import { z } from "zod";

/** The scopes a bundle scope implies: the spec's (section 5.6) and three more, below. */
export const NAMED_SCOPES = [
  "live.read",
  "profile.manage",
  "video.manage",
  "player.manage",
  "video.read",
  "account.read",
  "profile.read",
] as const;
export const BUNDLE_SCOPES = ["bundle.organization", "bundle.publisher"] as const;

/**
 * The spec's scopes (section 5.6), plus three the platform's API v2 reference names beyond it:
 * `video.read` ("Get a video"), `account.read` (`GET /me`) and `profile.read` (`GET /profiles`).
 */
export const KNOWN_SCOPES = [...NAMED_SCOPES, ...BUNDLE_SCOPES] as const;

/** The scopes a granted scope string gives; a bundle scope implies every named scope. */
export function effectiveScopes(scope: string): Set<string> {
  const granted = new Set(scope.split(" ").filter((s) => s !== ""));
  if (BUNDLE_SCOPES.some((b) => granted.has(b))) for (const s of NAMED_SCOPES) granted.add(s);
  return granted;
}

export interface TokenClaims {
  sub: string;
  scope: string;
  iat: number;
  exp: number;
  jti: string;
}

const claimsSchema = z.object({
  sub: z.string(),
  scope: z.string(),
  iat: z.number().int(),
  exp: z.number().int(),
  jti: z.string(),
});

export type VerifyResult =
  | { ok: true; claims: TokenClaims }
  | { ok: false; code: "INVALID_AUTHORIZATION" | "AUTHORIZATION_EXPIRED"; message: string };

const b64url = (value: Buffer | string) => Buffer.from(value).toString("base64url");
const B64URL = /^[A-Za-z0-9_-]+$/;
const HEADER = b64url(JSON.stringify({ alg: "HS256", typ: "JWT" }));

/** Constant-time string comparison (hashing first makes the lengths equal). */
export function safeEqual(a: string, b: string): boolean {
  const ha = createHash("sha256").update(a).digest();
  const hb = createHash("sha256").update(b).digest();
  return timingSafeEqual(ha, hb);
}

export class TokenIssuer {
  private key = randomBytes(32);
  private readonly issued = new Set<string>();
  private readonly expired = new Set<string>();
  /** Every token string issued, for tests that check none of them leaks (logs, Slack messages). */
  readonly tokens: string[] = [];

  constructor(
    private readonly now: () => number,
    readonly lifetimeSeconds: number,
  ) {}

  issue(clientId: string, scope: string): { token: string; claims: TokenClaims } {
    const iat = Math.floor(this.now() / 1000);
    const claims: TokenClaims = {
      sub: clientId,
      scope,
      iat,
      exp: iat + this.lifetimeSeconds,
      jti: randomUUID(),
    };
    this.issued.add(claims.jti);
    const unsigned = `${HEADER}.${b64url(JSON.stringify(claims))}`;
    const token = `${unsigned}.${this.sign(unsigned)}`;
    this.tokens.push(token);
    return { token, claims };
  }

  verify(token: string): VerifyResult {
    const invalid = (message: string): VerifyResult => ({
      ok: false,
      code: "INVALID_AUTHORIZATION",
      message,
    });
    const parts = token.split(".");
    const [header, payload, signature] = parts;
    if (parts.length !== 3 || header === undefined || payload === undefined || signature === undefined) {
      return invalid("Malformed access token: expected a JWT");
    }
    if (![header, payload, signature].every((p) => B64URL.test(p))) return invalid("Malformed access token");
    const expected = Buffer.from(this.sign(`${header}.${payload}`));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
      return invalid("Invalid access token signature");
    }
    let claims: TokenClaims;
    try {
      const h = JSON.parse(Buffer.from(header, "base64url").toString("utf8")) as { alg?: unknown };
      if (h.alg !== "HS256") return invalid("Unsupported token algorithm");
      claims = claimsSchema.parse(JSON.parse(Buffer.from(payload, "base64url").toString("utf8")));
    } catch {
      return invalid("Malformed access token payload");
    }
    if (this.expired.has(claims.jti) || this.now() / 1000 >= claims.exp) {
      return { ok: false, code: "AUTHORIZATION_EXPIRED", message: "The access token has expired" };
    }
    return { ok: true, claims };
  }

  /** Every token issued so far answers AUTHORIZATION_EXPIRED. */
  expireAll(): void {
    for (const jti of this.issued) this.expired.add(jti);
  }

  /** Every token issued so far fails signature verification (the signing key is replaced). */
  revokeAll(): void {
    this.key = randomBytes(32);
  }

  private sign(data: string): string {
    return createHmac("sha256", this.key).update(data).digest("base64url");
  }
}
