/**
 * A token refresh never writes what it should not, over the real path (the Slack stand-in's
 * oauth.v2.access, a real sqlite file shared by the bot and a second replica):
 *  - `app_uninstalled` handled by the bot while another replica's refresh is in flight: the
 *    installation stays deleted, whether Slack then gives the new pair or refuses the refresh;
 *  - the stored value becomes unreadable while a refresh is in flight: nothing is written over it
 *    (it stays as it is for inspection); a pair Slack gave meanwhile is stored at the next refresh,
 *    without asking Slack again.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { type SlackStandin, startSlackStandin } from "../../fakes/slack/index.js";
import { TokenRotation } from "../../src/install/rotation.js";
import {
  InstallationMissingError,
  InstallationRepo,
  type Store,
  StoreCorruptError,
} from "../../src/store/index.js";
import { captureLogger, sqliteBackend, type TestBackend } from "../store/helpers.js";
import { eventually } from "../support/harness.js";
import { CLIENT_ID, CLIENT_SECRET, ENCRYPTION_KEY, type OAuthBot, startOAuthBot } from "./helper.js";
import { grantedInstallation } from "./rotation-support.js";

const TEAM = "T0STANDIN";
const KEY = `install:team:${TEAM}`;
const HOUR_MS = 3_600_000;

let cleanup: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

/** A second replica on the same store: its own installation store and rotation. */
async function replica(backend: TestBackend, slack: SlackStandin, clockAheadMs = 0) {
  const { logger, lines } = captureLogger();
  const store = await backend.open(logger);
  cleanup.push(() => store.close());
  const installations = new InstallationRepo(store, logger, { encryptionKey: ENCRYPTION_KEY });
  const rotation = new TokenRotation({
    installations,
    apiUrl: slack.apiUrl,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    logger,
    now: () => Date.now() + clockAheadMs,
  });
  return { store, installations, rotation, lines };
}

const refreshCalls = (slack: SlackStandin) =>
  slack.callsTo("oauth.v2.access").filter((c) => c.args.grant_type === "refresh_token");

/** The refresh's outcome: the installation it answered, or the error. */
const settle = <T>(p: Promise<T>) =>
  p.then(
    (value) => ({ value, error: undefined }),
    (error: unknown) => ({ value: undefined, error }),
  );

describe("an uninstall during another replica's refresh", () => {
  it.each([
    ["Slack gives the new pair", undefined],
    ["Slack refuses the refresh", "invalid_refresh_token"],
  ])(
    "%s: the installation stays deleted",
    async (_, error) => {
      const backend = sqliteBackend();
      cleanup.push(() => backend.cleanup());
      const b: OAuthBot = await startOAuthBot({
        encryptionKey: ENCRYPTION_KEY,
        store: { kind: "sqlite", path: backend.file, url: `sqlite://${backend.file}` },
      });
      cleanup.push(() => b.close());
      // Six hours left: the bot itself does not refresh; the other replica's clock is 5 h ahead.
      b.slack.setTokenRotation({ expiresInS: 6 * 3600 });
      expect((await b.install()).status).toBe(200);
      const other = await replica(backend, b.slack, 5 * HOUR_MS);
      // Visible to another connection once the bot's current sqlite transaction committed.
      const found = await eventually(
        () => other.installations.find({ teamId: TEAM }),
        5000,
        "the installation seen by the other replica",
      );
      expect(found.bot?.refreshToken).toBeTruthy();

      b.slack.addFault({ method: "oauth.v2.access", latencyMs: 1500, ...(error ? { error } : {}) });
      const refreshing = settle(other.rotation.fresh(found));
      await eventually(async () => refreshCalls(b.slack).length === 1, 5000, "the refresh to reach Slack");
      expect((await b.event({ type: "app_uninstalled" }, TEAM)).status).toBe(200);
      await eventually(
        async () => (await b.installations.find({ teamId: TEAM })) === undefined,
        5000,
        "the installation deleted",
      );

      const outcome = await refreshing;
      expect(refreshCalls(b.slack)[0]?.status).toBe(200);
      await sleep(300);
      expect(await other.installations.find({ teamId: TEAM })).toBeUndefined();
      expect(await b.installations.find({ teamId: TEAM })).toBeUndefined();
      // The refresh answers as for a workspace that is not installed.
      expect(outcome.error).toBeInstanceOf(InstallationMissingError);
    },
    30_000,
  );
});

describe("an installation that becomes unreadable during a refresh", () => {
  async function setUp() {
    const backend = sqliteBackend();
    cleanup.push(() => backend.cleanup());
    const slack = await startSlackStandin();
    cleanup.push(() => slack.close());
    slack.setTokenRotation({ expiresInS: 600 });
    const r = await replica(backend, slack);
    await r.installations.storeInstallation(await grantedInstallation(slack));
    const raw = await backend.readRaw(r.store, KEY);
    return { backend, slack, ...r, raw: raw ?? "" };
  }

  /** Starts a refresh held by Slack for 1.5 s, and damages the stored value meanwhile. */
  async function refreshWhileDamaged(
    s: Awaited<ReturnType<typeof setUp>>,
    fault: { error?: string },
  ): Promise<{ value?: unknown; error?: unknown }> {
    s.slack.addFault({ method: "oauth.v2.access", latencyMs: 1500, ...fault });
    const found = await s.installations.find({ teamId: TEAM });
    const refreshing = settle(s.rotation.fresh(found ?? ({} as never)));
    await eventually(async () => refreshCalls(s.slack).length === 1, 5000, "the refresh to reach Slack");
    await s.backend.writeRaw(s.store as Store, KEY, '{"value":"damaged"}');
    return refreshing;
  }

  it("Slack refuses the refresh: no failure note and no stale copy is written over it", async () => {
    const s = await setUp();
    const outcome = await refreshWhileDamaged(s, { error: "invalid_refresh_token" });
    expect(outcome.error).toBeUndefined();
    expect(await s.backend.readRaw(s.store, KEY)).toBe('{"value":"damaged"}');
    await expect(s.installations.find({ teamId: TEAM })).rejects.toBeInstanceOf(StoreCorruptError);
    expect(s.lines.some((l) => l.msg.includes("Slack token refresh failed"))).toBe(true);
  }, 30_000);

  it("Slack gives the new pair: nothing written over it; the pair is stored once the value is repaired, without asking Slack again", async () => {
    const s = await setUp();
    const outcome = await refreshWhileDamaged(s, {});
    const newToken = s.slack.issuedTokens().at(-1);
    // The caller gets the new token at once.
    expect((outcome.value as { bot?: { token?: string } } | undefined)?.bot?.token).toBe(newToken);
    expect(await s.backend.readRaw(s.store, KEY)).toBe('{"value":"damaged"}');
    expect(s.lines.some((l) => l.level === "error" && String(l.msg).includes("not stored"))).toBe(true);

    // Repaired (the value as it was): the next use stores the pair Slack gave, with no new exchange.
    await s.backend.writeRaw(s.store, KEY, s.raw);
    const before = refreshCalls(s.slack).length;
    const stale = await s.installations.find({ teamId: TEAM });
    const fresh = await s.rotation.fresh(stale ?? ({} as never));
    expect(fresh.bot?.token).toBe(newToken);
    expect(refreshCalls(s.slack).length).toBe(before);
    expect((await s.installations.find({ teamId: TEAM }))?.bot?.token).toBe(newToken);
  }, 30_000);
});
