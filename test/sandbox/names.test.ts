/**
 * `GET /v2/me` in the platform's documented shape: the profiles the key manages, which the bot
 * offers by name. (A profile's `name` and `display_name`: test/sandbox/profiles.test.ts.)
 */
import { describe, expect, it } from "vitest";
import { type Sandbox, SEED } from "../../fakes/platform/server.js";
import { api, at, expectEnvelope, keys, tokenFor } from "./helpers.js";
import { sandboxForFile } from "./per-file.js";

let sb: Sandbox;
sandboxForFile((s) => {
  sb = s;
});

describe("GET /v2/me", () => {
  it("answers the documented shape: user_id and the profiles the key manages", async () => {
    const r = await api(sb, "GET", "/me", await tokenFor(sb, "live.read profile.manage video.read"));
    expect(r.status).toBe(200);
    expect(keys(r.json)).toEqual(["user_id", "profiles"]);
    expect(at(r.json, "user_id")).toMatch(/^x[0-9a-z]{6}$/);
    expect(at(r.json, "profiles")).toEqual([
      { profile_id: SEED.profiles.newsroom, name: "northwind-news" },
      { profile_id: SEED.profiles.studio, name: "northwind-studio" },
    ]);
  });

  it("needs no scope beyond a valid token; a key that manages nothing gets an empty list", async () => {
    const liveOnly = await api(sb, "GET", "/me", await tokenFor(sb, "live.read"));
    expect((at(liveOnly.json, "profiles") as unknown[]).length).toBe(2);
    const reader = await tokenFor(
      sb,
      "live.read",
      SEED.clients.reader.clientId,
      SEED.clients.reader.clientSecret,
    );
    const none = await api(sb, "GET", "/me", reader);
    expect(at(none.json, "profiles")).toEqual([]);
    expect(at(none.json, "user_id")).not.toBe(at(liveOnly.json, "user_id"));
    expectEnvelope(await api(sb, "GET", "/me", undefined), 401, "INVALID_AUTHORIZATION");
  });

  it("narrows with fields, refuses unknown names", async () => {
    const token = await tokenFor(sb, "live.read");
    expect(keys((await api(sb, "GET", "/me?fields=profiles", token)).json)).toEqual(["profiles"]);
    expectEnvelope(await api(sb, "GET", "/me?fields=username", token), 422, "INVALID_FORMAT");
  });

  it("follows faults like the other routes", async () => {
    const token = await tokenFor(sb, "live.read");
    sb.addFault({ path: "/v2/me", status: 502, times: 1 });
    expectEnvelope(await api(sb, "GET", "/me", token), 502, "BAD_GATEWAY");
    sb.addFault({ path: "/v2/me", body: "schema-mismatch", times: 1 });
    expect(at((await api(sb, "GET", "/me", token)).json, "profiles")).toBe(SEED.profiles.newsroom);
  });
});
