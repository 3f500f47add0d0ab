/**
 * The baseline: a bare `node:http` server that reads the whole body and answers 200 with a small
 * JSON body, on every path. No routing, no parsing, no storage: the most any Node server on this
 * machine can do for this request shape, given the same load generator.
 */
import { createServer } from "node:http";
import { listenLocally } from "./local-server.js";
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
  const { url, close } = await listenLocally(server);
  return {
    url,
    path: "/hooks/platform/bare",
    ownerId: BENCH_OWNER,
    counts: async () => ({ stored: answered, logLines: 0 }),
    close,
  };
}
