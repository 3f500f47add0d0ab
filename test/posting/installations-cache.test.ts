/**
 * The installations' one cache (InstallationRepo.cached): what the worker's clients
 * (install/oauth.ts `workspaceClients`) and the access checks' "is it installed, in which
 * organization" (install/workspaces.ts `installedWorkspaces`) read, once per workspace per
 * lifetime; this process's own changes seen at once.
 */
import type { Installation } from "@slack/bolt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workspaceClients } from "../../src/install/oauth.js";
import { installedWorkspaces } from "../../src/install/workspaces.js";
import { createLogger } from "../../src/log.js";
import { InstallationMissingError, InstallationRepo, openStore, type Store } from "../../src/store/index.js";

const logger = createLogger({ level: "silent" });

function installation(teamId: string, token: string, enterpriseId?: string): Installation {
  return {
    team: { id: teamId, name: "Acme" },
    enterprise: enterpriseId ? { id: enterpriseId, name: "Org" } : undefined,
    user: { id: "U0INSTALLER", token: undefined, scopes: undefined },
    bot: { token, scopes: ["commands", "chat:write"], userId: "U0BOT", id: "B0BOT" },
    isEnterpriseInstall: false,
    appId: "A0APP",
    tokenType: "bot",
    authVersion: "v2",
  };
}

let store: Store;
beforeAll(async () => {
  store = await openStore({ kind: "memory", url: "memory://" }, logger);
});
afterAll(async () => {
  await store?.close();
});

/** The repo with its reads of the store counted. */
function counted(now: () => number) {
  const repo = new InstallationRepo(store, logger, { now });
  const reads = { n: 0 };
  const find = repo.find.bind(repo);
  repo.find = async (q) => {
    reads.n++;
    return find(q);
  };
  return { repo, reads };
}

describe("InstallationRepo.cached", () => {
  it("one read per workspace per lifetime for both readers; this process's changes at once", async () => {
    let t = 0;
    const { repo, reads } = counted(() => t);
    await repo.storeInstallation(installation("T0CACHE", "xoxb-one", "E0ORG"));
    const clientOf = workspaceClients(repo, "http://127.0.0.1:9/api/");
    const workspaceOf = installedWorkspaces(repo);
    const first = await clientOf("T0CACHE");
    expect(await workspaceOf("T0CACHE")).toEqual({ enterpriseId: "E0ORG" });
    expect(await clientOf("T0CACHE")).toBe(first);
    expect(reads.n).toBe(1);
    // Another replica's change: seen once the answer is older than the lifetime (30 s).
    t += 29_000;
    await clientOf("T0CACHE");
    expect(reads.n).toBe(1);
    t += 1_000;
    expect(await clientOf("T0CACHE")).toBe(first);
    expect(reads.n).toBe(2);
    // A reinstall in this process: the new token at once, a new client.
    await repo.storeInstallation(installation("T0CACHE", "xoxb-two", "E0ORG"));
    const second = await clientOf("T0CACHE");
    expect(second).not.toBe(first);
    expect(second.token).toBe("xoxb-two");
    expect(await workspaceOf("T0CACHE")).toEqual({ enterpriseId: "E0ORG" });
    expect(reads.n).toBe(3);
    // Uninstalled in this process: at once, for both.
    await repo.deleteInstallation({ teamId: "T0CACHE", enterpriseId: undefined, isEnterpriseInstall: false });
    await expect(clientOf("T0CACHE")).rejects.toBeInstanceOf(InstallationMissingError);
    expect(await workspaceOf("T0CACHE")).toBeNull();
    expect(reads.n).toBe(4);
  });

  it("a read that began before a change is not cached; a failed read is not cached", async () => {
    const { repo } = counted(() => 0);
    await repo.storeInstallation(installation("T0RACE", "xoxb-old"));
    const reading = repo.cached("T0RACE");
    await repo.storeInstallation(installation("T0RACE", "xoxb-new"));
    await reading;
    expect((await repo.cached("T0RACE"))?.bot?.token).toBe("xoxb-new");

    const failing = new InstallationRepo(store, logger);
    let fail = true;
    const find = failing.find.bind(failing);
    failing.find = async (q) => {
      if (fail) throw new Error("store down");
      return find(q);
    };
    await expect(failing.cached("T0RACE")).rejects.toThrow("store down");
    fail = false;
    expect((await failing.cached("T0RACE"))?.bot?.token).toBe("xoxb-new");
  });

  it("is bounded: past maxCached the oldest workspace is forgotten", async () => {
    const repo = new InstallationRepo(store, logger, { maxCached: 2 });
    const reads = { n: 0 };
    const find = repo.find.bind(repo);
    repo.find = async (q) => {
      reads.n++;
      return find(q);
    };
    for (const t of ["T0A", "T0B", "T0C"]) await repo.cached(t);
    expect(reads.n).toBe(3);
    await repo.cached("T0C");
    await repo.cached("T0B");
    expect(reads.n).toBe(3);
    await repo.cached("T0A");
    expect(reads.n).toBe(4);
  });
});
