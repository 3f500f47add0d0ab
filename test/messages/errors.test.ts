import { describe, expect, it } from "vitest";
import { WEBHOOK_EVENTS } from "../../src/domain/index.js";
import {
  describePlatformError,
  errorMessage,
  notManagerMessage,
  type Refusal,
  refusalMessage,
  refusalText,
  storeUnavailableMessage,
} from "../../src/messages/index.js";
import { PlatformError, type PlatformErrorInit } from "../../src/platform/errors.js";
import { blockText } from "./fixtures.js";
import { assertWithinLimits } from "./limits.js";

function err(init: Partial<PlatformErrorInit> & Pick<PlatformErrorInit, "kind">): PlatformError {
  return new PlatformError({ code: "X", message: "m", ...init });
}

function describeIt(init: Partial<PlatformErrorInit> & Pick<PlatformErrorInit, "kind">): string {
  return describePlatformError(err(init));
}

describe("describePlatformError: http", () => {
  it("404 names the object and its id from the details", () => {
    const d = describeIt({
      kind: "http",
      status: 404,
      code: "RESOURCE_NOT_FOUND",
      details: { object_type: "livestream", object_id: "x8nope", reason: "not found", param: "id" },
      path: "/livestreams/x8nope",
    });
    expect(d).toBe(
      "The platform has no livestream `x8nope`, or the bot's API key cannot see it. Check the id.",
    );
  });

  it("404 without details falls back to the path", () => {
    const d = describeIt({
      kind: "http",
      status: 404,
      code: "HTTP_404",
      path: "/profiles/p%20q",
      method: "GET",
    });
    expect(d).toContain("no profile `p q`");
  });

  it("403 MISSING_PERMISSIONS lists what is missing and the scope and role a webhook change needs", () => {
    const d = describeIt({
      kind: "http",
      status: 403,
      code: "MISSING_PERMISSIONS",
      details: { required_permissions: ["profile.manage", "owner"], missing_permissions: ["profile.manage"] },
      method: "PATCH",
      path: "/profiles/x1abc2",
    });
    expect(d).toContain("lacks this permission: `profile.manage`.");
    expect(d).toContain("`profile.manage` scope and the Owner role on the profile");
  });

  it("403 on a livestream names live.read; without a list it says what is required", () => {
    const d = describeIt({
      kind: "http",
      status: 403,
      code: "MISSING_PERMISSIONS",
      details: { required_permissions: ["live.read"], missing_permissions: [] },
      method: "GET",
      path: "/livestreams/x8",
    });
    expect(d).toContain("does not have what this needs: `live.read`");
    expect(d).toContain("Reading a livestream needs the `live.read` scope");
  });

  it("403 UPSTREAM_ACCESS_DENIED", () => {
    expect(describeIt({ kind: "http", status: 403, code: "UPSTREAM_ACCESS_DENIED" })).toContain(
      "A service behind the platform denied access",
    );
  });

  it("401 points at the credentials", () => {
    const d = describeIt({ kind: "http", status: 401, code: "AUTHORIZATION_EXPIRED" });
    expect(d).toContain("did not accept the bot's access token (`AUTHORIZATION_EXPIRED`)");
    expect(d).toContain("PLATFORM_CLIENT_ID/PLATFORM_CLIENT_SECRET");
  });

  it("422 INVALID_ENUM_VALUE on events lists the bot's full event list, not the platform's short one", () => {
    const d = describeIt({
      kind: "http",
      status: 422,
      code: "INVALID_ENUM_VALUE",
      details: {
        field: "webhook.events",
        invalid_values: ["video.exploded"],
        allowed_values: ["video.created", "video.deleted"],
      },
    });
    expect(d).toContain("`video.exploded` is not a valid value of `webhook.events`.");
    for (const e of WEBHOOK_EVENTS) expect(d).toContain(`\`${e}\``);
  });

  it("422 INVALID_ENUM_VALUE on another field uses the platform's allowed values", () => {
    const d = describeIt({
      kind: "http",
      status: 422,
      code: "INVALID_ENUM_VALUE",
      details: { field: "visibility", invalid_values: ["a", "b"], allowed_values: ["public", "private"] },
    });
    expect(d).toBe("`a`, `b` are not valid values of `visibility`. Allowed: `public`, `private`.");
  });

  it("422 INVALID_FORMAT on the callback URL", () => {
    const d = describeIt({
      kind: "http",
      status: 422,
      code: "INVALID_FORMAT",
      details: { field: "webhook.callback_url", provided: "http://x.example/h", requirement: "https" },
    });
    expect(d).toBe(
      "The callback URL must be an absolute `https://` URL; the platform refuses HTTP (got `http://x.example/h`).",
    );
  });

  it("422 MISSING_REQUIRED_VALUE, MISSING_PARENT_ID and an unknown code", () => {
    expect(
      describeIt({
        kind: "http",
        status: 422,
        code: "MISSING_REQUIRED_VALUE",
        details: { field: "webhook.events" },
      }),
    ).toBe("`webhook.events` is required but was not given.");
    expect(
      describeIt({ kind: "http", status: 422, code: "MISSING_PARENT_ID", details: { param: "profile_id" } }),
    ).toContain("names no parent object (`profile_id`)");
    expect(describeIt({ kind: "http", status: 422, code: "WEIRD", message: "Bad <thing> & more" })).toBe(
      "The platform refused a value: Bad &lt;thing&gt; &amp; more",
    );
  });

  it("429 says when to try again", () => {
    expect(describeIt({ kind: "http", status: 429, code: "TOO_MANY_REQUESTS", retryAfterSeconds: 12 })).toBe(
      "The platform is limiting requests right now: try again in 12 s.",
    );
    expect(describeIt({ kind: "http", status: 429, code: "TOO_MANY_REQUESTS" })).toContain(
      "try again in a minute",
    );
  });

  it("5xx and other statuses", () => {
    expect(describeIt({ kind: "http", status: 503, code: "HTTP_503" })).toContain(
      "problem on its side (503)",
    );
    expect(describeIt({ kind: "http", status: 409, code: "CONFLICT", message: "Busy" })).toBe(
      "The platform refused the request (409 `CONFLICT`): Busy",
    );
  });
});

describe("describePlatformError: other kinds", () => {
  it("token: credentials refused, scopes refused, service down, bad answer, other refusal", () => {
    expect(describeIt({ kind: "token", status: 401, code: "invalid_client" })).toContain(
      "ask an admin to check PLATFORM_CLIENT_ID/PLATFORM_CLIENT_SECRET",
    );
    expect(describeIt({ kind: "token", status: 400, code: "invalid_scope" })).toContain(
      "check PLATFORM_SCOPES",
    );
    expect(describeIt({ kind: "token", status: 0, code: "TOKEN_SERVICE_UNREACHABLE" })).toContain(
      "token service is unavailable right now",
    );
    expect(describeIt({ kind: "token", status: 502, code: "HTTP_502" })).toContain("unavailable right now");
    expect(describeIt({ kind: "token", status: 200, code: "INVALID_TOKEN_RESPONSE" })).toContain(
      "cannot use",
    );
    expect(describeIt({ kind: "token", status: 418, code: "HTTP_418" })).toContain(
      "refused to issue an access token (418)",
    );
  });

  it("timeout: which phase and how long", () => {
    expect(
      describeIt({
        kind: "timeout",
        code: "TIMEOUT",
        phase: "headers",
        message: "The platform did not answer within 5000 ms",
      }),
    ).toBe("The platform did not answer within 5 s. It may be busy: try again in a moment.");
    expect(
      describeIt({
        kind: "timeout",
        code: "TIMEOUT",
        phase: "connect",
        message: "The platform did not accept the connection within 750 ms",
      }),
    ).toContain("did not accept the connection within 750 ms");
    expect(describeIt({ kind: "timeout", code: "TIMEOUT", phase: "body", message: "x" })).toContain(
      "did not finish its answer in time",
    );
    expect(
      describeIt({ kind: "timeout", code: "TOKEN_TIMEOUT", phase: "headers", message: "within 3000 ms" }),
    ).toContain("The platform's token service did not answer within 3 s");
    expect(describeIt({ kind: "timeout", code: "ABORTED" })).toContain("cancelled");
  });

  it("network, invalid_response, not_confirmed", () => {
    expect(describeIt({ kind: "network", code: "ECONNREFUSED" })).toContain(
      "could not reach the platform (`ECONNREFUSED`)",
    );
    expect(describeIt({ kind: "invalid_response", code: "INVALID_RESPONSE" })).toContain(
      "could not be understood",
    );
    expect(describeIt({ kind: "invalid_response", code: "RESPONSE_TOO_LARGE" })).toContain("too large");
    expect(describeIt({ kind: "not_confirmed", code: "WRITE_NOT_CONFIRMED" })).toContain(
      "accepted the change, but reading the webhook back does not show it yet",
    );
  });

  it("invalid_request: the client's own refusals", () => {
    expect(
      describeIt({
        kind: "invalid_request",
        code: "INVALID_ENUM_VALUE",
        details: { field: "webhook.events", invalid_values: ["nope"], allowed_values: [...WEBHOOK_EVENTS] },
      }),
    ).toContain("`nope` is not a valid value of `webhook.events`. Allowed: `video.created`");
    expect(
      describeIt({
        kind: "invalid_request",
        code: "INVALID_FORMAT",
        details: { field: "webhook.callback_url", provided: "ftp://x", requirement: "https" },
      }),
    ).toContain("must be an absolute `https://` URL");
    expect(
      describeIt({
        kind: "invalid_request",
        code: "INVALID_FORMAT",
        details: { param: "id", provided: "a/b" },
      }),
    ).toBe("`a/b` is not a valid livestream id: use letters, digits, - and _ only.");
    expect(
      describeIt({
        kind: "invalid_request",
        code: "INVALID_FORMAT",
        details: { param: "fields", invalid_values: ["bogus"] },
      }),
    ).toBe("Unknown livestream field: `bogus`.");
    expect(
      describeIt({
        kind: "invalid_request",
        code: "MISSING_REQUIRED_VALUE",
        message: "Profile p has no complete webhook, so events cannot be changed alone",
      }),
    ).toBe("Profile p has no complete webhook, so events cannot be changed alone");
  });

  it("ends with the correlation id when there is one, and only then", () => {
    const kinds: PlatformErrorInit["kind"][] = [
      "http",
      "token",
      "timeout",
      "network",
      "invalid_response",
      "invalid_request",
      "not_confirmed",
    ];
    for (const kind of kinds) {
      const withId = describeIt({ kind, status: kind === "http" ? 500 : 0, correlationId: "c0rr-123" });
      expect(withId, kind).toMatch(/ \(correlation id: c0rr-123\)$/);
      const without = describeIt({ kind, status: kind === "http" ? 500 : 0 });
      expect(without, kind).not.toContain("correlation id");
      expect(without.length, kind).toBeGreaterThan(20);
    }
  });
});

describe("errorMessage and friends", () => {
  it("wraps a PlatformError: ⚠️, the context and the description", () => {
    const msg = errorMessage(
      err({
        kind: "http",
        status: 404,
        code: "RESOURCE_NOT_FOUND",
        path: "/livestreams/x8",
        correlationId: "abc",
      }),
      "Could not read livestream x8",
    );
    expect(assertWithinLimits(msg)).toEqual([]);
    const text = blockText(msg);
    expect(text).toMatch(/^⚠️ \*Could not read livestream x8\*\nThe platform has no livestream `x8`/);
    // "Does not exist" carries no correlation id, even when the platform gave one (contract).
    expect(text).not.toContain("correlation id");
    expect(msg.text).toMatch(/^⚠️ Could not read livestream x8: The platform has no livestream `x8`.*id\.$/);
    const failed = errorMessage(
      err({ kind: "http", status: 500, code: "INTERNAL", path: "/livestreams/x8", correlationId: "abc" }),
      "Could not read livestream x8",
    );
    expect(blockText(failed)).toMatch(/\(correlation id: abc\)$/);
    expect(failed.text).toMatch(
      /^⚠️ Could not read livestream x8: The platform had a problem.*\(correlation id: abc\)$/,
    );
  });

  it("words any other failure with a generic sentence (the error itself never reaches the words)", () => {
    const msg = errorMessage(null, "Could not save");
    expect(assertWithinLimits(msg)).toEqual([]);
    const json = JSON.stringify(msg);
    expect(json).toContain("Something went wrong");
    expect(json).not.toMatch(/Error:|\bat .*:\d+:\d+/);
    expect(blockText(errorMessage(null, ""))).toContain("That did not work");
  });

  it("escapes the context", () => {
    const msg = errorMessage(null, "<!channel> & co");
    expect(assertWithinLimits(msg)).toEqual([]);
    expect(JSON.stringify(msg)).not.toContain("<!channel>");
  });

  it("storeUnavailableMessage", () => {
    const msg = storeUnavailableMessage();
    expect(assertWithinLimits(msg)).toEqual([]);
    expect(blockText(msg)).toContain("Settings are unavailable right now");
  });

  it("notManagerMessage says who managers are", () => {
    const msg = notManagerMessage("remove a webhook");
    expect(assertWithinLimits(msg)).toEqual([]);
    const text = blockText(msg);
    expect(text).toContain("Only managers can remove a webhook.");
    expect(text).toContain("admins and owners");
    expect(text).toContain("MANAGER_USER_IDS");
    expect(text).toContain("/webhook managers add @user");
  });
});

describe("refusals of src/access in words", () => {
  const refusals: Refusal[] = [
    { reason: "workspace_not_allowed", teamId: "T0NOPE" },
    { reason: "not_manager", verb: "remove a webhook" },
    { reason: "profile_not_bound", profileId: "x2*bold*" },
    { reason: "profile_claimed", profileId: "x2vq8nw" },
    { reason: "read_budget", budget: "user", perMinute: 10, retryAfterSeconds: 7 },
  ];

  it("each reason has its message and its paragraph, within limits, foreign ids as code", () => {
    for (const r of refusals) {
      const msg = refusalMessage(r);
      expect(assertWithinLimits(msg)).toEqual([]);
      expect(blockText(msg)).toMatch(/🔒|⏳/);
      expect(refusalText(r)).toMatch(r.reason === "read_budget" ? /^Your platform read budget/ : /^🔒 /);
    }
    expect(refusalText(refusals[2] as Refusal)).toContain("`x2*bold*`");
    expect(refusalText(refusals[1] as Refusal)).toContain("can remove a webhook. Ask one of them.");
    expect(refusalText(refusals[4] as Refusal)).toContain("Try again in 7 s.");
  });
});
