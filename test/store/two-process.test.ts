/**
 * Two real processes (test/store/writer.ts) change one workspace's documents at the same moment,
 * on one Redis namespace and on one sqlite file: 50 managers and 50 subscriptions each, and the
 * same 50 free claims for two workspaces. No change is lost, and each claim has exactly one
 * holder, the one that was told it took it.
 */
import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { type ProfileSettings, SettingsRepo } from "../../src/store/index.js";
import { spawnJsonLines } from "../support/json-lines.js";
import { captureLogger, redisBackend, sqliteBackend, type TestBackend } from "./helpers.js";

const WRITER = fileURLToPath(new URL("./writer.ts", import.meta.url));
const TEAM = "T0SHARED";
const COUNT = 50;

interface Child {
  proc: ChildProcess;
  ready: Promise<void>;
  result: Promise<Record<string, unknown>>;
}

function startWriter(where: string, namespace: string, tag: string): Child {
  let onResult: (line: Record<string, unknown>) => void = () => undefined;
  const { proc, ready } = spawnJsonLines(WRITER, [where, namespace, tag, TEAM, String(COUNT)], (line) =>
    onResult(line),
  );
  const result = new Promise<Record<string, unknown>>((resolve, reject) => {
    onResult = resolve;
    proc.once("exit", (code) => reject(new Error(`writer ${tag} exited (${code}) without a result`)));
  });
  return { proc, ready, result };
}

const children: Child[] = [];
afterAll(() => {
  for (const c of children) if (c.proc.exitCode === null) c.proc.kill("SIGKILL");
});

const x1: ProfileSettings = {
  profileId: "x1",
  channelId: "C0ROUTE",
  callbackId: "b".repeat(64),
  foreignUrl: null,
  events: ["video.published"],
  setBy: "U0ADMIN",
  setAt: "2025-01-02T03:04:05.000Z",
  subscriptions: [],
};

const CASES: Array<[string, () => TestBackend & { where: string; namespace: string }]> = [
  [
    "one Redis",
    () => {
      const b = redisBackend();
      return { ...b, where: "redis://127.0.0.1:6379" };
    },
  ],
  [
    "one sqlite file",
    () => {
      const b = sqliteBackend();
      return { ...b, where: b.file, namespace: "bot" };
    },
  ],
];

describe.each(CASES)("two processes on %s", (_name, make) => {
  const backend = make();
  afterAll(() => backend.cleanup());

  it("50 managers, 50 subscriptions and 50 claims each at the same moment: nothing lost, one holder per claim", async () => {
    const { logger } = captureLogger();
    const store = await backend.open(logger);
    try {
      const settings = new SettingsRepo(store, logger);
      await settings.saveProfile(TEAM, x1);
      const writers = [
        startWriter(backend.where, backend.namespace, "A"),
        startWriter(backend.where, backend.namespace, "B"),
      ];
      children.push(...writers);
      await Promise.all(writers.map((w) => w.ready));
      for (const w of writers) w.proc.stdin?.write("go\n");
      const [a, b] = await Promise.all(writers.map((w) => w.result));
      expect(a?.error).toBeUndefined();
      expect(b?.error).toBeUndefined();

      const n = Array.from({ length: COUNT }, (_, i) => String(i).padStart(3, "0"));
      const managers = (await settings.listManagers(TEAM)).map((m) => m.userId);
      expect(managers).toEqual([...n.map((i) => `UA${i}`), ...n.map((i) => `UB${i}`)]);
      const subs = (await settings.getProfile(TEAM, "x1"))?.subscriptions.map((s) => s.channelId).sort();
      expect(subs).toEqual([...n.map((i) => `CA${i}`), ...n.map((i) => `CB${i}`)]);

      const claimsA = (a?.claims ?? {}) as Record<string, string>;
      const claimsB = (b?.claims ?? {}) as Record<string, string>;
      for (const i of n) {
        const profile = `p${i}`;
        const told = [claimsA[profile], claimsB[profile]];
        expect(told.sort()).toEqual(["refused", "taken"]);
        expect(await settings.claims.owner(profile)).toBe(claimsA[profile] === "taken" ? "TA" : "TB");
      }
    } finally {
      await store.close();
    }
  }, 60_000);
});
