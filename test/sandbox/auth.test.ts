import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Sandbox, SEED, startSandbox } from "../../fakes/platform/server.js";
import { api, at, call, expectEnvelope, tokenFor } from "./helpers.js";

let clock = Date.parse("2025-03-01T10:00:00Z");
let sb: Sandbox;
beforeAll(async () => {
  sb = await startSandbox({ port: 0, now: () => clock, tokenLifetimeSeconds: 600 });
});
afterAll(async () => {
  await sb.close();
});
beforeEach(() => {
  clock = Date.parse("2025-03-01T10:00:00Z");
});

const LIVE = `/livestreams/${SEED.livestreams.onAirAdBreak}`;
const AUTH = { param: "authorization" };

describe("401", () => {
  it("without an Authorization header", async () => {
    const r = await api(sb, "GET", LIVE, undefined);
    expectEnvelope(r, 401, "INVALID_AUTHORIZATION", AUTH);
    expect(r.headers["www-authenticate"]).toMatch(/^Bearer/);
  });

  it("with a malformed header or token", async () => {
    const token = await tokenFor(sb);
    for (const authorization of [
      "Basic Zm9vOmJhcg==",
      "Bearer",
      `Token ${token}`,
      "Bearer not-a-jwt",
      "Bearer a.b",
      "Bearer a.b.c.d",
      "Bearer ###.###.###",
    ]) {
      const r = await call("GET", `${sb.apiUrl}${LIVE}`, { headers: { authorization } });
      expectEnvelope(r, 401, "INVALID_AUTHORIZATION", AUTH);
    }
  });

  it("with a wrong signature or a tampered payload", async () => {
    const token = await tokenFor(sb);
    const [h, p, s] = token.split(".");
    const flipped = `${s?.slice(0, -2)}${s?.endsWith("AA") ? "BB" : "AA"}`;
    expectEnvelope(await api(sb, "GET", LIVE, `${h}.${p}.${flipped}`), 401, "INVALID_AUTHORIZATION", AUTH);
    const claims = JSON.parse(Buffer.from(p ?? "", "base64url").toString("utf8"));
    const forged = Buffer.from(JSON.stringify({ ...claims, scope: "bundle.organization" })).toString(
      "base64url",
    );
    expectEnvelope(await api(sb, "GET", LIVE, `${h}.${forged}.${s}`), 401, "INVALID_AUTHORIZATION", AUTH);
  });

  it("after expiry by the clock: AUTHORIZATION_EXPIRED", async () => {
    const token = await tokenFor(sb);
    clock += 599_000;
    expect((await api(sb, "GET", LIVE, token)).status).toBe(200);
    clock += 1_000;
    expectEnvelope(await api(sb, "GET", LIVE, token), 401, "AUTHORIZATION_EXPIRED", AUTH);
  });

  it("expireAllTokens expires every token issued so far, not later ones", async () => {
    const a = await tokenFor(sb);
    const b = await tokenFor(sb, "live.read");
    sb.expireAllTokens();
    expectEnvelope(await api(sb, "GET", LIVE, a), 401, "AUTHORIZATION_EXPIRED", AUTH);
    expectEnvelope(await api(sb, "GET", LIVE, b), 401, "AUTHORIZATION_EXPIRED", AUTH);
    const c = await tokenFor(sb);
    expect((await api(sb, "GET", LIVE, c)).status).toBe(200);
  });

  it("revokeAllTokens makes every token issued so far fail its signature", async () => {
    const a = await tokenFor(sb);
    sb.revokeAllTokens();
    expectEnvelope(await api(sb, "GET", LIVE, a), 401, "INVALID_AUTHORIZATION", AUTH);
    const b = await tokenFor(sb);
    expect((await api(sb, "GET", LIVE, b)).status).toBe(200);
  });

  it("uses a fresh correlation_id per error", async () => {
    const a = await api(sb, "GET", LIVE, undefined);
    const b = await api(sb, "GET", LIVE, undefined);
    expect(at(a.json, "error.correlation_id")).not.toBe(at(b.json, "error.correlation_id"));
  });
});

describe("403", () => {
  it("a valid token lacking live.read", async () => {
    const token = await tokenFor(sb, "profile.manage video.manage");
    expectEnvelope(await api(sb, "GET", LIVE, token), 403, "MISSING_PERMISSIONS", {
      required_permissions: ["live.read"],
      missing_permissions: ["live.read"],
    });
  });

  it("bundle scopes imply the named scopes", async () => {
    for (const bundle of ["bundle.organization", "bundle.publisher"]) {
      const token = await tokenFor(sb, bundle);
      expect((await api(sb, "GET", LIVE, token)).status).toBe(200);
    }
  });

  it("PATCH without profile.manage", async () => {
    const token = await tokenFor(sb, "live.read");
    const r = await api(sb, "PATCH", `/profiles/${SEED.profiles.newsroom}`, token, { webhook: {} });
    expectEnvelope(r, 403, "MISSING_PERMISSIONS", {
      required_permissions: ["profile.manage", "owner"],
      missing_permissions: ["profile.manage"],
    });
  });

  it("PATCH on a profile the client does not own", async () => {
    const token = await tokenFor(sb);
    const r = await api(sb, "PATCH", `/profiles/${SEED.profiles.foreign}`, token, { webhook: {} });
    expectEnvelope(r, 403, "MISSING_PERMISSIONS", {
      required_permissions: ["profile.manage", "owner"],
      missing_permissions: ["owner"],
    });
  });
});

describe("404 and 405", () => {
  it("unknown livestream", async () => {
    const token = await tokenFor(sb);
    expectEnvelope(await api(sb, "GET", "/livestreams/x000000", token), 404, "RESOURCE_NOT_FOUND", {
      object_id: "x000000",
      reason: "not_found",
      object_type: "livestream",
      param: "id",
    });
  });

  it("unknown or foreign profile (foreign ones are not visible)", async () => {
    const token = await tokenFor(sb);
    for (const id of ["x0nope0", SEED.profiles.foreign]) {
      expectEnvelope(await api(sb, "GET", `/profiles/${id}`, token), 404, "RESOURCE_NOT_FOUND", {
        object_id: id,
        reason: "not_found",
        object_type: "profile",
        param: "profile_id",
      });
    }
    const r = await api(sb, "PATCH", "/profiles/x0nope0", token, { webhook: {} });
    expectEnvelope(r, 404, "RESOURCE_NOT_FOUND", {
      object_id: "x0nope0",
      reason: "not_found",
      object_type: "profile",
      param: "profile_id",
    });
  });

  it("the reader client sees no profile", async () => {
    const { clientId, clientSecret } = SEED.clients.reader;
    const token = await tokenFor(sb, "live.read", clientId, clientSecret);
    expectEnvelope(
      await api(sb, "GET", `/profiles/${SEED.profiles.newsroom}`, token),
      404,
      "RESOURCE_NOT_FOUND",
    );
  });

  it("unknown routes, with or without a token", async () => {
    const token = await tokenFor(sb);
    for (const path of [
      "/videos",
      "/videos/x1/formats",
      "/livestreams",
      "/livestreams/",
      "/livestreams/x9b2k4m/extra",
    ]) {
      expectEnvelope(await api(sb, "GET", path, token), 404, "RESOURCE_NOT_FOUND", {
        object_id: `/v2${path}`,
        reason: "not_found",
        object_type: "route",
        param: "path",
      });
    }
    expectEnvelope(await call("GET", `${sb.url}/`), 404, "RESOURCE_NOT_FOUND");
  });

  it("wrong methods", async () => {
    const token = await tokenFor(sb);
    const del = await api(sb, "DELETE", LIVE, token);
    expectEnvelope(del, 405, "METHOD_NOT_ALLOWED", { method: "DELETE", allowed_methods: ["GET"] });
    expect(del.headers.allow).toBe("GET");
    const post = await api(sb, "POST", `/profiles/${SEED.profiles.newsroom}`, token, {});
    expectEnvelope(post, 405, "METHOD_NOT_ALLOWED", { method: "POST", allowed_methods: ["GET", "PATCH"] });
  });
});
