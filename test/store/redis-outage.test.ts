/**
 * Redis that is not there, never answers, goes away, freezes, or comes back: repository calls
 * reject with StoreUnavailableError within about opTimeoutMs, nothing crashes, and calls work
 * again once Redis is back. Uses private redis-server processes on free ports.
 */
import { createServer, type Server, type Socket } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import type { Logger } from "../../src/log.js";
import {
  CallbackRepo,
  callbackIdOf,
  newCallbackToken,
  openStore,
  type ProfileInput,
  SettingsRepo,
  type Store,
  StoreUnavailableError,
} from "../../src/store/index.js";
import { captureLogger, freePort, RedisChild, waitFor, watchProcessFailures } from "./helpers.js";

const OP_TIMEOUT_MS = 500;
/** What "within about opTimeoutMs" allows on a loaded machine. */
const SLACK_MS = 1000;

const process_ = watchProcessFailures();
const children: RedisChild[] = [];
const stores: Store[] = [];
afterAll(async () => {
  for (const store of stores) await store.close();
  for (const child of children) await child.kill();
  process_.stop();
  expect(process_.failures).toEqual([]);
});

async function open(url: string, logger: Logger): Promise<Store> {
  const store = await openStore({ kind: "redis", url }, logger, {
    opTimeoutMs: OP_TIMEOUT_MS,
    namespace: "outage",
  });
  stores.push(store);
  return store;
}

const profile = (profileId: string): ProfileInput => ({
  profileId,
  channelId: "C0001",
  callbackId: callbackIdOf(newCallbackToken()),
  foreignUrl: null,
  events: ["video.published"],
  setBy: "U0001",
  setAt: new Date().toISOString(),
});

/** Every repository method, each expected to reject with StoreUnavailableError. */
function allCalls(settings: SettingsRepo, callbacks: CallbackRepo): Array<[string, () => Promise<unknown>]> {
  const token = newCallbackToken();
  return [
    ["listProfiles", () => settings.listProfiles("T0001")],
    ["getProfile", () => settings.getProfile("T0001", "x1")],
    ["saveProfile", () => settings.saveProfile("T0001", profile("x1"))],
    ["removeProfile", () => settings.removeProfile("T0001", "x1")],
    ["defaultProfileId", () => settings.defaultProfileId("T0001")],
    ["setDefaultProfile", () => settings.setDefaultProfile("T0001", "x1")],
    ["listManagers", () => settings.listManagers("T0001")],
    ["addManager", () => settings.addManager("T0001", "U0001", "U0002", new Date())],
    ["removeManager", () => settings.removeManager("T0001", "U0001")],
    ["callbacks.put", () => callbacks.put(token, { teamId: "T0001", profileId: "x1", channelId: "C0001" })],
    ["callbacks.get", () => callbacks.get(token)],
    ["callbacks.delete", () => callbacks.delete(token)],
  ];
}

/** Resolves to the rejection and how long it took; fails the test if the call succeeds. */
async function timedRejection(call: () => Promise<unknown>): Promise<{ err: unknown; ms: number }> {
  const started = Date.now();
  const err = await call().then(
    () => new Error("expected a rejection, got a result"),
    (e: unknown) => e,
  );
  return { err, ms: Date.now() - started };
}

/** `maxMs`: by default "within about opTimeoutMs"; less where nothing may even wait for the timeout. */
async function expectAllUnavailable(
  settings: SettingsRepo,
  callbacks: CallbackRepo,
  maxMs = OP_TIMEOUT_MS + SLACK_MS,
) {
  for (const [name, call] of allCalls(settings, callbacks)) {
    const { err, ms } = await timedRejection(call);
    expect(err, name).toBeInstanceOf(StoreUnavailableError);
    expect(err, name).toMatchObject({ code: "STORE_UNAVAILABLE" });
    expect(ms, name).toBeLessThan(maxMs);
  }
}

/** Not connected: commands are refused at once rather than queued until the timeout. */
const AT_ONCE_MS = OP_TIMEOUT_MS / 2;

const worksNow = (settings: SettingsRepo) => async () =>
  settings.listManagers("T0001").then(
    () => true,
    () => false,
  );

describe("Redis unreachable (nothing listens on the port)", () => {
  it("openStore resolves within about opTimeoutMs, ping and every call reject fast, nothing crashes", async () => {
    const port = await freePort();
    const { logger, lines } = captureLogger();
    const started = Date.now();
    const store = await open(`redis://127.0.0.1:${port}`, logger);
    expect(Date.now() - started).toBeLessThan(OP_TIMEOUT_MS + SLACK_MS);

    const ping = await timedRejection(() => store.ping());
    expect(ping.err).toBeInstanceOf(StoreUnavailableError);
    expect(ping.ms).toBeLessThan(OP_TIMEOUT_MS + SLACK_MS);

    let errorEvents = 0;
    store.keyv.on("error", () => errorEvents++);
    await expectAllUnavailable(new SettingsRepo(store, logger), new CallbackRepo(store, logger), AT_ONCE_MS);
    // The client keeps retrying in the background: many errors, few log lines.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(errorEvents).toBeGreaterThan(5);
    const warns = lines.filter((l) => l.level === "warn");
    expect(warns.length).toBeGreaterThanOrEqual(1);
    expect(warns.length).toBeLessThanOrEqual(3);
    expect(process_.failures).toEqual([]);
  });

  it("works once Redis starts listening there, without reopening", async () => {
    const child = new RedisChild(await freePort());
    children.push(child);
    const { logger } = captureLogger();
    const store = await open(child.url, logger);
    const settings = new SettingsRepo(store, logger);
    await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);
    await child.start();
    expect(await waitFor(worksNow(settings), 10_000)).toBe(true);
    await store.ping();
    await settings.saveProfile("T0001", profile("x1"));
    expect(await settings.defaultProfileId("T0001")).toBe("x1");
  });
});

describe("a server that accepts connections but never answers", () => {
  let server: Server;
  const sockets: Socket[] = [];
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("every call rejects within about opTimeoutMs", async () => {
    server = createServer((socket) => {
      sockets.push(socket);
      socket.on("error", () => undefined);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    const address = server.address();
    if (address === null || typeof address === "string") throw new Error("no address");
    const { logger } = captureLogger();
    const started = Date.now();
    const store = await open(`redis://127.0.0.1:${address.port}`, logger);
    expect(Date.now() - started).toBeLessThan(OP_TIMEOUT_MS + SLACK_MS);
    expect(sockets.length).toBeGreaterThanOrEqual(1);
    await expectAllUnavailable(new SettingsRepo(store, logger), new CallbackRepo(store, logger));
  });
});

describe("a private redis-server that goes away and comes back", () => {
  it("killed → StoreUnavailableError; restarted → calls succeed again", async () => {
    const child = new RedisChild(await freePort());
    children.push(child);
    await child.start();
    const { logger } = captureLogger();
    const store = await open(child.url, logger);
    const settings = new SettingsRepo(store, logger);
    const callbacks = new CallbackRepo(store, logger);
    await store.ping();
    await settings.saveProfile("T0001", profile("x1"));
    expect((await settings.listProfiles("T0001")).map((p) => p.profileId)).toEqual(["x1"]);

    await child.kill();
    // The client notices the closed connection at once; poll briefly for it.
    expect(
      await waitFor(
        async () =>
          (await timedRejection(() => settings.listProfiles("T0001"))).err instanceof StoreUnavailableError,
        5000,
      ),
    ).toBe(true);
    await expectAllUnavailable(settings, callbacks, AT_ONCE_MS);
    await expect(store.ping()).rejects.toBeInstanceOf(StoreUnavailableError);

    const client = store.backend.redis;
    if (!client) throw new Error("no redis client");
    const errorListeners = client.listenerCount("error");
    await child.start();
    // The client reconnects by itself (no call needed to trigger it) ...
    expect(await waitFor(async () => client.isReady, 10_000)).toBe(true);
    expect(await waitFor(worksNow(settings), 5000)).toBe(true);
    await store.ping();
    // ... on the same client: @keyv/redis did not reconnect it (which adds listeners each time).
    expect(store.backend.redis).toBe(client);
    expect(client.listenerCount("error")).toBe(errorListeners);
    // The new server started empty (no persistence); writes and reads work again.
    expect(await settings.listProfiles("T0001")).toEqual([]);
    await settings.saveProfile("T0001", profile("x2"));
    const token = newCallbackToken();
    await callbacks.put(token, { teamId: "T0001", profileId: "x2", channelId: "C0001" });
    expect(await callbacks.get(token)).toEqual({ teamId: "T0001", profileId: "x2", channelId: "C0001" });
    expect(await settings.defaultProfileId("T0001")).toBe("x2");
  });

  it("frozen (SIGSTOP) → calls time out at about opTimeoutMs; thawed → calls succeed", async () => {
    const child = new RedisChild(await freePort());
    children.push(child);
    await child.start();
    const { logger } = captureLogger();
    const store = await open(child.url, logger);
    const settings = new SettingsRepo(store, logger);
    await settings.addManager("T0001", "U0001", "U0002", new Date());

    child.pause();
    try {
      const { err, ms } = await timedRejection(() => settings.listManagers("T0001"));
      expect(err).toBeInstanceOf(StoreUnavailableError);
      expect(String((err as Error).message)).toContain(`no answer within ${OP_TIMEOUT_MS} ms`);
      expect(ms).toBeGreaterThanOrEqual(OP_TIMEOUT_MS - 50);
      expect(ms).toBeLessThan(OP_TIMEOUT_MS + SLACK_MS);
    } finally {
      child.resume();
    }
    expect(await waitFor(worksNow(settings), 5000)).toBe(true);
    expect(await settings.listManagers("T0001")).toHaveLength(1);
  });
});
