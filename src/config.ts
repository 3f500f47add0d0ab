/**
 * The one module that reads the environment. Everything else receives a typed `Config`.
 *
 * `loadConfig(env)` is pure (pass a plain record); `readConfigOrExit()` is what `src/index.ts` calls:
 * it prints one line per problem, naming the variable and the fix, and exits with code 1.
 * More: README.md ("config.ts").
 */
import { z } from "zod";
import {
  addressOrCidr,
  baseUrl,
  COMMA,
  ConfigError,
  type Env,
  got,
  hostName,
  type LogLevel,
  list,
  logLevel,
  maskCredentials,
  parseEnv,
  parseUrl,
  profileBindings,
  required,
  scopeName,
  secret,
  slackUserId,
  token,
  urlTemplate,
  wholeNumber,
  workspaceId,
} from "./config-rules.js";

export {
  ConfigError,
  type Env,
  isAddressOrCidr,
  LOG_LEVELS,
  type LogLevel,
} from "./config-rules.js";

export type StoreUrl =
  | { kind: "sqlite"; path: string; url: string }
  | { kind: "redis"; url: string }
  | { kind: "memory"; url: string };

export interface PlatformTimeouts {
  /** TCP + TLS connect, milliseconds. */
  connectMs: number;
  /** From request sent on a connection to response headers, milliseconds. */
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
    /** Connections open to the platform at once; further requests wait for a free one. */
    maxConnections: number;
  };
  store: StoreUrl;
  storeEncryptionKey: string | undefined;
  webhookAllowedIps: string[];
  trustProxy: boolean;
  logLevel: LogLevel;
  /** What src/access decides with: who manages, which workspaces and profiles, the read budgets. */
  access: {
    /** MANAGER_USER_IDS: managers in every workspace. */
    managerUserIds: string[];
    /** Multi-workspace mode: the team and enterprise ids allowed (`*` = any); empty in single-workspace mode. */
    allowedWorkspaces: string[];
    /** Team or enterprise id → the profile ids it may read and change. */
    profileBindings: Record<string, string[]>;
    /**
     * Platform read budgets (USER_READS_PER_MINUTE, WORKSPACE_READS_PER_MINUTE): the reads one Slack
     * user / one workspace may cause per minute (status, ingest, Refresh, previews, pickers); 0 = off.
     */
    readBudgets: { perUserPerMinute: number; perWorkspacePerMinute: number };
  };
  /**
   * Live watch: how often a watched livestream is read, how long off air before it ended (ms), and
   * LIVE_WATCH_MAX, the livestreams watched in all (besides at most 100 per workspace).
   */
  watch: { intervalMs: number; offAirGraceMs: number; max: number };
  /** UNFURL_DOMAINS: domains (and their subdomains) whose livestream links are previewed. */
  unfurlDomains: string[];
  /** VIDEO_URL_TEMPLATE: a video's link (`{id}` = the video id), or undefined for no link. */
  videoUrlTemplate: string | undefined;
  /** METRICS_TOKEN: when set, /metrics requires `Authorization: Bearer <token>`. */
  metricsToken: string | undefined;
  /** DIGEST_PERIOD, ms: the period of a daily digest (a weekly one is 7 times it). */
  digests: { periodMs: number };
}

const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** DIGEST_PERIOD: a number and a unit (`30s`, `15m`, `24h`, `7d`), 1 s to 30 days. */
const digestPeriod = z.string().transform((raw, ctx): number => {
  const m = /^(\d{1,9})([smhd])$/.exec(raw);
  const ms = m ? Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS] : Number.NaN;
  if (ms >= 1_000 && ms <= 30 * UNIT_MS.d) return ms;
  ctx.addIssue(
    `must be a number and a unit (s, m, h or d) from 1s to 30d, for example 24h (the default) or 30s for a demo (got "${raw}")`,
  );
  return z.NEVER;
});

/** The store, or the fix to report: the message depends on which scheme was meant. */
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

// --- The bot's environment -----------------------------------------------------------------------

/** Multi-workspace (OAuth) mode needs all three; the fix for each one missing. */
const OAUTH_TRIO = {
  SLACK_CLIENT_ID: "is required in multi-workspace mode (Basic Information)",
  SLACK_CLIENT_SECRET: "is required in multi-workspace mode (Basic Information)",
  SLACK_STATE_SECRET: "is required in multi-workspace mode: a long random string",
} as const;

const botEnv = z
  .object({
    PORT: wholeNumber(1, 65535).prefault("3000"),
    HOST: z.string().prefault("0.0.0.0"),
    PUBLIC_URL: baseUrl({
      httpsOnly: true,
      required: "is required: set it to an https:// URL, for example https://bot.example.com",
    }),
    SLACK_APP_TOKEN: token(
      "xapp-",
      "must be an app-level token starting with xapp- (Basic Information, App-Level Tokens)",
    ),
    SLACK_SIGNING_SECRET: required("copy it from your Slack app's Basic Information page"),
    SLACK_BOT_TOKEN: token("xoxb-", "must be a bot token starting with xoxb- (OAuth & Permissions page)"),
    SLACK_CLIENT_ID: z.string().optional(),
    SLACK_CLIENT_SECRET: z.string().optional(),
    SLACK_STATE_SECRET: secret(16, "use a long random string"),
    SLACK_API_URL: baseUrl()
      .transform((u) => (u.endsWith("/") ? u : `${u}/`))
      .prefault("https://slack.com/api/"),
    PLATFORM_API_URL: baseUrl().prefault("https://api.dailymotion.com/v2"),
    PLATFORM_AUTH_URL: baseUrl().prefault("https://oauth2.dailymotion.com"),
    PLATFORM_CLIENT_ID: required(
      "the private API key's identifier (management console: Organization, API keys)",
    ),
    PLATFORM_CLIENT_SECRET: required("the private API key's secret, shown once at creation"),
    PLATFORM_SCOPES: list(
      /[\s,]+/,
      z.array(scopeName).min(1, "name at least one scope, for example: live.read profile.manage"),
    ).prefault("live.read profile.manage video.read"),
    PLATFORM_CONNECT_TIMEOUT_MS: wholeNumber(100, 120_000).prefault("3000"),
    PLATFORM_HEADERS_TIMEOUT_MS: wholeNumber(100, 120_000).prefault("10000"),
    PLATFORM_BODY_TIMEOUT_MS: wholeNumber(100, 120_000).prefault("5000"),
    PLATFORM_MAX_RETRY_AFTER_MS: wholeNumber(0, 600_000).prefault("10000"),
    STORE_URL: z
      .string()
      .transform((raw, ctx): StoreUrl => {
        const store = parseStoreUrl(raw);
        if (typeof store !== "string") return store;
        ctx.addIssue(`${store} (got "${maskCredentials(raw)}")`);
        return z.NEVER;
      })
      .prefault("sqlite://./data/bot.sqlite"),
    STORE_ENCRYPTION_KEY: secret(32, "generate one with `openssl rand -base64 32`"),
    MANAGER_USER_IDS: list(COMMA, z.array(slackUserId)).prefault(""),
    WEBHOOK_ALLOWED_IPS: list(COMMA, z.array(addressOrCidr)).prefault(""),
    // Not z.stringbool(): its issue aborts the object, which would skip the Slack mode rule below.
    TRUST_PROXY: z
      .string()
      .toLowerCase()
      .pipe(z.enum(["true", "1", "yes", "false", "0", "no"], { error: got("must be true or false") }))
      .transform((v) => v === "true" || v === "1" || v === "yes")
      .prefault("false"),
    LOG_LEVEL: logLevel,
    ALLOWED_WORKSPACES: list(COMMA, z.array(workspaceId)).optional(),
    PROFILE_BINDINGS: profileBindings.prefault(""),
    LIVE_WATCH_INTERVAL_MS: wholeNumber(
      1000,
      86_400_000,
      "must be a whole number of milliseconds from 1000 to 86400000: how often a watched livestream is read (default 30000)",
    ).prefault("30000"),
    LIVE_OFFAIR_GRACE_MS: wholeNumber(
      0,
      86_400_000,
      "must be a whole number of milliseconds from 0 to 86400000: how long a livestream stays off air before it is announced as ended (default 60000)",
    ).prefault("60000"),
    UNFURL_DOMAINS: list(
      COMMA,
      z.array(hostName).min(1, "name at least one domain, for example dailymotion.com,dai.ly"),
    ).prefault("dailymotion.com,dai.ly"),
    VIDEO_URL_TEMPLATE: urlTemplate.prefault("https://www.dailymotion.com/video/{id}"),
    METRICS_TOKEN: secret(16, "use a long random string, for example `openssl rand -hex 32`"),
    USER_READS_PER_MINUTE: wholeNumber(
      0,
      100_000,
      "must be a whole number from 0 to 100000: the platform reads one Slack user may cause per minute (default 20; 0 turns the budget off)",
    ).prefault("20"),
    WORKSPACE_READS_PER_MINUTE: wholeNumber(
      0,
      1_000_000,
      "must be a whole number from 0 to 1000000: the platform reads one workspace may cause per minute (default 200; 0 turns the budget off)",
    ).prefault("200"),
    LIVE_WATCH_MAX: wholeNumber(
      1,
      1_000_000,
      "must be a whole number from 1 to 1000000: the livestreams watched in all (default 1000)",
    ).prefault("1000"),
    DIGEST_PERIOD: digestPeriod.prefault("24h"),
    PLATFORM_MAX_CONNECTIONS: wholeNumber(
      1,
      4096,
      "must be a whole number from 1 to 4096: the connections open to the platform at once (default 256)",
    ).prefault("256"),
  })
  .superRefine(
    (env, ctx) => {
      // Slack mode: SLACK_BOT_TOKEN (single workspace) or the OAuth trio (multi-workspace), never
      // both. Only presence matters here, and a value that failed its own check is still present.
      const trio = Object.keys(OAUTH_TRIO) as (keyof typeof OAUTH_TRIO)[];
      const given = trio.filter((name) => env[name] !== undefined);
      const problem = (name: string, message: string) =>
        ctx.addIssue({ code: "custom", path: [name], message });
      const bot = env.SLACK_BOT_TOKEN !== undefined;
      if (bot && given.length > 0) {
        problem(
          "SLACK_BOT_TOKEN",
          "set either SLACK_BOT_TOKEN (single workspace) or SLACK_CLIENT_ID/SLACK_CLIENT_SECRET/SLACK_STATE_SECRET (multi-workspace), not both",
        );
      }
      if (!bot && given.length === 0) {
        problem(
          "SLACK_BOT_TOKEN",
          "is required in single-workspace mode; for multi-workspace mode set SLACK_CLIENT_ID, SLACK_CLIENT_SECRET and SLACK_STATE_SECRET instead",
        );
      }
      // Some of the trio given: the missing ones are reported, each with its own fix.
      if (!bot && given.length > 0) {
        for (const name of trio) if (env[name] === undefined) problem(name, OAUTH_TRIO[name]);
      }
      if (!bot && given.length > 0 && env.ALLOWED_WORKSPACES === undefined) {
        problem(
          "ALLOWED_WORKSPACES",
          "is required in multi-workspace mode: the Slack team ids (T…) or enterprise ids (E…) allowed to install, comma-separated (* allows any workspace)",
        );
      }
    },
    // By default zod skips an object's refinements once a property has failed; run it anyway so
    // that one start-up reports every problem.
    { when: () => true },
  );

/**
 * Validates the environment. Returns the config or throws `ConfigError` with one line per problem,
 * each starting with the variable's name and saying what to set instead.
 */
export function loadConfig(env: Env): Config {
  const v = parseEnv(botEnv, env);
  return {
    port: v.PORT,
    host: v.HOST,
    publicUrl: v.PUBLIC_URL,
    slack: {
      signingSecret: v.SLACK_SIGNING_SECRET,
      botToken: v.SLACK_BOT_TOKEN,
      clientId: v.SLACK_CLIENT_ID,
      clientSecret: v.SLACK_CLIENT_SECRET,
      stateSecret: v.SLACK_STATE_SECRET,
      appToken: v.SLACK_APP_TOKEN,
      apiUrl: v.SLACK_API_URL,
      // The Slack mode rule passed: no bot token means the OAuth trio is complete.
      mode: v.SLACK_BOT_TOKEN === undefined ? "oauth" : "single-workspace",
    },
    platform: {
      apiUrl: v.PLATFORM_API_URL,
      authUrl: v.PLATFORM_AUTH_URL,
      clientId: v.PLATFORM_CLIENT_ID,
      clientSecret: v.PLATFORM_CLIENT_SECRET,
      scopes: v.PLATFORM_SCOPES,
      timeouts: {
        connectMs: v.PLATFORM_CONNECT_TIMEOUT_MS,
        headersMs: v.PLATFORM_HEADERS_TIMEOUT_MS,
        bodyMs: v.PLATFORM_BODY_TIMEOUT_MS,
      },
      maxRetryAfterMs: v.PLATFORM_MAX_RETRY_AFTER_MS,
      maxConnections: v.PLATFORM_MAX_CONNECTIONS,
    },
    store: v.STORE_URL,
    storeEncryptionKey: v.STORE_ENCRYPTION_KEY,
    webhookAllowedIps: v.WEBHOOK_ALLOWED_IPS,
    trustProxy: v.TRUST_PROXY,
    logLevel: v.LOG_LEVEL,
    access: {
      managerUserIds: v.MANAGER_USER_IDS,
      allowedWorkspaces: v.SLACK_BOT_TOKEN === undefined ? (v.ALLOWED_WORKSPACES ?? []) : [],
      profileBindings: v.PROFILE_BINDINGS,
      readBudgets: {
        perUserPerMinute: v.USER_READS_PER_MINUTE,
        perWorkspacePerMinute: v.WORKSPACE_READS_PER_MINUTE,
      },
    },
    watch: {
      intervalMs: v.LIVE_WATCH_INTERVAL_MS,
      offAirGraceMs: v.LIVE_OFFAIR_GRACE_MS,
      max: v.LIVE_WATCH_MAX,
    },
    unfurlDomains: v.UNFURL_DOMAINS,
    // Set but empty means "no link" (elsewhere an empty value counts as unset).
    videoUrlTemplate:
      env.VIDEO_URL_TEMPLATE !== undefined && env.VIDEO_URL_TEMPLATE.trim() === ""
        ? undefined
        : v.VIDEO_URL_TEMPLATE,
    metricsToken: v.METRICS_TOKEN,
    digests: { periodMs: v.DIGEST_PERIOD },
  };
}

/**
 * Reads `process.env` (the only place in the code base that does), or prints every problem and
 * exits with code 1.
 */
export function readConfigOrExit(): Config;
export function readConfigOrExit<T>(loader: (env: Env) => T): T;
export function readConfigOrExit<T>(loader?: (env: Env) => T): T | Config {
  try {
    return (loader ?? loadConfig)(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      for (const p of err.problems) process.stderr.write(`config error: ${p}\n`);
      process.stderr.write("The bot did not start. Fix the variables above (see README, Configuration).\n");
      process.exit(1);
    }
    throw err;
  }
}
