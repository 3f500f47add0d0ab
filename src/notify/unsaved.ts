/**
 * What Slack already shows but the store could not record: the store failed right after a Slack
 * call succeeded (a Redis blink, a full disk). Without this, the next round would start from the
 * older stored state and post the parent message or a thread reply a second time.
 * More: README.md ("unsaved.ts").
 */
import type { VideoKey } from "../domain/index.js";
import type { Outbox } from "../outbox/index.js";
import { StoreUnavailableError } from "../store/index.js";
import type { VideoState } from "../video/state.js";
import { PARENT } from "./posted.js";

interface Facts {
  parentTs: string | null;
  renderedHash: string | null;
  lastRenderAt: number | null;
  posted: Set<string>;
}

const MAX_VIDEOS = 10_000;
const RETRY_DELAYS_MS = [100, 300, 900];

export class UnsavedSlackFacts {
  private readonly facts = new Map<VideoKey, Facts>();

  get size(): number {
    return this.facts.size;
  }

  remember(key: VideoKey, s: VideoState): void {
    this.facts.delete(key);
    if (this.facts.size >= MAX_VIDEOS) {
      const oldest = this.facts.keys().next().value;
      if (oldest !== undefined) this.facts.delete(oldest);
    }
    this.facts.set(key, {
      parentTs: s.parentTs,
      renderedHash: s.renderedHash,
      lastRenderAt: s.lastRenderAt,
      posted: new Set(s.milestones.filter((m) => m.posted).map((m) => m.key)),
    });
  }

  forget(key: VideoKey): void {
    this.facts.delete(key);
  }

  /** The stored state with what Slack is known to show laid over it. */
  apply(key: VideoKey, stored: VideoState): VideoState {
    const f = this.facts.get(key);
    if (!f) return stored;
    const adoptParent = stored.parentTs === null && f.parentTs !== null;
    const sameParent = stored.parentTs !== null && stored.parentTs === f.parentTs;
    const out: VideoState = {
      ...stored,
      parentTs: stored.parentTs ?? f.parentTs,
      renderedHash: adoptParent || sameParent ? f.renderedHash : stored.renderedHash,
      lastRenderAt: adoptParent || sameParent ? f.lastRenderAt : stored.lastRenderAt,
      milestones: stored.milestones.map((m) =>
        !m.posted && f.posted.has(m.key) ? { ...m, posted: true } : m,
      ),
    };
    // An intent (posted.ts) for what these facts show posted is done: nothing to look for.
    const p = out.posting;
    if (p && (p.what === PARENT ? out.parentTs !== null : f.posted.has(p.what))) delete out.posting;
    return out;
  }

  /**
   * Writes the state if `owner` still holds the lease (false when it does not). A store failure
   * keeps the Slack facts here and is retried; the last failure is thrown.
   */
  async writeState(
    outbox: Outbox,
    owner: string,
    key: VideoKey,
    state: VideoState,
    final: boolean,
    sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ): Promise<boolean> {
    return this.retried(key, state, () => outbox.setState(owner, key, state, { final }), sleep);
  }

  /**
   * The end of a pass: the state (undefined: left as stored) and the acknowledgement of `ids` in
   * one atomic step (Outbox.settle), retried like `writeState`.
   */
  settle(
    outbox: Outbox,
    owner: string,
    key: VideoKey,
    state: VideoState | undefined,
    final: boolean,
    ids: readonly string[],
  ): Promise<boolean> {
    return this.retried(key, state, () => outbox.settle(owner, key, state, ids, { final }));
  }

  private async retried(
    key: VideoKey,
    state: VideoState | undefined,
    write: () => Promise<boolean>,
    sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
  ): Promise<boolean> {
    for (let attempt = 0; ; attempt++) {
      try {
        const ok = await write();
        if (ok && state !== undefined) this.forget(key);
        return ok;
      } catch (err) {
        if (!(err instanceof StoreUnavailableError)) throw err;
        if (state !== undefined) this.remember(key, state);
        const delay = RETRY_DELAYS_MS[attempt];
        if (delay === undefined) throw err;
        await sleep(delay);
      }
    }
  }
}
