/**
 * Token rotation with several replicas, over the real path: real processes (test/oauth/refresher.ts)
 * on one store refresh the same installation at the same moment against the Slack stand-in's
 * oauth.v2.access, whose refresh tokens work once. The collision is forced: a barrier in front of
 * the stand-in (test/oauth/refresh-barrier.ts) holds each refresh until every replica's arrived,
 * so every round all replicas present the same stored refresh token together; exactly one gets a
 * new pair and the others are refused (invalid_refresh_token), which they take for the winner's
 * pair on its way. Every round, the stored installation ends with the newest pair (its refresh
 * token still valid), whoever won; the spent pair is never written back over it and no failure is
 * noted. On one Redis (three processes) and on one sqlite file (two).
 */
import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { startSlackStandin } from "../../fakes/slack/index.js";
import { refreshFailureOf } from "../../src/install/rotation.js";
import { InstallationRepo } from "../../src/store/index.js";
import { captureLogger, redisBackend, sqliteBackend, type TestBackend } from "../store/helpers.js";
import { spawnJsonLines } from "../support/json-lines.js";
import { ENCRYPTION_KEY } from "./helper.js";
import { startRefreshBarrier } from "./refresh-barrier.js";
import { grantedInstallation, oauthAccess } from "./rotation-support.js";

const REFRESHER = fileURLToPath(new URL("./refresher.ts", import.meta.url));
const TEAM = "T0STANDIN";
const ROUNDS = 15;

interface Child {
  proc: ChildProcess;
  ready: Promise<void>;
  /** The next answer line. */
  next(): Promise<Record<string, unknown>>;
}

function startRefresher(where: string, namespace: string, apiUrl: string): Child {
  const queue: Array<Record<string, unknown>> = [];
  const waiting: Array<(line: Record<string, unknown>) => void> = [];
  const { proc, ready } = spawnJsonLines(
    REFRESHER,
    [where, namespace, apiUrl, ENCRYPTION_KEY, TEAM],
    (line) => {
      const w = waiting.shift();
      if (w) w(line);
      else queue.push(line);
    },
  );
  return {
    proc,
    ready,
    next: () => {
      const line = queue.shift();
      if (line) return Promise.resolve(line);
      return new Promise((resolve, reject) => {
        waiting.push(resolve);
        setTimeout(() => reject(new Error("no answer from a refresher within 20 s")), 20_000).unref();
      });
    },
  };
}

const children: Child[] = [];
afterAll(() => {
  for (const c of children) if (c.proc.exitCode === null) c.proc.kill("SIGKILL");
});

const CASES: Array<[string, number, () => TestBackend & { where: string; namespace: string }]> = [
  ["one Redis, three processes", 3, () => ({ ...redisBackend(), where: "redis://127.0.0.1:6379" })],
  [
    "one sqlite file, two processes",
    2,
    () => {
      const b = sqliteBackend();
      return { ...b, where: b.file, namespace: "bot" };
    },
  ],
];

describe.each(CASES)("token refresh race on %s", (_name, processes, make) => {
  const backend = make();
  afterAll(() => backend.cleanup());

  it(`${ROUNDS} rounds of simultaneous refreshes: the store always ends with the newest, still valid pair`, async () => {
    const slack = await startSlackStandin();
    const { logger } = captureLogger();
    const store = await backend.open(logger);
    // Every replica's refresh waits here for the others' (5 s at most: then the round fails).
    const barrier = await startRefreshBarrier(slack.url, processes, 5000);
    try {
      // Tokens that live 10 minutes: always inside the refresh window, so every replica refreshes.
      slack.setTokenRotation({ expiresInS: 600 });
      const installations = new InstallationRepo(store, logger, { encryptionKey: ENCRYPTION_KEY });
      const installation = await grantedInstallation(slack);
      await installations.storeInstallation(installation);

      const replicas = Array.from({ length: processes }, () =>
        startRefresher(backend.where, backend.namespace, barrier.apiUrl),
      );
      children.push(...replicas);
      await Promise.all(replicas.map((r) => r.ready));

      const refreshes = () =>
        slack.callsTo("oauth.v2.access").filter((c) => c.args.grant_type === "refresh_token");
      for (let round = 0; round < ROUNDS; round++) {
        const before = refreshes().length;
        for (const r of replicas) r.proc.stdin?.write("go\n");
        const answers = await Promise.all(replicas.map((r) => r.next()));
        expect(answers.filter((a) => a.error !== undefined)).toEqual([]);
        // They collided: all at once through the barrier, all with the refresh token stored before
        // the round; Slack took it once and refused the others, whose CAS then had nothing to win.
        expect({ round, releases: barrier.releases.slice(round) }).toEqual({ round, releases: [processes] });
        const thisRound = refreshes().slice(before);
        expect(thisRound).toHaveLength(processes);
        expect(new Set(thisRound.map((c) => c.args.refresh_token)).size).toBe(1);
        expect(thisRound.filter((c) => c.ok)).toHaveLength(1);
        expect(thisRound.filter((c) => !c.ok).map((c) => c.error)).toEqual(
          Array.from({ length: processes - 1 }, () => "invalid_refresh_token"),
        );
        // The newest token Slack issued is the one stored, and what every replica ended with
        // unless it used an earlier (still unexpired) one of the same round.
        const newest = slack.issuedTokens().at(-1);
        const stored = await installations.find({ teamId: TEAM });
        expect({ round, token: stored?.bot?.token }).toEqual({ round, token: newest });
        // A replica that lost the race noted no failure (or the winner's pair replaced the note).
        expect(refreshFailureOf(stored)).toBeUndefined();
        expect(refreshes().filter((c) => c.ok).length).toBe(slack.issuedTokens().length - 1);
      }
      // Its refresh token is the one that still works (and the only one).
      const stored = await installations.find({ teamId: TEAM });
      const check = await oauthAccess(slack, {
        grant_type: "refresh_token",
        refresh_token: stored?.bot?.refreshToken ?? "",
      });
      expect(check.ok).toBe(true);
      for (const r of replicas) r.proc.stdin?.end();
    } finally {
      await barrier.close();
      await store.close();
      await slack.close();
    }
  }, 120_000);
});
