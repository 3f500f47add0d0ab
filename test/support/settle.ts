/**
 * "The bot had its chance": the positive signal a negative check ("nothing more is posted", "no
 * duplicate") waits for instead of a fixed sleep. For the notification worker: the outbox is empty
 * (every item acknowledged, no video scheduled) and the worker has then looked for work `polls`
 * more times and found none, the outbox still empty after them. A round that would post again (a duplicate parent, a
 * late reply) runs before those empty looks or is one of them, so it is seen. The same for the
 * digest runner on its log (`idlePolls`). Polled for, with a generous ceiling.
 */
import type { Outbox } from "../../src/outbox/types.js";
import { eventually, waitFor } from "./harness.js";

/** Anything a loop claims due work from (the outbox, a digest log). */
interface Claimable {
  claimDue(owner: string, now: number, max: number, leaseMs: number): Promise<readonly unknown[]>;
}

/**
 * Resolves once `ready()` holds, then `polls` claims on `target` (by any loop using it) found
 * nothing, and `ready()` still holds after them; throws after `timeoutMs`.
 */
export async function idlePolls(
  target: Claimable,
  opts: { polls?: number; timeoutMs?: number; ready?: () => Promise<boolean> } = {},
): Promise<void> {
  const polls = opts.polls ?? 3;
  const timeoutMs = opts.timeoutMs ?? 20_000;
  const ready = opts.ready ?? (async () => true);
  const own = Object.hasOwn(target, "claimDue");
  const claimDue = target.claimDue;
  let empty = 0;
  target.claimDue = async (...args) => {
    const keys = await claimDue.apply(target, args);
    if (keys.length === 0) empty++;
    return keys;
  };
  try {
    await eventually(
      async () => {
        if (!(await ready())) return false;
        const from = empty;
        await waitFor(() => empty >= from + polls, timeoutMs, `${polls} empty polls`);
        return ready();
      },
      timeoutMs,
      "idle",
    );
  } finally {
    if (own) target.claimDue = claimDue;
    else delete (target as Partial<Claimable>).claimDue;
  }
}

/**
 * Nothing left to do: the outbox empty (depth 0) and no video scheduled (a video scheduled for
 * later would have a round to come; `unscheduled: false` leaves that out), then `polls` (default
 * 5) worker claims that found nothing, and still so.
 */
export async function settled(
  outbox: Outbox,
  opts: { polls?: number; timeoutMs?: number; unscheduled?: boolean } = {},
): Promise<void> {
  const ready = async () => {
    const s = await outbox.stats();
    return s.depth === 0 && (opts.unscheduled === false || s.scheduled === 0);
  };
  await idlePolls(outbox, { polls: 5, ...opts, ready });
}

/**
 * For a manual worker (`worker: { manual: true }`): drains until the outbox holds no item. One
 * drain is not enough: items still inside their gather window are not due yet.
 */
export async function drainedByHand(
  worker: { drain(): Promise<void> },
  outbox: Outbox,
  timeoutMs = 10_000,
): Promise<void> {
  await eventually(
    async () => {
      await worker.drain();
      return (await outbox.stats()).depth === 0;
    },
    timeoutMs,
    "the outbox drained",
  );
}
