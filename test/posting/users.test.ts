/**
 * SlackUsers (src/posting/users.ts): the process's one cache of Slack's users.info answers, shared
 * by the manager check (src/access/managers.ts) and the DM watches (src/watch/dm.ts).
 */
import { ErrorCode, type WebClient } from "@slack/web-api";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { ManagerPolicy } from "../../src/access/index.js";
import { SlackUsers } from "../../src/posting/index.js";
import { DirectMessages } from "../../src/watch/dm.js";

const refused = (error: string) =>
  Object.assign(new Error(error), { code: ErrorCode.PlatformError, data: { ok: false, error } });

/** A users.info that answers from `users` (by id), or throws `fail` while it is set; counts calls. */
function slack(users: Record<string, Record<string, unknown>>) {
  const s = {
    calls: 0,
    fail: undefined as Error | undefined,
    gate: undefined as Promise<void> | undefined,
    client: undefined as unknown as WebClient,
  };
  s.client = {
    users: {
      info: async ({ user }: { user: string }) => {
        s.calls++;
        if (s.gate) await s.gate;
        if (s.fail) throw s.fail;
        const u = users[user];
        if (!u) throw refused("user_not_found");
        return { ok: true, user: { id: user, ...u } };
      },
    },
  } as unknown as WebClient;
  return s;
}

describe("SlackUsers", () => {
  it("keeps an answer per workspace and person; each caller says how old it may be", async () => {
    let t = 1_000;
    const users = new SlackUsers({ now: () => t, ttlMs: 10_000 });
    const s = slack({ U1: { team_id: "T1", is_admin: true, profile: { email: "x@example.com" } } });
    expect(await users.info(s.client, "T1", "U1")).toEqual({
      team_id: "T1",
      deleted: undefined,
      is_stranger: undefined,
      is_owner: undefined,
      is_primary_owner: undefined,
      is_admin: true,
    });
    await users.info(s.client, "T1", "U1");
    expect(s.calls).toBe(1);
    // Another workspace: asked on its own.
    await users.info(s.client, "T2", "U1");
    expect(s.calls).toBe(2);
    t += 500;
    await users.info(s.client, "T1", "U1", 1_000);
    expect(s.calls).toBe(2);
    await users.info(s.client, "T1", "U1", 400);
    expect(s.calls).toBe(3);
    t += 10_000;
    await users.info(s.client, "T1", "U1");
    expect(s.calls).toBe(4);
  });

  it("caches user_not_found (null), not any other failure", async () => {
    const users = new SlackUsers();
    const s = slack({});
    expect(await users.info(s.client, "T1", "U0NOBODY")).toBeNull();
    expect(await users.info(s.client, "T1", "U0NOBODY")).toBeNull();
    expect(s.calls).toBe(1);
    s.fail = refused("internal_error");
    await expect(users.info(s.client, "T1", "U2")).rejects.toThrow("internal_error");
    await expect(users.info(s.client, "T1", "U2")).rejects.toThrow("internal_error");
    expect(s.calls).toBe(3);
    s.fail = Object.assign(new Error("429"), { code: ErrorCode.RateLimitedError, retryAfter: 3 });
    await expect(users.info(s.client, "T1", "U2")).rejects.toThrow("429");
    expect(users.size).toBe(1);
  });

  it("concurrent asks for one person share one call; the client is built only when Slack is asked", async () => {
    const users = new SlackUsers();
    const s = slack({ U1: { team_id: "T1" } });
    let release = () => {};
    s.gate = new Promise((r) => {
      release = r;
    });
    let built = 0;
    const lazy = async () => {
      built++;
      return s.client;
    };
    const both = Promise.all([users.info(lazy, "T1", "U1"), users.info(lazy, "T1", "U1")]);
    release();
    const [a, b] = await both;
    expect(a).toEqual(b);
    expect(s.calls).toBe(1);
    s.gate = undefined;
    await users.info(lazy, "T1", "U1");
    expect(built).toBe(1);
  });

  it("is bounded: past maxEntries the oldest answer is forgotten", async () => {
    const users = new SlackUsers({ maxEntries: 2 });
    const s = slack({ U1: {}, U2: {}, U3: {} });
    for (const u of ["U1", "U2", "U3"]) await users.info(s.client, "T1", u);
    expect(users.size).toBe(2);
    await users.info(s.client, "T1", "U3");
    await users.info(s.client, "T1", "U2");
    expect(s.calls).toBe(3);
    await users.info(s.client, "T1", "U1");
    expect(s.calls).toBe(4);
  });
});

describe("one users.info cache for the manager check and the DM watches", () => {
  const logger = pino({ level: "silent" });
  const settings = { listManagers: async () => [] } as unknown as ConstructorParameters<
    typeof ManagerPolicy
  >[0]["settings"];

  it("an answer read by one is used by the other, each within its own lifetime", async () => {
    let t = 0;
    const users = new SlackUsers({ now: () => t });
    const s = slack({
      U0ADMIN: { team_id: "T1", is_admin: true },
      U0GONE: { team_id: "T1", is_admin: true, deleted: true },
      U0EXT: { team_id: "T0OTHER", is_admin: true },
    });
    const managers = new ManagerPolicy({ managerUserIds: [], settings, logger, users, cacheTtlMs: 60_000 });
    const dms = new DirectMessages({
      slackFor: async () => s.client,
      log: logger,
      now: () => t,
      cacheMs: 1_000,
      users,
    });
    expect(await managers.decide(s.client, "T1", "U0ADMIN")).toEqual({ manager: true, reason: "admin" });
    expect(await dms.membership("T1", "U0ADMIN")).toBe("member");
    expect(s.calls).toBe(1);
    // Older than the DM watch accepts, not than the manager check does.
    t += 5_000;
    expect(await managers.decide(s.client, "T1", "U0ADMIN")).toMatchObject({ manager: true });
    expect(s.calls).toBe(1);
    expect(await dms.membership("T1", "U0ADMIN")).toBe("member");
    expect(s.calls).toBe(2);
    // Deactivated, another organisation's admin, unknown to Slack: no manager, gone from the workspace.
    for (const u of ["U0GONE", "U0EXT", "U0NOBODY"]) {
      expect(await dms.membership("T1", u)).toBe("gone");
      expect(await managers.decide(s.client, "T1", u)).toEqual({ manager: false, reason: "member" });
    }
    expect(s.calls).toBe(5);
  });

  it("Slack failing: the manager check fails closed, the DM watch waits; neither caches it", async () => {
    const users = new SlackUsers();
    const s = slack({ U0ADMIN: { team_id: "T1", is_admin: true } });
    const managers = new ManagerPolicy({ managerUserIds: [], settings, logger, users });
    const dms = new DirectMessages({ slackFor: async () => s.client, log: logger, now: Date.now, users });
    s.fail = refused("internal_error");
    expect(await managers.decide(s.client, "T1", "U0ADMIN")).toEqual({
      manager: false,
      reason: "unverified",
    });
    expect(await dms.membership("T1", "U0ADMIN")).toBe("unknown");
    s.fail = undefined;
    expect(await dms.membership("T1", "U0ADMIN")).toBe("member");
    expect(await managers.decide(s.client, "T1", "U0ADMIN")).toEqual({ manager: true, reason: "admin" });
    expect(s.calls).toBe(3);
  });

  it("without the process's cache a manager check asks Slack each time (unit tests' default)", async () => {
    const s = slack({ U0OWNER: { team_id: "T1", is_owner: true } });
    const managers = new ManagerPolicy({ managerUserIds: [], settings, logger });
    expect(await managers.decide(s.client, "T1", "U0OWNER")).toEqual({ manager: true, reason: "owner" });
    expect(await managers.decide(s.client, "T1", "U0OWNER")).toEqual({ manager: true, reason: "owner" });
    expect(s.calls).toBe(2);
  });
});
