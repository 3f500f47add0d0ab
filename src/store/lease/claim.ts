/**
 * Claim with a lease: the due keys of a schedule (earliest first, at most `max`), each taken when
 * its lease is free or already the caller's, leased for `leaseMs` and moved to the lease's end (so
 * it is not due for anyone else meanwhile); a key leased by another owner is moved to that lease's
 * end, out of the way of the keys behind it. Redis: one Lua script (`claimScript`), leases as keys
 * with PX (expiring by Redis's clock). Memory: `claimFromHeap` over a DueHeap, the caller keeping
 * the leases. Used by the outbox (memory, Redis) and the watch schedule.
 */
import type { DueEntry, DueHeap } from "./heap.js";
import { type Script, script } from "./script.js";

/**
 * The claim script. KEYS: sched (ZSET key → due time). ARGV: owner, now, max, leaseMs, lease key
 * prefix, then the caller's own (for `onClaim`). → the claimed keys, earliest due first.
 * `prelude`: Lua functions for `onClaim`; `onClaim`: Lua run for each claimed `key` (after its
 * lease and new due time are written), with `lease` the lease length.
 */
export function claimScript(opts: { prelude?: string; onClaim?: string } = {}): Script {
  const onClaim = opts.onClaim ? `      ${opts.onClaim}\n` : "";
  return script(`${opts.prelude ?? ""}
local owner, now, max, lease = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local claimed = {}
while #claimed < max do
  local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[2], 'LIMIT', 0, max - #claimed)
  if #due == 0 then break end
  for _, key in ipairs(due) do
    local lk = ARGV[5] .. key
    local holder = redis.call('GET', lk)
    if holder == false or holder == owner then
      redis.call('SET', lk, owner, 'PX', lease)
      redis.call('ZADD', KEYS[1], 'XX', now + lease, key)
${onClaim}      claimed[#claimed + 1] = key
    else
      local left = redis.call('PTTL', lk)
      if left < 1 then left = lease end
      redis.call('ZADD', KEYS[1], 'XX', now + left, key)
    end
  end
end
return claimed`);
}

/** The first five ARGV of `claimScript` (a lease of at least 1 ms: PX refuses 0). */
export function claimArgs(
  owner: string,
  now: number,
  max: number,
  leaseMs: number,
  leasePrefix: string,
): string[] {
  return [owner, String(now), String(Math.floor(max)), String(Math.max(1, Math.floor(leaseMs))), leasePrefix];
}

/**
 * The memory equivalent: pops the due entries (`current` ones, earliest first) until `max` are
 * claimed. `take(key)` leases a key and moves it to the lease's end (true), or, when another owner
 * holds it, moves it to that lease's end (false). Every key looked at leaves the due range.
 */
export function claimFromHeap(
  heap: DueHeap,
  now: number,
  max: number,
  current: (e: DueEntry) => boolean,
  take: (key: string) => boolean,
): string[] {
  const claimed: string[] = [];
  while (claimed.length < max) {
    const entry = heap.popDue(now, current);
    if (!entry) break;
    if (take(entry.key)) claimed.push(entry.key);
  }
  return claimed;
}
