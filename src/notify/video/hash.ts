/** Canonical JSON and hashing shared by the video reducer (dedupe keys) and renderer (parent hash). */
import { hash } from "node:crypto";

/**
 * JSON with object keys sorted recursively (code-unit order), so equal values give equal text
 * whatever their key insertion order. Like `JSON.stringify`: `undefined` and functions are left
 * out of objects and become `null` in arrays, non-finite numbers become `null`.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || value === undefined) return "null";
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "number":
      return Number.isFinite(value) ? JSON.stringify(value) : "null";
    case "boolean":
      return value ? "true" : "false";
    case "bigint":
      return JSON.stringify(value.toString());
    case "function":
    case "symbol":
      return "null";
    default:
      break;
  }
  // Plain string building rather than map/join: this runs for every delivery (dedupe key).
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) out += (i === 0 ? "" : ",") + canonicalJson(value[i]);
    return `${out}]`;
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj);
  if (keys.length > 1) keys.sort();
  let out = "{";
  let first = true;
  for (const key of keys) {
    const v = obj[key];
    if (v === undefined || typeof v === "function" || typeof v === "symbol") continue;
    out += `${first ? "" : ","}${JSON.stringify(key)}:${canonicalJson(v)}`;
    first = false;
  }
  return `${out}}`;
}

/** One-shot hashing (no Hash object per call): the delivery route hashes twice per delivery. */
export function sha256Hex(text: string): string {
  return hash("sha256", text, "hex");
}

/** Sets an own, enumerable property even for names like `__proto__` (never touches a prototype). */
export function setOwn<T>(obj: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The own property `key`, or undefined (never an inherited one such as `constructor`). */
export function getOwn<T>(obj: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}
