/**
 * Scratch stores for tests that run on the three stores: a fresh sqlite file in a temporary folder
 * or a fresh Redis namespace per call, and one `cleanup` that removes the folders and deletes the
 * namespaces' keys (pass it to `afterAll`).
 */
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createClient } from "@keyv/redis";
import type { StoreUrl } from "../../src/config.js";

export const REDIS_URL = "redis://127.0.0.1:6379";
export type StoreKind = "memory" | "sqlite" | "redis";

/** Deletes every Redis key under the given namespaces (no connection when there are none). */
export async function dropNamespaces(namespaces: readonly string[]): Promise<void> {
  if (namespaces.length === 0) return;
  const client = createClient({ url: REDIS_URL });
  await client.connect();
  for (const ns of namespaces) {
    for await (const keys of client.scanIterator({ MATCH: `${ns}*`, COUNT: 500 })) {
      if (keys.length > 0) await client.del(keys);
    }
  }
  await client.quit();
}

export interface ScratchStores {
  /** The harness options for a store of `kind`: none for memory, a new file or namespace otherwise. */
  storeFor(kind: "sqlite" | "redis"): { store: StoreUrl; namespace?: string };
  storeFor(kind: StoreKind): { store?: StoreUrl; namespace?: string };
  /** A new Redis namespace, removed by `cleanup`. */
  namespace(): string;
  cleanup(): Promise<void>;
}

/** Folders are named `bot-<name>-…`, namespaces `test-<name>-…`. */
export function scratchStores(name: string): ScratchStores {
  const dirs: string[] = [];
  const namespaces: string[] = [];
  const namespace = (): string => {
    const ns = `test-${name}-${randomUUID()}`;
    namespaces.push(ns);
    return ns;
  };
  function storeFor(kind: "sqlite" | "redis"): { store: StoreUrl; namespace?: string };
  function storeFor(kind: StoreKind): { store?: StoreUrl; namespace?: string };
  function storeFor(kind: StoreKind): { store?: StoreUrl; namespace?: string } {
    if (kind === "memory") return {};
    if (kind === "sqlite") {
      const dir = mkdtempSync(join(tmpdir(), `bot-${name}-`));
      dirs.push(dir);
      const path = join(dir, "bot.sqlite");
      return { store: { kind: "sqlite", path, url: `sqlite://${path}` } };
    }
    return { store: { kind: "redis", url: REDIS_URL }, namespace: namespace() };
  }
  return {
    storeFor,
    namespace,
    cleanup: async () => {
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
      await dropNamespaces(namespaces);
    },
  };
}
