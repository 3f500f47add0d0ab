/** Hashing for the video reducer (dedupe keys) and the worker (parent hash), over canonical JSON. */

import { hash } from "node:crypto";
import { canonicalJson } from "../domain/index.js";
import type { Delivery } from "../platform/index.js";

/** True when arrays/objects in `value` nest deeper than `max` levels (iterative, stops early). */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<{ v: unknown; depth: number }> = [{ v: value, depth: 0 }];
  for (let e = stack.pop(); e !== undefined; e = stack.pop()) {
    if (typeof e.v !== "object" || e.v === null) continue;
    const depth = e.depth + 1;
    if (depth > max) return true;
    for (const child of Object.values(e.v)) {
      if (typeof child === "object" && child !== null) stack.push({ v: child, depth });
    }
  }
  return false;
}

/** One-shot hashing (no Hash object per call): the delivery route hashes twice per delivery. */
export function sha256Hex(text: string): string {
  return hash("sha256", text, "hex");
}

/** Stable hash of a rendering (key order does not matter), to skip identical chat.update calls. */
export function parentHash(m: { text: string; blocks: readonly unknown[] }): string {
  return sha256Hex(canonicalJson({ text: m.text, blocks: m.blocks }));
}

/** Sets an own, enumerable property even for names like `__proto__` (never touches a prototype). */
export function setOwn<T>(obj: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The own property `key`, or undefined (never an inherited one such as `constructor`). */
export function getOwn<T>(obj: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/** sha256 hex of `type|timestamp|canonical JSON of data`: the same delivery gives the same key. */
export function dedupeKeyOf(d: Delivery): string {
  return sha256Hex(`${d.type}|${d.timestamp}|${canonicalJson(d.data)}`);
}
