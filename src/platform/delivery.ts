/**
 * parseDelivery: the fast hand-written check (delivery-check.ts) for the common case, the zod
 * schemas (schemas.ts) for the rest. Kept apart from both so neither imports the other.
 */
import { fastDelivery } from "./delivery-check.js";
import { type Delivery, type ParseResult, parseDeliveryWithZod } from "./schemas.js";

/**
 * Parses a delivery body (already JSON-decoded). Known types must carry the data the spec shows;
 * unknown types become a generic event rather than a rejection (the event list can change).
 * A hand-written check takes the common case (src/platform/delivery-check.ts); zod decides the rest.
 */
export function parseDelivery(body: unknown): ParseResult<Delivery> {
  const fast = fastDelivery(body);
  return fast !== undefined ? { ok: true, value: fast } : parseDeliveryWithZod(body);
}
