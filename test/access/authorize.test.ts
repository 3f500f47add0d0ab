/**
 * The authorizer's workspace and binding rules (src/access/authorize.ts), decided without the
 * network: ALLOWED_WORKSPACES by team or enterprise id, `*`, single-workspace mode; PROFILE_BINDINGS
 * by team or enterprise id, and "every profile" only in single-workspace mode without bindings.
 * The role and claim steps, and the order of all four, are covered over real HTTP in
 * test/security/entry-points.test.ts and test/security/isolation.test.ts.
 */
import { describe, expect, it } from "vitest";
import { Authorizer, type AuthorizerOptions } from "../../src/access/index.js";

function authorizer(
  mode: "oauth" | "single-workspace",
  allowed: string[],
  bindings: Record<string, string[]>,
) {
  // Role, claims and the platform are not reached by these two rules.
  const unused = {} as AuthorizerOptions["managers"] &
    AuthorizerOptions["claims"] &
    AuthorizerOptions["platform"];
  return new Authorizer({
    config: { slack: { mode }, allowedWorkspaces: allowed, profileBindings: bindings },
    managers: unused,
    claims: unused,
    platform: unused,
  });
}

describe("workspaceAllowed", () => {
  it("multi-workspace mode: only listed team or enterprise ids", () => {
    const a = authorizer("oauth", ["T0AAA", "E0ORG"], {});
    expect(a.workspaceAllowed("T0AAA")).toBe(true);
    expect(a.workspaceAllowed("T0ORGTEAM", "E0ORG")).toBe(true);
    expect(a.workspaceAllowed("T0BBB")).toBe(false);
    expect(a.workspaceAllowed("T0BBB", "E0OTHER")).toBe(false);
    expect(a.workspaceAllowed(undefined)).toBe(false);
  });
  it("* allows any workspace; single-workspace mode ignores the list", () => {
    expect(authorizer("oauth", ["*"], {}).workspaceAllowed("T0ZZZ")).toBe(true);
    expect(authorizer("single-workspace", [], {}).workspaceAllowed("T0ZZZ")).toBe(true);
  });
});

describe("profileBound", () => {
  it("single-workspace mode without bindings: every profile", () => {
    expect(authorizer("single-workspace", [], {}).profileBound({ teamId: "T0AAA" }, "x1")).toBe(true);
  });
  it("single-workspace mode with bindings: only the bound ones", () => {
    const a = authorizer("single-workspace", [], { T0AAA: ["x1"] });
    expect(a.profileBound({ teamId: "T0AAA" }, "x1")).toBe(true);
    expect(a.profileBound({ teamId: "T0AAA" }, "x2")).toBe(false);
    expect(a.profileBound({ teamId: "T0AAA" }, undefined)).toBe(false);
  });
  it("multi-workspace mode: a workspace with no binding may act on no profile, even with *", () => {
    const a = authorizer("oauth", ["*"], { T0AAA: ["x1"], E0ORG: ["x9"] });
    expect(a.profileBound({ teamId: "T0BBB" }, "x1")).toBe(false);
    expect(authorizer("oauth", ["*"], {}).profileBound({ teamId: "T0AAA" }, "x1")).toBe(false);
    expect(a.profileBound({ teamId: "T0AAA" }, "x1")).toBe(true);
    expect(a.profileBound({ teamId: "T0ORGTEAM", enterpriseId: "E0ORG" }, "x9")).toBe(true);
    expect(a.profileBound({ teamId: "T0ORGTEAM", enterpriseId: "E0ORG" }, "x1")).toBe(false);
    expect(a.profileBound({ teamId: "__proto__" }, "x1")).toBe(false);
  });
});
