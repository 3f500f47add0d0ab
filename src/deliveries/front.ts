/**
 * The front of the bot's HTTP server: the hot paths answered before Bolt's router.
 * More: README.md ("front.ts").
 */
import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { DELIVERY_PREFIX } from "../http/paths.js";

export interface FrontRoutes {
  /** Answers a delivery for `token`. */
  delivery(req: IncomingMessage, res: ServerResponse, token: string): void;
}

/** A token segment the front answers itself: base64url, nothing to decode. */
const PLAIN_TOKEN = /^[A-Za-z0-9_-]{1,128}$/;

/** The token of a plain `/hooks/platform/<token>` URL (no query, slash or escape), else null. */
export function plainDeliveryToken(url: string | undefined): string | null {
  if (url === undefined || !url.startsWith(DELIVERY_PREFIX)) return null;
  const token = url.slice(DELIVERY_PREFIX.length);
  return PLAIN_TOKEN.test(token) ? token : null;
}

/** A request listener answering the hot paths and deferring the rest to `fallback`. */
export function frontListener(fallback: RequestListener, routes: FrontRoutes): RequestListener {
  return (req, res) => {
    if (req.method === "POST") {
      const token = plainDeliveryToken(req.url);
      if (token !== null) return routes.delivery(req, res, token);
    }
    try {
      return fallback(req, res);
    } catch (err) {
      // Bolt's router decodes path segments with decodeURIComponent: a malformed escape ("%zz")
      // throws, which Bolt would answer 500 and log as an unexpected error.
      if (!(err instanceof URIError)) throw err;
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: "malformed URL" }));
    }
  };
}
