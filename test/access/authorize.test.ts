/**
 * The authorizer's workspace and binding rules (src/access/authorize.ts), decided without the
 * network: ALLOWED_WORKSPACES by team or enterprise id, `*`, single-workspace mode; PROFILE_BINDINGS
 * by team or enterprise id, and "every profile" only in single-workspace mode without bindings;
 * `revoked` (installed, allowed, bound, the organization read from the workspace) and `claimOf`.
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
    config: { slack: { mode }, access: { allowedWorkspaces: allowed, profileBindings: bindings } },
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

describe("revoked and claimOf (what the bot does on its own)", () => {
  function withWorkspaces(
    mode: "oauth" | "single-workspace",
    allowed: string[],
    bindings: Record<string, string[]>,
    installed: Record<string, string | undefined>,
    holder?: string,
  ) {
    const unused = {} as AuthorizerOptions["managers"] & AuthorizerOptions["platform"];
    return new Authorizer({
      config: { slack: { mode }, access: { allowedWorkspaces: allowed, profileBindings: bindings } },
      managers: unused,
      platform: unused,
      claims: { owner: async () => holder } as unknown as AuthorizerOptions["claims"],
      workspaceOf: async (teamId) =>
        Object.hasOwn(installed, teamId) ? { enterpriseId: installed[teamId] } : null,
    });
  }
  it("says why: not installed, not allowed, not bound; the organization comes from the workspace", async () => {
    const a = withWorkspaces(
      "oauth",
      ["T0AAA", "E0ORG"],
      { T0AAA: ["x1"], E0ORG: ["x9"] },
      {
        T0AAA: undefined,
        T0ORGTEAM: "E0ORG",
        T0OUT: undefined,
      },
    );
    expect(await a.revoked("T0AAA", "x1")).toBeUndefined();
    expect(await a.revoked("T0AAA", "x9")).toBe("profile_not_bound");
    expect(await a.revoked("T0ORGTEAM", "x9")).toBeUndefined();
    expect(await a.revoked("T0OUT", "x1")).toBe("workspace_not_allowed");
    expect(await a.revoked("T0GONE", "x1")).toBe("not_installed");
  });
  it("a claim counts while its holder may still act on the profile", async () => {
    const bindings = { T0AAA: ["x1"], T0BBB: ["x1"] };
    const installed = { T0AAA: undefined, T0BBB: undefined };
    expect(
      await withWorkspaces("oauth", ["T0AAA", "T0BBB"], bindings, installed, "T0AAA").claimOf("x1"),
    ).toEqual({
      holder: "T0AAA",
      counts: true,
    });
    expect(await withWorkspaces("oauth", ["T0BBB"], bindings, installed, "T0AAA").claimOf("x1")).toEqual({
      holder: "T0AAA",
      counts: false,
    });
    expect(await withWorkspaces("oauth", ["*"], bindings, installed).claimOf("x1")).toBeUndefined();
  });
});
