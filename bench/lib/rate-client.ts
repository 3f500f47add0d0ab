/**
 * A fixed-rate delivery load from its own process (forked by `sendAtRate`): `rate` deliveries per
 * second for `durationS`, open loop (a request is sent on schedule whether or not earlier ones
 * were answered), over a pool of keep-alive connections, each a different valid delivery
 * (bench/lib/deliveries.ts). Answers with counts by status, the latency summary and the index
 * of the next unused delivery.
 */
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Pool } from "undici";
import { deliveryGenerator } from "./deliveries.js";
import { type LatencySummary, summarize } from "./load.js";

export interface RateJob {
  url: string;
  path: string;
  ownerId: string;
  runTag: string;
  baseTimestamp: number;
  rate: number;
  durationS: number;
  startIndex: number;
  connections: number;
}

export interface RateResult {
  sent: number;
  ok2xx: number;
  /** Answers that were not 2xx, and requests that failed. */
  other: number;
  latencyMs: LatencySummary;
  /** Seconds from the first send to the last answer. */
  wallS: number;
  nextIndex: number;
}

export function sendAtRate(job: RateJob, timeoutMs = 120_000): Promise<RateResult> {
  const child = fork(fileURLToPath(import.meta.url), ["rate-client"], {
    execArgv: process.execArgv,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the rate client did not finish within ${timeoutMs} ms`));
    }, timeoutMs);
    child.once("message", (m: RateResult) => {
      clearTimeout(timer);
      child.disconnect();
      resolve(m);
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`the rate client exited (code ${code})`));
    });
    child.send(job);
  });
}

async function run(job: RateJob): Promise<RateResult> {
  const gen = deliveryGenerator(job.ownerId, job.runTag, job.baseTimestamp);
  const pool = new Pool(job.url, { connections: job.connections, pipelining: 1 });
  const total = Math.round(job.rate * job.durationS);
  const latencies = new Float64Array(total);
  let answered = 0;
  let ok2xx = 0;
  let other = 0;
  const send = async (i: number): Promise<void> => {
    const started = performance.now();
    try {
      const res = await pool.request({
        method: "POST",
        path: job.path,
        headers: { "content-type": "application/json" },
        body: gen.body(i),
      });
      await res.body.dump();
      if (res.statusCode >= 200 && res.statusCode < 300) ok2xx += 1;
      else other += 1;
    } catch {
      other += 1;
    }
    latencies[answered++] = performance.now() - started;
  };
  const started = performance.now();
  const pending: Array<Promise<void>> = [];
  for (let n = 0; n < total; n++) {
    const wait = started + (n * 1000) / job.rate - performance.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    pending.push(send(job.startIndex + n));
  }
  await Promise.all(pending);
  const wallS = (performance.now() - started) / 1000;
  await pool.close();
  return {
    sent: total,
    ok2xx,
    other,
    latencyMs: summarize(latencies, answered),
    wallS,
    nextIndex: job.startIndex + total,
  };
}

if (process.argv[2] === "rate-client" && process.send) {
  process.once("message", (job: RateJob) => {
    void run(job).then((r) => process.send?.(r));
  });
  process.on("disconnect", () => process.exit(0));
}
