/**
 * Reading and writing one validated document of the store: what every repository builds on.
 *
 * Changes to a document that several replicas (or several requests) may change at once go through
 * `update()`: it reads the raw stored value, computes the next one, and writes it by
 * compare-and-set only if the stored value is still what it read; otherwise it reads again and
 * recomputes, a bounded number of times. No change is lost, and a value written meanwhile is never
 * overwritten by one computed from an older read.
 */
import { setTimeout as sleep } from "node:timers/promises";
import type { z } from "zod";
import type { Logger } from "../log.js";
import { StoreCorruptError, StoreUnavailableError } from "./errors.js";
import { decodeEnvelope, type Store } from "./keyv.js";

/** What an update function returns to leave the document as it is. */
export const KEEP: unique symbol = Symbol("keep the document as it is");
/** What an update function returns to delete the document. */
export const REMOVE: unique symbol = Symbol("remove the document");
export type Next<T> = T | typeof KEEP | typeof REMOVE;

/** A document as read, with the raw stored string that a compare-and-set expects. */
export interface Snapshot<T> {
  /** undefined when there is none (or it expired). */
  value: T | undefined;
  /** The raw stored string (also for an expired value), undefined when absent. */
  raw: string | undefined;
  /** The stored value's expiry (ms since the epoch), if it has one. */
  expires: number | undefined;
}

export interface UpdateOptions {
  /** Gives the written value this lifetime (ms); without it, the stored value's expiry is kept. */
  ttlMs?: number;
}

/** Attempts of `update()` before it gives up (each one a read and a compare-and-set). */
export const UPDATE_ATTEMPTS = 50;
/** Longest pause between two attempts, ms (random, growing with each lost attempt). */
const MAX_BACKOFF_MS = 100;

export class Documents {
  constructor(
    private readonly store: Store,
    private readonly logger: Logger,
  ) {}

  /** The validated document at `key`, or undefined when there is none. */
  async read<S extends z.ZodType>(key: string, schema: S): Promise<z.output<S> | undefined> {
    let raw: unknown;
    try {
      raw = await this.store.run(`get ${key}`, () => this.store.keyv.get(key));
    } catch (err) {
      if (err instanceof StoreCorruptError) throw this.corrupt(key, err.reason, err);
      throw err;
    }
    if (raw === undefined) return undefined;
    return this.validate(key, schema, raw);
  }

  /** The validated document and the raw string behind it (what `replace` and `update` compare). */
  async snapshot<S extends z.ZodType>(key: string, schema: S): Promise<Snapshot<z.output<S>>> {
    const raw = await this.store.getRaw(key);
    if (raw === undefined) return { value: undefined, raw, expires: undefined };
    let envelope: { value: unknown; expires?: number | undefined };
    try {
      envelope = decodeEnvelope(raw);
    } catch (err) {
      if (err instanceof StoreCorruptError) throw this.corrupt(key, err.reason, err);
      throw err;
    }
    const expires = envelope.expires;
    if (expires !== undefined && Date.now() > expires) return { value: undefined, raw, expires };
    return { value: this.validate(key, schema, envelope.value), raw, expires };
  }

  /**
   * Writes `next` (REMOVE deletes) only if the raw stored string is still `expected` (undefined:
   * none). true when it wrote.
   */
  replace(key: string, expected: string | undefined, next: unknown, expires?: number): Promise<boolean> {
    return this.store.cas(key, expected, next === REMOVE ? undefined : { value: next, expires });
  }

  /**
   * Changes the document at `key` by compare-and-set: `fn` gets the current document (undefined
   * when there is none) and returns the next one, KEEP or REMOVE. When another writer changed the
   * document in between, `fn` runs again on what is stored then, up to UPDATE_ATTEMPTS times with
   * a short random pause; past that, StoreUnavailableError and nothing written. `fn` may throw
   * (nothing is written); what it records outside on its last run describes the outcome. A damaged
   * document raises StoreCorruptError and is left as is. Resolves true when it wrote (or removed),
   * false when it kept the document as it was.
   */
  async update<S extends z.ZodType>(
    key: string,
    schema: S,
    fn: (current: z.output<S> | undefined) => Next<z.input<S>> | Promise<Next<z.input<S>>>,
    opts: UpdateOptions = {},
  ): Promise<boolean> {
    for (let attempt = 1; attempt <= UPDATE_ATTEMPTS; attempt++) {
      const snap = await this.snapshot(key, schema);
      const next = await fn(snap.value);
      if (next === KEEP || (next === REMOVE && snap.raw === undefined)) return false;
      // An expired value counts as none: its expiry does not carry over to the next one.
      const kept = snap.value === undefined ? undefined : snap.expires;
      const expires = opts.ttlMs !== undefined ? Date.now() + opts.ttlMs : kept;
      if (await this.replace(key, snap.raw, next, expires)) return true;
      await sleep(Math.random() * Math.min(MAX_BACKOFF_MS, 2 ** attempt));
    }
    this.logger.warn({ key, attempts: UPDATE_ATTEMPTS }, "store value kept changing while being updated");
    throw new StoreUnavailableError(
      `store unavailable: update ${key}: the value changed under each of ${UPDATE_ATTEMPTS} attempts (too many concurrent writers); nothing was written`,
    );
  }

  /** Writes `value` at `key`; with `ttlMs`, the store forgets it that long after. */
  async write(key: string, value: unknown, ttlMs?: number): Promise<void> {
    await this.store.run(`set ${key}`, async () => {
      await this.store.keyv.set(key, value, ttlMs);
    });
  }

  async remove(key: string): Promise<void> {
    await this.store.run(`delete ${key}`, async () => {
      await this.store.keyv.delete(key);
    });
  }

  private validate<S extends z.ZodType>(key: string, schema: S, raw: unknown): z.output<S> {
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      const reason = parsed.error.issues
        .slice(0, 3)
        .map((i) => `${i.path.join(".") || "(value)"}: ${i.message}`)
        .join("; ");
      throw this.corrupt(key, `unexpected shape (${reason})`, parsed.error);
    }
    return parsed.data;
  }

  private corrupt(key: string, reason: string, cause: unknown): StoreCorruptError {
    this.logger.error({ key, reason }, "store value is corrupt; it is left as is for inspection");
    return new StoreCorruptError(key, reason, { cause });
  }
}
