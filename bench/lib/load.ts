/**
 * One load run with autocannon's programmatic API: `connections` keep-alive connections POSTing
 * for `durationS` seconds, each request with its own body (`setupRequest`).
 *
 * Latency is recorded here from autocannon's `response` events (float milliseconds from
 * process.hrtime) rather than read from its result: autocannon's histogram is integer
 * milliseconds, which rounds a bare server's 0.3 ms to 0 and hides the differences we measure.
 *
 * `sent` counts the bodies built (setupRequest runs exactly once per request written). When the
 * duration is over autocannon destroys its connections, so up to one request per connection is
 * cut off without an answer: `inFlightAtStop = sent - answered - errors`. The server may or may
 * not have stored those.
 */
import autocannon from "autocannon";

export interface LoadOptions {
  url: string;
  path: string;
  connections: number;
  durationS: number;
  /** Body of the i-th request of this target (the index runs on across runs of one target). */
  body: (i: number) => string;
  /** First index to use; the run returns the next free one. */
  startIndex: number;
  title?: string;
  /** A fixed rate, requests per second over all connections (autocannon's overallRate); none = as fast as answered. */
  overallRate?: number;
}

export interface LatencySummary {
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
  mean: number;
}

export interface LoadResult {
  title: string | undefined;
  durationS: number;
  connections: number;
  sent: number;
  answered: number;
  ok2xx: number;
  non2xx: number;
  /** Answers by status code, e.g. { "200": 41234 }. */
  statusCodes: Record<string, number>;
  errors: number;
  timeouts: number;
  inFlightAtStop: number;
  /** 2xx answers per second. */
  okPerSecond: number;
  /** Latency of every answer, milliseconds. */
  latencyMs: LatencySummary;
  /**
   * CPU the load generator (this process) used over the run, as a share of one core. Near 100%,
   * the client, not the target, sets the pace.
   */
  clientCpu: number;
  nextIndex: number;
}

export function summarize(values: Float64Array, n: number): LatencySummary {
  if (n === 0)
    return { p50: Number.NaN, p90: Number.NaN, p99: Number.NaN, p999: Number.NaN, max: 0, mean: 0 };
  const sorted = values.subarray(0, n).slice().sort();
  const at = (q: number) => sorted[Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1))] ?? Number.NaN;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += sorted[i] ?? 0;
  return {
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    p999: at(0.999),
    max: sorted[n - 1] ?? 0,
    mean: sum / n,
  };
}

export function runLoad(o: LoadOptions): Promise<LoadResult> {
  let index = o.startIndex;
  let latencies = new Float64Array(1 << 16);
  let n = 0;
  const statusCodes: Record<string, number> = {};
  const cpuBefore = process.cpuUsage();
  return new Promise<LoadResult>((resolve, reject) => {
    const instance = autocannon(
      {
        url: o.url,
        title: o.title,
        connections: o.connections,
        pipelining: 1,
        ...(o.overallRate ? { overallRate: o.overallRate } : {}),
        duration: o.durationS,
        timeout: 10,
        method: "POST",
        headers: { "content-type": "application/json" },
        requests: [
          {
            method: "POST",
            path: o.path,
            setupRequest: (req) => {
              const body = o.body(index);
              index += 1;
              req.body = body;
              return req;
            },
          },
        ],
      },
      (err: unknown, result) => {
        if (err) return reject(err instanceof Error ? err : new Error(String(err)));
        const cpu = process.cpuUsage(cpuBefore);
        const answered = Object.values(statusCodes).reduce((a, b) => a + b, 0);
        const sent = index - o.startIndex;
        const ok2xx = result["2xx"];
        resolve({
          title: o.title,
          durationS: result.duration,
          connections: o.connections,
          sent,
          answered,
          ok2xx,
          non2xx: result.non2xx,
          statusCodes,
          errors: result.errors,
          timeouts: result.timeouts,
          inFlightAtStop: Math.max(0, sent - answered - result.errors),
          okPerSecond: result.duration > 0 ? ok2xx / result.duration : 0,
          latencyMs: summarize(latencies, n),
          clientCpu: result.duration > 0 ? (cpu.user + cpu.system) / 1e6 / result.duration : 0,
          nextIndex: index,
        });
      },
    );
    instance.on("response", (_client, statusCode, _bytes, responseTime) => {
      if (n === latencies.length) {
        const bigger = new Float64Array(latencies.length * 2);
        bigger.set(latencies);
        latencies = bigger;
      }
      latencies[n++] = responseTime;
      const code = String(statusCode);
      statusCodes[code] = (statusCodes[code] ?? 0) + 1;
    });
  });
}
