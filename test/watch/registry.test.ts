/**
 * The watch registry on every backend (memory, a real sqlite file, a real Redis in a namespace of
 * its own): add, the caps, remove with the watchers left, a workspace removed at once, the
 * livestream's profile. The races themselves are in concurrency.test.ts.
 */
import { afterAll, describe, expect, it } from "vitest";
import type { Store } from "../../src/store/index.js";
import { dmKey, dmUserOf, type WatchEntry } from "../../src/watch/registry.js";
import { registryFor } from "../../src/watch/registry-for.js";
import {
  captureLogger,
  memoryBackend,
  redisBackend,
  sqliteBackend,
  type TestBackend,
} from "../store/helpers.js";

const backends: TestBackend[] = [memoryBackend(), sqliteBackend(), redisBackend()];
const stores: Store[] = [];
afterAll(async () => {
  for (const s of stores) await s.close();
  for (const b of backends) {
    if (b.name === "redis") {
      const s = await b.open(captureLogger().logger);
      const ns = (b as { namespace?: string }).namespace ?? "";
      const keys = await s.backend.redis?.keys(`${ns}:watch:*`);
      if (keys && keys.length > 0) await s.backend.redis?.del(keys);
      await s.close();
    }
    await b.cleanup();
  }
});

const AT = "2026-11-26T10:00:00.000Z";
const entry = (
  teamId: string,
  channelId: string,
  livestreamId: string,
  o: Partial<WatchEntry> = {},
): WatchEntry => ({
  teamId,
  channelId,
  livestreamId,
  enterpriseId: null,
  profileId: "xprof1",
  by: "U0ADMIN",
  at: AT,
  ...o,
});
const caps = { perTeam: 3, total: 4 };

describe.each(backends)("on $name", (backend) => {
  /** The registry on this backend, emptied first (the persistent ones keep what earlier tests wrote). */
  async function open() {
    const store = await backend.open(captureLogger().logger);
    stores.push(store);
    const r = registryFor(store);
    await r.livestreams(); // sqlite: the table exists
    await store.backend.sqlite?.query("DELETE FROM watch_entries");
    const keys = await store.backend.redis?.keys(`${store.keyv.namespace}:watch:*`);
    if (keys && keys.length > 0) await store.backend.redis?.del(keys);
    return r;
  }

  it("adds once, refuses past the workspace cap and past the cap in all, and changes nothing then", async () => {
    const r = await open();
    expect(await r.add(entry("T1", "C1", "L1", { enterpriseId: "E1" }), caps)).toBe("added");
    expect(await r.add(entry("T1", "C1", "L1"), caps)).toBe("exists");
    expect(await r.add(entry("T1", "C2", "L1"), caps)).toBe("added");
    expect(await r.add(entry("T1", "C3", "L2"), caps)).toBe("added");
    expect(await r.add(entry("T1", "C4", "L3"), caps)).toBe("team_full");
    expect(await r.add(entry("T1", "C1", "L1"), caps)).toBe("exists"); // full, but it exists
    expect(await r.add(entry("T2", "C1", "L3"), caps)).toBe("added");
    expect(await r.add(entry("T2", "C1", "L4"), caps)).toBe("added");
    expect(await r.add(entry("T3", "C1", "L5"), caps)).toBe("all_full");
    expect(await r.add(entry("T3", "C1", "L4"), caps)).toBe("added"); // L4 is watched already
    expect((await r.livestreams()).sort()).toEqual(["L1", "L2", "L3", "L4"]);
    expect((await r.listTeam("T1")).map((w) => `${w.livestreamId}:${w.channelId}`).sort()).toEqual([
      "L1:C1",
      "L1:C2",
      "L2:C3",
    ]);
    const w = (await r.watchers("L1")).find((x) => x.channelId === "C1");
    expect(w).toEqual(entry("T1", "C1", "L1", { enterpriseId: "E1" }));
    expect(await r.listTeam("T9")).toEqual([]);
  });

  it("removes with the watchers left; the last one takes the livestream out of the index", async () => {
    const r = await open();
    await r.add(entry("T1", "C1", "L1"), caps);
    await r.add(entry("T2", "C1", "L1"), caps);
    expect(await r.remove({ teamId: "T1", channelId: "C1", livestreamId: "L1" })).toEqual({
      removed: true,
      left: 1,
    });
    expect(await r.remove({ teamId: "T1", channelId: "C1", livestreamId: "L1" })).toEqual({
      removed: false,
      left: 1,
    });
    expect(await r.livestreams()).toEqual(["L1"]);
    expect(await r.remove({ teamId: "T2", channelId: "C1", livestreamId: "L1" })).toEqual({
      removed: true,
      left: 0,
    });
    expect(await r.livestreams()).toEqual([]);
    expect(await r.watchers("L1")).toEqual([]);
  });

  it("removes a workspace's watches at once and keeps the others'", async () => {
    const r = await open();
    await r.add(entry("T1", "C1", "L1"), caps);
    await r.add(entry("T1", "C2", "L1"), caps);
    await r.add(entry("T1", "C1", "L2"), caps);
    await r.add(entry("T2", "C1", "L2"), caps);
    const gone = await r.removeTeam("T1");
    expect(gone.sort((a, b) => a.livestreamId.localeCompare(b.livestreamId))).toEqual([
      { livestreamId: "L1", left: 0 },
      { livestreamId: "L2", left: 1 },
    ]);
    expect(await r.livestreams()).toEqual(["L2"]);
    expect(await r.listTeam("T1")).toEqual([]);
    expect((await r.watchers("L2")).map((w) => w.teamId)).toEqual(["T2"]);
    expect(await r.removeTeam("T1")).toEqual([]);
  });

  it("keeps one profile per livestream, only while it is watched; unknown until a read names it", async () => {
    const r = await open();
    await r.add(entry("T1", "C1", "L1", { profileId: null }), caps);
    expect((await r.watchers("L1"))[0]?.profileId).toBeNull();
    await r.add(entry("T2", "C1", "L1", { profileId: "xprofA" }), caps);
    expect((await r.watchers("L1")).map((w) => w.profileId)).toEqual(["xprofA", "xprofA"]);
    await r.setProfile("L1", "xprofB");
    expect((await r.listTeam("T1"))[0]?.profileId).toBe("xprofB");
    await r.add(entry("T3", "C1", "L1", { profileId: null }), caps);
    expect((await r.listTeam("T3"))[0]?.profileId).toBe("xprofB");
    await r.setProfile("L9", "xprofC"); // not watched: nothing kept
    await r.add(entry("T1", "C9", "L9", { profileId: null }), caps);
    expect((await r.watchers("L9"))[0]?.profileId).toBeNull();
  });

  it("keeps a person's DM watches next to the channels': capped per person, counted in the workspace and in all", async () => {
    const r = await open();
    const dm = (user: string, ls: string) => entry("T1", dmKey(user), ls, { by: user });
    const capped = { perTeam: 5, total: 3, perUser: 2 };
    expect(await r.add(entry("T1", "C1", "L1"), capped)).toBe("added");
    expect(await r.add(dm("U1", "L1"), capped)).toBe("added");
    expect(await r.add(dm("U1", "L1"), capped)).toBe("exists");
    expect(await r.add(dm("U1", "L2"), capped)).toBe("added");
    expect(await r.add(dm("U1", "L3"), capped)).toBe("user_full"); // U1 has 2
    expect(await r.add(dm("U2", "L3"), capped)).toBe("added"); // another person: their own 2
    // L1, L2, L3: the cap in all counts livestreams, whoever watches them.
    expect(await r.add(entry("T1", "C1", "L9"), capped)).toBe("all_full");
    expect(await r.add(dm("U2", "L9"), capped)).toBe("all_full");
    expect(await r.add(dm("U3", "L1"), capped)).toBe("added"); // 5 in T1, DM watches included
    expect(await r.add(dm("U4", "L1"), capped)).toBe("team_full");
    expect(await r.add(entry("T1", "C2", "L1"), capped)).toBe("team_full");
    // A channel's watches are not a person's: no per-person cap on them.
    expect(await r.add(entry("T2", "C1", "L1"), capped)).toBe("added");
    expect(await r.add(entry("T2", "C1", "L2"), capped)).toBe("added");
    expect(await r.add(entry("T2", "C1", "L3"), capped)).toBe("added");
    expect((await r.watchers("L1")).map((w) => `${w.teamId}/${w.channelId}`).sort()).toEqual([
      "T1/@U1",
      "T1/@U3",
      "T1/C1",
      "T2/C1",
    ]);
    expect(
      (await r.listTeam("T1")).filter((w) => dmUserOf(w.channelId) === "U1").map((w) => w.livestreamId),
    ).toEqual(["L1", "L2"]);
    // Removed like any watch; the person's cap has room again.
    expect(await r.remove({ teamId: "T1", channelId: dmKey("U1"), livestreamId: "L2" })).toEqual({
      removed: true,
      left: 1,
    });
    expect(await r.add(dm("U1", "L3"), capped)).toBe("added");
    // Uninstall takes them with the workspace.
    await r.removeTeam("T1");
    expect((await r.watchers("L1")).map((w) => w.teamId)).toEqual(["T2"]);
  });
});
