/**
 * Callbacks: a callback token → (workspace, profile, channel), behind `/hooks/platform/<token>`.
 *
 *   route:<callback id>   { v: 1, tokenSha256: <callback id>, teamId, profileId, channelId }
 *
 * The token is never stored: its callback id, sha256(token) in hex, is the key (the key keeps its
 * first name, `route:`), and the record's hash is compared with `crypto.timingSafeEqual` before the
 * callback is trusted. A profile's settings keep the callback id, enough to find or delete the
 * callback, not enough to deliver to it.
 */
import crypto from "node:crypto";
import { z } from "zod";
import type { Logger } from "../log.js";
import { Documents } from "./documents.js";
import type { Store } from "./keyv.js";
import { CALLBACK_ID_RE, idSchema, isCallbackId, isCallbackToken, keys, sha256 } from "./settings.js";

export interface Callback {
  teamId: string;
  profileId: string;
  channelId: string;
}

const callbackDocSchema = z
  .object({
    v: z.literal(1),
    tokenSha256: z.string().regex(CALLBACK_ID_RE),
    teamId: idSchema,
    profileId: idSchema,
    channelId: z.string().min(1),
  })
  .strict();
type CallbackDoc = z.infer<typeof callbackDocSchema>;

/** How long a callback lookup is remembered by default (per store connection, so per process). */
export const CALLBACK_CACHE_TTL_MS = 5_000;
const CALLBACK_CACHE_MAX = 10_000;

interface CallbackCache {
  /** By callback id. */
  entries: Map<string, { callback: Callback | undefined; at: number }>;
  /** Bumped by every put and delete: a lookup that started before one is not remembered. */
  epoch: number;
}

/** Shared by every CallbackRepo over the same store connection. */
const callbackCaches = new WeakMap<Store, CallbackCache>();

export interface CallbackRepoOptions {
  /** How long a lookup (found or not) is remembered; 0 = never (default CALLBACK_CACHE_TTL_MS). */
  cacheTtlMs?: number;
  now?: () => number;
}

/**
 * Lookups are remembered for a few seconds, so the delivery route does not read and validate the
 * same document for every delivery. put() and delete() / deleteById() forget the callback at once
 * for every CallbackRepo over the same store connection (a removed callback stops accepting at once on
 * this replica); another replica, with its own connection, may accept it until its entry is
 * `cacheTtlMs` old.
 */
export class CallbackRepo {
  private readonly docs: Documents;
  private readonly cache: CallbackCache;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(store: Store, logger: Logger, opts: CallbackRepoOptions = {}) {
    this.docs = new Documents(store, logger.child({ component: "callbacks" }));
    let cache = callbackCaches.get(store);
    if (!cache) {
      cache = { entries: new Map(), epoch: 0 };
      callbackCaches.set(store, cache);
    }
    this.cache = cache;
    this.ttlMs = opts.cacheTtlMs ?? CALLBACK_CACHE_TTL_MS;
    this.now = opts.now ?? Date.now;
  }

  private forget(callbackId: string): void {
    this.cache.epoch += 1;
    this.cache.entries.delete(callbackId);
  }

  async put(token: string, callback: Callback): Promise<void> {
    if (!isCallbackToken(token)) throw new TypeError("a callback token is 32-64 characters of base64url");
    const hash = sha256(token);
    const doc: CallbackDoc = { v: 1, tokenSha256: hash.toString("hex"), ...callback };
    const checked = callbackDocSchema.safeParse(doc);
    if (!checked.success) throw new TypeError(`invalid callback: ${z.prettifyError(checked.error)}`);
    try {
      await this.docs.write(keys.callback(doc.tokenSha256), checked.data);
    } finally {
      this.forget(doc.tokenSha256);
    }
  }

  /** undefined for an unknown token, and for a malformed one without asking the store. */
  get(token: string): Promise<Callback | undefined> {
    // Not async itself (the lookup is): one promise per delivery rather than two.
    if (!isCallbackToken(token)) return Promise.resolve(undefined);
    // One-shot hex digest: the delivery route looks its token up for every delivery.
    return this.lookup(crypto.hash("sha256", token, "hex"));
  }

  /**
   * The callback with this id (sha256 of its token, hex), e.g. a profile's `callbackId`; undefined for
   * an unknown id, and for a malformed one without asking the store.
   */
  async getById(callbackId: string): Promise<Callback | undefined> {
    if (!isCallbackId(callbackId)) return undefined;
    return this.lookup(callbackId);
  }

  /** `callbackId`: 64 lowercase hex digits (a token's sha256, or checked by isCallbackId). */
  private async lookup(callbackId: string): Promise<Callback | undefined> {
    const hit = this.cache.entries.get(callbackId);
    if (hit && this.now() - hit.at < this.ttlMs) return hit.callback && { ...hit.callback };
    const epoch = this.cache.epoch;
    const doc = await this.docs.read(keys.callback(callbackId), callbackDocSchema);
    // The schema guarantees 64 hex digits, hence 32 bytes like `hash`.
    const callback =
      doc !== undefined &&
      crypto.timingSafeEqual(Buffer.from(doc.tokenSha256, "hex"), Buffer.from(callbackId, "hex"))
        ? { teamId: doc.teamId, profileId: doc.profileId, channelId: doc.channelId }
        : undefined;
    if (this.ttlMs > 0 && epoch === this.cache.epoch) {
      if (this.cache.entries.size >= CALLBACK_CACHE_MAX) this.cache.entries.clear();
      this.cache.entries.set(callbackId, { callback, at: this.now() });
    }
    return callback && { ...callback };
  }

  /** No-op for an unknown or malformed token. */
  async delete(token: string): Promise<void> {
    if (!isCallbackToken(token)) return;
    await this.deleteById(sha256(token).toString("hex"));
  }

  /** By callback id (a profile's `callbackId`). No-op for an unknown or malformed id. */
  async deleteById(callbackId: string): Promise<void> {
    if (!isCallbackId(callbackId)) return;
    try {
      await this.docs.remove(keys.callback(callbackId));
    } finally {
      this.forget(callbackId);
    }
  }
}
