/**
 * Socket Mode of the Slack stand-in: `apps.connections.open` (authorized with the app-level
 * xapp- token) hands out a one-use `ws://…/link/?ticket=…` URL; the WebSocket served there
 * speaks Slack's Socket Mode protocol as @slack/socket-mode reads it:
 *
 * - on connect the server sends `{type:"hello", num_connections, debug_info, connection_info}`;
 * - requests arrive as envelopes `{envelope_id, type, payload, accepts_response_payload}` with
 *   type `slash_commands`, `interactive` or `events_api` (this one with `retry_attempt` and
 *   `retry_reason`), and the app acknowledges each with `{envelope_id, payload?}`;
 * - `{type:"disconnect", reason}` asks the app to reconnect (it closes and calls
 *   apps.connections.open again);
 * - WebSocket pings both ways: the server pings every `pingIntervalMs` and answers the
 *   client's pings with pongs.
 */
import { randomUUID } from "node:crypto";
import type { IncomingMessage, Server } from "node:http";
import type { Duplex } from "node:stream";
import { type WebSocket, WebSocketServer } from "ws";
import { STANDIN } from "./seed.js";
import type { SocketAck, SocketEnvelopeType, SocketModeStandin, SocketSendOptions } from "./types.js";
import { isObj, type Obj, SlackFailure } from "./workspace.js";

/** How long a ticket from apps.connections.open may wait before its WebSocket connects. */
const TICKET_LIFETIME_MS = 30_000;

interface Pending {
  resolve(ack: SocketAck): void;
  reject(err: Error): void;
  timer: NodeJS.Timeout;
}

export interface SocketServerOptions {
  appToken: string;
  botToken: string;
  /** base URL of the stand-in (http://127.0.0.1:PORT) */
  baseUrl: () => string;
  now: () => number;
  pingIntervalMs: number;
}

export class SocketServer {
  readonly wss = new WebSocketServer({ noServer: true, clientTracking: true });
  readonly acks: SocketAck[] = [];
  /** text messages from the app that are not acks of a pending envelope */
  readonly stray: unknown[] = [];
  /** open connections, oldest first (the newest gets the envelopes) */
  private readonly open: WebSocket[] = [];
  private readonly tickets = new Map<string, number>();
  private readonly pending = new Map<string, Pending>();
  private readonly waiters = new Set<() => void>();
  private connectionCount = 0;
  private clientPings = 0;
  private readonly pinger: NodeJS.Timeout;

  constructor(private readonly o: SocketServerOptions) {
    this.pinger = setInterval(() => {
      for (const socket of this.open) socket.ping(Buffer.from(`ping ${o.now()}`));
    }, o.pingIntervalMs);
    this.pinger.unref();
  }

  /** apps.connections.open: the app-level token in, a one-use WebSocket URL out. */
  openConnection(token: string | undefined): Obj {
    if (token === undefined) throw new SlackFailure("not_authed");
    if (token === this.o.botToken || /^xox[abpe]-/.test(token))
      throw new SlackFailure("not_allowed_token_type");
    if (token !== this.o.appToken) throw new SlackFailure("invalid_auth");
    const ticket = randomUUID();
    this.tickets.set(ticket, this.o.now());
    const ws = this.o.baseUrl().replace(/^http/, "ws");
    return { ok: true, url: `${ws}/link/?ticket=${ticket}&app_id=${STANDIN.appId}` };
  }

  /** The HTTP server's `upgrade` handler: only /link/ with a fresh ticket becomes a WebSocket. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const url = new URL(req.url ?? "/", "http://standin.invalid");
    const ticket = url.searchParams.get("ticket") ?? "";
    const issued = this.tickets.get(ticket);
    if (url.pathname !== "/link/" || issued === undefined || this.o.now() - issued > TICKET_LIFETIME_MS) {
      socket.end("HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n");
      return;
    }
    this.tickets.delete(ticket);
    this.wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws));
  }

  private accept(ws: WebSocket): void {
    this.open.push(ws);
    this.connectionCount += 1;
    ws.on("ping", () => {
      this.clientPings += 1;
    });
    ws.on("message", (data, isBinary) => {
      if (isBinary) return;
      this.received(String(data));
    });
    ws.on("close", () => {
      const i = this.open.indexOf(ws);
      if (i >= 0) this.open.splice(i, 1);
    });
    ws.on("error", () => ws.terminate());
    ws.send(
      JSON.stringify({
        type: "hello",
        num_connections: this.open.length,
        debug_info: {
          host: "applink-standin",
          build_number: 1,
          approximate_connection_time: 18060,
        },
        connection_info: { app_id: STANDIN.appId },
      }),
    );
    for (const wake of this.waiters) wake();
  }

  private received(text: string): void {
    let message: unknown;
    try {
      message = JSON.parse(text);
    } catch {
      this.stray.push(text);
      return;
    }
    const id = isObj(message) && typeof message.envelope_id === "string" ? message.envelope_id : undefined;
    const waiting = id === undefined ? undefined : this.pending.get(id);
    if (id === undefined || waiting === undefined || !isObj(message)) {
      this.stray.push(message);
      return;
    }
    this.pending.delete(id);
    clearTimeout(waiting.timer);
    const ack: SocketAck = { envelope_id: id, at: this.o.now() };
    if (isObj(message.payload)) ack.payload = message.payload;
    this.acks.push(ack);
    waiting.resolve(ack);
  }

  get connections(): number {
    return this.open.length;
  }

  get connects(): number {
    return this.connectionCount;
  }

  get pingsFromApp(): number {
    return this.clientPings;
  }

  /** Resolves once at least `n` connections have been made since start (or rejects after timeoutMs). */
  async waitForConnects(n: number, timeoutMs = 10_000): Promise<void> {
    await this.until(() => this.connectionCount >= n && this.open.length > 0, timeoutMs, `${n} connections`);
  }

  private until(ready: () => boolean, timeoutMs: number, what: string): Promise<void> {
    if (ready()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const wake = () => {
        if (!ready()) return;
        this.waiters.delete(wake);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(wake);
        reject(new Error(`Socket Mode stand-in: no ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.add(wake);
    });
  }

  /** Sends an envelope to the newest open connection (waiting for one) and resolves with its ack. */
  async send(type: SocketEnvelopeType, payload: Obj, opts: SocketSendOptions = {}): Promise<SocketAck> {
    const timeoutMs = opts.timeoutMs ?? 5_000;
    await this.until(() => this.open.length > 0, timeoutMs, "open connection");
    const socket = this.open[this.open.length - 1];
    if (socket === undefined) throw new Error("Socket Mode stand-in: no open connection");
    const envelopeId = opts.envelopeId ?? randomUUID();
    const envelope: Obj = {
      envelope_id: envelopeId,
      payload,
      type,
      accepts_response_payload: opts.acceptsResponsePayload ?? type !== "events_api",
    };
    if (type === "events_api") {
      envelope.retry_attempt = opts.retryAttempt ?? 0;
      envelope.retry_reason = opts.retryReason ?? "";
    }
    const acked = new Promise<SocketAck>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(envelopeId);
        reject(
          new Error(`Socket Mode stand-in: envelope ${envelopeId} (${type}) not acked in ${timeoutMs} ms`),
        );
      }, timeoutMs);
      this.pending.set(envelopeId, { resolve, reject, timer });
    });
    socket.send(JSON.stringify(envelope));
    return acked;
  }

  /** Sends `{type:"disconnect", reason}` to every open connection (the app is expected to reconnect). */
  disconnect(reason = "refresh_requested"): void {
    const message = JSON.stringify({ type: "disconnect", reason, debug_info: { host: "applink-standin" } });
    for (const socket of this.open) socket.send(message);
  }

  /** Drops every connection without a close frame (a network failure, from the app's side). */
  drop(): void {
    for (const socket of [...this.open]) socket.terminate();
  }

  reset(): void {
    this.acks.length = 0;
    this.stray.length = 0;
  }

  close(): void {
    clearInterval(this.pinger);
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new Error(`Socket Mode stand-in closed before envelope ${id} was acked`));
    }
    this.pending.clear();
    for (const socket of this.wss.clients) socket.terminate();
    this.wss.close();
  }
}

/** The public face of the Socket Mode server (SlackStandin.socket). */
export function socketModeFacade(server: SocketServer, appToken: string): SocketModeStandin {
  return {
    appToken,
    acks: server.acks,
    stray: server.stray,
    get connections() {
      return server.connections;
    },
    get connects() {
      return server.connects;
    },
    get pingsFromApp() {
      return server.pingsFromApp;
    },
    waitForConnects: (n, timeoutMs) => server.waitForConnects(n, timeoutMs),
    send: (type, payload, opts) => server.send(type, payload, opts),
    disconnect: (reason) => server.disconnect(reason),
    drop: () => server.drop(),
  };
}

/** Attaches the Socket Mode server to the stand-in's HTTP server. */
export function attachSocketServer(http: Server, o: SocketServerOptions): SocketServer {
  const server = new SocketServer(o);
  http.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) =>
    server.upgrade(req, socket, head),
  );
  return server;
}
