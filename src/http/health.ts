/**
 * Operations routes: /healthz (the process is alive), /readyz (the store answers and a platform
 * token can be obtained) and /metrics (Prometheus text).
 *
 * /readyz names WHICH dependency is down in fixed words ("store": "unreachable", "platform":
 * "token service unavailable" ...) and never the error text, which can carry hosts, ports or the
 * platform's messages; the errors themselves go to the log at warn, once per check (a check runs
 * at most every 5 s, concurrent requests share it).
 * More: README.md ("health.ts").
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { CustomRoute } from "@slack/bolt";
import { stdSerializers } from "pino";
import type { Logger } from "../log.js";
import type { Metrics } from "../metrics.js";
import { isPlatformError } from "../platform/index.js";

/** How long one readiness result is reused, ms. */
export const READY_CHECK_TTL_MS = 5_000;

export const READY_PROBLEMS = {
  store: "unreachable",
  tokenUnavailable: "token service unavailable",
  tokenRefused: "token service refused the credentials",
} as const;

export interface HealthOptions {
  /** The platform door's token check (src/access PlatformDoor): no read, nothing charged. */
  platform: { checkToken(): Promise<void> };
  /** Resolves when the store answers. */
  pingStore?: () => Promise<void>;
  metrics: Metrics;
  logger: Logger;
  /** METRICS_TOKEN: when set, /metrics needs it as a Bearer credential. */
  metricsToken?: string;
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store", ...headers });
  res.end(JSON.stringify(body));
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value, "utf8").digest();
}

/** The Bearer credential of a request, or undefined when there is none. */
function bearer(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (typeof header !== "string") return undefined;
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return m?.[1];
}

/** Whether the request carries the metrics token; constant time whatever the lengths. */
export function metricsAuthorized(req: IncomingMessage, expected: Buffer): "ok" | "missing" | "wrong" {
  const given = bearer(req);
  if (given === undefined) return "missing";
  return timingSafeEqual(digest(given), expected) ? "ok" : "wrong";
}

/** Fixed wording for a failed token check: refused credentials or the service being unavailable. */
function platformProblem(err: unknown): string {
  if (isPlatformError(err) && !err.transient && err.kind === "token") return READY_PROBLEMS.tokenRefused;
  return READY_PROBLEMS.tokenUnavailable;
}

export function healthRoutes(opts: HealthOptions): CustomRoute[] {
  const log = opts.logger.child({ component: "health" });
  const expected = opts.metricsToken ? digest(opts.metricsToken) : undefined;
  if (!expected)
    log.warn("METRICS_TOKEN is not set: /metrics is public; set it to require Authorization: Bearer <token>");
  const check = readinessCheck(opts, log);

  return [
    { path: "/healthz", method: ["GET"], handler: (_req, res) => json(res, 200, { status: "ok" }) },
    {
      path: "/readyz",
      method: ["GET"],
      handler: (_req, res) => {
        void check().then(
          (r) => json(res, r.status, r.body),
          () => json(res, 503, { status: "not ready", problems: { check: "failed" } }),
        );
      },
    },
    { path: "/metrics", method: ["GET"], handler: metricsHandler(opts.metrics, expected) },
  ];
}

interface Readiness {
  at: number;
  status: number;
  body: Record<string, unknown>;
}

/**
 * The readiness check: the store pinged and a platform token checked together; a result is reused
 * for READY_CHECK_TTL_MS and concurrent callers share the one running; problems logged at warn.
 */
function readinessCheck(opts: HealthOptions, log: Logger): () => Promise<Readiness> {
  let cached: Readiness | undefined;
  let running: Promise<Readiness> | undefined;
  const run = async () => {
    const now = Date.now();
    const problems: Record<string, string> = {};
    const errors: Record<string, unknown> = {};
    await Promise.all([
      opts.pingStore?.().catch((err: unknown) => {
        problems.store = READY_PROBLEMS.store;
        errors.store = err instanceof Error ? stdSerializers.err(err) : err;
      }),
      opts.platform.checkToken().catch((err: unknown) => {
        problems.platform = platformProblem(err);
        errors.platform = err instanceof Error ? stdSerializers.err(err) : err;
      }),
    ]);
    const ok = Object.keys(problems).length === 0;
    if (!ok) log.warn({ problems, errors }, "not ready");
    cached = {
      at: now,
      status: ok ? 200 : 503,
      body: ok ? { status: "ready" } : { status: "not ready", problems },
    };
    return cached;
  };
  return () => {
    if (cached && Date.now() - cached.at < READY_CHECK_TTL_MS) return Promise.resolve(cached);
    running ??= run().finally(() => {
      running = undefined;
    });
    return running;
  };
}

/** /metrics: the Prometheus text; a 401 without the metrics token when `expected` (its digest) is set. */
function metricsHandler(metrics: Metrics, expected: Buffer | undefined): CustomRoute["handler"] {
  return (req, res) => {
    if (expected) {
      const auth = metricsAuthorized(req, expected);
      if (auth !== "ok") {
        json(
          res,
          401,
          {
            error:
              auth === "missing"
                ? "/metrics requires Authorization: Bearer <METRICS_TOKEN>"
                : "the Bearer token is not the metrics token",
          },
          { "www-authenticate": 'Bearer realm="metrics"' },
        );
        return;
      }
    }
    void metrics.registry.metrics().then(
      (text) => {
        res.writeHead(200, {
          "content-type": metrics.registry.contentType,
          "cache-control": "no-store",
        });
        res.end(text);
      },
      () => json(res, 500, { error: "metrics unavailable" }),
    );
  };
}
