import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface Received {
  remoteAddress: string | undefined;
  method: string | undefined;
  url: string | undefined;
  headers: IncomingMessage["headers"];
  body: string;
  /** parsed body, undefined if not JSON */
  json: { type: string; timestamp: number; data: Record<string, unknown> } | undefined;
}

/** A local webhook receiver recording every request. */
export class Receiver {
  readonly received: Received[] = [];
  status = 200;
  answer = "ok";
  delayMs = 0;
  inFlight = 0;
  maxInFlight = 0;
  private server: Server | undefined;
  origin = "";

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      this.inFlight += 1;
      this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        const body = Buffer.concat(chunks).toString("utf8");
        let json: Received["json"];
        try {
          json = JSON.parse(body);
        } catch {
          json = undefined;
        }
        this.received.push({
          remoteAddress: req.socket.remoteAddress,
          method: req.method,
          url: req.url,
          headers: req.headers,
          body,
          json,
        });
        setTimeout(() => {
          this.inFlight -= 1;
          res.writeHead(this.status, { "content-type": "text/plain" });
          res.end(this.answer);
        }, this.delayMs);
      });
    });
    await new Promise<void>((resolve) => this.server?.listen(0, "127.0.0.1", resolve));
    this.origin = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  clear(): void {
    this.received.length = 0;
    this.status = 200;
    this.answer = "ok";
    this.delayMs = 0;
    this.maxInFlight = 0;
  }

  events() {
    return this.received.map((r) => r.json).filter((j) => j !== undefined);
  }

  async close(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }
}
