/**
 * The bot's HTTP paths, defined once: the receiver registers them, the delivery route answers
 * them, and `/webhook set` builds the callback URL it registers on the platform from them.
 */

/** `POST /hooks/platform/<token>`: the platform's webhook deliveries (contract, HTTP routes). */
export const DELIVERY_PREFIX = "/hooks/platform/";

/** The same path as a Bolt custom-route pattern. */
export const DELIVERY_ROUTE = `${DELIVERY_PREFIX}:token`;

/** The callback URL of a delivery route: `${PUBLIC_URL}/hooks/platform/<token>`. */
export function callbackUrlFor(publicUrl: string, token: string): string {
  return `${publicUrl}${DELIVERY_PREFIX}${token}`;
}
