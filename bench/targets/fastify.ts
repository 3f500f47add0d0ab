/**
 * A second baseline: a minimal fastify 5 route, `POST /hooks/platform/:token`, answering 200 with
 * the same small JSON body as the bot. Fastify parses the JSON body (its default parser) and routes
 * by parameter; nothing is stored. What a lean framework costs for this request shape.
 */
import Fastify from "fastify";
import { BENCH_OWNER } from "./owner.js";
import type { RunningTarget } from "./types.js";

export async function startFastify(): Promise<RunningTarget> {
  let answered = 0;
  const app = Fastify({ logger: false, bodyLimit: 64 * 1024 });
  app.post<{ Params: { token: string } }>("/hooks/platform/:token", async () => {
    answered += 1;
    return { status: "stored" };
  });
  const address = await app.listen({ port: 0, host: "127.0.0.1" });
  return {
    url: address,
    path: "/hooks/platform/fastify",
    ownerId: BENCH_OWNER,
    counts: async () => ({ stored: answered, logLines: 0 }),
    close: () => app.close(),
  };
}
