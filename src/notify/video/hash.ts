/** Canonical JSON and hashing shared by the video reducer (dedupe keys) and renderer (parent hash). */
import { createHash } from "node:crypto";

/**
 * JSON with object keys sorted recursively (code-unit order), so equal values give equal text
 * whatever their key insertion order. Like `JSON.stringify`: `undefined` and functions are left
 * out of objects and become `null` in arrays, non-finite numbers become `null`.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || value === undefined) return "null";
  switch (typeof value) {
    case "number":
      return Number.isFinite(value) ? JSON.stringify(value) : "null";
    case "string":
    case "boolean":
      return JSON.stringify(value);
    case "bigint":
      return JSON.stringify(value.toString());
    case "function":
    case "symbol":
      return "null";
    default:
      break;
  }
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v)).join(",")}]`;
  const obj = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(obj).sort()) {
    const v = obj[key];
    if (v === undefined || typeof v === "function" || typeof v === "symbol") continue;
    parts.push(`${JSON.stringify(key)}:${canonicalJson(v)}`);
  }
  return `{${parts.join(",")}}`;
}

export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

/** Sets an own, enumerable property even for names like `__proto__` (never touches a prototype). */
export function setOwn<T>(obj: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The own property `key`, or undefined (never an inherited one such as `constructor`). */
export function getOwn<T>(obj: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}
