/**
 * The bench's own Redis connection: a ping before the Redis target starts (a clear message instead
 * of a run of 503s), and the removal of the run's namespace afterwards, checked to be empty, even
 * when the target process died.
 */
import { createClient } from "@keyv/redis";
import type { RedisClient } from "../../src/store/index.js";

async function withClient<T>(url: string, fn: (c: RedisClient) => Promise<T>): Promise<T> {
  const client: RedisClient = createClient({
    url,
    socket: { connectTimeout: 2_000, reconnectStrategy: false },
  });
  client.on("error", () => {});
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.close().catch(() => client.destroy());
  }
}

export async function pingRedis(url: string): Promise<void> {
  try {
    await withClient(url, async (c) => {
      await c.ping();
    });
  } catch (err) {
    throw new Error(
      `Redis at ${url} is not reachable (${err instanceof Error ? err.message : String(err)}); start it or pass --redis-url, or leave redis out with --targets`,
    );
  }
}

/** Deletes every key of `namespace` (Keyv's `ns::…` and the outbox's `ns:outbox:…`); returns how many. */
export async function dropNamespace(
  url: string,
  namespace: string,
): Promise<{ deleted: number; left: number }> {
  if (!/^[A-Za-z0-9_-]+$/.test(namespace))
    throw new Error(`refusing to clean an odd namespace: ${namespace}`);
  return withClient(url, async (c) => {
    let deleted = 0;
    for await (const keys of c.scanIterator({ MATCH: `${namespace}:*`, COUNT: 1000 })) {
      if (keys.length > 0) deleted += await c.unlink(keys);
    }
    let left = 0;
    for await (const keys of c.scanIterator({ MATCH: `${namespace}:*`, COUNT: 1000 })) left += keys.length;
    return { deleted, left };
  });
}
