/**
 * The baseline: a bare `node:http` server that reads the whole body and answers 200 with a small
 * JSON body, on every path. No routing, no parsing, no storage: the most any Node server on this
 * machine can do for this request shape, given the same load generator.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { BENCH_OWNER } from "./owner.js";
import type { RunningTarget } from "./types.js";

const ANSWER = JSON.stringify({ status: "stored" });

export async function startBare(): Promise<RunningTarget> {
  let answered = 0;
  const server = createServer((req, res) => {
    req.on("data", () => {});
    req.on("end", () => {
      answered += 1;
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(ANSWER) });
      res.end(ANSWER);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    path: "/hooks/platform/bare",
    ownerId: BENCH_OWNER,
    counts: async () => ({ stored: answered, logLines: 0 }),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
