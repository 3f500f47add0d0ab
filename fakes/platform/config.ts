/**
 * Configuration of `npm run sandbox` (the platform sandbox alone): its own variables, read with the
 * bot's rules (src/config-rules.ts), so a problem is reported the same way, one line per variable.
 * The environment itself is read by `readConfigOrExit(loadSandboxConfig)` (src/config.ts).
 */
import { z } from "zod";
import {
  type Env,
  got,
  isHttpUrl,
  type LogLevel,
  logLevel,
  parseEnv,
  parseUrl,
  wholeNumber,
} from "../../src/config-rules.js";

export interface SandboxConfig {
  port: number;
  host: string;
  clientId: string;
  clientSecret: string;
  tokenLifetimeSeconds: number;
  /** When set, deliveries to callback URLs are sent to this origin instead (e.g. http://127.0.0.1:3000). */
  deliverTo: string | undefined;
  logLevel: LogLevel;
}

// --- The sandbox's environment -------------------------------------------------------------------

const sandboxEnv = z.object({
  SANDBOX_PORT: wholeNumber(1, 65535).prefault("4010"),
  SANDBOX_HOST: z.string().prefault("127.0.0.1"),
  PLATFORM_CLIENT_ID: z.string().prefault("sandbox-client"),
  PLATFORM_CLIENT_SECRET: z.string().prefault("sandbox-secret"),
  SANDBOX_TOKEN_LIFETIME_SECONDS: wholeNumber(
    1,
    Infinity,
    "must be a whole number of seconds, 1 or more",
  ).prefault("1800"),
  SANDBOX_DELIVER_TO: z
    .string()
    .refine((raw) => isHttpUrl(parseUrl(raw)), {
      error: got("must be an origin such as http://127.0.0.1:3000"),
    })
    .transform((raw) => parseUrl(raw)?.origin ?? raw)
    .optional(),
  LOG_LEVEL: logLevel,
});

/** Configuration of `npm run sandbox` (the platform stand-in). Same rules: one line per problem. */
export function loadSandboxConfig(env: Env): SandboxConfig {
  const v = parseEnv(sandboxEnv, env);
  return {
    port: v.SANDBOX_PORT,
    host: v.SANDBOX_HOST,
    clientId: v.PLATFORM_CLIENT_ID,
    clientSecret: v.PLATFORM_CLIENT_SECRET,
    tokenLifetimeSeconds: v.SANDBOX_TOKEN_LIFETIME_SECONDS,
    deliverTo: v.SANDBOX_DELIVER_TO,
    logLevel: v.LOG_LEVEL,
  };
}
