/**
 * Time limits on the bot's HTTP server, so a slow or silent client cannot hold a connection:
 *  - headersMs: from the connection (or the end of the previous response) to a request's complete
 *    headers;
 *  - requestMs: from a request's headers to the end of its response (the body included);
 *  - keepAliveMs: an idle keep-alive connection is closed after this long.
 * Node has the same settings (`headersTimeout`, `requestTimeout`, `keepAliveTimeout`, set here
 * too), but it checks the first two only every `connectionsCheckingInterval` (30 s, fixed when
 * More: README.md ("timeouts.ts").
 */
import type { IncomingMessage, Server, ServerResponse } from "node:http";
import type { Socket } from "node:net";

export interface ServerTimeouts {
  headersMs: number;
  requestMs: number;
  keepAliveMs: number;
}

export const DEFAULT_SERVER_TIMEOUTS: ServerTimeouts = {
  headersMs: 10_000,
  requestMs: 30_000,
  keepAliveMs: 5_000,
};

const DEADLINE = Symbol("deadline");
type Tracked = Socket & { [DEADLINE]?: number };

/** Applies `t` (missing fields: the defaults) to `server`; the checks stop when it closes. */
export function applyServerTimeouts(server: Server | undefined, t: Partial<ServerTimeouts> = {}): void {
  if (!server) return;
  const { headersMs, requestMs, keepAliveMs } = { ...DEFAULT_SERVER_TIMEOUTS, ...t };
  server.headersTimeout = headersMs;
  server.requestTimeout = requestMs;
  server.keepAliveTimeout = keepAliveMs;
  const sockets = new Set<Tracked>();
  server.on("connection", (socket: Tracked) => {
    socket[DEADLINE] = Date.now() + headersMs;
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  server.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const socket = req.socket as Tracked;
    socket[DEADLINE] = Date.now() + requestMs;
    res.once("finish", () => {
      // Idle until the next request (keep-alive), then that request's headers.
      socket[DEADLINE] = Date.now() + keepAliveMs + headersMs;
    });
  });
  const timer = setInterval(
    () => {
      const now = Date.now();
      for (const socket of sockets) {
        if ((socket[DEADLINE] ?? Number.POSITIVE_INFINITY) <= now) {
          sockets.delete(socket);
          socket.destroy();
        }
      }
    },
    Math.max(10, Math.floor(Math.min(headersMs, requestMs, keepAliveMs) / 4)),
  );
  timer.unref();
  server.once("close", () => clearInterval(timer));
}
