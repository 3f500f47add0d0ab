/**
 * A barrier in front of the Slack stand-in for the token rotation race: an HTTP proxy to the
 * stand-in's Web API that holds every token refresh (oauth.v2.access, grant_type=refresh_token)
 * until `parties` of them arrived, then sends them on together, so that they collide for certain.
 * A group that does not fill up within `timeoutMs` goes on as it is (the test then sees a release
 * smaller than `parties`, not a hang). Every other call goes straight through.
 */
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { request } from "undici";

interface RefreshBarrier {
  /** SLACK_API_URL for the replicas: http://127.0.0.1:PORT/api/ */
  apiUrl: string;
  /** How many refreshes each release sent on together, in order. */
  releases: number[];
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

const HOP = new Set(["host", "content-length", "connection", "keep-alive", "transfer-encoding"]);

/** `standinUrl`: the stand-in's base url (http://127.0.0.1:PORT, its `url`). */
export async function startRefreshBarrier(
  standinUrl: string,
  parties: number,
  timeoutMs = 5000,
): Promise<RefreshBarrier> {
  const releases: number[] = [];
  let group: Array<() => void> = [];
  let timer: NodeJS.Timeout | undefined;
  const release = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const go = group;
    group = [];
    releases.push(go.length);
    for (const g of go) g();
  };
  const held = () =>
    new Promise<void>((resolve) => {
      group.push(resolve);
      if (group.length >= parties) release();
      else if (group.length === 1) timer = setTimeout(release, timeoutMs);
    });

  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const path = req.url ?? "/";
      if (path.endsWith("/oauth.v2.access")) {
        const form = new URLSearchParams(body.toString("utf8"));
        if (form.get("grant_type") === "refresh_token") await held();
      }
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers))
        if (!HOP.has(k) && typeof v === "string") headers[k] = v;
      const up = await request(`${standinUrl}${path}`, {
        method: (req.method ?? "POST") as "POST",
        headers,
        ...(body.length > 0 ? { body } : {}),
      });
      const answer = Buffer.from(await up.body.arrayBuffer());
      const type = up.headers["content-type"];
      res.writeHead(up.statusCode, {
        ...(typeof type === "string" ? { "content-type": type } : {}),
        "content-length": String(answer.length),
      });
      res.end(answer);
    })().catch(() => {
      res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    apiUrl: `http://127.0.0.1:${port}/api/`,
    releases,
    close: async () => {
      if (timer) release();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
