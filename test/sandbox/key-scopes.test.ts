/**
 * The permissions of the sandbox's key: a token request for a scope the key lacks is granted
 * without it (the response's `scope` says so) or refused with `invalid_scope`, like a real OAuth
 * server (RFC 6749 3.3, 5.2); switched by `keyScopes`, `setKeyScopes` or `POST /_sandbox/key`.
 */
import { describe, expect, it } from "vitest";
import { type Sandbox, SEED, startSandbox } from "../../fakes/platform/server.js";
import { api, at, call, expectEnvelope, form } from "./helpers.js";
import { sandboxForFile } from "./per-file.js";

let sb: Sandbox;
sandboxForFile((s) => {
  sb = s;
});

const ASKED = "live.read profile.manage video.read";
const ask = (target: Sandbox, scope = ASKED) =>
  call(
    "POST",
    `${target.url}/v2/token`,
    form({
      grant_type: "client_credentials",
      client_id: target.clientId,
      client_secret: target.clientSecret,
      scope,
    }),
  );
const control = (body: unknown) =>
  call("POST", `${sb.url}/_sandbox/key`, {
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
const WITHOUT_VIDEO = ["live.read", "profile.manage"];

describe("the key's scopes", () => {
  it("by default every known scope is granted as asked, video.read included", async () => {
    const r = await ask(sb);
    expect(r.status).toBe(200);
    expect(at(r.json, "scope")).toBe(ASKED);
    const video = await api(
      sb,
      "GET",
      `/videos/${SEED.videos.published}?fields=title`,
      String(at(r.json, "access_token")),
    );
    expect(video.status).toBe(200);
  });

  it('"narrow": a key without video.read is granted the rest, and its scope says so', async () => {
    sb.setKeyScopes({ scopes: WITHOUT_VIDEO, onMissing: "narrow" });
    const r = await ask(sb);
    expect(r.status).toBe(200);
    expect(at(r.json, "scope")).toBe("live.read profile.manage");
    const token = String(at(r.json, "access_token"));
    expectEnvelope(
      await api(sb, "GET", `/videos/${SEED.videos.published}?fields=title`, token),
      403,
      "MISSING_PERMISSIONS",
    );
    expect((await api(sb, "GET", `/livestreams/${SEED.livestreams.offAir}?fields=title`, token)).status).toBe(
      200,
    );
  });

  it('"refuse": asking for video.read is 400 invalid_scope naming it; asking without it works', async () => {
    sb.setKeyScopes({ scopes: WITHOUT_VIDEO, onMissing: "refuse" });
    const refused = await ask(sb);
    expect(refused.status).toBe(400);
    expect(refused.headers["cache-control"]).toBe("no-store");
    expect(at(refused.json, "error")).toBe("invalid_scope");
    expect(at(refused.json, "error_description")).toContain("video.read");
    const again = await ask(sb, "live.read profile.manage");
    expect(at(again.json, "scope")).toBe("live.read profile.manage");
  });

  it("a request left with no scope the key has is refused even when narrowing", async () => {
    sb.setKeyScopes({ scopes: ["live.read"], onMissing: "narrow" });
    const r = await ask(sb, "video.read");
    expect(r.status).toBe(400);
    expect(at(r.json, "error")).toBe("invalid_scope");
  });

  it("the reader client keeps its fixed live.read grant", async () => {
    sb.setKeyScopes({ scopes: WITHOUT_VIDEO, onMissing: "refuse" });
    const { clientId, clientSecret } = SEED.clients.reader;
    const r = await call(
      "POST",
      `${sb.url}/v2/token`,
      form({
        grant_type: "client_credentials",
        client_id: clientId,
        client_secret: clientSecret,
        scope: ASKED,
      }),
    );
    expect(at(r.json, "scope")).toBe("live.read");
  });

  it("POST /_sandbox/key switches it; a bad body changes nothing; reset restores the start value", async () => {
    expect((await control({ scopes: WITHOUT_VIDEO, onMissing: "refuse" })).json).toEqual({ ok: true });
    expect((await ask(sb)).status).toBe(400);
    expectEnvelope(await control({ scopes: "video.read" }), 422, "INVALID_FORMAT");
    expectEnvelope(await control({ scopes: null, onMissing: "maybe" }), 422, "INVALID_FORMAT");
    expect((await ask(sb)).status).toBe(400);
    expect((await control({ scopes: WITHOUT_VIDEO })).status).toBe(200);
    expect(at((await ask(sb)).json, "scope")).toBe("live.read profile.manage");
    sb.reset();
    expect(at((await ask(sb)).json, "scope")).toBe(ASKED);
  });

  it("the keyScopes option sets the start value (reset returns to it)", async () => {
    const limited = await startSandbox({ keyScopes: { scopes: WITHOUT_VIDEO, onMissing: "refuse" } });
    try {
      expect(at((await ask(limited)).json, "error")).toBe("invalid_scope");
      limited.setKeyScopes({ scopes: null, onMissing: "narrow" });
      expect((await ask(limited)).status).toBe(200);
      limited.reset();
      expect((await ask(limited)).status).toBe(400);
    } finally {
      await limited.close();
    }
  });
});
