/**
 * Waits counted in the live watch's polls rather than in milliseconds: a loaded machine delays
 * timers, not the order of things. A livestream is read again only once its previous read was
 * handled in full (posted, stored, rescheduled: src/watch/poller.ts), so the start of a read
 * proves that every earlier read of that livestream has had its effects.
 */
import type { RequestLogEntry } from "../../fakes/platform/types.js";
import { type Harness, waitFor } from "./harness.js";

/** Generous ceiling for poll-counted waits: a slow machine waits longer rather than fails. */
export const POLL_CEILING_MS = 15_000;

type WithSandbox = Pick<Harness, "sandbox">;

/**
 * The sandbox's request log indexed by GET path, built incrementally: the waits below probe every
 * 10 ms, and filtering a log of thousands of requests each time would itself load the machine
 * the other tests run on. The log only grows (a reset empties it: the index starts again).
 */
interface GetIndex {
  scanned: number;
  byPath: Map<string, RequestLogEntry[]>;
}
const indexes = new WeakMap<RequestLogEntry[], GetIndex>();

function getsOf(log: RequestLogEntry[], path: string): RequestLogEntry[] {
  let index = indexes.get(log);
  if (index === undefined || index.scanned > log.length) {
    index = { scanned: 0, byPath: new Map() };
    indexes.set(log, index);
  }
  for (; index.scanned < log.length; index.scanned++) {
    const r = log[index.scanned] as RequestLogEntry;
    if (r.method !== "GET") continue;
    const list = index.byPath.get(r.path);
    if (list) list.push(r);
    else index.byPath.set(r.path, [r]);
  }
  return index.byPath.get(path) ?? [];
}

/** The GETs of the livestream that reached the platform sandbox so far, oldest first (a copy). */
export function livestreamGets(h: WithSandbox, id: string): RequestLogEntry[] {
  return [...getsOf(h.sandbox.requests, `/v2/livestreams/${id}`)];
}

/**
 * Resolves once the poller has read the livestream `k` more times than `from` GETs (default: those
 * so far) and handled each of those reads in full: `k + 1` more GETs have started.
 */
export async function afterPolls(
  h: WithSandbox,
  id: string,
  k: number,
  from = livestreamGets(h, id).length,
): Promise<void> {
  await waitFor(
    () => livestreamGets(h, id).length >= from + k + 1,
    POLL_CEILING_MS,
    `${k} more polls of ${id} handled`,
  );
}

/** Resolves once the next GET of the livestream (after the `from` so far) has been answered. */
export async function nextReadAnswered(
  h: WithSandbox,
  id: string,
  from = livestreamGets(h, id).length,
): Promise<void> {
  await waitFor(() => (livestreamGets(h, id)[from]?.status ?? 0) !== 0, POLL_CEILING_MS, `a read of ${id}`);
}

/** Resolves once at least `ms` of wall time has passed since `since` (a Date.now() value). */
export async function untilElapsed(since: number, ms: number): Promise<void> {
  await waitFor(() => Date.now() - since >= ms, ms + POLL_CEILING_MS, `${ms} ms since the mark`);
}

/**
 * For the bounds that are a rate (reads per interval of wall time, as the poller's schedule
 * measures it): the GETs of the livestream that started within the next `ms`, counted once that
 * time has passed and the poller has started a read after it (so no read of the window is missed).
 */
export async function getsWithin(h: WithSandbox, id: string, ms: number): Promise<number> {
  const t0 = Date.now();
  await untilElapsed(t0, ms);
  await waitFor(
    () => livestreamGets(h, id).some((r) => r.at > t0 + ms),
    POLL_CEILING_MS,
    `a read of ${id} after the window`,
  );
  return livestreamGets(h, id).filter((r) => r.at > t0 && r.at <= t0 + ms).length;
}

/**
 * Resolves once every GET of the livestream so far has been answered (a read under way finished).
 * Then, for a livestream that is no longer watched, nothing can be counted in its polls: a check
 * that it is read no more waits in wall time (the schedule's due times are wall time).
 */
export async function readsSettled(h: WithSandbox, id: string): Promise<void> {
  await waitFor(
    () => livestreamGets(h, id).every((r) => r.status !== 0),
    POLL_CEILING_MS,
    `the reads of ${id} under way`,
  );
}
