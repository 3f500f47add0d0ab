/**
 * The one module that reads the environment. Everything else receives a typed `Config`.
 *
 * `loadConfig(env)` is pure (pass any record); `readConfigOrExit()` is what `src/index.ts` calls:
 * it prints one line per problem, naming the variable and the fix, and exits with code 1.
 */
import { isIP } from "node:net";
import { z } from "zod";

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export type StoreUrl =
  | { kind: "sqlite"; path: string; url: string }
  | { kind: "redis"; url: string }
  | { kind: "memory"; url: string };

export interface PlatformTimeouts {
  /** TCP + TLS connect, milliseconds. */
  connectMs: number;
  /** From request sent to response headers, milliseconds. */
  headersMs: number;
  /** Between body chunks, milliseconds. */
  bodyMs: number;
}

export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  slack: {
    signingSecret: string;
    botToken: string | undefined;
    clientId: string | undefined;
    clientSecret: string | undefined;
    stateSecret: string | undefined;
    appToken: string | undefined;
    apiUrl: string;
    mode: "single-workspace" | "oauth";
  };
  platform: {
    apiUrl: string;
    authUrl: string;
    clientId: string;
    clientSecret: string;
    scopes: string[];
    timeouts: PlatformTimeouts;
    /** Longest Retry-After the client honours before giving up, milliseconds. */
    maxRetryAfterMs: number;
  };
  store: StoreUrl;
  storeEncryptionKey: string | undefined;
  managerUserIds: string[];
  webhookAllowedIps: string[];
  trustProxy: boolean;
  logLevel: LogLevel;
}

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
    this.problems = problems;
  }
}

export type Env = Record<string, string | undefined>;

/** Empty strings count as unset: `FOO=` in an env file means "not given". */
function get(env: Env, name: string): string | undefined {
  const v = env[name];
  if (v === undefined) return undefined;
  const t = v.trim();
  return t === "" ? undefined : t;
}

function list(value: string | undefined): string[] {
  if (!value) return [];
  return value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

const SLACK_USER_ID = /^[UW][A-Z0-9]{2,}$/;

/** An IPv4/IPv6 address, or a CIDR block such as `10.0.0.0/8` or `2001:db8::/32`. */
export function isAddressOrCidr(value: string): boolean {
  const [addr, bits, extra] = value.split("/");
  if (extra !== undefined || addr === undefined) return false;
  const family = isIP(addr);
  if (family === 0) return false;
  if (bits === undefined) return true;
  if (!/^\d{1,3}$/.test(bits)) return false;
  const n = Number(bits);
  return family === 4 ? n <= 32 : n <= 128;
}

function parseUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

/** `redis://user:secret@host` → `redis://user:***@host`, so a password never reaches the output. */
function maskCredentials(value: string): string {
  return value.replace(/^([a-z]+:\/\/[^:/@]*):[^@/]*@/i, "$1:***@");
}

function parseStoreUrl(value: string): StoreUrl | string {
  if (value === "memory://" || value === "memory") return { kind: "memory", url: "memory://" };
  if (value.startsWith("sqlite://")) {
    const path = value.slice("sqlite://".length);
    if (path === "") return "sqlite:// needs a file path, for example sqlite://./data/bot.sqlite";
    return { kind: "sqlite", path, url: value };
  }
  if (value.startsWith("redis://") || value.startsWith("rediss://")) {
    const u = parseUrl(value);
    if (!u || u.hostname === "") return "a redis URL looks like redis://HOST:PORT[/DB]";
    return { kind: "redis", url: value };
  }
  return "use sqlite://PATH (embedded, default), redis://HOST:PORT[/DB] or memory://";
}

const intIn = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/, `must be a whole number from ${min} to ${max}`)
    .transform(Number)
    .refine((n) => n >= min && n <= max, `must be a whole number from ${min} to ${max}`);

/**
 * Validates the environment. Returns the config or throws `ConfigError` with one line per problem,
 * each starting with the variable's name and saying what to set instead.
 */
export function loadConfig(env: Env): Config {
  const problems: string[] = [];
  const problem = (name: string, fix: string) => problems.push(`${name}: ${fix}`);

  const num = (name: string, def: number, min: number, max: number): number => {
    const raw = get(env, name);
    if (raw === undefined) return def;
    const r = intIn(min, max).safeParse(raw);
    if (!r.success) {
      problem(name, `${r.error.issues[0]?.message ?? "invalid"} (got "${raw}")`);
      return def;
    }
    return r.data;
  };

  const url = (name: string, def: string | undefined, opts: { httpsOnly?: boolean } = {}): string => {
    const raw = get(env, name) ?? def;
    if (raw === undefined) {
      problem(
        name,
        opts.httpsOnly
          ? "is required: set it to an https:// URL, for example https://bot.example.com"
          : "is required",
      );
      return "";
    }
    const u = parseUrl(raw);
    if (!u || (u.protocol !== "https:" && u.protocol !== "http:")) {
      problem(name, `must be an absolute http(s) URL (got "${raw}")`);
      return raw;
    }
    if (opts.httpsOnly && u.protocol !== "https:") {
      problem(
        name,
        `must start with https:// because the platform only accepts HTTPS callbacks (got "${raw}")`,
      );
    }
    if (u.search !== "" || u.hash !== "" || u.username !== "" || u.password !== "") {
      problem(
        name,
        "must be a plain base URL without query, fragment or credentials, for example https://bot.example.com",
      );
    }
    return raw.replace(/\/+$/, "");
  };

  const required = (name: string, fix: string): string => {
    const v = get(env, name);
    if (v === undefined) {
      problem(name, `is required: ${fix}`);
      return "";
    }
    return v;
  };

  const port = num("PORT", 3000, 1, 65535);
  const host = get(env, "HOST") ?? "0.0.0.0";
  const publicUrl = url("PUBLIC_URL", undefined, { httpsOnly: true });

  // --- Slack -------------------------------------------------------------------------------------
  const appToken = get(env, "SLACK_APP_TOKEN");
  if (appToken !== undefined && !appToken.startsWith("xapp-")) {
    problem(
      "SLACK_APP_TOKEN",
      "must be an app-level token starting with xapp- (Basic Information, App-Level Tokens)",
    );
  }
  const signingSecret = get(env, "SLACK_SIGNING_SECRET");
  if (signingSecret === undefined) {
    problem("SLACK_SIGNING_SECRET", "is required: copy it from your Slack app's Basic Information page");
  }
  const botToken = get(env, "SLACK_BOT_TOKEN");
  if (botToken !== undefined && !botToken.startsWith("xoxb-")) {
    problem("SLACK_BOT_TOKEN", "must be a bot token starting with xoxb- (OAuth & Permissions page)");
  }
  const clientId = get(env, "SLACK_CLIENT_ID");
  const clientSecret = get(env, "SLACK_CLIENT_SECRET");
  const stateSecret = get(env, "SLACK_STATE_SECRET");
  const oauthGiven = [clientId, clientSecret, stateSecret].filter((v) => v !== undefined).length;
  let mode: Config["slack"]["mode"] = "single-workspace";
  if (botToken === undefined) {
    if (oauthGiven === 0) {
      problem(
        "SLACK_BOT_TOKEN",
        "is required in single-workspace mode; for multi-workspace mode set SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_STATE_SECRET instead",
      );
    } else {
      mode = "oauth";
      if (clientId === undefined)
        problem("SLACK_CLIENT_ID", "is required in multi-workspace mode (Basic Information)");
      if (clientSecret === undefined)
        problem("SLACK_CLIENT_SECRET", "is required in multi-workspace mode (Basic Information)");
      if (stateSecret === undefined)
        problem("SLACK_STATE_SECRET", "is required in multi-workspace mode: any long random string");
    }
  } else if (oauthGiven > 0) {
    problem(
      "SLACK_BOT_TOKEN",
      "set either SLACK_BOT_TOKEN (single workspace) or SLACK_CLIENT_ID/SLACK_CLIENT_SECRET/SLACK_STATE_SECRET (multi-workspace), not both",
    );
  }
  if (stateSecret !== undefined && stateSecret.length < 16) {
    problem("SLACK_STATE_SECRET", "must be at least 16 characters: use a long random string");
  }
  let slackApiUrl = url("SLACK_API_URL", "https://slack.com/api/");
  if (!slackApiUrl.endsWith("/")) slackApiUrl = `${slackApiUrl}/`;

  // --- Platform ----------------------------------------------------------------------------------
  const platformApiUrl = url("PLATFORM_API_URL", "https://api.dailymotion.com/v2");
  const platformAuthUrl = url("PLATFORM_AUTH_URL", "https://oauth2.dailymotion.com");
  const platformClientId = required(
    "PLATFORM_CLIENT_ID",
    "the private API key's identifier (management console: Organization, API keys)",
  );
  const platformClientSecret = required(
    "PLATFORM_CLIENT_SECRET",
    "the private API key's secret, shown once at creation",
  );
  const scopesRaw = get(env, "PLATFORM_SCOPES") ?? "live.read profile.manage";
  const scopes = scopesRaw.split(/[\s,]+/).filter((s) => s !== "");
  for (const s of scopes) {
    if (!/^[a-z][a-z0-9_.-]*$/i.test(s))
      problem("PLATFORM_SCOPES", `"${s}" is not a scope name; separate scopes with spaces`);
  }
  if (scopes.length === 0)
    problem("PLATFORM_SCOPES", "name at least one scope, for example: live.read profile.manage");
  const timeouts: PlatformTimeouts = {
    connectMs: num("PLATFORM_CONNECT_TIMEOUT_MS", 3000, 100, 120_000),
    headersMs: num("PLATFORM_HEADERS_TIMEOUT_MS", 5000, 100, 120_000),
    bodyMs: num("PLATFORM_BODY_TIMEOUT_MS", 5000, 100, 120_000),
  };
  const maxRetryAfterMs = num("PLATFORM_MAX_RETRY_AFTER_MS", 10_000, 0, 600_000);

  // --- Store -------------------------------------------------------------------------------------
  const storeRaw = get(env, "STORE_URL") ?? "sqlite://./data/bot.sqlite";
  const storeParsed = parseStoreUrl(storeRaw);
  let store: StoreUrl = { kind: "memory", url: "memory://" };
  if (typeof storeParsed === "string")
    problem("STORE_URL", `${storeParsed} (got "${maskCredentials(storeRaw)}")`);
  else store = storeParsed;
  const storeEncryptionKey = get(env, "STORE_ENCRYPTION_KEY");
  if (storeEncryptionKey !== undefined && storeEncryptionKey.length < 32) {
    problem(
      "STORE_ENCRYPTION_KEY",
      "must be at least 32 characters: generate one with `openssl rand -base64 32`",
    );
  }

  // --- Access ------------------------------------------------------------------------------------
  const managerUserIds = list(get(env, "MANAGER_USER_IDS"));
  for (const id of managerUserIds) {
    if (!SLACK_USER_ID.test(id)) {
      problem(
        "MANAGER_USER_IDS",
        `"${id}" is not a Slack user id (like U012ABCDEF); separate ids with commas`,
      );
    }
  }
  const webhookAllowedIps = list(get(env, "WEBHOOK_ALLOWED_IPS"));
  for (const ip of webhookAllowedIps) {
    if (!isAddressOrCidr(ip)) {
      problem(
        "WEBHOOK_ALLOWED_IPS",
        `"${ip}" is not an IP address or CIDR block; separate entries with commas`,
      );
    }
  }
  const trustRaw = (get(env, "TRUST_PROXY") ?? "false").toLowerCase();
  let trustProxy = false;
  if (["true", "1", "yes"].includes(trustRaw)) trustProxy = true;
  else if (!["false", "0", "no"].includes(trustRaw))
    problem("TRUST_PROXY", `must be true or false (got "${trustRaw}")`);

  const levelRaw = (get(env, "LOG_LEVEL") ?? "info").toLowerCase();
  let logLevel: LogLevel = "info";
  if ((LOG_LEVELS as readonly string[]).includes(levelRaw)) logLevel = levelRaw as LogLevel;
  else problem("LOG_LEVEL", `must be one of ${LOG_LEVELS.join(", ")} (got "${levelRaw}")`);

  if (problems.length > 0) throw new ConfigError(problems);

  return {
    port,
    host,
    publicUrl,
    slack: {
      signingSecret: signingSecret ?? "",
      botToken,
      clientId,
      clientSecret,
      stateSecret,
      appToken,
      apiUrl: slackApiUrl,
      mode,
    },
    platform: {
      apiUrl: platformApiUrl,
      authUrl: platformAuthUrl,
      clientId: platformClientId,
      clientSecret: platformClientSecret,
      scopes,
      timeouts,
      maxRetryAfterMs,
    },
    store,
    storeEncryptionKey,
    managerUserIds,
    webhookAllowedIps,
    trustProxy,
    logLevel,
  };
}

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

/** Configuration of `npm run sandbox` (the platform stand-in). Same rules: one line per problem. */
export function loadSandboxConfig(env: Env): SandboxConfig {
  const problems: string[] = [];
  const portRaw = get(env, "SANDBOX_PORT") ?? "4010";
  const port = Number(portRaw);
  if (!/^\d+$/.test(portRaw) || port < 1 || port > 65535) {
    problems.push(`SANDBOX_PORT: must be a whole number from 1 to 65535 (got "${portRaw}")`);
  }
  const lifeRaw = get(env, "SANDBOX_TOKEN_LIFETIME_SECONDS") ?? "1800";
  const tokenLifetimeSeconds = Number(lifeRaw);
  if (!/^\d+$/.test(lifeRaw) || tokenLifetimeSeconds < 1) {
    problems.push(
      `SANDBOX_TOKEN_LIFETIME_SECONDS: must be a whole number of seconds, 1 or more (got "${lifeRaw}")`,
    );
  }
  const deliverTo = get(env, "SANDBOX_DELIVER_TO");
  if (deliverTo !== undefined) {
    const u = parseUrl(deliverTo);
    if (!u || (u.protocol !== "http:" && u.protocol !== "https:")) {
      problems.push(
        `SANDBOX_DELIVER_TO: must be an origin such as http://127.0.0.1:3000 (got "${deliverTo}")`,
      );
    }
  }
  const levelRaw = (get(env, "LOG_LEVEL") ?? "info").toLowerCase();
  if (!(LOG_LEVELS as readonly string[]).includes(levelRaw)) {
    problems.push(`LOG_LEVEL: must be one of ${LOG_LEVELS.join(", ")} (got "${levelRaw}")`);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return {
    port,
    host: get(env, "SANDBOX_HOST") ?? "127.0.0.1",
    clientId: get(env, "PLATFORM_CLIENT_ID") ?? "sandbox-client",
    clientSecret: get(env, "PLATFORM_CLIENT_SECRET") ?? "sandbox-secret",
    tokenLifetimeSeconds,
    deliverTo: deliverTo === undefined ? undefined : (parseUrl(deliverTo)?.origin ?? deliverTo),
    logLevel: levelRaw as LogLevel,
  };
}

/**
 * Reads `process.env` (the only place in the code base that does), or prints every problem and
 * exits with code 1.
 */
export function readConfigOrExit<T>(loader: (env: Env) => T = loadConfig as unknown as (env: Env) => T): T {
  try {
    return loader(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      for (const p of err.problems) process.stderr.write(`config error: ${p}\n`);
      process.stderr.write("The bot did not start. Fix the variables above (see README, Configuration).\n");
      process.exit(1);
    }
    throw err;
  }
}
