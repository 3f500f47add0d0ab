/**
 * Watches stored by earlier versions as whole documents (`watch:ls:<id>`, `watch:team:<T>`,
 * `watch:index`) are moved into the registry when the bot starts, on a real sqlite file and a real
 * Redis: every watch is kept (also those a lost index entry or a half-written change left in one
 * document only), every watched livestream is read, the documents are gone, and running the move
 * again (a restart, or one cut short half-way) adds nothing twice.
 */
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import type { StoreUrl } from "../../src/config.js";
import { silentLogger } from "../../src/log.js";
import { Documents, openStore } from "../../src/store/index.js";
import { legacyKeys, migrateLegacyWatches } from "../../src/watch/legacy.js";
import { eventually, type Harness, startHarness, waitFor } from "../support/harness.js";

const A = SEED.livestreams.offAir;
const B = SEED.livestreams.geoRestricted; // lost from the index
const G = SEED.livestreams.recording; // in a workspace document only
const AT = "2026-11-20T10:00:00.000Z";

const LEGACY: Record<string, unknown> = {
  "watch:index": { v: 1, livestreams: [A] },
  [`watch:ls:${A}`]: {
    v: 1,
    watchers: [
      { teamId: "T0ONE", channelId: "C0GENERAL", by: "U0ADMIN", at: AT },
      { teamId: "T0TWO", channelId: "C0GENERAL", by: "U0ADMIN", at: AT },
    ],
  },
  [`watch:ls:${B}`]: { v: 1, watchers: [{ teamId: "T0ONE", channelId: "C0NEWS", by: "U0ADMIN", at: AT }] },
  "watch:team:T0ONE": {
    v: 1,
    watches: [
      { livestreamId: A, channelId: "C0GENERAL", by: "U0ADMIN", at: AT },
      { livestreamId: B, channelId: "C0NEWS", by: "U0ADMIN", at: AT },
    ],
  },
  "watch:team:T0TWO": { v: 1, watches: [{ livestreamId: A, channelId: "C0GENERAL", by: "U0ADMIN", at: AT }] },
  "watch:team:T0THREE": {
    v: 1,
    watches: [{ livestreamId: G, channelId: "C0GENERAL", by: "U0ADMIN", at: AT }],
  },
};
const EXPECTED = [
  `T0ONE/C0GENERAL/${A}`,
  `T0ONE/C0NEWS/${B}`,
  `T0THREE/C0GENERAL/${G}`,
  `T0TWO/C0GENERAL/${A}`,
].sort();

const dir = mkdtempSync(join(tmpdir(), "watch-legacy-"));
const ns = `watch-legacy-${process.pid}-${randomBytes(3).toString("hex")}`;
const STORES: Array<[string, StoreUrl, string | undefined]> = [
  [
    "sqlite",
    { kind: "sqlite", path: join(dir, "bot.sqlite"), url: `sqlite://${join(dir, "bot.sqlite")}` },
    undefined,
  ],
  ["redis", { kind: "redis", url: "redis://127.0.0.1:6379" }, ns],
];
afterAll(async () => {
  const s = await openStore({ kind: "redis", url: "redis://127.0.0.1:6379" }, silentLogger(), {
    namespace: ns,
  });
  const keys = await s.backend.redis?.keys(`${ns}*`);
  if (keys && keys.length > 0) await s.backend.redis?.del(keys);
  await s.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Writes the legacy documents (only `only`, when given) as an earlier version did. */
async function writeLegacy(url: StoreUrl, namespace: string | undefined, only?: string[]) {
  const store = await openStore(url, silentLogger(), namespace ? { namespace } : {});
  const docs = new Documents(store, silentLogger());
  for (const [key, doc] of Object.entries(LEGACY))
    if (!only || only.includes(key)) await docs.write(key, doc);
  await store.close();
}

async function watched(h: Harness): Promise<string[]> {
  const registry = h.built.watch?.registry;
  const out: string[] = [];
  for (const ls of (await registry?.livestreams()) ?? [])
    for (const w of (await registry?.watchers(ls)) ?? []) out.push(`${w.teamId}/${w.channelId}/${ls}`);
  return out.sort();
}

describe.each(STORES)("on %s", (_name, store, namespace) => {
  it("moves every legacy watch into the registry at start, reads each livestream, deletes the documents", async () => {
    await writeLegacy(store, namespace);
    const h = await startHarness({
      store,
      ...(namespace ? { namespace } : {}),
      env: { LIVE_WATCH_INTERVAL_MS: "1000" },
    });
    try {
      await waitFor(
        () => h.logs.some((l) => l.includes("moved from the legacy documents")),
        5000,
        "migration",
      );
      expect(await watched(h)).toEqual(EXPECTED);
      expect(await legacyKeys(h.store)).toEqual([]);
      const read = (id: string) => h.sandbox.requests.some((r) => r.path === `/v2/livestreams/${id}`);
      await waitFor(() => [A, B, G].every(read), 5000, "a read of every watched livestream");
      // The profile, not known in the documents, is kept once read (the sandbox logs the GET
      // before the bot has its answer).
      await eventually(
        async () => (await h.built.watch?.registry.watchers(B))?.[0]?.profileId === SEED.profiles.studio,
        5000,
        "the profile kept",
      );
      // Nothing left to move: a second run adds nothing.
      const registry = h.built.watch?.registry;
      if (!registry) throw new Error("no watch registry");
      expect(await migrateLegacyWatches(h.store, registry, h.logger)).toBe(0);
    } finally {
      await h.close();
    }
  });

  it("a move cut short half-way is finished by the next start, nothing doubled", async () => {
    // As if the previous start died after adding the watches and before deleting two documents.
    await writeLegacy(store, namespace, [`watch:ls:${A}`, "watch:team:T0THREE"]);
    const h = await startHarness({ store, ...(namespace ? { namespace } : {}), watch: { manual: true } });
    try {
      await h.built.watch?.start();
      expect(await watched(h)).toEqual(EXPECTED);
      expect(await h.built.watch?.registry.listTeam("T0ONE")).toHaveLength(2);
      expect(await legacyKeys(h.store)).toEqual([]);
    } finally {
      await h.close();
    }
  });
});
