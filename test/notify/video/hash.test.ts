/**
 * canonicalJson and sha256Hex (the dedupe key of every delivery) against plain reference
 * implementations: the same text for every value, whatever its key order.
 */

import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../../src/domain/index.js";
import { sha256Hex } from "../../../src/video/hash.js";

/** The straightforward version: sorted keys, JSON.stringify's rules for the rest. */
function reference(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "number") return Number.isFinite(value) ? JSON.stringify(value) : "null";
  if (typeof value === "string" || typeof value === "boolean") return JSON.stringify(value);
  if (typeof value === "bigint") return JSON.stringify(value.toString());
  if (typeof value === "function" || typeof value === "symbol") return "null";
  if (Array.isArray(value)) return `[${value.map(reference).join(",")}]`;
  const obj = value as Record<string, unknown>;
  const parts = Object.keys(obj)
    .sort()
    .filter((k) => obj[k] !== undefined && typeof obj[k] !== "function" && typeof obj[k] !== "symbol")
    .map((k) => `${JSON.stringify(k)}:${reference(obj[k])}`);
  return `{${parts.join(",")}}`;
}

/** The same members inserted in reverse order. */
function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value).reverse()) {
    Object.defineProperty(out, k, {
      value: reversed((value as Record<string, unknown>)[k]),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

describe("canonicalJson", () => {
  it("matches the reference, and ignores key order", () => {
    fc.assert(
      fc.property(
        fc.anything({ withBigInt: true, withNullPrototype: true, withObjectString: false }),
        (v) => {
          expect(canonicalJson(v)).toBe(reference(v));
          expect(canonicalJson(reversed(v))).toBe(canonicalJson(v));
        },
      ),
      { numRuns: 500 },
    );
    expect(canonicalJson({ b: [1, undefined, () => 1, Number.NaN], a: -0, "10": true, "9": "x" })).toBe(
      '{"10":true,"9":"x","a":0,"b":[1,null,null,null]}',
    );
  });

  it("sha256Hex is the hex sha256 of the UTF-8 text", () => {
    for (const s of ["", "abc", "é€😀", "x".repeat(10_000)]) {
      expect(sha256Hex(s)).toBe(createHash("sha256").update(s, "utf8").digest("hex"));
    }
  });
});

describe("canonicalJson of deeply nested data", () => {
  it("gives the canonical text 50,000 levels deep, without a stack overflow", () => {
    let v: unknown = { leaf: [1, { b: 2, a: 1 }] };
    let expected = '{"leaf":[1,{"a":1,"b":2}]}';
    for (let i = 0; i < 50_000; i++) {
      v = i % 2 ? { z: 1, a: v } : [v, null];
      expected = i % 2 ? `{"a":${expected},"z":1}` : `[${expected},null]`;
    }
    const text = canonicalJson(v);
    expect(text).toBe(expected);
    expect(sha256Hex(text)).toMatch(/^[0-9a-f]{64}$/);
  });
});
