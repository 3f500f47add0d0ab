/**
 * The floors: the least a receiver can do and still promise what the bot's 2xx promises for a
 * delivery, one per store. Each reads the body, parses the JSON, checks it is a delivery (the bot's
 * own fast check, src/platform/delivery-check.ts: same rules, same cost), deduplicates it by a hash
 * of the body (sha256: a second copy changes nothing) and keeps it where the store keeps things:
 *
 * - the durable floor (sqlite): in a WAL sqlite file, the hash the row's primary key, every request
 *   of one event-loop turn in one transaction (a group commit), answered 2xx only once the WAL is
 *   synced (fsync on the thread pool, as the bot does);
 * - the memory floor: in a Map in the process, answered at once;
 * - the Redis floor: one `SET <hash> <body> NX PX <one day>` a delivery on the client the bot uses
 *   (@keyv/redis's, which sends the commands of one turn together), answered once Redis replied.
 *
 * No routing beyond the path prefix, no outbox, no worker, no logging: what is left of the bot's
 * work once everything it adds for its users is taken away. The bot on each store is compared with
 * that store's floor.
 */
import { createHash } from "node:crypto";
import { closeSync, fsync, openSync } from "node:fs";
import { createServer, type ServerResponse } from "node:http";
import { createRequire } from "node:module";
import { createClient } from "@keyv/redis";
import type Database from "better-sqlite3";
import { DEFAULT_DEDUPE_TTL_MS } from "../../src/outbox/index.js";
import { fastDelivery } from "../../src/platform/delivery-check.js";
import type { RedisClient } from "../../src/store/index.js";
import { listenLocally } from "./local-server.js";
import { BENCH_OWNER } from "./owner.js";
import type { RunningTarget } from "./types.js";

const BINDING = Number(process.versions.node.split(".")[0]) >= 22 ? "better-sqlite3-napi" : "better-sqlite3";

const STORED = JSON.stringify({ status: "stored" });
const DUPLICATE = JSON.stringify({ status: "duplicate" });
const MAX_BODY = 64 * 1024;
const PREFIX = "/hooks/platform/";

function answer(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
  res.end(body);
}

/** Keeps one checked delivery (its body's hash and text) and answers `res` once it is kept. */
type Keep = (hash: Buffer, body: string, res: ServerResponse) => void;

/**
 * The floors' one server: every POST under the prefix read (64 KiB at most), parsed and checked,
 * then handed to `keep`; anything else answered 4xx. Listens on 127.0.0.1.
 */
async function floorServer(
  name: string,
  keep: Keep,
  counts: () => Promise<number>,
  closeStore: () => Promise<void>,
): Promise<RunningTarget> {
  const server = createServer((req, res) => {
    if (req.method !== "POST" || !req.url?.startsWith(PREFIX)) {
      req.resume();
      answer(res, 404, JSON.stringify({ error: "not found" }));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size <= MAX_BODY) chunks.push(c);
    });
    req.on("end", () => {
      if (size > MAX_BODY) return answer(res, 413, JSON.stringify({ error: "too large" }));
      const raw = Buffer.concat(chunks);
      const body = raw.toString("utf8");
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        return answer(res, 400, JSON.stringify({ error: "not JSON" }));
      }
      if (fastDelivery(parsed) === undefined)
        return answer(res, 400, JSON.stringify({ error: "not a delivery" }));
      keep(createHash("sha256").update(raw).digest(), body, res);
    });
  });
  const listening = await listenLocally(server);
  return {
    url: listening.url,
    path: `${PREFIX}${name}`,
    ownerId: BENCH_OWNER,
    counts: async () => ({ stored: await counts(), logLines: 0 }),
    close: async () => {
      await listening.close();
      await closeStore();
    },
  };
}

/** The memory floor: a Map from the body's hash to the body. */
export function startMemoryFloor(): Promise<RunningTarget> {
  const kept = new Map<string, string>();
  return floorServer(
    "memory-floor",
    (hash, body, res) => {
      const key = hash.toString("base64");
      if (kept.has(key)) return answer(res, 200, DUPLICATE);
      kept.set(key, body);
      answer(res, 200, STORED);
    },
    async () => kept.size,
    async () => kept.clear(),
  );
}

/**
 * The Redis floor: `SET <namespace>:floor:<hash> <body> NX PX <the bot's dedupe window>`, answered on
 * Redis's reply.
 */
export async function startRedisFloor(spec: { redisUrl: string; namespace: string }): Promise<RunningTarget> {
  const client: RedisClient = createClient({ url: spec.redisUrl, disableOfflineQueue: true });
  client.on("error", () => {});
  await client.connect();
  const prefix = `${spec.namespace}:floor:`;
  let stored = 0;
  return floorServer(
    "redis-floor",
    (hash, body, res) => {
      client.set(`${prefix}${hash.toString("base64")}`, body, { NX: true, PX: DEFAULT_DEDUPE_TTL_MS }).then(
        (reply) => {
          if (reply === "OK") stored++;
          answer(res, 200, reply === "OK" ? STORED : DUPLICATE);
        },
        () => answer(res, 503, JSON.stringify({ error: "not stored" })),
      );
    },
    async () => stored,
    async () => {
      await client.close().catch(() => client.destroy());
    },
  );
}

interface Pending {
  hash: Buffer;
  body: string;
  res: ServerResponse;
}

export function startFloor(spec: { sqlitePath: string }): Promise<RunningTarget> {
  const Sqlite = createRequire(import.meta.url)(BINDING) as typeof Database;
  const db = new Sqlite(spec.sqlitePath);
  db.pragma("journal_mode = WAL");
  // NORMAL: each commit's WAL is synced below, off the event loop, before anyone is answered.
  db.pragma("synchronous = NORMAL");
  db.exec("CREATE TABLE IF NOT EXISTS deliveries(hash BLOB PRIMARY KEY, body TEXT NOT NULL) WITHOUT ROWID");
  const insert = db.prepare("INSERT OR IGNORE INTO deliveries(hash, body) VALUES (?, ?)");
  const count = db.prepare("SELECT count(*) AS n FROM deliveries");
  const begin = db.prepare("BEGIN IMMEDIATE");
  const commit = db.prepare("COMMIT");
  let walFd: number | undefined;

  let queue: Pending[] = [];
  let scheduled = false;
  let syncing = false;
  /** Answers of committed turns waiting for the next WAL sync. */
  let unsynced: Array<() => void> = [];

  const sync = (): void => {
    if (syncing || unsynced.length === 0) return;
    syncing = true;
    const answers = unsynced;
    unsynced = [];
    walFd ??= openSync(`${spec.sqlitePath}-wal`, "r");
    fsync(walFd, (err) => {
      syncing = false;
      if (err) throw err;
      for (const a of answers) a();
      sync();
      flushSoon();
    });
  };

  /** One transaction for the turn's deliveries; answered once the WAL holding them is synced. */
  const flush = (): void => {
    scheduled = false;
    const batch = queue;
    queue = [];
    const stored: boolean[] = [];
    begin.run();
    for (const p of batch) stored.push(insert.run(p.hash, p.body).changes === 1);
    commit.run();
    unsynced.push(() => {
      for (const [i, p] of batch.entries()) answer(p.res, 200, stored[i] ? STORED : DUPLICATE);
    });
    sync();
  };

  // Like the bot's store: the next group commit waits for the sync in flight, so one commit and
  // one sync take everything that arrived meanwhile.
  const flushSoon = (): void => {
    if (scheduled || syncing || queue.length === 0) return;
    scheduled = true;
    setImmediate(flush);
  };

  return floorServer(
    "floor",
    (hash, body, res) => {
      queue.push({ hash, body, res });
      flushSoon();
    },
    async () => (count.get() as { n: number }).n,
    async () => {
      if (walFd !== undefined) closeSync(walFd);
      db.close();
    },
  );
}
