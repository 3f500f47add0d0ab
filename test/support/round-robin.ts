/**
 * A tiny HTTP round-robin proxy on 127.0.0.1, standing for the reverse proxy in front of several
 * bot replicas (docs/operations.md, "Several replicas"): each request goes to the next replica in
 * turn, over a keep-alive connection of the proxy's own. A replica that refuses the connection
 * (killed) is skipped for the next one, as a proxy's health check would; a replica that dies with
 * the request in flight gets the client a 502, which the sender retries (the bot deduplicates).
 * Used by the scale-out test and the bench, never by the bot (it is not part of src/).
 */
import {
  Agent,
  createServer,
  type IncomingMessage,
  request,
  type Server,
  type ServerResponse,
} from "node:http";

/** Hop-by-hop headers: not forwarded. */
const HOP = new Set(["connection", "keep-alive", "transfer-encoding", "upgrade", "proxy-connection", "te"]);

export class RoundRobinProxy {
  private server: Server | undefined;
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 64 });
  private next = 0;
  /** Requests answered by each backend (by port). */
  readonly requests = new Map<number, number>();
  port = 0;

  /** `backends`: the ports of the replicas on 127.0.0.1, read at each request (replicas come and go). */
  constructor(private readonly backends: () => readonly number[]) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async listen(): Promise<string> {
    const server = createServer((req, res) => {
      this.forward(req, res).catch(() => {
        if (!res.headersSent) res.writeHead(502).end();
        else res.destroy();
      });
    });
    server.keepAliveTimeout = 30_000;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(0, "127.0.0.1", () => resolve());
    });
    this.server = server;
    const address = server.address();
    if (address !== null && typeof address === "object") this.port = address.port;
    return this.url;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    this.agent.destroy();
    if (!server) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }

  private async forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const headers: Record<string, string | string[]> = {};
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined && !HOP.has(k)) headers[k] = v;
    headers["content-length"] = String(body.length);
    const ports = this.backends();
    for (let attempt = 0; attempt < ports.length; attempt++) {
      const port = ports[this.next++ % ports.length] as number;
      const upstream = await this.send(port, req, headers, body);
      if (upstream === "refused") continue;
      this.requests.set(port, (this.requests.get(port) ?? 0) + 1);
      const out: Record<string, string | string[]> = {};
      for (const [k, v] of Object.entries(upstream.headers)) if (v !== undefined && !HOP.has(k)) out[k] = v;
      res.writeHead(upstream.statusCode ?? 502, out);
      for await (const chunk of upstream) res.write(chunk);
      res.end();
      return;
    }
    res.writeHead(502).end();
  }

  /** The replica's answer, or "refused" when it did not take the connection (nothing was sent). */
  private send(
    port: number,
    req: IncomingMessage,
    headers: Record<string, string | string[]>,
    body: Buffer,
  ): Promise<IncomingMessage | "refused"> {
    return new Promise((resolve, reject) => {
      const up = request(
        { host: "127.0.0.1", port, method: req.method, path: req.url, headers, agent: this.agent },
        resolve,
      );
      up.on("error", (err: NodeJS.ErrnoException) =>
        err.code === "ECONNREFUSED" ? resolve("refused") : reject(err),
      );
      up.end(body);
    });
  }
}
