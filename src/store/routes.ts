/**
 * Delivery routes: callback token → (workspace, profile, channel), behind `/hooks/platform/<token>`.
 *
 *   route:<route id>   { v: 1, tokenSha256: <route id>, teamId, profileId, channelId }
 *
 * The token itself is never stored. Its route id, sha256(token) in hex, is the key, so looking up
 * a guessed token costs the same whatever part of it is right (the store compares hashes, not the
 * token), and the record keeps the same hash, compared with `crypto.timingSafeEqual` before the
 * route is trusted. A workspace's settings keep the route id (ProfileSettings.routeId), which is
 * enough to find or delete the route, and not enough to deliver to it.
 */
import crypto from "node:crypto";
import { z } from "zod";
import type { Logger } from "../log.js";
import { Documents } from "./documents.js";
import type { Store } from "./keyv.js";
import { idSchema, isCallbackToken, isRouteId, keys, ROUTE_ID_RE, sha256 } from "./settings.js";

export interface Route {
  teamId: string;
  profileId: string;
  channelId: string;
}

const routeDocSchema = z
  .object({
    v: z.literal(1),
    tokenSha256: z.string().regex(ROUTE_ID_RE),
    teamId: idSchema,
    profileId: idSchema,
    channelId: z.string().min(1),
  })
  .strict();
type RouteDoc = z.infer<typeof routeDocSchema>;

/** How long a route lookup is remembered by default (per store connection, so per process). */
export const ROUTE_CACHE_TTL_MS = 5_000;
const ROUTE_CACHE_MAX = 10_000;

interface RouteCache {
  /** By route id. */
  entries: Map<string, { route: Route | undefined; at: number }>;
  /** Bumped by every put and delete: a lookup that started before one is not remembered. */
  epoch: number;
}

/** Shared by every RouteRepo over the same store connection. */
const routeCaches = new WeakMap<Store, RouteCache>();

export interface RouteRepoOptions {
  /** How long a lookup (found or not) is remembered; 0 = never (default ROUTE_CACHE_TTL_MS). */
  cacheTtlMs?: number;
  now?: () => number;
}

/**
 * Lookups are remembered for a few seconds, so the delivery route does not read and validate the
 * same document for every delivery. put() and delete() / deleteById() forget the route at once
 * for every RouteRepo over the same store connection (a removed route stops accepting at once on
 * this replica); another replica, with its own connection, may accept it until its entry is
 * `cacheTtlMs` old.
 */
export class RouteRepo {
  private readonly docs: Documents;
  private readonly cache: RouteCache;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(store: Store, logger: Logger, opts: RouteRepoOptions = {}) {
    this.docs = new Documents(store, logger.child({ component: "routes" }));
    let cache = routeCaches.get(store);
    if (!cache) {
      cache = { entries: new Map(), epoch: 0 };
      routeCaches.set(store, cache);
    }
    this.cache = cache;
    this.ttlMs = opts.cacheTtlMs ?? ROUTE_CACHE_TTL_MS;
    this.now = opts.now ?? Date.now;
  }

  private forget(routeId: string): void {
    this.cache.epoch += 1;
    this.cache.entries.delete(routeId);
  }

  async put(token: string, route: Route): Promise<void> {
    if (!isCallbackToken(token)) throw new TypeError("a callback token is 32-64 characters of base64url");
    const hash = sha256(token);
    const doc: RouteDoc = { v: 1, tokenSha256: hash.toString("hex"), ...route };
    const checked = routeDocSchema.safeParse(doc);
    if (!checked.success) throw new TypeError(`invalid route: ${z.prettifyError(checked.error)}`);
    try {
      await this.docs.write(keys.route(doc.tokenSha256), checked.data);
    } finally {
      this.forget(doc.tokenSha256);
    }
  }

  /** undefined for an unknown token, and for a malformed one without asking the store. */
  get(token: string): Promise<Route | undefined> {
    // Not async itself (the lookup is): one promise per delivery rather than two.
    if (!isCallbackToken(token)) return Promise.resolve(undefined);
    // One-shot hex digest: the delivery route looks its token up for every delivery.
    return this.lookup(crypto.hash("sha256", token, "hex"));
  }

  /**
   * The route with this id (sha256 of its token, hex), e.g. a profile's `routeId`; undefined for
   * an unknown id, and for a malformed one without asking the store.
   */
  async getById(routeId: string): Promise<Route | undefined> {
    if (!isRouteId(routeId)) return undefined;
    return this.lookup(routeId);
  }

  /** `routeId`: 64 lowercase hex digits (a token's sha256, or checked by isRouteId). */
  private async lookup(routeId: string): Promise<Route | undefined> {
    const hit = this.cache.entries.get(routeId);
    if (hit && this.now() - hit.at < this.ttlMs) return hit.route && { ...hit.route };
    const epoch = this.cache.epoch;
    const doc = await this.docs.read(keys.route(routeId), routeDocSchema);
    // The schema guarantees 64 hex digits, hence 32 bytes like `hash`.
    const route =
      doc !== undefined &&
      crypto.timingSafeEqual(Buffer.from(doc.tokenSha256, "hex"), Buffer.from(routeId, "hex"))
        ? { teamId: doc.teamId, profileId: doc.profileId, channelId: doc.channelId }
        : undefined;
    if (this.ttlMs > 0 && epoch === this.cache.epoch) {
      if (this.cache.entries.size >= ROUTE_CACHE_MAX) this.cache.entries.clear();
      this.cache.entries.set(routeId, { route, at: this.now() });
    }
    return route && { ...route };
  }

  /** No-op for an unknown or malformed token. */
  async delete(token: string): Promise<void> {
    if (!isCallbackToken(token)) return;
    await this.deleteById(sha256(token).toString("hex"));
  }

  /** By route id (a profile's `routeId`). No-op for an unknown or malformed id. */
  async deleteById(routeId: string): Promise<void> {
    if (!isRouteId(routeId)) return;
    try {
      await this.docs.remove(keys.route(routeId));
    } finally {
      this.forget(routeId);
    }
  }
}
