/**
 * Logging: pino JSON lines to stdout, level from LOG_LEVEL, child loggers per request.
 * More: README.md ("log.ts").
 */
import { type DestinationStream, type Logger, pino } from "pino";
import type { LogLevel } from "./config.js";

export type { Logger } from "pino";

export const REDACTED = "[REDACTED]";

/** Keys whose values never reach a log line, at the top level and one or two levels down. */
const SECRET_KEYS = [
  "authorization",
  "Authorization",
  "access_token",
  "accessToken",
  "client_secret",
  "clientSecret",
  "token",
  "botToken",
  "bot_token",
  "bot_access_token",
  "functionBotAccessToken",
  "appToken",
  "signingSecret",
  "stateSecret",
  "password",
  "ingest",
  "rtmp_url",
  "srt_url",
  "available_servers",
  "cookie",
  "set-cookie",
];

const REDACT_PATHS = [
  ...SECRET_KEYS.map((k) => (k.includes("-") ? `["${k}"]` : k)),
  ...SECRET_KEYS.map((k) => (k.includes("-") ? `*["${k}"]` : `*.${k}`)),
  ...SECRET_KEYS.map((k) => (k.includes("-") ? `*.*["${k}"]` : `*.*.${k}`)),
];

/** `https://user:pw@host:8443/p/secret?k=v` → `https://host:8443`; anything unparsable → [REDACTED]. */
export function originOnly(url: string | null | undefined): string | null {
  if (url === null || url === undefined || url === "") return url ?? null;
  try {
    const u = new URL(url);
    if (u.protocol === "http:" || u.protocol === "https:") return u.origin;
  } catch {
    // not a URL: nothing of it is shown
  }
  return REDACTED;
}

/** Keys under which a callback URL is logged (webhook configs, read-backs, error details). */
const CALLBACK_KEYS = "callback_url|callbackUrl|foreignUrl|foreign_url|webhook_url|webhookUrl|provided";

/** The URL found by a pattern below (group 2), reduced to its origin. */
const toOrigin = (_match: string, before: string, url: string) => `${before}${originOnly(url) ?? ""}`;

const PATTERNS: Array<[RegExp, string | ((match: string, ...groups: string[]) => string)]> = [
  // Authorization: Bearer <credential>
  [/(Bearer\s+)[A-Za-z0-9\-._~+/]+=*/gi, `$1${REDACTED}`],
  // JWTs (the platform's access tokens)
  [/eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/g, REDACTED],
  // Slack tokens: bot, user, app-level, refresh, config
  [/\bxox[abposre]-[A-Za-z0-9-]+/g, REDACTED],
  [/\bxapp-[A-Za-z0-9-]+/g, REDACTED],
  // Workflow tokens (a workflow step's `bot_access_token`)
  [/\bxwfp-[A-Za-z0-9-]+/g, REDACTED],
  // Ingest addresses carry the stream key
  [/\b(rtmps?|srt):\/\/[^\s"'\\<>]+/gi, `$1://${REDACTED}`],
  // OAuth form bodies
  [/(client_secret=)[^&\s"]+/g, `$1${REDACTED}`],
  // Delivery-callback tokens in URLs
  [/(\/hooks\/platform\/)[A-Za-z0-9_-]+/g, `$1${REDACTED}`],
  // Callback URLs as JSON values, plain ("k":"v") or inside a JSON string (\"k\":\"v\"): origin only
  [new RegExp(String.raw`(\\?"(?:${CALLBACK_KEYS})\\?"\s*:\s*\\?")(https?:\/\/[^"\\\s]*)`, "gi"), toOrigin],
  // The slash command's `url=<callback>` argument
  [/(\burl=)(https?:\/\/[^\s"'\\<>|]*)/gi, toOrigin],
];

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Replaces registered secret values and secret-shaped strings in `text`. */
export function scrubSecrets(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const s of secrets) {
    if (s.length >= 4 && out.includes(s)) out = out.replace(new RegExp(escapeRegExp(s), "g"), REDACTED);
    // The JSON-escaped form of the secret, in case it holds quotes or backslashes.
    const escaped = JSON.stringify(s).slice(1, -1);
    if (escaped !== s && escaped.length >= 4 && out.includes(escaped)) {
      out = out.replace(new RegExp(escapeRegExp(escaped), "g"), REDACTED);
    }
  }
  for (const [re, replacement] of PATTERNS)
    out = typeof replacement === "string" ? out.replace(re, replacement) : out.replace(re, replacement);
  return out;
}

export interface LoggerOptions {
  level: LogLevel;
  /** Where JSON lines go; stdout by default. Tests pass a capturing stream. */
  destination?: DestinationStream;
  /** Literal values that must never be written (client secret, signing secret, bot token ...). */
  secrets?: ReadonlyArray<string | undefined>;
  /** Static bindings on every line, e.g. { service: "platform-slack-bot" }. */
  base?: Record<string, unknown>;
}

/** A destination that scrubs each serialized line before handing it on. */
function scrubbingDestination(inner: DestinationStream, secrets: readonly string[]): DestinationStream {
  return {
    write(line: string) {
      inner.write(scrubSecrets(line, secrets));
    },
  };
}

export function createLogger(options: LoggerOptions): Logger {
  const secrets = (options.secrets ?? []).filter((s): s is string => typeof s === "string" && s.length >= 4);
  const inner = options.destination ?? pino.destination({ dest: 1, sync: false });
  return pino(
    {
      level: options.level,
      base: options.base ?? { service: "platform-slack-bot" },
      redact: { paths: REDACT_PATHS, censor: REDACTED },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      serializers: { err: pino.stdSerializers.err, error: pino.stdSerializers.err },
    },
    scrubbingDestination(inner, secrets),
  );
}

/** A logger that writes nothing (tests and tools that do not care). */
export function silentLogger(): Logger {
  return pino({ level: "silent" });
}
