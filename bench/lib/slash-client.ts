/**
 * The load client of the command suite in its own process, so that its timings are not held up
 * by the platform sandbox and the Slack stand-in (which run in the bench runner and get busy
 * exactly when the platform's answers land). Forked by `sendFromClient`; gets the prepared, signed
 * requests over IPC, sends them at once (`rate` 0) or on a fixed schedule, answers with each
 * request's status and time.
 */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Agent, request } from "undici";
import type { PreparedSlash } from "./stack.js";

interface Job {
  url: string;
  requests: Array<Pick<PreparedSlash, "body" | "headers">>;
  /** Requests per second; 0 = all at once. */
  rate: number;
}

/** Status 0 = the request failed. */
export interface SentReply {
  status: number;
  ms: number;
  /** When the request was sent, epoch milliseconds (Date.now, comparable with the stand-in's `at`). */
  sentAt: number;
}

export function sendFromClient(
  job: Job,
  timeoutMs = 120_000,
): Promise<{ replies: SentReply[]; wallMs: number }> {
  const child = fork(fileURLToPath(import.meta.url), ["client"], {
    execArgv: process.execArgv,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the command client did not finish within ${timeoutMs} ms`));
    }, timeoutMs);
    child.once("message", (m: { replies: SentReply[]; wallMs: number }) => {
      clearTimeout(timer);
      child.disconnect();
      resolve(m);
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the command client exited (code ${code})`));
    });
    child.send(job);
  });
}

async function run(job: Job): Promise<{ replies: SentReply[]; wallMs: number }> {
  const agent = new Agent({ connections: null, keepAliveTimeout: 30_000 });
  const send = async (r: Job["requests"][number]): Promise<SentReply> => {
    const started = performance.now();
    const sentAt = Date.now();
    try {
      const res = await request(job.url, {
        method: "POST",
        headers: r.headers,
        body: r.body,
        dispatcher: agent,
      });
      await res.body.dump();
      return { status: res.statusCode, ms: performance.now() - started, sentAt };
    } catch {
      return { status: 0, ms: performance.now() - started, sentAt };
    }
  };
  const started = performance.now();
  const pending: Array<Promise<SentReply>> = [];
  for (let i = 0; i < job.requests.length; i++) {
    if (job.rate > 0) {
      const wait = started + (i * 1000) / job.rate - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    }
    pending.push(send(job.requests[i] as Job["requests"][number]));
  }
  const replies = await Promise.all(pending);
  const wallMs = performance.now() - started;
  await agent.close();
  return { replies, wallMs };
}

if (process.argv[2] === "client" && process.send) {
  process.once("message", (job: Job) => {
    void run(job).then((r) => process.send?.(r));
  });
  process.on("disconnect", () => process.exit(0));
}
