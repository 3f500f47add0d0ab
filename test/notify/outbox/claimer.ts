/**
 * A worker process for the two-process Redis test: loops claimDue → pending → ack → release on
 * the given namespace until its stdin ends, and writes one JSON line per batch to stdout:
 *   {"ready":true} once connected,
 *   {"owner","key","ids","ns","acked","t0","t1"} per batch,
 *   {"violation": "..."} if a key's holder sentinel was already set by someone else.
 * The sentinel (`<ns>:test:holder:<key>`, SET NX while processing) detects two holders exactly.
 *
 * Usage: node --import tsx test/notify/outbox/claimer.ts <redis-url> <namespace> <owner>
 */
import { setTimeout as sleep } from "node:timers/promises";
import { silentLogger } from "../../../src/log.js";
import { createOutbox } from "../../../src/outbox/index.js";
import { openStore } from "../../../src/store/index.js";
import { writeLine } from "../../support/json-lines.js";

const [url = "", namespace = "", owner = ""] = process.argv.slice(2);
const out = writeLine;

const logger = silentLogger();
const store = await openStore({ kind: "redis", url }, logger, { namespace });
const client = store.backend.redis;
if (!client) throw new Error("not a redis store");
const outbox = await createOutbox(store, logger);

let stopping = false;
process.stdin.on("end", () => {
  stopping = true;
});
process.stdin.resume();
out({ ready: true });

async function handle(key: string): Promise<void> {
  const sentinel = `${namespace}:test:holder:${key}`;
  const previous = await client?.set(sentinel, owner, { condition: "NX" });
  if (previous === null) out({ violation: `${owner} got ${key} held by ${await client?.get(sentinel)}` });
  const t0 = Date.now();
  const items = await outbox.pending(key, 7);
  if (Math.random() < 0.3) await sleep(Math.random() * 3);
  const acked = await outbox.ack(
    owner,
    key,
    items.map((i) => i.id),
  );
  const t1 = Date.now();
  out({ owner, key, ids: items.map((i) => i.id), ns: items.map((i) => i.delivery.data.n), acked, t0, t1 });
  if ((await client?.get(sentinel)) === owner) await client?.del(sentinel);
  await outbox.release(owner, key, null);
}

while (!stopping) {
  const keys = await outbox.claimDue(owner, Date.now(), 4, 10_000);
  if (keys.length === 0) await sleep(2);
  await Promise.all(keys.map(handle));
}
await outbox.close();
await store.close();
