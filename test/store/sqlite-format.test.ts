/**
 * A store file written by the previous sqlite binding (`fixtures/written-by-sqlite3.sqlite`: made
 * by the version that ran @keyv/sqlite over the asynchronous `sqlite3` package, with two Keyv
 * values, one outbox item scheduled with its state, one dead letter and one watch) opens as it is:
 * the same tables, the same keys, nothing to convert.
 */
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { createOutbox } from "../../src/outbox/index.js";
import { openStore } from "../../src/store/index.js";
import { registryFor } from "../../src/watch/registry-for.js";
import { captureLogger } from "./helpers.js";

/**
 * The fixture's clock: its dedupe key was written to expire 24 h after it was made
 * (`expires_at` 1795796821309), so the outbox reads it as of an hour before that, never by
 * today's wall clock (the test would otherwise fail once that day passed).
 */
const FIXTURE_NOW = 1795796821309 - 3_600_000;
const FIXTURE = join(dirname(fileURLToPath(import.meta.url)), "fixtures", "written-by-sqlite3.sqlite");
const tmp = mkdtempSync(join(tmpdir(), "store-format-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("a sqlite file written by the previous binding", () => {
  it("is read and written as it is: Keyv values, compare-and-set, outbox, states, dead letters, watches", async () => {
    const file = join(tmp, "bot.sqlite");
    copyFileSync(FIXTURE, file);
    const { logger } = captureLogger("warn");
    const store = await openStore({ kind: "sqlite", path: file, url: `sqlite://${file}` }, logger);
    const outbox = await createOutbox(store, logger, { now: () => FIXTURE_NOW });
    try {
      expect(await store.keyv.get("fixture:doc")).toEqual({
        v: 1,
        note: "written by the asynchronous binding",
      });
      expect(await store.keyv.get("fixture:expiring")).toEqual({ v: 2 });
      const raw = await store.getRaw("fixture:doc");
      expect(raw).toBe('{"value":{"v":1,"note":"written by the asynchronous binding"}}');
      expect(await store.cas("fixture:doc", raw, { value: { v: 3 } })).toBe(true);
      expect(await store.keyv.get("fixture:doc")).toEqual({ v: 3 });

      expect(await outbox.stats()).toMatchObject({ depth: 1, scheduled: 1, dead: 1 });
      const key = "T0FIX:x2fix:x7fix1";
      expect(await outbox.getState(key)).toEqual({ fixture: true });
      const [item] = await outbox.pending(key, 10);
      expect(item).toMatchObject({ teamId: "T0FIX", videoKey: key, delivery: { type: "video.created" } });
      expect((await outbox.listDead("T0FIX", 10))[0]?.reason).toBe("channel_not_found");
      // The dedupe key written then still answers "duplicate"; the scheduled video is claimed.
      const again = { ...(item as NonNullable<typeof item>) } as Partial<NonNullable<typeof item>>;
      delete again.id;
      expect(await outbox.enqueue(again as never, "fixture-dedupe-1", FIXTURE_NOW)).toBe("duplicate");
      expect(await outbox.claimDue("test-owner", FIXTURE_NOW, 10, 30_000)).toEqual([key]);
      expect(await outbox.ack("test-owner", key, [String(item?.id)])).toBe(true);
      expect((await outbox.stats()).depth).toBe(0);

      const watches = await registryFor(store).listTeam("T0FIX");
      expect(watches).toEqual([
        {
          teamId: "T0FIX",
          enterpriseId: null,
          channelId: "C0FIX",
          livestreamId: "x8fixlive",
          profileId: "x2fix",
          by: "U0FIX",
          at: "2023-11-14T22:13:20.000Z",
        },
      ]);
    } finally {
      await outbox.close();
      await store.close();
    }
  });
});
