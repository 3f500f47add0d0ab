/**
 * Compare-and-set on the three backends (memory, a real sqlite file, the real Redis), and the
 * repositories built on it: concurrent writers on one workspace document lose no change, and of
 * two workspaces taking the same free claim at once exactly one wins.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { Documents, KEEP, REMOVE } from "../../src/store/documents.js";
import {
  ActivityRepo,
  ProfileClaimedError,
  type ProfileSettings,
  SettingsRepo,
  type Store,
  StoreCorruptError,
  StoreUnavailableError,
} from "../../src/store/index.js";
import { ALL_BACKENDS, captureLogger, type LogLine, watchProcessFailures } from "./helpers.js";

const SET_AT = "2025-01-02T03:04:05.000Z";
const ROUTE_ID = "a".repeat(64);

/** A profile of this bot with one subscription per given channel. */
const profileWith = (profileId: string, channels: string[]): ProfileSettings => ({
  profileId,
  channelId: "C0ROUTE",
  callbackId: ROUTE_ID,
  foreignUrl: null,
  events: ["video.published"],
  setBy: "U0001",
  setAt: SET_AT,
  subscriptions: channels.map((channelId) => ({
    channelId,
    events: ["video.published"],
    presets: [],
    mention: null,
    setBy: "U0001",
    setAt: SET_AT,
  })),
});

const counterSchema = z.object({ n: z.number().int() }).strict();

const process_ = watchProcessFailures();
afterAll(() => {
  process_.stop();
  expect(process_.failures).toEqual([]);
});

let teamCounter = 0;
const newTeam = () => `T${(++teamCounter).toString().padStart(4, "0")}`;

const BACKENDS = ALL_BACKENDS;

describe.each(BACKENDS)("compare-and-set on %s", (_name, make) => {
  const backend = make();
  let store: Store;
  let lines: LogLine[];
  let docs: Documents;
  let settings: SettingsRepo;
  let activity: ActivityRepo;

  beforeAll(async () => {
    const cap = captureLogger();
    lines = cap.lines;
    store = await backend.open(cap.logger);
    docs = new Documents(store, cap.logger);
    settings = new SettingsRepo(store, cap.logger);
    activity = new ActivityRepo(store, cap.logger);
  });
  afterAll(async () => {
    await store?.close();
    await backend.cleanup();
  });

  describe("Store.cas", () => {
    it("creates only when absent, replaces and deletes only what it expects; a mismatch changes nothing", async () => {
      const key = `cas:${newTeam()}`;
      expect(await store.cas(key, undefined, { value: { n: 1 } })).toBe(true);
      const first = await store.getRaw(key);
      expect(first).toBe(JSON.stringify({ value: { n: 1 } }));
      expect(await backend.readRaw(store, key)).toBe(first);
      // Not absent any more: a second create loses.
      expect(await store.cas(key, undefined, { value: { n: 99 } })).toBe(false);
      expect(await store.cas(key, '{"value":{"n":0}}', { value: { n: 99 } })).toBe(false);
      expect(await store.getRaw(key)).toBe(first);
      expect(await store.cas(key, first, { value: { n: 2 } })).toBe(true);
      expect(await store.keyv.get(key)).toEqual({ n: 2 });
      // The old raw value is no longer what is stored: neither replace nor delete applies.
      expect(await store.cas(key, first, undefined)).toBe(false);
      expect(await store.keyv.get(key)).toEqual({ n: 2 });
      expect(await store.cas(key, await store.getRaw(key), undefined)).toBe(true);
      expect(await store.getRaw(key)).toBeUndefined();
      expect(await store.keyv.get(key)).toBeUndefined();
    });

    it("is bounded and fails like run(): a closed store rejects with StoreUnavailableError", async () => {
      const other = await backend.open(captureLogger().logger);
      await other.close();
      await expect(other.cas("cas:closed", undefined, { value: 1 })).rejects.toBeInstanceOf(
        StoreUnavailableError,
      );
      await expect(other.getRaw("cas:closed")).rejects.toBeInstanceOf(StoreUnavailableError);
    });
  });

  describe("Documents.update", () => {
    it("a value's expiry survives an update", async () => {
      const key = `cas:${newTeam()}`;
      await store.keyv.set(key, { n: 1 }, 60_000);
      const before = JSON.parse((await store.getRaw(key)) ?? "{}") as { expires?: number };
      expect(before.expires).toBeGreaterThan(Date.now());
      expect(await docs.update(key, counterSchema, (c) => ({ n: (c?.n ?? 0) + 1 }))).toBe(true);
      const after = JSON.parse((await store.getRaw(key)) ?? "{}") as { value: unknown; expires?: number };
      expect(after).toEqual({ value: { n: 2 }, expires: before.expires });
      if (store.kind === "redis") {
        const ttl = await store.backend.redis?.pTTL(`${store.keyv.namespace}::${key}`);
        expect(ttl).toBeGreaterThan(50_000);
      }
      // A lifetime given with the update replaces it.
      const t0 = Date.now();
      await docs.update(key, counterSchema, (c) => ({ n: (c?.n ?? 0) + 1 }), { ttlMs: 30_000 });
      const given = JSON.parse((await store.getRaw(key)) ?? "{}") as { value: unknown; expires?: number };
      expect(given.value).toEqual({ n: 3 });
      expect(given.expires).toBeGreaterThanOrEqual(t0 + 30_000);
      expect(given.expires).toBeLessThan(before.expires ?? 0);
      // An expired value counts as none, and its expiry does not carry over.
      await store.keyv.set(key, { n: 7 }, 1);
      await sleep(20);
      expect(await docs.update(key, counterSchema, (c) => ({ n: (c?.n ?? 0) + 1 }))).toBe(true);
      expect(JSON.parse((await store.getRaw(key)) ?? "{}")).toEqual({ value: { n: 1 } });
    });

    it("KEEP writes nothing, REMOVE deletes, a corrupt value is left as is", async () => {
      const key = `cas:${newTeam()}`;
      expect(await docs.update(key, counterSchema, () => KEEP)).toBe(false);
      expect(await docs.update(key, counterSchema, () => REMOVE)).toBe(false);
      expect(await store.getRaw(key)).toBeUndefined();
      await docs.update(key, counterSchema, () => ({ n: 1 }));
      expect(await docs.update(key, counterSchema, () => REMOVE)).toBe(true);
      expect(await store.getRaw(key)).toBeUndefined();
      await backend.writeRaw(store, key, "{nope");
      await expect(docs.update(key, counterSchema, () => ({ n: 5 }))).rejects.toBeInstanceOf(
        StoreCorruptError,
      );
      expect(await backend.readRaw(store, key)).toBe("{nope");
    });

    it("50 concurrent increments of one document: none is lost", async () => {
      const key = `cas:${newTeam()}`;
      await Promise.all(
        Array.from({ length: 50 }, () => docs.update(key, counterSchema, (c) => ({ n: (c?.n ?? 0) + 1 }))),
      );
      expect(await store.keyv.get(key)).toEqual({ n: 50 });
    });

    it("gives up with a clear error when another writer always changes the value first; it writes nothing", async () => {
      const key = `cas:${newTeam()}`;
      let runs = 0;
      const err = await docs
        .update(key, counterSchema, async () => {
          runs++;
          // Another writer changes the document between this read and this write, every time.
          await store.keyv.set(key, { n: -runs });
          return { n: 1000 };
        })
        .then(
          () => undefined,
          (e: unknown) => e,
        );
      expect(err).toBeInstanceOf(StoreUnavailableError);
      expect(String(err)).toContain(`update ${key}`);
      expect(String(err)).toContain("nothing was written");
      expect(runs).toBe(50);
      expect(await store.keyv.get(key)).toEqual({ n: -50 });
      expect(lines.some((l) => l.level === "warn" && l.key === key)).toBe(true);
    }, 30_000);
  });

  describe("repositories", () => {
    it("50 concurrent addManager on one workspace: every manager is kept; concurrent removals too", async () => {
      const t = newTeam();
      const users = Array.from({ length: 50 }, (_, i) => `U${String(i).padStart(4, "0")}`);
      await Promise.all(users.map((u) => settings.addManager(t, u, "U0ADMIN", new Date())));
      expect((await settings.listManagers(t)).map((m) => m.userId)).toEqual(users);
      const removed = await Promise.all(users.slice(0, 25).map((u) => settings.removeManager(t, u)));
      expect(removed.every((r) => r)).toBe(true);
      expect((await settings.listManagers(t)).map((m) => m.userId)).toEqual(users.slice(25));
    });

    it("50 concurrent subscription changes on one profile, and the default, are all kept", async () => {
      const t = newTeam();
      await settings.saveProfile(t, profileWith("x1", ["C0ROUTE"]));
      const channels = Array.from({ length: 50 }, (_, i) => `C${String(i).padStart(4, "0")}`);
      await Promise.all([
        ...channels.map((c) =>
          settings.updateProfile(t, "x1", (p) =>
            p
              ? { ...p, subscriptions: [...p.subscriptions, ...profileWith("x1", [c]).subscriptions] }
              : undefined,
          ),
        ),
        settings.setDefaultProfile(t, "x1"),
        settings.saveProfile(t, profileWith("x2", ["C0OTHER"])),
      ]);
      const p = await settings.getProfile(t, "x1");
      expect(p?.subscriptions.map((s) => s.channelId).sort()).toEqual(["C0ROUTE", ...channels].sort());
      expect((await settings.listProfiles(t)).map((x) => x.profileId)).toEqual(["x1", "x2"]);
      expect(await settings.defaultProfileId(t)).toBe("x1");
    });

    it("two workspaces take the same free claim at once: exactly one wins, the other is refused", async () => {
      for (let round = 0; round < 20; round++) {
        const profile = `p${newTeam()}`;
        const teams = ["T0AAA", "T0BBB", "T0CCC"];
        const results = await Promise.allSettled(
          teams.map((t) => settings.claims.take(profile, t, new Date())),
        );
        const winners = teams.filter((_, i) => results[i]?.status === "fulfilled");
        expect(winners).toHaveLength(1);
        expect(results.filter((r) => r.status === "rejected").map((r) => r.reason)).toEqual([
          expect.any(ProfileClaimedError),
          expect.any(ProfileClaimedError),
        ]);
        expect(await settings.claims.owner(profile)).toBe(winners[0]);
        // Releasing by a loser leaves the winner's claim; the winner's own release frees it.
        await settings.claims.release(profile, teams.find((t) => t !== winners[0]) ?? "");
        expect(await settings.claims.owner(profile)).toBe(winners[0]);
        await settings.claims.release(profile, winners[0] ?? "");
        expect(await settings.claims.owner(profile)).toBeUndefined();
      }
    });

    it("a release never deletes a claim another workspace took meanwhile", async () => {
      const jitter = () => sleep(Math.random() * 3);
      for (let round = 0; round < 80; round++) {
        const profile = `p${newTeam()}`;
        await settings.claims.take(profile, "T0AAA", new Date());
        // A releases (several times, as retries would) while B keeps trying to take it.
        const takeB = async () => {
          for (;;) {
            const taken = await settings.claims.take(profile, "T0BBB", new Date()).then(
              () => true,
              () => false,
            );
            if (taken) return;
            await new Promise((r) => setImmediate(r));
          }
        };
        await Promise.all([
          ...Array.from({ length: 20 }, () => jitter().then(() => settings.claims.release(profile, "T0AAA"))),
          takeB(),
        ]);
        expect(await settings.claims.owner(profile)).toBe("T0BBB");
      }
    });

    it("50 concurrent activity records of one profile add up", async () => {
      const t = newTeam();
      const now = Date.now();
      await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          activity.record(t, "x1", { received: 1, posted: 2, lastDeliveryAt: now - i }, now),
        ),
      );
      expect(await activity.summary(t, "x1", now)).toEqual({
        lastDeliveryAt: now,
        received24h: 50,
        posted24h: 100,
        failed24h: 0,
      });
    });
  });
});
