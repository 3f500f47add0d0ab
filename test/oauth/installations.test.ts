/**
 * The installation store: per team (and per enterprise for org-wide installs), zod-checked, and
 * with STORE_ENCRYPTION_KEY encrypted at rest (AES-256-GCM, versioned envelope). The raw stored
 * values are read back to prove no bot token is there in clear.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Installation } from "@slack/bolt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger } from "../../src/log.js";
import { ENVELOPE_ALG } from "../../src/store/crypto.js";
import { InstallationRepo, openStore, type Store, StoreCorruptError } from "../../src/store/index.js";
import { installationKeys } from "../../src/store/installations.js";
import { ENCRYPTION_KEY, type OAuthBot, startOAuthBot } from "./helper.js";

const logs: string[] = [];
const logger = createLogger({ level: "debug", destination: { write: (s: string) => void logs.push(s) } });
const TOKEN = "xoxb-1111-2222-secretbottokenvalue";

function installation(teamId: string, token = TOKEN): Installation {
  return {
    team: { id: teamId, name: "Acme" },
    enterprise: undefined,
    user: { id: "U0INSTALLER", token: undefined, scopes: undefined },
    bot: { token, scopes: ["commands", "chat:write"], userId: "U0BOT", id: "B0BOT" },
    isEnterpriseInstall: false,
    appId: "A0APP",
    tokenType: "bot",
    authVersion: "v2",
  };
}

let dir: string;
let store: Store;
const rawRow = async (key: string): Promise<string> => {
  const rows = (await store.backend.sqlite?.query("SELECT value FROM keyv WHERE key = ?", `bot:${key}`)) as
    | Array<{ value: string }>
    | undefined;
  return rows?.[0]?.value ?? "";
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "installations-"));
  const path = join(dir, "bot.sqlite");
  store = await openStore({ kind: "sqlite", path, url: `sqlite://${path}` }, logger);
});
afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("InstallationRepo with STORE_ENCRYPTION_KEY", () => {
  const repo = () => new InstallationRepo(store, logger, { encryptionKey: ENCRYPTION_KEY });

  it("stores a versioned AES-256-GCM envelope: no token in the raw value, and reads it back", async () => {
    await repo().storeInstallation(installation("T0ENC"));
    const key = installationKeys.team("T0ENC");
    const viaKeyv = await store.keyv.get(key);
    const raw = await rawRow(key);
    expect(raw).not.toBe("");
    for (const text of [JSON.stringify(viaKeyv), raw]) {
      expect(text).not.toContain("xoxb");
      expect(text).not.toContain("secretbottokenvalue");
      expect(text).not.toContain("U0INSTALLER");
    }
    expect(viaKeyv).toMatchObject({ v: 1, enc: ENVELOPE_ALG });
    expect(Buffer.from((viaKeyv as { iv: string }).iv, "base64")).toHaveLength(12);
    const back = await repo().fetchInstallation({
      teamId: "T0ENC",
      enterpriseId: undefined,
      isEnterpriseInstall: false,
    });
    expect(back.bot?.token).toBe(TOKEN);
    expect(back.team?.id).toBe("T0ENC");
  });

  it("uses a fresh IV each time: the same installation never encrypts the same way twice", async () => {
    const key = installationKeys.team("T0ENC");
    const first = (await store.keyv.get(key)) as { iv: string; data: string };
    await repo().storeInstallation(installation("T0ENC"));
    const second = (await store.keyv.get(key)) as { iv: string; data: string };
    expect(second.iv).not.toBe(first.iv);
    expect(second.data).not.toBe(first.data);
  });

  it("fails clearly with another key, without the key, and for a tampered or moved value", async () => {
    const q = { teamId: "T0ENC", enterpriseId: undefined, isEnterpriseInstall: false } as const;
    const wrong = new InstallationRepo(store, logger, {
      encryptionKey: "another-key-0123456789abcdefghijklmnop",
    });
    const e1 = await wrong.fetchInstallation(q).catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(StoreCorruptError);
    expect((e1 as StoreCorruptError).message).toMatch(
      /failed authentication: it was altered, or STORE_ENCRYPTION_KEY is not the key it was written with/,
    );
    const none = new InstallationRepo(store, logger);
    const e2 = await none.fetchInstallation(q).catch((e: unknown) => e);
    expect(e2).toBeInstanceOf(StoreCorruptError);
    expect((e2 as StoreCorruptError).message).toMatch(/encrypted but STORE_ENCRYPTION_KEY is not set/);

    // One flipped bit of the ciphertext.
    const key = installationKeys.team("T0ENC");
    const env = (await store.keyv.get(key)) as { data: string };
    const bytes = Buffer.from(env.data, "base64");
    bytes[5] = (bytes[5] ?? 0) ^ 1;
    await store.keyv.set(installationKeys.team("T0TAMPER"), { ...env, data: bytes.toString("base64") });
    const e3 = await repo()
      .fetchInstallation({ ...q, teamId: "T0TAMPER" })
      .catch((e: unknown) => e);
    expect((e3 as StoreCorruptError).message).toMatch(/failed authentication/);
    // The intact envelope of T0ENC copied under another workspace's key: bound to its key.
    await store.keyv.set(installationKeys.team("T0MOVED"), env);
    const e4 = await repo()
      .fetchInstallation({ ...q, teamId: "T0MOVED" })
      .catch((e: unknown) => e);
    expect((e4 as StoreCorruptError).message).toMatch(/failed authentication/);
    // The original still reads.
    expect((await repo().fetchInstallation(q)).bot?.token).toBe(TOKEN);
  });

  it("reads an installation stored before the key was set, and encrypts it on its next write", async () => {
    await new InstallationRepo(store, logger).storeInstallation(installation("T0PLAIN"));
    const key = installationKeys.team("T0PLAIN");
    expect(await rawRow(key)).toContain(TOKEN);
    const found = await repo().find({ teamId: "T0PLAIN" });
    expect(found?.bot?.token).toBe(TOKEN);
    await repo().storeInstallation(found as Installation);
    expect(await rawRow(key)).not.toContain("xoxb");
  });
});

describe("InstallationRepo keys", () => {
  const repo = () => new InstallationRepo(store, logger);

  it("keys org-wide installs by enterprise id; a workspace of the org falls back to it", async () => {
    const org: Installation = {
      ...installation("T0IGNORED", "xoxb-org-token"),
      team: undefined,
      enterprise: { id: "E0ORG", name: "Org" },
      isEnterpriseInstall: true,
    };
    await repo().storeInstallation(org);
    expect(await store.keyv.get(installationKeys.enterprise("E0ORG"))).toBeDefined();
    const q = { teamId: undefined, enterpriseId: "E0ORG", isEnterpriseInstall: true } as const;
    expect((await repo().fetchInstallation(q)).bot?.token).toBe("xoxb-org-token");
    expect((await repo().find({ teamId: "T0INORG", enterpriseId: "E0ORG" }))?.bot?.token).toBe(
      "xoxb-org-token",
    );
    expect(await repo().find({ teamId: "T0INORG" })).toBeUndefined();
    await repo().deleteInstallation(q);
    expect(await repo().find({ enterpriseId: "E0ORG", isEnterpriseInstall: true })).toBeUndefined();
  });

  it("refuses an installation without a team id, and a damaged stored value", async () => {
    await expect(repo().storeInstallation({ ...installation("T0X"), team: undefined })).rejects.toThrow(
      /team id/,
    );
    await store.keyv.set(installationKeys.team("T0BAD"), { v: 1, installation: { bot: "nope" } });
    await expect(repo().find({ teamId: "T0BAD" })).rejects.toBeInstanceOf(StoreCorruptError);
  });

  it("fetchInstallation of a workspace without one throws; delete removes it", async () => {
    const q = { teamId: "T0GONE", enterpriseId: undefined, isEnterpriseInstall: false } as const;
    await expect(repo().fetchInstallation(q)).rejects.toThrow(/not installed in workspace T0GONE/);
    await repo().storeInstallation(installation("T0GONE"));
    await repo().deleteInstallation(q);
    expect(await repo().find({ teamId: "T0GONE" })).toBeUndefined();
  });
});

describe("the install flow with STORE_ENCRYPTION_KEY", () => {
  let b: OAuthBot;
  beforeAll(async () => {
    b = await startOAuthBot({ encryptionKey: ENCRYPTION_KEY });
  });
  afterAll(async () => {
    await b?.close();
  });

  it("stores the installed workspace's token encrypted and warns about nothing", async () => {
    expect((await b.install()).status).toBe(200);
    const token = (await b.installations.find({ teamId: "T0STANDIN" }))?.bot?.token ?? "";
    expect(token).toMatch(/^xoxb-/);
    const raw = JSON.stringify(await b.store.keyv.get(installationKeys.team("T0STANDIN")));
    expect(raw).toContain(ENVELOPE_ALG);
    expect(raw).not.toContain(token);
    expect(raw).not.toContain("xoxb");
    expect(b.logs.some((l) => l.includes("STORE_ENCRYPTION_KEY is not set"))).toBe(false);
  });
});
