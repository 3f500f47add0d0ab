/**
 * The delivery route's hand-written check (src/platform/delivery-check.ts) against the zod schemas
 * it stands in for: on valid, mutated and random bodies, parseDelivery gives exactly what the zod
 * path gives (verdict, error, value, key order), and the fast check takes the common case.
 */

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { WEBHOOK_EVENTS } from "../../src/domain/index.js";
import { parseDelivery } from "../../src/platform/delivery.js";
import { fastDelivery } from "../../src/platform/delivery-check.js";
import { parseDeliveryWithZod } from "../../src/platform/schemas.js";
import { runs, validDeliveryArb } from "../fuzz/arbitraries.js";

/** Same verdict, error text, value and key order, and the data a plain object either way. */
function expectSame(body: unknown): void {
  const fast = parseDelivery(body);
  const zod = parseDeliveryWithZod(body);
  expect(fast).toEqual(zod);
  expect(JSON.stringify(fast)).toBe(JSON.stringify(zod));
  if (fast.ok && zod.ok) {
    expect(Object.keys(fast.value.data)).toEqual(Object.keys(zod.value.data));
    expect(Object.getPrototypeOf(fast.value.data)).toBe(Object.getPrototypeOf(zod.value.data));
    expect(fast.value.data).not.toBe(body === null ? null : (body as { data?: unknown }).data);
  }
}

const anyType = fc.oneof(fc.constantFrom(...WEBHOOK_EVENTS), fc.string({ maxLength: 3 }), fc.jsonValue());
const fieldValue = fc.oneof(
  fc.string({ maxLength: 5 }),
  fc.double(),
  fc.integer({ min: -5, max: 105 }),
  fc.constantFrom(null, true, -0, 100.5, 1e21, "", [], {}),
);
const FIELDS = ["owner_id", "video_id", "preset_name", "status", "progress"] as const;

/** A valid delivery, then one field set, changed or removed, in the envelope or the data. */
const mutated = fc
  .tuple(
    validDeliveryArb("x2owner"),
    fc.constantFrom("type", "timestamp", "data", ...FIELDS),
    fc.option(fc.oneof(fieldValue, anyType), { nil: undefined }),
  )
  .map(([d, field, value]) => {
    const body: Record<string, unknown> = { ...d, data: { ...d.data } };
    const target = (
      field === "type" || field === "timestamp" || field === "data" ? body : body.data
    ) as Record<string, unknown>;
    if (value === undefined) delete target[field];
    else target[field] = value;
    return body;
  });

describe("fast delivery check", () => {
  it("agrees with zod on valid deliveries (as JSON.parse gives them) and takes them itself", () => {
    fc.assert(
      fc.property(validDeliveryArb("x2owner"), (d) => {
        const body = JSON.parse(JSON.stringify(d)) as unknown;
        expectSame(body);
        const special = Object.hasOwn(d.data, "__proto__") || Object.hasOwn(d.data, "constructor");
        if (!special) expect(fastDelivery(body)).toBeDefined();
      }),
      { numRuns: runs(400) },
    );
  });

  it("agrees with zod on mutated deliveries", () => {
    fc.assert(
      fc.property(mutated, (body) => {
        expectSame(body);
        expectSame(JSON.parse(JSON.stringify(body)) as unknown);
      }),
      { numRuns: runs(1000) },
    );
  });

  it("counts a type's length in UTF-16 code units on both paths: 200 pass, 201 are refused", () => {
    const data = { owner_id: "x2vq8nw", video_id: "fz13" };
    // 100 emoji are 200 code units but 100 code points: zod's max() alone would let 201 through.
    const at200 = { type: "😀".repeat(100), timestamp: 1, data };
    const at201 = { type: `${"😀".repeat(100)}x`, timestamp: 1, data };
    expect(parseDelivery(at200).ok).toBe(true);
    expect(parseDeliveryWithZod(at200).ok).toBe(true);
    expect(parseDelivery(at201).ok).toBe(false);
    expect(parseDeliveryWithZod(at201).ok).toBe(false);
    expectSame(at201);
  });

  it("agrees with zod on random JSON and odd objects", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), (v) => expectSame(v)),
      { numRuns: runs(300) },
    );
    const odd: unknown[] = [
      null,
      [],
      "x",
      new Date(0),
      Object.create(null),
      { type: "video.created", timestamp: 1, data: Object.create(null) },
      { type: "video.created", timestamp: 1, data: [] },
      { type: "video.created", timestamp: 1, data: new Map() },
      { type: "video.created", timestamp: 1.5, data: { owner_id: "o", video_id: "v" } },
      {
        type: "video.created",
        timestamp: Number.MAX_SAFE_INTEGER + 2,
        data: { owner_id: "o", video_id: "v" },
      },
      { type: "video.created", timestamp: -1, data: { owner_id: "o", video_id: "v" } },
      { type: "x".repeat(201), timestamp: 1, data: {} },
      { type: "x".repeat(200), timestamp: 1, data: { 2: "b", 1: "a", z: 1 } },
      { type: "video.complete", timestamp: 1, data: { video_id: "v", owner_id: undefined } },
      { type: "video.complete", timestamp: 1, data: { video_id: "v", extra: undefined } },
      {
        type: "video.format.processing",
        timestamp: 1,
        data: { owner_id: "o", video_id: "v", preset_name: "p", status: "s", progress: Number.NaN },
      },
      ...[-0.5, -0, 0, 100, 100.5, Number.POSITIVE_INFINITY, "50"].map((progress) => ({
        type: "video.format.processing",
        timestamp: 1,
        data: { owner_id: "o", video_id: "v", preset_name: "p", status: "s", progress },
      })),
      {
        type: "video.format.processing",
        timestamp: 1,
        data: { progress: 100, status: "s", preset_name: "p", video_id: "v", owner_id: "o", a: 1 },
      },
      { type: "video.created", timestamp: 1, data: { [Symbol("s")]: 1, owner_id: "o", video_id: "v" } },
      JSON.parse(
        '{"type":"video.created","timestamp":1,"data":{"__proto__":{"x":1},"owner_id":"o","video_id":"v"}}',
      ),
      JSON.parse(
        '{"type":"video.created","timestamp":1,"data":{"constructor":"c","owner_id":"o","video_id":"v"}}',
      ),
      JSON.parse('{"__proto__":{"type":"video.created"},"timestamp":1,"data":{}}'),
    ];
    for (const v of odd) expectSame(v);
  });
});
