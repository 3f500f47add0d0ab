/**
 * The building blocks of `src/config.ts`: the error type, the per-variable zod schemas (each
 * carrying its own problem message, the "fix" of the line `NAME: fix`) and `parseEnv`, which turns
 * an environment record into one problem line per issue. No environment is read here.
 */
import { isIP } from "node:net";
import { z } from "zod";

export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
    this.name = "ConfigError";
    this.problems = problems;
  }
}

export type Env = Record<string, string | undefined>;

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

export function parseUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

export const isHttpUrl = (u: URL | undefined): u is URL =>
  u?.protocol === "http:" || u?.protocol === "https:";

/** `redis://user:secret@host` → `redis://user:***@host`, so a password never reaches the output. */
export function maskCredentials(value: string): string {
  return value.replace(/^([a-z]+:\/\/[^:/@]*):[^@/]*@/i, "$1:***@");
}

// --- Per-variable schemas ------------------------------------------------------------------------
// They all receive a trimmed, non-empty string or `undefined` (see `parseEnv`).

/** Error maps whose message quotes the offending value: `fix (got "value")`, or `"entry" fix`. */
export const got = (fix: string) => (issue: { input: unknown }) => `${fix} (got "${String(issue.input)}")`;
export const entry = (fix: string) => (issue: { input: unknown }) => `"${String(issue.input)}" ${fix}`;

export const required = (fix: string) => z.string({ error: `is required: ${fix}` });

/** Optional tokens and secrets: a prefix or a minimum length; the message never quotes the value. */
export const token = (prefix: string, fix: string) => z.string().startsWith(prefix, fix).optional();
export const secret = (n: number, fix: string) =>
  z.string().min(n, `must be at least ${n} characters: ${fix}`).optional();

/**
 * A whole number from `min` to `max`. One refinement rather than `.regex()` + a range check, so a
 * value gets exactly one message, which quotes it as given (`"007"`, not `7`).
 */
export const wholeNumber = (min: number, max: number, fix = `must be a whole number from ${min} to ${max}`) =>
  z
    .string()
    .refine((s) => /^\d+$/.test(s) && Number(s) >= min && Number(s) <= max, { error: got(fix) })
    .transform(Number);

/**
 * An absolute http(s) base URL, returned without trailing slashes. A `superRefine` rather than
 * chained refinements: once the value is not a URL the other rules are meaningless, and stopping
 * with `abort: true` would also stop the cross-variable rules of the object (see `botEnv`).
 */
export const baseUrl = (opts: { httpsOnly?: boolean; required?: string } = {}) =>
  z
    .string({ error: opts.required ?? "is required" })
    .superRefine((raw, ctx) => {
      const u = parseUrl(raw);
      if (!isHttpUrl(u)) return ctx.addIssue(`must be an absolute http(s) URL (got "${raw}")`);
      if (opts.httpsOnly && u.protocol !== "https:") {
        ctx.addIssue(
          `must start with https:// because the platform only accepts HTTPS callbacks (got "${raw}")`,
        );
      }
      if (u.search !== "" || u.hash !== "" || u.username !== "" || u.password !== "") {
        ctx.addIssue(
          "must be a plain base URL without query, fragment or credentials, for example https://bot.example.com",
        );
      }
    })
    .transform((raw) => raw.replace(/\/+$/, ""));

/** A list split on `separator`, empty entries skipped; each bad entry is its own problem line. */
export const list = <T extends z.ZodType<unknown, string[]>>(separator: RegExp, items: T) =>
  z
    .string()
    .transform((raw) => raw.split(separator).filter((s) => s !== ""))
    .pipe(items);

/** Case-insensitive; the message quotes the value lower-cased, as it was compared. */
export const logLevel = z
  .string()
  .toLowerCase()
  .pipe(z.enum(LOG_LEVELS, { error: got(`must be one of ${LOG_LEVELS.join(", ")}`) }))
  .prefault("info");

/** Commas, with optional spaces around them. */
export const COMMA = /\s*,\s*/;
export const scopeName = z
  .string()
  .regex(/^[a-z][a-z0-9_.-]*$/i, { error: entry("is not a scope name; separate scopes with spaces") });
export const slackUserId = z.string().regex(/^[UW][A-Z0-9]{2,}$/, {
  error: entry("is not a Slack user id (like U012ABCDEF); separate ids with commas"),
});
export const workspaceId = z.string().regex(/^(\*|[TE][A-Z0-9]{2,})$/, {
  error: entry(
    "is not a Slack team id (T…) or enterprise id (E…); separate ids with commas, or use * for any",
  ),
});

/**
 * `T0AAA=x2vq8nw,x3abcd;T0BBB=x9zzzz` → { T0AAA: [x2vq8nw, x3abcd], T0BBB: [x9zzzz] }: one problem
 * per bad entry, each saying what an entry looks like.
 */
export const profileBindings = z.string().transform((raw, ctx) => {
  const out: Record<string, string[]> = Object.create(null);
  const fix =
    "write bindings as TEAM=profile,profile;TEAM=profile (for example T0AAA=x2vq8nw,x3abcd;T0BBB=x9zzzz)";
  for (const part of raw.split(/\s*;\s*/).filter((s) => s !== "")) {
    const [team, ids, extra] = part.split(/\s*=\s*/);
    const profiles = (ids ?? "").split(COMMA).filter((s) => s !== "");
    if (extra !== undefined || !team || !/^[TE][A-Z0-9]{2,}$/.test(team)) {
      ctx.addIssue(
        `"${part}" does not start with a Slack team id (T…) or enterprise id (E…) and "=": ${fix}`,
      );
    } else if (profiles.length === 0) ctx.addIssue(`"${part}" names no profile: ${fix}`);
    else if (Object.hasOwn(out, team))
      ctx.addIssue(`${team} is bound twice: list all its profiles in one entry`);
    else {
      const bad = profiles.filter((p) => !/^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/.test(p));
      if (bad.length > 0) ctx.addIssue(`"${bad.join(", ")}" is not a profile id (in the entry of ${team})`);
      else out[team] = profiles;
    }
  }
  return out;
});

/** A DNS host name (`dailymotion.com`, `dai.ly`): letters, digits and hyphens in dot-separated labels. */
export const hostName = z
  .string()
  .toLowerCase()
  .regex(/^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}$/, {
    error: entry("is not a domain name (like dailymotion.com); separate domains with commas"),
  });

/**
 * An https URL template holding `{id}` once or more (`https://www.dailymotion.com/video/{id}`).
 */
export const urlTemplate = z.string().refine(
  (raw) => {
    if (!raw.includes("{id}")) return false;
    const u = parseUrl(raw.replaceAll("{id}", "x0id"));
    return u?.protocol === "https:" && u.username === "" && u.password === "";
  },
  {
    error: got(
      "must be an https URL containing {id}, for example https://www.dailymotion.com/video/{id} (set it empty for no link)",
    ),
  },
);

export const addressOrCidr = z.string().refine(isAddressOrCidr, {
  error: entry("is not an IP address or CIDR block; separate entries with commas"),
});

/**
 * Parses the variables `schema` declares, or throws `ConfigError` with one `NAME: fix` line per
 * issue. Empty or blank values count as unset (`FOO=` in an env file means "not given"), and
 * values are trimmed. Problems are listed in the order of the schema's keys (the table's order);
 * the sort is stable, so a variable's own problems come before those of the cross-variable rules.
 */
export function parseEnv<S extends z.ZodObject>(schema: S, env: Env): z.output<S> {
  const names = Object.keys(schema.shape);
  const given: Record<string, string> = {};
  for (const name of names) {
    const value = env[name]?.trim();
    if (value) given[name] = value;
  }
  const result = schema.safeParse(given);
  if (result.success) return result.data;
  const rank = (issue: z.core.$ZodIssue) => names.indexOf(String(issue.path[0]));
  throw new ConfigError(
    result.error.issues
      .toSorted((a, b) => rank(a) - rank(b))
      .map((i) => `${String(i.path[0])}: ${i.message}`),
  );
}
