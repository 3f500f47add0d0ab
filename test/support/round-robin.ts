/**
 * A tiny TCP round-robin proxy on 127.0.0.1, standing for the load balancer in front of several bot
 * replicas: each new connection goes to the next backend in turn; a backend that refuses the
 * connection (a replica that was killed) is skipped for the next one. Connections are not moved
 * once made: when a replica dies, the connections through it are cut and the client reconnects.
 * Used by the scale-out test and the bench (never by the bot: it is not part of src/).
 */
import { connect, createServer, type Server, type Socket } from "node:net";

export class RoundRobinProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private next = 0;
  /** Connections made to each backend (by port), for the tests to see the spread. */
  readonly connections = new Map<number, number>();
  port = 0;

  /** `backends`: the ports of the replicas on 127.0.0.1, read at each connection (replicas come and go). */
  constructor(private readonly backends: () => readonly number[]) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async listen(): Promise<string> {
    const server = createServer((client) => this.relay(client));
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
    if (!server) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const s of this.sockets) s.destroy();
    await closed;
  }

  private track(s: Socket): void {
    this.sockets.add(s);
    s.on("close", () => this.sockets.delete(s));
  }

  private relay(client: Socket): void {
    this.track(client);
    client.pause();
    client.on("error", () => client.destroy());
    const ports = this.backends();
    const tryBackend = (attempt: number) => {
      if (attempt >= ports.length || client.destroyed) {
        client.destroy();
        return;
      }
      const port = ports[this.next++ % ports.length] as number;
      const upstream = connect(port, "127.0.0.1");
      let connected = false;
      upstream.once("connect", () => {
        connected = true;
        this.track(upstream);
        this.connections.set(port, (this.connections.get(port) ?? 0) + 1);
        client.pipe(upstream);
        upstream.pipe(client);
        client.resume();
      });
      upstream.on("error", () => {
        upstream.destroy();
        if (connected) client.destroy();
        else tryBackend(attempt + 1);
      });
      upstream.on("close", () => client.destroy());
      client.on("close", () => upstream.destroy());
    };
    tryBackend(0);
  }
}
