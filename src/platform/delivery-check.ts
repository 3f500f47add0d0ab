/**
 * The delivery route's fast check: the rules of `parseDelivery` (src/platform/delivery.ts) written
 * out by hand for the common case, a plain JSON object that passes them. It builds exactly the
 * value the zod schemas build (same fields, same key order) and answers undefined for everything
 * else, valid or not; `parseDelivery` then asks zod, which stays the reference and writes the
 * error messages. So the fast check can only ever make parsing cheaper, never change a verdict
 * (test/platform/delivery-check.test.ts compares the two on generated and mutated deliveries).
 * More: README.md ("delivery-check.ts").
 */
import type { Delivery } from "./schemas.js";

/** A field of a known event's data: a required string, an optional string, or a 0–100 number. */
type Field = readonly [name: string, rule: "string" | "optional" | "percent"];

const REF: readonly Field[] = [
  ["owner_id", "string"],
  ["video_id", "string"],
];
const LOOSE_REF: readonly Field[] = [
  ["owner_id", "optional"],
  ["video_id", "string"],
];

/** The fields DELIVERY_DATA_SCHEMAS checks, in the order of each schema's shape. */
const FIELDS: ReadonlyMap<string, readonly Field[]> = new Map<string, readonly Field[]>([
  ["video.created", REF],
  ["video.published", REF],
  ["video.deleted", REF],
  [
    "video.format.processing",
    [...REF, ["preset_name", "string"], ["status", "string"], ["progress", "percent"]],
  ],
  ["video.format.ready", [...REF, ["preset_name", "string"], ["status", "string"]]],
  ["video.complete", LOOSE_REF],
  ["video.format.error", [...LOOSE_REF, ["preset_name", "optional"]]],
  ["video.format.deleted", [...LOOSE_REF, ["preset_name", "optional"]]],
]);

const hasOwn = Object.hasOwn;

/** A plain object as JSON.parse makes it, with none of the keys zod treats specially. */
function isPlainData(v: unknown): v is Record<string, unknown> {
  return (
    typeof v === "object" &&
    v !== null &&
    Object.getPrototypeOf(v) === Object.prototype &&
    !hasOwn(v, "__proto__") &&
    !hasOwn(v, "constructor")
  );
}

function fieldOk(data: Record<string, unknown>, name: string, rule: Field[1]): boolean {
  if (!hasOwn(data, name)) return rule === "optional";
  const v = data[name];
  if (rule === "percent") return typeof v === "number" && v >= 0 && v <= 100;
  return typeof v === "string";
}

/**
 * The delivery `body` stands for when it is a plain object that passes every rule; undefined when
 * zod has to decide (whatever is invalid, and every unusual but maybe valid input).
 */
export function fastDelivery(body: unknown): Delivery | undefined {
  if (!isPlainData(body)) return undefined;
  const { type, timestamp, data } = body;
  if (typeof type !== "string" || type.length < 1 || type.length > 200) return undefined;
  if (typeof timestamp !== "number" || !Number.isSafeInteger(timestamp) || timestamp < 0) return undefined;
  if (!isPlainData(data) || Object.getOwnPropertySymbols(data).length > 0) return undefined;
  const fields = FIELDS.get(type);
  const out: Record<string, unknown> = {};
  if (fields === undefined) {
    for (const key of Object.keys(data)) out[key] = data[key];
    return { type, timestamp, data: out, known: false };
  }
  for (const [name, rule] of fields) {
    if (!fieldOk(data, name, rule)) return undefined;
    if (hasOwn(data, name)) out[name] = data[name];
  }
  for (const key of Object.keys(data)) if (!hasOwn(out, key)) out[key] = data[key];
  return { type, timestamp, data: out, known: true } as Delivery;
}
