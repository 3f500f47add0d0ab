/**
 * Redis leases use one clock (Redis's): a bot process whose clock runs an hour ahead still gets a
 * lease that ends after the lease LENGTH by Redis's clock, so another process (with a right clock)
 * can take a video over once its holder died. Before, renew sent the caller's absolute time
 * (PEXPIREAT), so a skewed clock kept a dead holder's lease for the length of the skew.
 */
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "../../../src/log.js";
import { createOutbox } from "../../../src/outbox/index.js";
import type { Outbox } from "../../../src/outbox/types.js";
import { openStore, type Store } from "../../../src/store/index.js";
import { deleteRedisNamespace, newItem, REDIS_URL, uniqueNamespace } from "./harness.js";

const HOUR = 3_600_000;

describe("Redis outbox leases: one clock", () => {
  const opened: Array<{ outbox: Outbox; store: Store }> = [];
  const namespace = uniqueNamespace();

  async function open(now: () => number) {
    const store = await openStore({ kind: "redis", url: REDIS_URL }, silentLogger(), { namespace });
    const outbox = await createOutbox(store, silentLogger(), { now });
    opened.push({ outbox, store });
    return { outbox, store };
  }

  afterEach(async () => {
    for (const { outbox, store } of opened.splice(0)) {
      await outbox.close();
      await store.close();
    }
    await deleteRedisNamespace(namespace);
  });

  it("a holder whose clock runs an hour ahead gets leases of the lease length by Redis's clock", async () => {
    const skewed = () => Date.now() + HOUR;
    const { outbox: ahead, store } = await open(skewed);
    const video = "T1:P1:v-clock";
    expect(await ahead.enqueue(newItem(video, 1, Date.now()), "dd-clock-1", Date.now())).toBe("stored");
    expect(await ahead.claimDue("ahead", skewed(), 10, 1_000)).toEqual([video]);
    expect(await ahead.renew("ahead", video, skewed() + 1_000)).toBe(true);

    const redis = store.backend.redis;
    if (!redis) throw new Error("not a redis store");
    const leaseKeys = await redis.keys(`${namespace}:outbox:lease:*`);
    expect(leaseKeys).toHaveLength(1);
    const ttl = await redis.pTTL(leaseKeys[0] as string);
    // The renewal's length, not an hour more.
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(1_000);

    // The holder dies; a process with a right clock takes the video over once the lease ended.
    const { outbox: right } = await open(() => Date.now());
    await new Promise((r) => setTimeout(r, 1_200));
    const taken = await right.claimDue("right", Date.now() + 2 * HOUR, 10, 1_000);
    expect(taken).toEqual([video]);
  });
});
