/**
 * An outbox item damaged in the store (a hand edit, a disk fault) does not block its video: it is
 * set aside as a dead letter once, with an error line, and the video's other deliveries are posted.
 * Before, pending() threw and the worker retried the video every 2 s for ever.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { createLogger } from "../../src/log.js";
import { decodeItem } from "../../src/outbox/common.js";
import { openStore } from "../../src/store/index.js";
import { eventually, startHarness } from "../support/harness.js";
import { RECENT } from "../support/recent.js";

const dir = mkdtempSync(join(tmpdir(), "bot-damaged-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** One statement on a second connection to the file (as a hand edit would be); rows changed. */
async function exec(path: string, sql: string, ...params: unknown[]): Promise<number> {
  const store = await openStore(
    { kind: "sqlite", path, url: `sqlite://${path}` },
    createLogger({ level: "silent" }),
  );
  const db = store.backend.sqlite;
  if (!db) throw new Error("not a sqlite store");
  try {
    return db.prepare(sql).run(...params).changes;
  } finally {
    await store.close();
  }
}

describe("damaged outbox items", () => {
  it("decodeItem marks what it cannot read instead of throwing", () => {
    for (const json of [
      "{oops",
      "null",
      "[]",
      '{"videoKey":"k"}',
      '{"videoKey":"k","teamId":"T","delivery":5}',
    ]) {
      const item = decodeItem("7", json, "T1:x2vq8nw:x8v1");
      expect(item.damaged).toBeTruthy();
      expect(item).toMatchObject({
        id: "7",
        teamId: "T1",
        profileId: "x2vq8nw",
        videoKey: "T1:x2vq8nw:x8v1",
      });
    }
  });

  it("sqlite: the damaged item becomes a dead letter and the video's good deliveries are posted", async () => {
    const path = join(dir, "bot.sqlite");
    const h = await startHarness({
      store: { kind: "sqlite", path, url: `sqlite://${path}` },
      worker: { manual: true, coalesceMs: 50, pollMs: 10, postIntervalMs: 20 },
    });
    try {
      const hook = await h.configureProfile();
      const send = (type: string, timestamp: number) =>
        fetch(hook, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            type,
            timestamp,
            data: { owner_id: SEED.profiles.newsroom, video_id: "x8dmg1" },
          }),
        });
      expect((await send("video.created", RECENT)).status).toBe(200);
      expect((await send("video.published", RECENT + 100)).status).toBe(200);
      // Damage the first stored item in place.
      expect(
        await exec(
          path,
          "UPDATE outbox_items SET json = '{damaged' WHERE id = (SELECT MIN(id) FROM outbox_items)",
        ),
      ).toBe(1);
      h.built.worker.start();
      await eventually(async () => (await h.outbox.stats()).depth === 0, 10_000, "the outbox to drain");
      await eventually(
        async () => h.slack.messages("C0NEWS").some((m) => m.text.includes("x8dmg1")),
        5000,
        "the post",
      );
      const dead = await h.outbox.listDead("T0STANDIN", 10);
      expect(dead).toHaveLength(1);
      expect(dead[0]?.reason).toMatch(/damaged in the store \(not JSON\)/);
      expect(h.logs.filter((l) => l.includes("damaged in the store were set aside"))).toHaveLength(1);
    } finally {
      await h.close();
    }
  });
});
