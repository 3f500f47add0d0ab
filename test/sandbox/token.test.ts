import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, SEED, startSandbox } from "../../fakes/platform/server.js";
import { api, at, call, expectEnvelope, form, keys, tokenFor } from "./helpers.js";

let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ port: 0 });
});
afterAll(async () => {
  await sb.close();
});

const good = () => ({
  grant_type: "client_credentials",
  client_id: sb.clientId,
  client_secret: sb.clientSecret,
  scope: "live.read profile.manage",
});
const post = (fields: Record<string, string>) => call("POST", `${sb.url}/v2/token`, form(fields));
const decode = (part: string | undefined) =>
  JSON.parse(Buffer.from(part ?? "", "base64url").toString("utf8"));

function expectOAuthError(r: Awaited<ReturnType<typeof post>>, status: number, error: string) {
  expect(r.status).toBe(status);
  expect(r.headers["cache-control"]).toBe("no-store");
  expect(keys(r.json).sort()).toEqual(["error", "error_description"]);
  expect(at(r.json, "error")).toBe(error);
  expect(at(r.json, "error_description")).toMatch(/\S/);
}

describe("POST /v2/token", () => {
  it("issues a Bearer JWT with the requested scopes echoed back", async () => {
    const r = await post(good());
    expect(r.status).toBe(200);
    expect(r.headers["content-type"]).toMatch(/^application\/json/);
    expect(r.headers["cache-control"]).toBe("no-store");
    expect(keys(r.json).sort()).toEqual(["access_token", "expires_in", "scope", "token_type"]);
    expect(at(r.json, "token_type")).toBe("Bearer");
    expect(at(r.json, "expires_in")).toBe(1800);
    expect(at(r.json, "scope")).toBe("live.read profile.manage");
    const [header, payload, signature] = String(at(r.json, "access_token")).split(".");
    expect(decode(header)).toEqual({ alg: "HS256", typ: "JWT" });
    const claims = decode(payload);
    expect(keys(claims).sort()).toEqual(["exp", "iat", "jti", "scope", "sub"]);
    expect(claims.sub).toBe(sb.clientId);
    expect(claims.scope).toBe("live.read profile.manage");
    expect(Number(claims.exp) - Number(claims.iat)).toBe(1800);
    expect(Math.abs(Number(claims.iat) - Date.now() / 1000)).toBeLessThan(5);
    expect(signature).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("gives every token a fresh jti", async () => {
    const a = decode(String(at((await post(good())).json, "access_token")).split(".")[1]);
    const b = decode(String(at((await post(good())).json, "access_token")).split(".")[1]);
    expect(a.jti).not.toBe(b.jti);
  });

  it("rejects a wrong secret and an unknown client with 401 invalid_client", async () => {
    expectOAuthError(await post({ ...good(), client_secret: "nope" }), 401, "invalid_client");
    expectOAuthError(await post({ ...good(), client_id: "someone-else" }), 401, "invalid_client");
  });

  it("rejects another grant type with 400 unsupported_grant_type", async () => {
    expectOAuthError(await post({ ...good(), grant_type: "password" }), 400, "unsupported_grant_type");
  });

  it("requires grant_type, client_id, client_secret and scope (400 invalid_request)", async () => {
    for (const name of ["grant_type", "client_id", "client_secret", "scope"] as const) {
      const fields: Record<string, string> = good();
      delete fields[name];
      expectOAuthError(await post(fields), 400, "invalid_request");
    }
    expectOAuthError(await post({ ...good(), scope: "   " }), 400, "invalid_request");
  });

  it("rejects an unknown scope with 400 invalid_scope", async () => {
    expectOAuthError(await post({ ...good(), scope: "live.read live.write" }), 400, "invalid_scope");
  });

  it("accepts every known scope", async () => {
    const scope = "live.read profile.manage video.manage player.manage bundle.organization bundle.publisher";
    const r = await post({ ...good(), scope });
    expect(r.status).toBe(200);
    expect(at(r.json, "scope")).toBe(scope);
  });

  it("accepts only form encoding", async () => {
    const json = await call("POST", `${sb.url}/v2/token`, {
      headers: { "content-type": "application/json" },
      body: JSON.stringify(good()),
    });
    expectOAuthError(json, 400, "invalid_request");
    const none = await call("POST", `${sb.url}/v2/token`, { body: new URLSearchParams(good()).toString() });
    expectOAuthError(none, 400, "invalid_request");
    const charset = await call("POST", `${sb.url}/v2/token`, {
      headers: { "content-type": "application/x-www-form-urlencoded; charset=utf-8" },
      body: new URLSearchParams(good()).toString(),
    });
    expect(charset.status).toBe(200);
  });

  it("rejects a repeated parameter", async () => {
    const body = `${new URLSearchParams(good()).toString()}&scope=video.manage`;
    const r = await call("POST", `${sb.url}/v2/token`, {
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body,
    });
    expectOAuthError(r, 400, "invalid_request");
  });

  it("grants the reader client only live.read whatever it asks", async () => {
    const { clientId, clientSecret } = SEED.clients.reader;
    const r = await post({
      ...good(),
      client_id: clientId,
      client_secret: clientSecret,
      scope: "profile.manage",
    });
    expect(r.status).toBe(200);
    expect(at(r.json, "scope")).toBe("live.read");
    const token = String(at(r.json, "access_token"));
    expect((await api(sb, "GET", `/livestreams/${SEED.livestreams.offAir}`, token)).status).toBe(200);
    const patch = await api(sb, "PATCH", `/profiles/${SEED.profiles.newsroom}`, token, { webhook: {} });
    expectEnvelope(patch, 403, "MISSING_PERMISSIONS");
  });

  it("is served only under /v2: /v1/token answers 404 with the envelope", async () => {
    const r = await call("POST", `${sb.url}/v1/token`, form(good()));
    expectEnvelope(r, 404, "RESOURCE_NOT_FOUND", {
      object_id: "/v1/token",
      reason: "not_found",
      object_type: "route",
      param: "path",
    });
    expect(at(r.json, "error.message")).toContain("/v2/token");
  });

  it("answers 405 to other methods", async () => {
    const r = await call("GET", `${sb.url}/v2/token`);
    expectEnvelope(r, 405, "METHOD_NOT_ALLOWED", { method: "GET", allowed_methods: ["POST"] });
    expect(r.headers.allow).toBe("POST");
  });
});

describe("token options", () => {
  it("emulates a bundle grant that then satisfies every named scope", async () => {
    const bundle = await startSandbox({ grantScope: () => "bundle.publisher", tokenLifetimeSeconds: 60 });
    try {
      const r = await call(
        "POST",
        `${bundle.url}/v2/token`,
        form({
          ...good(),
          client_id: bundle.clientId,
          client_secret: bundle.clientSecret,
          scope: "live.read",
        }),
      );
      expect(at(r.json, "scope")).toBe("bundle.publisher");
      expect(at(r.json, "expires_in")).toBe(60);
      const token = String(at(r.json, "access_token"));
      expect((await api(bundle, "GET", `/livestreams/${SEED.livestreams.offAir}`, token)).status).toBe(200);
      const patch = await api(bundle, "PATCH", `/profiles/${SEED.profiles.studio}`, token, {
        webhook: { events: ["video.complete"] },
      });
      expect(patch.status).toBe(200);
    } finally {
      await bundle.close();
    }
  });

  it("passes the requested scopes to grantScope", async () => {
    const seen: string[][] = [];
    const other = await startSandbox({
      clientId: "cid",
      clientSecret: "csecret",
      grantScope: (requested) => {
        seen.push(requested);
        return requested.filter((s) => s !== "video.manage").join(" ");
      },
    });
    try {
      const token = await tokenFor(other, "live.read video.manage live.read");
      expect(seen).toEqual([["live.read", "video.manage"]]);
      expect(token.split(".")).toHaveLength(3);
    } finally {
      await other.close();
    }
  });

  it("signs with a key of its own: another sandbox's token is refused", async () => {
    const other = await startSandbox();
    try {
      const foreignToken = await tokenFor(other);
      const r = await api(sb, "GET", `/livestreams/${SEED.livestreams.offAir}`, foreignToken);
      expectEnvelope(r, 401, "INVALID_AUTHORIZATION", { param: "authorization" });
    } finally {
      await other.close();
    }
  });
});
