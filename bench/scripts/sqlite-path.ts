/**
 * The sqlite outbox's share of a delivery, in-process, no HTTP: per event-loop turn 10 deliveries
 * enqueued (10 connections' worth, one group commit), then one worker pass as the worker makes it
 * (claim, pending, state read, settle, release) for what is due. Prints the process CPU per
 * delivery. Run it on two checkouts one after the other to compare them.
 *
 *   npx tsx bench/scripts/sqlite-path.ts [deliveries, default 20000]
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { silentLogger } from "../../src/log.js";
import { SqliteOutbox } from "../../src/outbox/sqlite.js";
import { openStore } from "../../src/store/index.js";

const total = Number(process.argv[2] ?? 20_000);
const dir = mkdtempSync(path.join(os.tmpdir(), "sqlite-path-"));
const file = path.join(dir, "bot.sqlite");
const logger = silentLogger();
const store = await openStore({ kind: "sqlite", path: file, url: `sqlite://${file}` }, logger);
const outbox = await SqliteOutbox.open(store, logger, { profileQuota: 1_000_000 });
const item = (i: number) => ({
  teamId: "T1",
  profileId: "P1",
  channelId: "C1",
  videoKey: `T1:P1:v${Math.floor(i / 36)}`,
  delivery: {
    type: "video.encoding",
    timestamp: i,
    data: { id: `v${Math.floor(i / 36)}`, n: i },
    known: false as const,
  },
  receivedAt: Date.now(),
});

async function pass(): Promise<number> {
  const keys = await outbox.claimDue("w1", Date.now(), 4, 60_000);
  await Promise.all(
    keys.map(async (key) => {
      const items = await outbox.pending(key, 100);
      const state = ((await outbox.getState(key)) as { n?: number } | undefined) ?? {};
      await outbox.settle(
        "w1",
        key,
        { n: (state.n ?? 0) + items.length },
        items.map((x) => x.id),
      );
      await outbox.release("w1", key, null);
    }),
  );
  return keys.length;
}

async function run(from: number, to: number): Promise<number> {
  let passes = 0;
  for (let i = from; i < to; i += 10) {
    const batch: Promise<unknown>[] = [];
    for (let k = i; k < Math.min(to, i + 10); k++) batch.push(outbox.enqueue(item(k), `d${k}`, Date.now()));
    await Promise.all(batch);
    passes += await pass();
  }
  while ((await pass()) > 0) passes++;
  return passes;
}

await run(0, 2_000); // warm-up
const cpu = process.cpuUsage();
const passes = await run(2_000, 2_000 + total);
const used = process.cpuUsage(cpu);
const us = used.user + used.system;
console.log(
  `${total} deliveries, ${passes} passes: ${(us / total).toFixed(1)} µs CPU per delivery (process)`,
);
await outbox.close();
await store.close();
rmSync(dir, { recursive: true, force: true });
