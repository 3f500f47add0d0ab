/**
 * The repositories against the three backends: memory, a real sqlite file in a temporary folder,
 * and the real Redis on 127.0.0.1:6379 (a namespace unique to this run, removed afterwards).
 */
import { createHash } from "node:crypto";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import {
  CallbackRepo,
  newCallbackToken,
  type ProfileSettings,
  SettingsRepo,
  type Store,
  StoreCorruptError,
  StoreUnavailableError,
} from "../../src/store/index.js";
import { ALL_BACKENDS, captureLogger, type LogLine, watchProcessFailures } from "./helpers.js";

/** For tests that only make sense on some backends: not registered at all elsewhere. */
const registerNothing = (_name: string, _fn: () => Promise<void>) => undefined;

const SET_AT = "2025-01-02T03:04:05.000Z";

const sha256hex = (s: string) => createHash("sha256").update(s).digest("hex");

const own = (profileId: string, channelId = "C0001"): ProfileSettings => ({
  profileId,
  channelId,
  callbackId: sha256hex(newCallbackToken()),
  foreignUrl: null,
  events: ["video.published", "video.deleted"],
  setBy: "U0001",
  setAt: SET_AT,
  subscriptions: [
    {
      channelId,
      events: ["video.published", "video.deleted"],
      presets: [],
      mention: null,
      setBy: "U0001",
      setAt: SET_AT,
    },
  ],
});

/** A profile as version 3 stored it: the callback id named `routeId`. */
const v3 = (p: ProfileSettings) => {
  const { callbackId, ...rest } = p;
  return { ...rest, routeId: callbackId };
};

/** A profile as version 2 stored it: one channel, no subscriptions. */
const v2 = (p: ProfileSettings) => {
  const { subscriptions: _subs, ...rest } = v3(p);
  return rest;
};

/** A profile as version 1 stored it: the callback token in the clear. */
const legacy = (profileId: string, token = newCallbackToken()) => {
  const { routeId: _routeId, ...rest } = v2(own(profileId));
  return { ...rest, callbackToken: token };
};

const foreign = (profileId: string): ProfileSettings => ({
  profileId,
  channelId: null,
  callbackId: null,
  foreignUrl: "https://hooks.example.com/in",
  events: [],
  setBy: "U0002",
  setAt: SET_AT,
  subscriptions: [],
});

let teamCounter = 0;
/** A team id no other test uses (the sqlite file and the Redis namespace are shared by a file). */
const newTeam = () => `T${(++teamCounter).toString().padStart(4, "0")}`;

const process_ = watchProcessFailures();
afterAll(() => {
  process_.stop();
  expect(process_.failures).toEqual([]);
});

const BACKENDS = ALL_BACKENDS;

describe.each(BACKENDS)("repositories on %s", (_name, make) => {
  const backend = make();
  let store: Store;
  let lines: LogLine[];
  let settings: SettingsRepo;
  let callbacks: CallbackRepo;

  beforeAll(async () => {
    const cap = captureLogger();
    lines = cap.lines;
    store = await backend.open(cap.logger);
    await store.ping();
    settings = new SettingsRepo(store, cap.logger);
    callbacks = new CallbackRepo(store, cap.logger);
  });
  beforeEach(() => {
    lines.length = 0;
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });
  afterAll(async () => {
    await store?.close();
    await backend.cleanup();
  });

  it(`is a ${backend.name} store`, () => {
    expect(store.kind).toBe(backend.name);
  });

  describe("profiles", () => {
    it("an unknown workspace has no profiles", async () => {
      const t = newTeam();
      expect(await settings.listProfiles(t)).toEqual([]);
      expect(await settings.getProfile(t, "x1")).toBeUndefined();
      expect(await settings.defaultProfileId(t)).toBeUndefined();
    });

    it("saves, lists sorted by profileId, reads back, replaces and removes", async () => {
      const t = newTeam();
      const b = own("x2b");
      const a = foreign("x1a");
      const c = own("x3c", "C0003");
      await settings.saveProfile(t, b);
      await settings.saveProfile(t, c);
      await settings.saveProfile(t, a);
      expect((await settings.listProfiles(t)).map((p) => p.profileId)).toEqual(["x1a", "x2b", "x3c"]);
      expect(await settings.getProfile(t, "x2b")).toEqual(b);
      expect(await settings.getProfile(t, "x1a")).toEqual(a);

      const b2: ProfileSettings = { ...own("x2b", "C0009"), events: ["video.created"], setBy: "U0003" };
      await settings.saveProfile(t, b2);
      expect(await settings.getProfile(t, "x2b")).toEqual(b2);
      expect(await settings.listProfiles(t)).toHaveLength(3);

      await settings.removeProfile(t, "x2b");
      await settings.removeProfile(t, "x-unknown");
      expect((await settings.listProfiles(t)).map((p) => p.profileId)).toEqual(["x1a", "x3c"]);
      expect(await settings.getProfile(t, "x2b")).toBeUndefined();
    });

    it("keeps workspaces apart", async () => {
      const t1 = newTeam();
      const t2 = newTeam();
      await settings.saveProfile(t1, own("x1"));
      await settings.saveProfile(t2, own("x2"));
      await settings.removeProfile(t2, "x1");
      expect((await settings.listProfiles(t1)).map((p) => p.profileId)).toEqual(["x1"]);
      expect((await settings.listProfiles(t2)).map((p) => p.profileId)).toEqual(["x2"]);
    });

    it("stores one JSON document per workspace and removes it when nothing is left", async () => {
      const t = newTeam();
      const p = own("x1");
      await settings.saveProfile(t, p);
      const raw = await backend.readRaw(store, `team:${t}:profiles`);
      expect(raw).toBeDefined();
      expect(JSON.parse(raw ?? "")).toEqual({
        value: { v: 4, profiles: { x1: p }, defaultProfileId: null },
      });
      await settings.removeProfile(t, "x1");
      expect(await backend.readRaw(store, `team:${t}:profiles`)).toBeUndefined();
    });

    it("reads a version 1 document (token in the clear), converts it and rewrites it at once", async () => {
      const t = newTeam();
      const key = `team:${t}:profiles`;
      const token = newCallbackToken();
      const { routeId: _none, ...x2 } = v2(foreign("x2"));
      await store.keyv.set(key, {
        v: 1,
        profiles: { x1: legacy("x1", token), x2: { ...x2, callbackToken: null } },
        defaultProfileId: "x2",
      });
      expect(await backend.readRaw(store, key)).toContain(token);
      const converted = { ...own("x1"), callbackId: sha256hex(token) };
      expect(await settings.getProfile(t, "x1")).toEqual(converted);
      const raw = await backend.readRaw(store, key);
      expect(raw).not.toContain(token);
      expect(JSON.parse(raw ?? "")).toEqual({
        value: { v: 4, profiles: { x1: converted, x2: foreign("x2") }, defaultProfileId: "x2" },
      });
      expect(lines.filter((l) => l.msg.includes("upgraded to version 4"))).toHaveLength(1);
      expect(JSON.stringify(lines)).not.toContain(token);
      // Read again: already version 4, nothing more to do.
      expect(await settings.listProfiles(t)).toEqual([converted, foreign("x2")]);
      expect(await settings.defaultProfileId(t)).toBe("x2");
      expect(lines.filter((l) => l.msg.includes("upgraded to version 4"))).toHaveLength(1);
    });

    it("reads a version 2 document (one channel per profile), converts it to one subscription and rewrites it", async () => {
      const t = newTeam();
      const key = `team:${t}:profiles`;
      const x1 = own("x1", "C0OLD");
      await store.keyv.set(key, {
        v: 2,
        profiles: { x1: v2(x1), x2: v2(foreign("x2")) },
        defaultProfileId: null,
      });
      const got = await settings.getProfile(t, "x1");
      // The old channel with all its events, no format filter, no mention.
      expect(got?.subscriptions).toEqual([
        {
          channelId: "C0OLD",
          events: ["video.published", "video.deleted"],
          presets: [],
          mention: null,
          setBy: "U0001",
          setAt: SET_AT,
        },
      ]);
      expect(got).toEqual(x1);
      expect(JSON.parse((await backend.readRaw(store, key)) ?? "")).toEqual({
        value: { v: 4, profiles: { x1, x2: foreign("x2") }, defaultProfileId: null },
      });
      expect(lines.filter((l) => l.msg.includes("upgraded to version 4"))).toHaveLength(1);
      expect(await settings.listProfiles(t)).toEqual([x1, foreign("x2")]);
      expect(lines.filter((l) => l.msg.includes("upgraded to version 4"))).toHaveLength(1);
    });

    it("a rewrite that fails is logged, the settings still answered, and it is tried on the next read", async () => {
      const t = newTeam();
      const key = `team:${t}:profiles`;
      const token = newCallbackToken();
      await store.keyv.set(key, { v: 1, profiles: { x1: legacy("x1", token) }, defaultProfileId: null });
      vi.spyOn(store, "cas").mockRejectedValueOnce(new Error("write refused"));
      expect((await settings.getProfile(t, "x1"))?.callbackId).toBe(sha256hex(token));
      expect(lines.filter((l) => l.level === "warn" && l.key === key)).toHaveLength(1);
      expect(await backend.readRaw(store, key)).toContain(token);
      vi.restoreAllMocks();
      expect((await settings.listProfiles(t)).map((p) => p.callbackId)).toEqual([sha256hex(token)]);
      expect(await backend.readRaw(store, key)).not.toContain(token);
    });

    it("a version 1 change saved before the first read keeps it, and the token goes", async () => {
      const t = newTeam();
      const key = `team:${t}:profiles`;
      const token = newCallbackToken();
      await store.keyv.set(key, { v: 1, profiles: { x1: legacy("x1", token) }, defaultProfileId: null });
      await settings.saveProfile(t, own("x2"));
      const raw = await backend.readRaw(store, key);
      expect(raw).not.toContain(token);
      expect((await settings.listProfiles(t)).map((p) => p.profileId)).toEqual(["x1", "x2"]);
    });

    it("refuses settings it could not read back, and writes nothing", async () => {
      const t = newTeam();
      const mixed: ProfileSettings = { ...own("x1"), foreignUrl: "https://elsewhere.example.com" };
      await expect(settings.saveProfile(t, mixed)).rejects.toThrow(TypeError);
      await expect(settings.saveProfile(t, { ...own("x1"), setAt: "yesterday" })).rejects.toThrow(TypeError);
      await expect(settings.saveProfile(t, { ...own("x1"), callbackId: "short" })).rejects.toThrow(TypeError);
      // A token where the callback id goes (what version 1 kept) is refused too.
      await expect(settings.saveProfile(t, { ...own("x1"), callbackId: newCallbackToken() })).rejects.toThrow(
        TypeError,
      );
      const withToken = { ...own("x1"), callbackToken: newCallbackToken() };
      await expect(settings.saveProfile(t, withToken)).rejects.toThrow(TypeError);
      await expect(settings.saveProfile("T bad", own("x1"))).rejects.toThrow(TypeError);
      expect(await settings.listProfiles(t)).toEqual([]);
    });
  });

  describe("default profile", () => {
    it("none configured → undefined, even with an explicit default", async () => {
      const t = newTeam();
      await settings.setDefaultProfile(t, "x1");
      expect(await settings.defaultProfileId(t)).toBeUndefined();
    });

    it("the only configured profile is the default", async () => {
      const t = newTeam();
      await settings.saveProfile(t, own("x1"));
      expect(await settings.defaultProfileId(t)).toBe("x1");
    });

    it("several configured and no explicit default → undefined", async () => {
      const t = newTeam();
      await settings.saveProfile(t, own("x1"));
      await settings.saveProfile(t, foreign("x2"));
      expect(await settings.defaultProfileId(t)).toBeUndefined();
    });

    it("an explicit default wins while configured; removing it falls back to the only one left", async () => {
      const t = newTeam();
      await settings.saveProfile(t, own("x1"));
      await settings.saveProfile(t, own("x2"));
      await settings.saveProfile(t, own("x3"));
      await settings.setDefaultProfile(t, "x2");
      expect(await settings.defaultProfileId(t)).toBe("x2");
      await settings.removeProfile(t, "x2");
      expect(await settings.defaultProfileId(t)).toBeUndefined();
      await settings.removeProfile(t, "x3");
      expect(await settings.defaultProfileId(t)).toBe("x1");
      // The removed default does not come back with its profile.
      await settings.saveProfile(t, own("x2"));
      expect(await settings.defaultProfileId(t)).toBeUndefined();
    });

    it("an explicit default named before it is configured counts once it is", async () => {
      const t = newTeam();
      await settings.saveProfile(t, own("x1"));
      await settings.setDefaultProfile(t, "x2");
      expect(await settings.defaultProfileId(t)).toBe("x1");
      await settings.saveProfile(t, own("x2"));
      expect(await settings.defaultProfileId(t)).toBe("x2");
    });

    it("null clears it", async () => {
      const t = newTeam();
      await settings.saveProfile(t, own("x1"));
      await settings.saveProfile(t, own("x2"));
      await settings.setDefaultProfile(t, "x1");
      await settings.setDefaultProfile(t, null);
      expect(await settings.defaultProfileId(t)).toBeUndefined();
    });
  });

  describe("managers", () => {
    it("adds (idempotently), lists by user id, removes", async () => {
      const t = newTeam();
      expect(await settings.listManagers(t)).toEqual([]);
      await settings.addManager(t, "U0002", "U0009", new Date("2025-02-01T00:00:00Z"));
      await settings.addManager(t, "U0001", "U0009", new Date("2025-03-01T00:00:00Z"));
      await settings.addManager(t, "U0002", "U0008", new Date("2025-04-01T00:00:00Z"));
      expect(await settings.listManagers(t)).toEqual([
        { userId: "U0001", addedBy: "U0009", addedAt: "2025-03-01T00:00:00.000Z" },
        { userId: "U0002", addedBy: "U0009", addedAt: "2025-02-01T00:00:00.000Z" },
      ]);
      expect(await settings.removeManager(t, "U0002")).toBe(true);
      expect(await settings.removeManager(t, "U0002")).toBe(false);
      expect(await settings.listManagers(t)).toEqual([
        { userId: "U0001", addedBy: "U0009", addedAt: "2025-03-01T00:00:00.000Z" },
      ]);
      expect(await settings.removeManager(newTeam(), "U0001")).toBe(false);
      // Managers and profiles do not share a document.
      expect(await settings.listProfiles(t)).toEqual([]);
    });
  });

  describe("callbacks", () => {
    it("put, get, delete", async () => {
      const token = newCallbackToken();
      const route = { teamId: newTeam(), profileId: "x1", channelId: "C0001" };
      expect(await callbacks.get(token)).toBeUndefined();
      await callbacks.put(token, route);
      expect(await callbacks.get(token)).toEqual(route);
      expect(await callbacks.get(newCallbackToken())).toBeUndefined();
      await callbacks.delete(token);
      expect(await callbacks.get(token)).toBeUndefined();
      await callbacks.delete(token);
    });

    it("getById and deleteById by callback id (the token's sha256 in hex)", async () => {
      const token = newCallbackToken();
      const id = sha256hex(token);
      const route = { teamId: newTeam(), profileId: "x1", channelId: "C0001" };
      expect(await callbacks.getById(id)).toBeUndefined();
      await callbacks.put(token, route);
      expect(await callbacks.getById(id)).toEqual(route);
      expect(await callbacks.get(token)).toEqual(route);
      // Both lookups are remembered; deleteById forgets them at once.
      await callbacks.deleteById(id);
      expect(await callbacks.get(token)).toBeUndefined();
      expect(await callbacks.getById(id)).toBeUndefined();
      expect(await backend.readRaw(store, `route:${id}`)).toBeUndefined();
      await callbacks.deleteById(id);
    });

    it("getById and deleteById refuse a malformed id without asking the store", async () => {
      const get = vi.spyOn(store.keyv, "get");
      const del = vi.spyOn(store.keyv, "delete");
      const token = newCallbackToken();
      const id = sha256hex(token);
      for (const bad of ["", token, id.toUpperCase(), id.slice(1), `${id}0`, `../${id.slice(3)}`]) {
        expect(await callbacks.getById(bad)).toBeUndefined();
        await callbacks.deleteById(bad);
      }
      expect(get).not.toHaveBeenCalled();
      expect(del).not.toHaveBeenCalled();
    });

    it("accepts tokens of 32 to 64 base64url characters", async () => {
      const route = { teamId: newTeam(), profileId: "x1", channelId: "C0001" };
      const long = "A_-z".repeat(16);
      await callbacks.put(long, route);
      expect(await callbacks.get(long)).toEqual(route);
      await callbacks.delete(long);
    });

    it("never stores the token itself: the key and the record carry its sha256", async () => {
      const token = newCallbackToken();
      await callbacks.put(token, { teamId: newTeam(), profileId: "x1", channelId: "C0001" });
      const raw = await backend.readRaw(store, `route:${sha256hex(token)}`);
      expect(raw).toBeDefined();
      expect(raw).not.toContain(token);
      expect(JSON.parse(raw ?? "")).toMatchObject({ value: { v: 1, tokenSha256: sha256hex(token) } });
      await callbacks.delete(token);
      expect(await backend.readRaw(store, `route:${sha256hex(token)}`)).toBeUndefined();
    });

    it("answers undefined for malformed tokens without asking the store", async () => {
      const get = vi.spyOn(store.keyv, "get");
      const del = vi.spyOn(store.keyv, "delete");
      const valid = newCallbackToken();
      for (const bad of [
        "",
        "short",
        valid.slice(0, 31),
        "A".repeat(65),
        `${valid.slice(0, 31)}=`,
        `${valid.slice(0, 31)}/`,
        `${valid.slice(0, 31)}+`,
        `${valid.slice(0, 31)} `,
        `../${valid}`,
      ]) {
        expect(await callbacks.get(bad)).toBeUndefined();
        await callbacks.delete(bad);
      }
      expect(get).not.toHaveBeenCalled();
      expect(del).not.toHaveBeenCalled();
      // The spies do see calls for a well-formed token.
      expect(await callbacks.get(valid)).toBeUndefined();
      expect(get).toHaveBeenCalledTimes(1);
    });

    it("refuses to store a malformed token", async () => {
      await expect(
        callbacks.put("short", { teamId: newTeam(), profileId: "x1", channelId: "C1" }),
      ).rejects.toThrow(TypeError);
    });
  });

  describe("corrupt values", () => {
    const errorLinesFor = (key: string) => lines.filter((l) => l.level === "error" && l.key === key);

    /** Each call rejects with StoreCorruptError naming `key`, and logs exactly one error line. */
    async function expectCorrupt(key: string, calls: Array<() => Promise<unknown>>) {
      for (const call of calls) {
        lines.length = 0;
        const err = await call().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(StoreCorruptError);
        expect(err).toMatchObject({ code: "STORE_CORRUPT", key });
        expect(errorLinesFor(key)).toHaveLength(1);
      }
    }

    const profileCalls = (t: string) => [
      () => settings.listProfiles(t),
      () => settings.getProfile(t, "x1"),
      () => settings.defaultProfileId(t),
      () => settings.saveProfile(t, own("x9")),
      () => settings.removeProfile(t, "x1"),
      () => settings.setDefaultProfile(t, "x1"),
    ];

    it.each([
      ["not JSON", "{nope"],
      ["JSON null (Keyv alone would call it absent)", "null"],
      ["JSON without the Keyv envelope", JSON.stringify({ v: 1, profiles: {}, defaultProfileId: null })],
      ["an envelope with a bad expires", JSON.stringify({ value: { v: 1 }, expires: "soon" })],
    ])("profiles: raw %s → StoreCorruptError, left as is, other workspaces unaffected", async (_, raw) => {
      const t = newTeam();
      const other = newTeam();
      await settings.saveProfile(other, own("x1"));
      await backend.writeRaw(store, `team:${t}:profiles`, raw);
      await expectCorrupt(`team:${t}:profiles`, profileCalls(t));
      expect(await backend.readRaw(store, `team:${t}:profiles`)).toBe(raw);
      expect((await settings.listProfiles(other)).map((p) => p.profileId)).toEqual(["x1"]);
      expect(await settings.defaultProfileId(other)).toBe("x1");
      // Managers of the same workspace live elsewhere and still work.
      await settings.addManager(t, "U0001", "U0002", new Date());
      expect(await settings.listManagers(t)).toHaveLength(1);
    });

    it.each([
      ["an old version", { v: 0, profiles: {}, defaultProfileId: null }],
      ["a newer version", { v: 5, profiles: {}, defaultProfileId: null }],
      [
        "version 4 with the callback id under its old name",
        { v: 4, profiles: { x1: v3(own("x1")) }, defaultProfileId: null },
      ],
      ["version 3 without subscriptions", { v: 3, profiles: { x1: v2(own("x1")) }, defaultProfileId: null }],
      [
        "version 3 with a mention that is not one",
        {
          v: 3,
          profiles: {
            x1: {
              ...v3(own("x1")),
              subscriptions: [{ ...own("x1").subscriptions[0], mention: "<!channel>" }],
            },
          },
          defaultProfileId: null,
        },
      ],
      ["an old shape (array of profiles)", { v: 2, profiles: [own("x1")], defaultProfileId: null }],
      [
        "version 2 with a token in the clear",
        { v: 2, profiles: { x1: legacy("x1") }, defaultProfileId: null },
      ],
      ["version 1 with a callback id", { v: 1, profiles: { x1: v2(own("x1")) }, defaultProfileId: null }],
      [
        "version 1 with a malformed token",
        { v: 1, profiles: { x1: { ...legacy("x1"), callbackToken: "short" } }, defaultProfileId: null },
      ],
      [
        "a profile missing a field",
        { v: 2, profiles: { x1: { ...v2(own("x1")), setBy: undefined } }, defaultProfileId: null },
      ],
      ["a profile filed under another id", { v: 2, profiles: { x2: v2(own("x1")) }, defaultProfileId: null }],
      ["a string", "hello"],
    ])("profiles: %s written through keyv → StoreCorruptError", async (_, value) => {
      const t = newTeam();
      await store.keyv.set(`team:${t}:profiles`, value);
      await expectCorrupt(`team:${t}:profiles`, profileCalls(t));
      // Still there, not overwritten by the refused writes.
      expect(await store.keyv.get(`team:${t}:profiles`)).toEqual(JSON.parse(JSON.stringify(value)));
    });

    it("managers: garbage and wrong shapes → StoreCorruptError", async () => {
      const t = newTeam();
      const key = `team:${t}:managers`;
      const calls = [
        () => settings.listManagers(t),
        () => settings.addManager(t, "U0001", "U0002", new Date()),
        () => settings.removeManager(t, "U0001"),
      ];
      await backend.writeRaw(store, key, "]]");
      await expectCorrupt(key, calls);
      await store.keyv.set(key, { v: 1, managers: [{ userId: "U0001" }] });
      await expectCorrupt(key, calls);
      await store.keyv.set(key, { v: 1, managers: { U0001: { addedBy: "U0002", addedAt: "not a date" } } });
      await expectCorrupt(key, calls);
      // Profiles of the same workspace still work.
      await settings.saveProfile(t, own("x1"));
      expect(await settings.defaultProfileId(t)).toBe("x1");
    });

    it("callbacks: garbage and wrong shapes → StoreCorruptError, other callbacks unaffected", async () => {
      const token = newCallbackToken();
      const key = `route:${sha256hex(token)}`;
      const good = newCallbackToken();
      await callbacks.put(good, { teamId: newTeam(), profileId: "x1", channelId: "C0001" });
      await backend.writeRaw(store, key, "not json at all");
      await expectCorrupt(key, [() => callbacks.get(token)]);
      await store.keyv.set(key, { v: 1, tokenSha256: "zz", teamId: "T1", profileId: "x1", channelId: "C1" });
      await expectCorrupt(key, [() => callbacks.get(token)]);
      await store.keyv.set(key, { teamId: "T1", profileId: "x1", channelId: "C1" });
      await expectCorrupt(key, [() => callbacks.get(token)]);
      expect(await callbacks.get(good)).toMatchObject({ profileId: "x1" });
      await callbacks.delete(token);
      await callbacks.delete(good);
    });
  });

  (backend.persistent ? it : registerNothing)("persists across close and reopen", async () => {
    const t = newTeam();
    const p1 = own("x1");
    const p2 = foreign("x2");
    const token = newCallbackToken();
    const cap = captureLogger();
    const first = await backend.open(cap.logger);
    const s1 = new SettingsRepo(first, cap.logger);
    await s1.saveProfile(t, p1);
    await s1.saveProfile(t, p2);
    await s1.setDefaultProfile(t, "x2");
    await s1.addManager(t, "U0001", "U0002", new Date("2025-05-05T05:05:05Z"));
    await new CallbackRepo(first, cap.logger).put(token, { teamId: t, profileId: "x1", channelId: "C0001" });
    await first.close();
    await expect(s1.listProfiles(t)).rejects.toBeInstanceOf(StoreUnavailableError);

    const second = await backend.open(cap.logger);
    try {
      const s2 = new SettingsRepo(second, cap.logger);
      expect(await s2.listProfiles(t)).toEqual([p1, p2]);
      expect(await s2.defaultProfileId(t)).toBe("x2");
      expect(await s2.listManagers(t)).toEqual([
        { userId: "U0001", addedBy: "U0002", addedAt: "2025-05-05T05:05:05.000Z" },
      ]);
      expect(await new CallbackRepo(second, cap.logger).get(token)).toEqual({
        teamId: t,
        profileId: "x1",
        channelId: "C0001",
      });
    } finally {
      await second.close();
    }
  });

  (backend.persistent ? registerNothing : it)("a memory store starts empty each time", async () => {
    const t = newTeam();
    await settings.saveProfile(t, own("x1"));
    const cap = captureLogger();
    const other = await backend.open(cap.logger);
    expect(await new SettingsRepo(other, cap.logger).listProfiles(t)).toEqual([]);
    await other.close();
  });
});
