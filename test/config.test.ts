/**
 * Unit tests of the configuration module (contract, section Environment): every default, every
 * rule of `loadConfig` and `loadSandboxConfig`, `isAddressOrCidr`, and the exit behaviour of
 * `readConfigOrExit` in a child process with a controlled environment.
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it, vi } from "vitest";
import { loadSandboxConfig } from "../fakes/platform/config.js";
import {
  ConfigError,
  type Env,
  isAddressOrCidr,
  LOG_LEVELS,
  loadConfig,
  readConfigOrExit,
} from "../src/config.js";

/** Smallest valid single-workspace environment. */
const VALID: Env = {
  PUBLIC_URL: "https://bot.example.com",
  SLACK_SIGNING_SECRET: "signing-secret-value",
  SLACK_BOT_TOKEN: "xoxb-111-222-abcdef",
  PLATFORM_CLIENT_ID: "platform-client-id",
  PLATFORM_CLIENT_SECRET: "platform-client-secret",
};

/** Smallest valid multi-workspace (OAuth) environment. */
const OAUTH: Env = {
  PUBLIC_URL: "https://bot.example.com",
  SLACK_SIGNING_SECRET: "signing-secret-value",
  SLACK_CLIENT_ID: "1234.5678",
  SLACK_CLIENT_SECRET: "slack-client-secret",
  SLACK_STATE_SECRET: "0123456789abcdef0123",
  PLATFORM_CLIENT_ID: "platform-client-id",
  PLATFORM_CLIENT_SECRET: "platform-client-secret",
  ALLOWED_WORKSPACES: "T0AAA",
};

function configError(run: () => unknown): ConfigError {
  try {
    run();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error("expected a ConfigError, but the configuration was accepted");
}

/** The problem lines `loadConfig` reports for `env`. */
function problemsOf(env: Env): string[] {
  return configError(() => loadConfig(env)).problems;
}

/** The problem lines `loadSandboxConfig` reports for `env`. */
function sandboxProblemsOf(env: Env): string[] {
  return configError(() => loadSandboxConfig(env)).problems;
}

/** Variable named at the start of each problem line. */
function names(problems: string[]): string[] {
  return problems.map((p) => p.slice(0, p.indexOf(":")));
}

/** Asserts exactly one problem, naming `name` and followed by a non-empty fix; returns the line. */
function onlyProblem(env: Env, name: string): string {
  const problems = problemsOf(env);
  expect(problems).toHaveLength(1);
  const [line] = problems;
  expect(line).toMatch(new RegExp(`^${name}: \\S`));
  return line ?? "";
}

describe("loadConfig: defaults", () => {
  it("fills in every documented default", () => {
    const c = loadConfig(VALID);
    expect(c.port).toBe(3000);
    expect(c.host).toBe("0.0.0.0");
    expect(c.slack.apiUrl).toBe("https://slack.com/api/");
    expect(c.platform.apiUrl).toBe("https://api.dailymotion.com/v2");
    expect(c.platform.authUrl).toBe("https://oauth2.dailymotion.com");
    expect(c.platform.scopes).toEqual(["live.read", "profile.manage", "video.read"]);
    expect(c.store).toEqual({ kind: "sqlite", path: "./data/bot.sqlite", url: "sqlite://./data/bot.sqlite" });
    expect(c.storeEncryptionKey).toBeUndefined();
    expect(c.access.managerUserIds).toEqual([]);
    expect(c.webhookAllowedIps).toEqual([]);
    expect(c.trustProxy).toBe(false);
    expect(c.logLevel).toBe("info");
    // 10 s for the headers: a platform that takes 5 s (busy, not down) still gets its answer through.
    expect(c.platform.timeouts).toEqual({ connectMs: 3000, headersMs: 10_000, bodyMs: 5000 });
    expect(c.platform.maxRetryAfterMs).toBe(10_000);
    expect(c.platform.maxConnections).toBe(256);
    expect(c.slack.appToken).toBeUndefined();
  });

  it("passes the required values through", () => {
    const c = loadConfig(VALID);
    expect(c.publicUrl).toBe("https://bot.example.com");
    expect(c.slack.signingSecret).toBe("signing-secret-value");
    expect(c.slack.botToken).toBe("xoxb-111-222-abcdef");
    expect(c.slack.mode).toBe("single-workspace");
    expect(c.slack.clientId).toBeUndefined();
    expect(c.slack.clientSecret).toBeUndefined();
    expect(c.slack.stateSecret).toBeUndefined();
    expect(c.platform.clientId).toBe("platform-client-id");
    expect(c.platform.clientSecret).toBe("platform-client-secret");
  });

  it("accepts overrides of every optional variable", () => {
    const c = loadConfig({
      ...VALID,
      PORT: "8080",
      HOST: "127.0.0.1",
      SLACK_APP_TOKEN: "xapp-1-A0-abc",
      SLACK_API_URL: "http://127.0.0.1:5555/api/",
      PLATFORM_API_URL: "http://127.0.0.1:4010/v2",
      PLATFORM_AUTH_URL: "http://127.0.0.1:4010",
      PLATFORM_SCOPES: "live.read",
      STORE_URL: "memory://",
      STORE_ENCRYPTION_KEY: "k".repeat(32),
      MANAGER_USER_IDS: "U012ABC",
      WEBHOOK_ALLOWED_IPS: "10.0.0.1",
      TRUST_PROXY: "true",
      LOG_LEVEL: "debug",
      PLATFORM_CONNECT_TIMEOUT_MS: "250",
      PLATFORM_HEADERS_TIMEOUT_MS: "1500",
      PLATFORM_BODY_TIMEOUT_MS: "2500",
      PLATFORM_MAX_RETRY_AFTER_MS: "0",
    });
    expect(c.port).toBe(8080);
    expect(c.host).toBe("127.0.0.1");
    expect(c.slack.appToken).toBe("xapp-1-A0-abc");
    expect(c.slack.apiUrl).toBe("http://127.0.0.1:5555/api/");
    expect(c.platform.apiUrl).toBe("http://127.0.0.1:4010/v2");
    expect(c.platform.authUrl).toBe("http://127.0.0.1:4010");
    expect(c.platform.scopes).toEqual(["live.read"]);
    expect(c.store).toEqual({ kind: "memory", url: "memory://" });
    expect(c.storeEncryptionKey).toBe("k".repeat(32));
    expect(c.access.managerUserIds).toEqual(["U012ABC"]);
    expect(c.webhookAllowedIps).toEqual(["10.0.0.1"]);
    expect(c.trustProxy).toBe(true);
    expect(c.logLevel).toBe("debug");
    expect(c.platform.timeouts).toEqual({ connectMs: 250, headersMs: 1500, bodyMs: 2500 });
    expect(c.platform.maxRetryAfterMs).toBe(0);
  });
});

describe("loadConfig: empty strings and whitespace count as unset", () => {
  it("uses defaults for optional variables set to empty or blank", () => {
    const c = loadConfig({
      ...VALID,
      PORT: "",
      HOST: "   ",
      SLACK_APP_TOKEN: "",
      SLACK_API_URL: "",
      PLATFORM_API_URL: "",
      PLATFORM_AUTH_URL: " ",
      PLATFORM_SCOPES: "",
      STORE_URL: "",
      STORE_ENCRYPTION_KEY: "",
      MANAGER_USER_IDS: "",
      WEBHOOK_ALLOWED_IPS: "",
      TRUST_PROXY: "",
      LOG_LEVEL: "",
      PLATFORM_CONNECT_TIMEOUT_MS: "",
      PLATFORM_MAX_RETRY_AFTER_MS: "",
      SLACK_CLIENT_ID: "",
      SLACK_CLIENT_SECRET: "",
      SLACK_STATE_SECRET: "",
    });
    expect(c.port).toBe(3000);
    expect(c.host).toBe("0.0.0.0");
    expect(c.slack.appToken).toBeUndefined();
    expect(c.slack.apiUrl).toBe("https://slack.com/api/");
    expect(c.slack.mode).toBe("single-workspace");
    expect(c.platform.apiUrl).toBe("https://api.dailymotion.com/v2");
    expect(c.platform.authUrl).toBe("https://oauth2.dailymotion.com");
    expect(c.platform.scopes).toEqual(["live.read", "profile.manage", "video.read"]);
    expect(c.store.kind).toBe("sqlite");
    expect(c.storeEncryptionKey).toBeUndefined();
    expect(c.access.managerUserIds).toEqual([]);
    expect(c.webhookAllowedIps).toEqual([]);
    expect(c.trustProxy).toBe(false);
    expect(c.logLevel).toBe("info");
    expect(c.platform.timeouts.connectMs).toBe(3000);
    expect(c.platform.maxRetryAfterMs).toBe(10_000);
  });

  it.each(["PUBLIC_URL", "SLACK_SIGNING_SECRET", "PLATFORM_CLIENT_ID", "PLATFORM_CLIENT_SECRET"])(
    "reports required %s set to an empty or blank string as missing",
    (name) => {
      expect(onlyProblem({ ...VALID, [name]: "" }, name)).toContain("is required");
      expect(onlyProblem({ ...VALID, [name]: "  " }, name)).toContain("is required");
    },
  );

  it("trims surrounding whitespace from values", () => {
    const c = loadConfig({ ...VALID, PORT: " 8080 ", PUBLIC_URL: " https://bot.example.com/ " });
    expect(c.port).toBe(8080);
    expect(c.publicUrl).toBe("https://bot.example.com");
  });
});

describe("loadConfig: required variables", () => {
  it("PUBLIC_URL missing", () => {
    const { PUBLIC_URL: _, ...env } = VALID;
    expect(onlyProblem(env, "PUBLIC_URL")).toContain("is required");
  });

  it("SLACK_SIGNING_SECRET missing", () => {
    const { SLACK_SIGNING_SECRET: _, ...env } = VALID;
    expect(onlyProblem(env, "SLACK_SIGNING_SECRET")).toContain("is required");
  });

  it("PLATFORM_CLIENT_ID missing", () => {
    const { PLATFORM_CLIENT_ID: _, ...env } = VALID;
    expect(onlyProblem(env, "PLATFORM_CLIENT_ID")).toContain("is required");
  });

  it("PLATFORM_CLIENT_SECRET missing", () => {
    const { PLATFORM_CLIENT_SECRET: _, ...env } = VALID;
    expect(onlyProblem(env, "PLATFORM_CLIENT_SECRET")).toContain("is required");
  });

  it("no Slack mode: neither SLACK_BOT_TOKEN nor the OAuth trio", () => {
    const { SLACK_BOT_TOKEN: _, ...env } = VALID;
    const line = onlyProblem(env, "SLACK_BOT_TOKEN");
    expect(line).toContain("is required");
    expect(line).toContain("SLACK_CLIENT_ID");
    expect(line).toContain("SLACK_STATE_SECRET");
  });
});

describe("loadConfig: PUBLIC_URL", () => {
  it("rejects http://", () => {
    const line = onlyProblem({ ...VALID, PUBLIC_URL: "http://bot.example.com" }, "PUBLIC_URL");
    expect(line).toContain("https://");
    expect(line).toContain('"http://bot.example.com"');
  });

  it.each(["not a url", "bot.example.com", "https://", "ftp://bot.example.com"])("rejects %j", (value) => {
    expect(onlyProblem({ ...VALID, PUBLIC_URL: value }, "PUBLIC_URL")).toContain("absolute http(s) URL");
  });

  it("strips trailing slashes", () => {
    expect(loadConfig({ ...VALID, PUBLIC_URL: "https://bot.example.com/" }).publicUrl).toBe(
      "https://bot.example.com",
    );
    expect(loadConfig({ ...VALID, PUBLIC_URL: "https://bot.example.com/slack//" }).publicUrl).toBe(
      "https://bot.example.com/slack",
    );
  });
});

describe("loadConfig: PORT", () => {
  it.each(["0", "70000", "65536", "abc", "-1", "3000.5", "1e3"])("rejects %j", (value) => {
    const line = onlyProblem({ ...VALID, PORT: value }, "PORT");
    expect(line).toContain("whole number from 1 to 65535");
    expect(line).toContain(`"${value}"`);
  });

  it.each([
    ["1", 1],
    ["65535", 65535],
  ])("accepts %j", (value, port) => {
    expect(loadConfig({ ...VALID, PORT: value }).port).toBe(port);
  });
});

describe("loadConfig: Slack tokens and modes", () => {
  it("rejects a bot token without the xoxb- prefix, without echoing it", () => {
    const line = onlyProblem({ ...VALID, SLACK_BOT_TOKEN: "xoxp-user-token-secret" }, "SLACK_BOT_TOKEN");
    expect(line).toContain("xoxb-");
    expect(line).not.toContain("xoxp-user-token-secret");
  });

  it("rejects an app token without the xapp- prefix, without echoing it", () => {
    const line = onlyProblem({ ...VALID, SLACK_APP_TOKEN: "xoxb-not-an-app-token" }, "SLACK_APP_TOKEN");
    expect(line).toContain("xapp-");
    expect(line).not.toContain("xoxb-not-an-app-token");
  });

  it("accepts the OAuth trio as multi-workspace mode", () => {
    const c = loadConfig(OAUTH);
    expect(c.slack.mode).toBe("oauth");
    expect(c.slack.botToken).toBeUndefined();
    expect(c.slack.clientId).toBe("1234.5678");
    expect(c.slack.clientSecret).toBe("slack-client-secret");
    expect(c.slack.stateSecret).toBe("0123456789abcdef0123");
  });

  it.each([
    ["SLACK_CLIENT_ID", ["SLACK_CLIENT_ID"]],
    ["SLACK_CLIENT_SECRET", ["SLACK_CLIENT_SECRET"]],
    ["SLACK_STATE_SECRET", ["SLACK_STATE_SECRET"]],
  ])("reports the OAuth trio without %s", (missing, expected) => {
    const env: Env = { ...OAUTH, [missing]: undefined };
    const problems = problemsOf(env);
    expect(names(problems)).toEqual(expected);
    expect(problems[0]).toContain("multi-workspace");
  });

  it("reports both missing members when only one of the trio is given", () => {
    const env: Env = { ...OAUTH, SLACK_CLIENT_SECRET: undefined, SLACK_STATE_SECRET: undefined };
    expect(names(problemsOf(env))).toEqual(["SLACK_CLIENT_SECRET", "SLACK_STATE_SECRET"]);
  });

  it.each(["SLACK_CLIENT_ID", "SLACK_CLIENT_SECRET", "SLACK_STATE_SECRET"])(
    "rejects SLACK_BOT_TOKEN together with %s",
    (name) => {
      const line = onlyProblem({ ...VALID, [name]: OAUTH[name] }, "SLACK_BOT_TOKEN");
      expect(line).toContain("not both");
    },
  );

  it("rejects SLACK_BOT_TOKEN together with the whole OAuth trio", () => {
    expect(onlyProblem({ ...OAUTH, SLACK_BOT_TOKEN: VALID.SLACK_BOT_TOKEN }, "SLACK_BOT_TOKEN")).toContain(
      "not both",
    );
  });

  it("rejects a state secret shorter than 16 characters, without echoing it", () => {
    const line = onlyProblem({ ...OAUTH, SLACK_STATE_SECRET: "short-secret-15" }, "SLACK_STATE_SECRET");
    expect(line).toContain("at least 16 characters");
    expect(line).not.toContain("short-secret-15");
  });

  it("accepts a state secret of exactly 16 characters", () => {
    expect(loadConfig({ ...OAUTH, SLACK_STATE_SECRET: "s".repeat(16) }).slack.stateSecret).toBe(
      "s".repeat(16),
    );
  });

  it("accepts an app token in either mode", () => {
    expect(loadConfig({ ...OAUTH, SLACK_APP_TOKEN: "xapp-1-A0-abc" }).slack.appToken).toBe("xapp-1-A0-abc");
  });
});

describe("loadConfig: URLs", () => {
  it("keeps exactly one trailing slash on SLACK_API_URL", () => {
    expect(loadConfig({ ...VALID, SLACK_API_URL: "https://slack.com/api/" }).slack.apiUrl).toBe(
      "https://slack.com/api/",
    );
    expect(loadConfig({ ...VALID, SLACK_API_URL: "http://127.0.0.1:5555/api" }).slack.apiUrl).toBe(
      "http://127.0.0.1:5555/api/",
    );
    expect(loadConfig({ ...VALID, SLACK_API_URL: "http://127.0.0.1:5555/api///" }).slack.apiUrl).toBe(
      "http://127.0.0.1:5555/api/",
    );
  });

  it("strips trailing slashes from PLATFORM_API_URL and PLATFORM_AUTH_URL", () => {
    const c = loadConfig({
      ...VALID,
      PLATFORM_API_URL: "http://127.0.0.1:4010/v2/",
      PLATFORM_AUTH_URL: "http://127.0.0.1:4010//",
    });
    expect(c.platform.apiUrl).toBe("http://127.0.0.1:4010/v2");
    expect(c.platform.authUrl).toBe("http://127.0.0.1:4010");
  });

  it.each(["SLACK_API_URL", "PLATFORM_API_URL", "PLATFORM_AUTH_URL"])(
    "%s accepts http:// (local stand-ins) but rejects non-URLs and other schemes",
    (name) => {
      expect(() => loadConfig({ ...VALID, [name]: "http://127.0.0.1:4010/x" })).not.toThrow();
      expect(onlyProblem({ ...VALID, [name]: "not a url" }, name)).toContain("absolute http(s) URL");
      expect(onlyProblem({ ...VALID, [name]: "ftp://example.com" }, name)).toContain("absolute http(s) URL");
    },
  );
});

describe("loadConfig: PLATFORM_SCOPES", () => {
  it("splits on spaces and commas", () => {
    expect(loadConfig({ ...VALID, PLATFORM_SCOPES: "live.read  profile.manage" }).platform.scopes).toEqual([
      "live.read",
      "profile.manage",
    ]);
    expect(loadConfig({ ...VALID, PLATFORM_SCOPES: "live.read,profile.manage" }).platform.scopes).toEqual([
      "live.read",
      "profile.manage",
    ]);
  });

  it("rejects a token that is not a scope name", () => {
    expect(onlyProblem({ ...VALID, PLATFORM_SCOPES: "live.read $bad" }, "PLATFORM_SCOPES")).toContain(
      '"$bad"',
    );
  });

  it("rejects a value with no scope at all", () => {
    expect(onlyProblem({ ...VALID, PLATFORM_SCOPES: ", ," }, "PLATFORM_SCOPES")).toContain(
      "at least one scope",
    );
  });
});

describe("loadConfig: platform timeouts", () => {
  it.each(["PLATFORM_CONNECT_TIMEOUT_MS", "PLATFORM_HEADERS_TIMEOUT_MS", "PLATFORM_BODY_TIMEOUT_MS"])(
    "%s must be a whole number from 100 to 120000",
    (name) => {
      for (const bad of ["99", "120001", "abc", "1.5"]) {
        expect(onlyProblem({ ...VALID, [name]: bad }, name)).toContain("from 100 to 120000");
      }
      expect(() => loadConfig({ ...VALID, [name]: "100" })).not.toThrow();
      expect(() => loadConfig({ ...VALID, [name]: "120000" })).not.toThrow();
    },
  );

  it("PLATFORM_MAX_CONNECTIONS must be a whole number from 1 to 4096, and says what it is", () => {
    expect(loadConfig({ ...VALID, PLATFORM_MAX_CONNECTIONS: "1" }).platform.maxConnections).toBe(1);
    expect(loadConfig({ ...VALID, PLATFORM_MAX_CONNECTIONS: "4096" }).platform.maxConnections).toBe(4096);
    expect(loadConfig({ ...VALID, PLATFORM_MAX_CONNECTIONS: " " }).platform.maxConnections).toBe(256);
    for (const bad of ["0", "4097", "-1", "1.5", "many"]) {
      const line = onlyProblem({ ...VALID, PLATFORM_MAX_CONNECTIONS: bad }, "PLATFORM_MAX_CONNECTIONS");
      expect(line).toMatch(/^PLATFORM_MAX_CONNECTIONS\b/);
      expect(line).toContain("from 1 to 4096");
      expect(line).toContain("connections open to the platform");
    }
  });

  it("PLATFORM_MAX_RETRY_AFTER_MS must be a whole number from 0 to 600000", () => {
    expect(loadConfig({ ...VALID, PLATFORM_MAX_RETRY_AFTER_MS: "600000" }).platform.maxRetryAfterMs).toBe(
      600_000,
    );
    for (const bad of ["600001", "-1", "x"]) {
      expect(
        onlyProblem({ ...VALID, PLATFORM_MAX_RETRY_AFTER_MS: bad }, "PLATFORM_MAX_RETRY_AFTER_MS"),
      ).toContain("from 0 to 600000");
    }
  });
});

describe("loadConfig: live watch", () => {
  it("LIVE_WATCH_INTERVAL_MS defaults to 30000, at least 1000, and says what it is", () => {
    expect(loadConfig(VALID).watch).toEqual({ intervalMs: 30_000, offAirGraceMs: 60_000, max: 1000 });
    expect(loadConfig({ ...VALID, LIVE_WATCH_INTERVAL_MS: "1000" }).watch.intervalMs).toBe(1000);
    expect(loadConfig({ ...VALID, LIVE_WATCH_INTERVAL_MS: " " }).watch.intervalMs).toBe(30_000);
    for (const bad of ["999", "0", "-1", "1.5", "30s", "86400001"]) {
      const line = onlyProblem({ ...VALID, LIVE_WATCH_INTERVAL_MS: bad }, "LIVE_WATCH_INTERVAL_MS");
      expect(line).toMatch(/^LIVE_WATCH_INTERVAL_MS\b/);
      expect(line).toContain("from 1000 to 86400000");
      expect(line).toContain("watched livestream is read");
    }
  });

  it("LIVE_OFFAIR_GRACE_MS defaults to 60000, may be 0, and says what it is", () => {
    expect(loadConfig({ ...VALID, LIVE_OFFAIR_GRACE_MS: "0" }).watch.offAirGraceMs).toBe(0);
    expect(loadConfig({ ...VALID, LIVE_OFFAIR_GRACE_MS: "2500" }).watch.offAirGraceMs).toBe(2500);
    for (const bad of ["-1", "1e3", "soon", "86400001"]) {
      const line = onlyProblem({ ...VALID, LIVE_OFFAIR_GRACE_MS: bad }, "LIVE_OFFAIR_GRACE_MS");
      expect(line).toMatch(/^LIVE_OFFAIR_GRACE_MS\b/);
      expect(line).toContain("off air");
    }
  });
});

describe("loadConfig: STORE_URL", () => {
  it("parses sqlite://PATH", () => {
    expect(loadConfig({ ...VALID, STORE_URL: "sqlite:///var/lib/bot/bot.sqlite" }).store).toEqual({
      kind: "sqlite",
      path: "/var/lib/bot/bot.sqlite",
      url: "sqlite:///var/lib/bot/bot.sqlite",
    });
  });

  it("parses redis://HOST:PORT/DB and rediss://", () => {
    expect(loadConfig({ ...VALID, STORE_URL: "redis://host:6379/2" }).store).toEqual({
      kind: "redis",
      url: "redis://host:6379/2",
    });
    expect(loadConfig({ ...VALID, STORE_URL: "redis://host:6379" }).store).toEqual({
      kind: "redis",
      url: "redis://host:6379",
    });
    expect(loadConfig({ ...VALID, STORE_URL: "rediss://cache.example.com:6380" }).store).toEqual({
      kind: "redis",
      url: "rediss://cache.example.com:6380",
    });
  });

  it("parses memory://", () => {
    expect(loadConfig({ ...VALID, STORE_URL: "memory://" }).store).toEqual({
      kind: "memory",
      url: "memory://",
    });
  });

  it("rejects other schemes", () => {
    const line = onlyProblem({ ...VALID, STORE_URL: "postgres://db/bot" }, "STORE_URL");
    expect(line).toContain("sqlite://PATH");
    expect(line).toContain("redis://");
    expect(line).toContain("memory://");
    expect(line).toContain('"postgres://db/bot"');
  });

  it("rejects sqlite:// without a path", () => {
    expect(onlyProblem({ ...VALID, STORE_URL: "sqlite://" }, "STORE_URL")).toContain("needs a file path");
  });

  it("rejects redis:// without a host", () => {
    expect(onlyProblem({ ...VALID, STORE_URL: "redis://" }, "STORE_URL")).toContain("redis://HOST:PORT");
  });
});

describe("loadConfig: STORE_ENCRYPTION_KEY", () => {
  it("rejects a key shorter than 32 characters, without echoing it", () => {
    const key = "k".repeat(31);
    const line = onlyProblem({ ...VALID, STORE_ENCRYPTION_KEY: key }, "STORE_ENCRYPTION_KEY");
    expect(line).toContain("at least 32 characters");
    expect(line).not.toContain(key);
  });

  it("accepts a key of 32 characters or more", () => {
    const key = "A".repeat(44);
    expect(loadConfig({ ...VALID, STORE_ENCRYPTION_KEY: key }).storeEncryptionKey).toBe(key);
  });
});

describe("loadConfig: MANAGER_USER_IDS", () => {
  it("parses a comma-separated list with spaces", () => {
    expect(loadConfig({ ...VALID, MANAGER_USER_IDS: "U012ABC, W0ABC" }).access.managerUserIds).toEqual([
      "U012ABC",
      "W0ABC",
    ]);
    expect(loadConfig({ ...VALID, MANAGER_USER_IDS: "U012ABC,,W0ABC," }).access.managerUserIds).toEqual([
      "U012ABC",
      "W0ABC",
    ]);
  });

  it("rejects an entry that is not a Slack user id", () => {
    const line = onlyProblem({ ...VALID, MANAGER_USER_IDS: "U012ABC, bob" }, "MANAGER_USER_IDS");
    expect(line).toContain('"bob"');
  });

  it("reports one line per bad entry", () => {
    const problems = problemsOf({ ...VALID, MANAGER_USER_IDS: "bob,C012ABC" });
    expect(names(problems)).toEqual(["MANAGER_USER_IDS", "MANAGER_USER_IDS"]);
    expect(problems[0]).toContain('"bob"');
    expect(problems[1]).toContain('"C012ABC"');
  });
});

describe("loadConfig: WEBHOOK_ALLOWED_IPS", () => {
  it("parses IPv4, IPv6 and CIDR blocks of both families", () => {
    const value = "203.0.113.7, 2001:db8::1, 10.0.0.0/8, 2001:db8::/32";
    expect(loadConfig({ ...VALID, WEBHOOK_ALLOWED_IPS: value }).webhookAllowedIps).toEqual([
      "203.0.113.7",
      "2001:db8::1",
      "10.0.0.0/8",
      "2001:db8::/32",
    ]);
  });

  it.each(["1.2.3.999", "10.0.0.0/33", "::/129", "host"])("rejects %j", (bad) => {
    const line = onlyProblem({ ...VALID, WEBHOOK_ALLOWED_IPS: `10.0.0.1, ${bad}` }, "WEBHOOK_ALLOWED_IPS");
    expect(line).toContain(`"${bad}"`);
  });

  it("reports one line per bad entry", () => {
    const problems = problemsOf({ ...VALID, WEBHOOK_ALLOWED_IPS: "host,1.2.3.999" });
    expect(names(problems)).toEqual(["WEBHOOK_ALLOWED_IPS", "WEBHOOK_ALLOWED_IPS"]);
  });
});

describe("isAddressOrCidr", () => {
  it.each([
    "1.2.3.4",
    "0.0.0.0",
    "255.255.255.255",
    "::",
    "::1",
    "2001:db8::1",
    "::ffff:192.0.2.1",
    "10.0.0.0/8",
    "10.0.0.0/0",
    "192.168.1.0/32",
    "2001:db8::/32",
    "::/0",
    "::/128",
  ])("accepts %j", (value) => {
    expect(isAddressOrCidr(value)).toBe(true);
  });

  it.each([
    "",
    "host",
    "example.com",
    "1.2.3",
    "1.2.3.999",
    "1.2.3.4.5",
    "10.0.0.0/33",
    "::/129",
    "10.0.0.0/",
    "10.0.0.0/-1",
    "10.0.0.0/x",
    "10.0.0.0/1000",
    "10.0.0.0/8/8",
    "/8",
    "2001:db8:::1",
  ])("rejects %j", (value) => {
    expect(isAddressOrCidr(value)).toBe(false);
  });
});

describe("loadConfig: TRUST_PROXY", () => {
  it.each(["true", "1", "yes", "TRUE", "Yes"])("%j means true", (value) => {
    expect(loadConfig({ ...VALID, TRUST_PROXY: value }).trustProxy).toBe(true);
  });

  it.each(["false", "0", "no", "FALSE"])("%j means false", (value) => {
    expect(loadConfig({ ...VALID, TRUST_PROXY: value }).trustProxy).toBe(false);
  });

  it("rejects anything else", () => {
    const line = onlyProblem({ ...VALID, TRUST_PROXY: "maybe" }, "TRUST_PROXY");
    expect(line).toContain("true or false");
    expect(line).toContain('"maybe"');
  });
});

describe("loadConfig: LOG_LEVEL", () => {
  it.each([...LOG_LEVELS])("accepts %j", (level) => {
    expect(loadConfig({ ...VALID, LOG_LEVEL: level }).logLevel).toBe(level);
  });

  it("is case-insensitive", () => {
    expect(loadConfig({ ...VALID, LOG_LEVEL: "DEBUG" }).logLevel).toBe("debug");
  });

  it("rejects an unknown level and lists the valid ones", () => {
    const line = onlyProblem({ ...VALID, LOG_LEVEL: "verbose" }, "LOG_LEVEL");
    expect(line).toContain('"verbose"');
    for (const level of LOG_LEVELS) expect(line).toContain(level);
  });
});

describe("loadConfig: ALLOWED_WORKSPACES", () => {
  it("is required in multi-workspace mode, naming the variable and the fix", () => {
    const line = onlyProblem({ ...OAUTH, ALLOWED_WORKSPACES: undefined }, "ALLOWED_WORKSPACES");
    expect(line).toMatch(/required in multi-workspace mode/);
    expect(line).toContain("*");
  });

  it("takes team and enterprise ids, and *", () => {
    expect(
      loadConfig({ ...OAUTH, ALLOWED_WORKSPACES: "T0AAA, E0BBB,T0CCC" }).access.allowedWorkspaces,
    ).toEqual(["T0AAA", "E0BBB", "T0CCC"]);
    expect(loadConfig({ ...OAUTH, ALLOWED_WORKSPACES: "*" }).access.allowedWorkspaces).toEqual(["*"]);
  });

  it("reports each entry that is not a team or enterprise id", () => {
    const problems = problemsOf({ ...OAUTH, ALLOWED_WORKSPACES: "T0AAA,acme,U0XYZ" });
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^ALLOWED_WORKSPACES: "acme" is not a Slack team id/);
    expect(problems[1]).toMatch(/^ALLOWED_WORKSPACES: "U0XYZ" is not a Slack team id/);
  });

  it("is ignored in single-workspace mode", () => {
    expect(loadConfig(VALID).access.allowedWorkspaces).toEqual([]);
    expect(loadConfig({ ...VALID, ALLOWED_WORKSPACES: "T0AAA" }).access.allowedWorkspaces).toEqual([]);
  });
});

describe("loadConfig: PROFILE_BINDINGS", () => {
  it("is empty by default", () => {
    expect(loadConfig(VALID).access.profileBindings).toEqual({});
  });

  it("parses TEAM=profile,profile;TEAM=profile", () => {
    const c = loadConfig({ ...OAUTH, PROFILE_BINDINGS: "T0AAA=x2vq8nw, x3abcd ; E0BBB=x9zzzz;" });
    expect({ ...c.access.profileBindings }).toEqual({ T0AAA: ["x2vq8nw", "x3abcd"], E0BBB: ["x9zzzz"] });
  });

  it.each([
    ["x2vq8nw", /"x2vq8nw" does not start with a Slack team id/],
    ["acme=x2vq8nw", /"acme=x2vq8nw" does not start with a Slack team id/],
    ["T0AAA=", /"T0AAA=" names no profile/],
    ["T0AAA=a=b", /does not start with a Slack team id/],
    ["T0AAA=x2vq8nw;T0AAA=x3abcd", /T0AAA is bound twice/],
    ["T0AAA=x2 vq,ok", /"x2 vq" is not a profile id/],
  ])("refuses %j with one line naming the variable and the fix", (value, why) => {
    const line = onlyProblem({ ...VALID, PROFILE_BINDINGS: value }, "PROFILE_BINDINGS");
    expect(line).toMatch(why);
  });

  it("reports every bad entry, one line each", () => {
    const problems = problemsOf({ ...VALID, PROFILE_BINDINGS: "bad;T0AAA=x1;T0BBB=" });
    expect(names(problems)).toEqual(["PROFILE_BINDINGS", "PROFILE_BINDINGS"]);
    expect(problems[0]).toContain("for example T0AAA=x2vq8nw,x3abcd;T0BBB=x9zzzz");
  });
});

describe("loadConfig: several problems at once", () => {
  it("reports every missing required variable, one line each", () => {
    const err = configError(() => loadConfig({}));
    expect(names(err.problems)).toEqual([
      "PUBLIC_URL",
      "SLACK_SIGNING_SECRET",
      "SLACK_BOT_TOKEN",
      "PLATFORM_CLIENT_ID",
      "PLATFORM_CLIENT_SECRET",
    ]);
  });

  it("collects all problems and lists them in the error message", () => {
    const err = configError(() =>
      loadConfig({
        ...VALID,
        PORT: "abc",
        PUBLIC_URL: "http://bot.example.com",
        SLACK_APP_TOKEN: "nope",
        STORE_URL: "postgres://db",
        MANAGER_USER_IDS: "bob",
        WEBHOOK_ALLOWED_IPS: "host",
        TRUST_PROXY: "maybe",
        LOG_LEVEL: "loud",
      }),
    );
    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe("ConfigError");
    expect(names(err.problems)).toEqual([
      "PORT",
      "PUBLIC_URL",
      "SLACK_APP_TOKEN",
      "STORE_URL",
      "MANAGER_USER_IDS",
      "WEBHOOK_ALLOWED_IPS",
      "TRUST_PROXY",
      "LOG_LEVEL",
    ]);
    for (const p of err.problems) {
      expect(p).toMatch(/^[A-Z][A-Z_]*: \S/);
      expect(p).not.toContain("\n");
    }
    expect(err.message.split("\n")).toEqual([
      "Invalid configuration:",
      ...err.problems.map((p) => `  - ${p}`),
    ]);
  });
});

describe("loadSandboxConfig", () => {
  it("has the documented defaults", () => {
    expect(loadSandboxConfig({})).toEqual({
      port: 4010,
      host: "127.0.0.1",
      clientId: "sandbox-client",
      clientSecret: "sandbox-secret",
      tokenLifetimeSeconds: 1800,
      deliverTo: undefined,
      logLevel: "info",
    });
  });

  it("treats empty strings as unset", () => {
    expect(
      loadSandboxConfig({
        SANDBOX_PORT: "",
        SANDBOX_HOST: "",
        PLATFORM_CLIENT_ID: "",
        PLATFORM_CLIENT_SECRET: " ",
        SANDBOX_TOKEN_LIFETIME_SECONDS: "",
        SANDBOX_DELIVER_TO: "",
        LOG_LEVEL: "",
      }),
    ).toEqual(loadSandboxConfig({}));
  });

  it("takes overrides and strips the trailing slash of SANDBOX_DELIVER_TO", () => {
    expect(
      loadSandboxConfig({
        SANDBOX_PORT: "4020",
        SANDBOX_HOST: "0.0.0.0",
        PLATFORM_CLIENT_ID: "cid",
        PLATFORM_CLIENT_SECRET: "csecret",
        SANDBOX_TOKEN_LIFETIME_SECONDS: "5",
        SANDBOX_DELIVER_TO: "http://127.0.0.1:3000/",
        LOG_LEVEL: "WARN",
      }),
    ).toEqual({
      port: 4020,
      host: "0.0.0.0",
      clientId: "cid",
      clientSecret: "csecret",
      tokenLifetimeSeconds: 5,
      deliverTo: "http://127.0.0.1:3000",
      logLevel: "warn",
    });
  });

  it.each(["0", "65536", "abc", "-1", "1.5"])("rejects SANDBOX_PORT %j", (value) => {
    const problems = sandboxProblemsOf({ SANDBOX_PORT: value });
    expect(problems).toEqual([`SANDBOX_PORT: must be a whole number from 1 to 65535 (got "${value}")`]);
  });

  it.each(["0", "-5", "1.5", "soon"])("rejects SANDBOX_TOKEN_LIFETIME_SECONDS %j", (value) => {
    expect(names(sandboxProblemsOf({ SANDBOX_TOKEN_LIFETIME_SECONDS: value }))).toEqual([
      "SANDBOX_TOKEN_LIFETIME_SECONDS",
    ]);
  });

  it.each(["not a url", "ftp://127.0.0.1:3000", "127.0.0.1:3000"])(
    "rejects SANDBOX_DELIVER_TO %j",
    (value) => {
      expect(names(sandboxProblemsOf({ SANDBOX_DELIVER_TO: value }))).toEqual(["SANDBOX_DELIVER_TO"]);
    },
  );

  it("rejects an unknown LOG_LEVEL", () => {
    expect(names(sandboxProblemsOf({ LOG_LEVEL: "loud" }))).toEqual(["LOG_LEVEL"]);
  });

  it("reports several problems at once, one line each", () => {
    const err = configError(() =>
      loadSandboxConfig({
        SANDBOX_PORT: "0",
        SANDBOX_TOKEN_LIFETIME_SECONDS: "0",
        SANDBOX_DELIVER_TO: "nope",
        LOG_LEVEL: "loud",
      }),
    );
    expect(names(err.problems)).toEqual([
      "SANDBOX_PORT",
      "SANDBOX_TOKEN_LIFETIME_SECONDS",
      "SANDBOX_DELIVER_TO",
      "LOG_LEVEL",
    ]);
    expect(err.message.split("\n").slice(1)).toEqual(err.problems.map((p) => `  - ${p}`));
  });
});

describe("readConfigOrExit in process", () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("returns what the loader returns", () => {
    expect(readConfigOrExit(() => ({ ok: true }))).toEqual({ ok: true });
  });

  it("rethrows errors that are not ConfigError", () => {
    const boom = new Error("boom");
    expect(() =>
      readConfigOrExit(() => {
        throw boom;
      }),
    ).toThrow(boom);
  });

  it("prints one line per problem and exits with code 1 on ConfigError", () => {
    class Exited extends Error {
      constructor(readonly code: unknown) {
        super("process.exit");
      }
    }
    const written: string[] = [];
    vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    vi.spyOn(process, "exit").mockImplementation((code) => {
      throw new Exited(code);
    });
    let exited: unknown;
    try {
      readConfigOrExit(() => {
        throw new ConfigError(["PORT: must be a number", "LOG_LEVEL: must be a level"]);
      });
    } catch (err) {
      exited = err;
    }
    expect(exited).toBeInstanceOf(Exited);
    expect((exited as Exited).code).toBe(1);
    const lines = written.join("").split("\n");
    expect(lines.slice(0, 2)).toEqual([
      "config error: PORT: must be a number",
      "config error: LOG_LEVEL: must be a level",
    ]);
  });
});

describe("readConfigOrExit in a child process", () => {
  const CONFIG_URL = new URL("../src/config.ts", import.meta.url).href;
  const SANDBOX_CONFIG_URL = new URL("../fakes/platform/config.ts", import.meta.url).href;
  const CWD = fileURLToPath(new URL("..", import.meta.url));

  interface Run {
    code: number | null;
    stdout: string;
    stderr: string;
  }

  /** Runs a module snippet under tsx with only PATH and `vars` in its environment. */
  function runChild(script: string, vars: Env): Promise<Run> {
    const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
    for (const [k, v] of Object.entries(vars)) if (v !== undefined) env[k] = v;
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
        cwd: CWD,
        env,
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stdout = "";
      let stderr = "";
      child.stdout.setEncoding("utf8").on("data", (d: string) => {
        stdout += d;
      });
      child.stderr.setEncoding("utf8").on("data", (d: string) => {
        stderr += d;
      });
      child.on("error", reject);
      child.on("close", (code) => resolve({ code, stdout, stderr }));
    });
  }

  const BOT = [
    `const { readConfigOrExit } = await import(${JSON.stringify(CONFIG_URL)});`,
    "const c = readConfigOrExit();",
    "process.stdout.write(JSON.stringify({ port: c.port, mode: c.slack.mode, publicUrl: c.publicUrl }));",
  ].join("\n");

  const SANDBOX = [
    `const { readConfigOrExit } = await import(${JSON.stringify(CONFIG_URL)});`,
    `const { loadSandboxConfig } = await import(${JSON.stringify(SANDBOX_CONFIG_URL)});`,
    "const c = readConfigOrExit(loadSandboxConfig);",
    "process.stdout.write(JSON.stringify({ port: c.port }));",
  ].join("\n");

  function configErrorLines(stderr: string): string[] {
    return stderr.split("\n").filter((l) => l.startsWith("config error: "));
  }

  it("exits 1 with one `config error: NAME: ...` line per missing variable", async () => {
    const run = await runChild(BOT, {});
    expect(run.code).toBe(1);
    expect(run.stdout).toBe("");
    const lines = configErrorLines(run.stderr);
    expect(lines.map((l) => l.match(/^config error: ([A-Z_]+): \S/)?.[1])).toEqual([
      "PUBLIC_URL",
      "SLACK_SIGNING_SECRET",
      "SLACK_BOT_TOKEN",
      "PLATFORM_CLIENT_ID",
      "PLATFORM_CLIENT_SECRET",
    ]);
  });

  it("exits 1 listing exactly the invalid variables of an otherwise valid environment", async () => {
    const run = await runChild(BOT, {
      ...VALID,
      PORT: "70000",
      TRUST_PROXY: "maybe",
      WEBHOOK_ALLOWED_IPS: "10.0.0.0/33",
    });
    expect(run.code).toBe(1);
    expect(configErrorLines(run.stderr)).toEqual([
      'config error: PORT: must be a whole number from 1 to 65535 (got "70000")',
      'config error: WEBHOOK_ALLOWED_IPS: "10.0.0.0/33" is not an IP address or CIDR block; separate entries with commas',
      'config error: TRUST_PROXY: must be true or false (got "maybe")',
    ]);
  });

  it("exits 0 and returns the config with a valid environment", async () => {
    const run = await runChild(BOT, { ...VALID, PORT: "8080", PUBLIC_URL: "https://bot.example.com/" });
    expect(run.stderr).not.toContain("config error");
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      port: 8080,
      mode: "single-workspace",
      publicUrl: "https://bot.example.com",
    });
  });

  it("applies the same exit behaviour to the sandbox loader", async () => {
    const bad = await runChild(SANDBOX, { SANDBOX_PORT: "abc", LOG_LEVEL: "loud" });
    expect(bad.code).toBe(1);
    expect(configErrorLines(bad.stderr).map((l) => l.split(":")[1]?.trim())).toEqual([
      "SANDBOX_PORT",
      "LOG_LEVEL",
    ]);
    const good = await runChild(SANDBOX, {});
    expect(good.code).toBe(0);
    expect(JSON.parse(good.stdout)).toEqual({ port: 4010 });
  });
});

describe("review fixes", () => {
  const base = {
    PUBLIC_URL: "https://bot.example.com",
    SLACK_SIGNING_SECRET: "s".repeat(32),
    SLACK_BOT_TOKEN: "xoxb-1-2-3",
    PLATFORM_CLIENT_ID: "id",
    PLATFORM_CLIENT_SECRET: "secret",
  };
  it.each(["https://bot.example.com/?x=1", "https://bot.example.com/#f", "https://u:p@bot.example.com"])(
    "PUBLIC_URL %s is refused: the callback URL is built by appending a path",
    (PUBLIC_URL) => {
      expect(() => loadConfig({ ...base, PUBLIC_URL })).toThrow(/PUBLIC_URL: must be a plain base URL/);
    },
  );
  it("never repeats a redis password in the STORE_URL problem", () => {
    try {
      loadConfig({ ...base, STORE_URL: "redis://:hunter2@" });
      expect.unreachable();
    } catch (err) {
      expect(String(err)).not.toContain("hunter2");
      expect(String(err)).toContain("STORE_URL");
    }
  });
  it("SANDBOX_DELIVER_TO keeps only the origin", () => {
    expect(loadSandboxConfig({ SANDBOX_DELIVER_TO: "http://127.0.0.1:3000/x?y=1" }).deliverTo).toBe(
      "http://127.0.0.1:3000",
    );
  });
});

describe("loadConfig: problem order across per-variable and cross-variable rules", () => {
  it("lists a variable's own problem before the Slack mode problem on the same variable", () => {
    expect(problemsOf({ ...VALID, SLACK_BOT_TOKEN: "xoxp-user", SLACK_CLIENT_ID: "1234.5678" })).toEqual([
      "SLACK_BOT_TOKEN: must be a bot token starting with xoxb- (OAuth & Permissions page)",
      "SLACK_BOT_TOKEN: set either SLACK_BOT_TOKEN (single workspace) or SLACK_CLIENT_ID/SLACK_CLIENT_SECRET/SLACK_STATE_SECRET (multi-workspace), not both",
    ]);
  });

  it("applies the Slack mode rule even when other variables are invalid, in table order", () => {
    const { SLACK_BOT_TOKEN: _, ...env } = VALID;
    const problems = problemsOf({ ...env, PORT: "x", PUBLIC_URL: "not a url", SLACK_STATE_SECRET: "short" });
    expect(names(problems)).toEqual([
      "PORT",
      "PUBLIC_URL",
      "SLACK_CLIENT_ID",
      "SLACK_CLIENT_SECRET",
      "SLACK_STATE_SECRET",
      "ALLOWED_WORKSPACES",
    ]);
    expect(problems[4]).toContain("at least 16 characters");
  });

  it("reports both PUBLIC_URL rules when both fail", () => {
    expect(problemsOf({ ...VALID, PUBLIC_URL: "http://u:p@bot.example.com" })).toEqual([
      'PUBLIC_URL: must start with https:// because the platform only accepts HTTPS callbacks (got "http://u:p@bot.example.com")',
      "PUBLIC_URL: must be a plain base URL without query, fragment or credentials, for example https://bot.example.com",
    ]);
  });
});

describe("loadConfig: METRICS_TOKEN", () => {
  it("is unset by default, also when empty", () => {
    expect(loadConfig(VALID).metricsToken).toBeUndefined();
    expect(loadConfig({ ...VALID, METRICS_TOKEN: "  " }).metricsToken).toBeUndefined();
  });

  it("is kept when set", () => {
    expect(loadConfig({ ...VALID, METRICS_TOKEN: "m".repeat(32) }).metricsToken).toBe("m".repeat(32));
  });

  it("rejects a token shorter than 16 characters, without echoing it", () => {
    const line = onlyProblem({ ...VALID, METRICS_TOKEN: "short-token-15c" }, "METRICS_TOKEN");
    expect(line).toContain("at least 16 characters");
    expect(line).not.toContain("short-token-15c");
  });
});

describe("loadConfig: UNFURL_DOMAINS", () => {
  it("defaults to the platform's domains (the manifest's unfurl_domains)", () => {
    expect(loadConfig(VALID).unfurlDomains).toEqual(["dailymotion.com", "dai.ly"]);
  });

  it("takes comma-separated host names, lower-cased", () => {
    expect(loadConfig({ ...VALID, UNFURL_DOMAINS: "Video.Example.COM , ex.io" }).unfurlDomains).toEqual([
      "video.example.com",
      "ex.io",
    ]);
  });

  it.each(["https://dailymotion.com", "dailymotion.com/video", "*.dailymotion.com", "localhost", "a..b"])(
    "refuses %s, naming it",
    (value) => {
      const line = onlyProblem({ ...VALID, UNFURL_DOMAINS: `dai.ly,${value}` }, "UNFURL_DOMAINS");
      expect(line).toContain("is not a domain name");
      expect(line).toContain(value.toLowerCase());
    },
  );
});

describe("loadConfig: VIDEO_URL_TEMPLATE", () => {
  it("defaults to the platform's video page", () => {
    expect(loadConfig(VALID).videoUrlTemplate).toBe("https://www.dailymotion.com/video/{id}");
  });

  it("set but empty means no link", () => {
    expect(loadConfig({ ...VALID, VIDEO_URL_TEMPLATE: "" }).videoUrlTemplate).toBeUndefined();
    expect(loadConfig({ ...VALID, VIDEO_URL_TEMPLATE: "  " }).videoUrlTemplate).toBeUndefined();
  });

  it("keeps an https template with {id}", () => {
    const t = "https://videos.example.com/watch?v={id}";
    expect(loadConfig({ ...VALID, VIDEO_URL_TEMPLATE: t }).videoUrlTemplate).toBe(t);
  });

  it.each([
    "https://www.dailymotion.com/video/",
    "http://www.dailymotion.com/video/{id}",
    "javascript:alert({id})",
    "www.dailymotion.com/video/{id}",
  ])("refuses %s", (value) => {
    const line = onlyProblem({ ...VALID, VIDEO_URL_TEMPLATE: value }, "VIDEO_URL_TEMPLATE");
    expect(line).toContain("must be an https URL containing {id}");
  });
});

describe("loadConfig: DIGEST_PERIOD", () => {
  it("defaults to 24h; takes a number and a unit (s, m, h, d)", () => {
    expect(loadConfig(VALID).digests.periodMs).toBe(86_400_000);
    expect(loadConfig({ ...VALID, DIGEST_PERIOD: "30s" }).digests.periodMs).toBe(30_000);
    expect(loadConfig({ ...VALID, DIGEST_PERIOD: "2s" }).digests.periodMs).toBe(2_000);
    expect(loadConfig({ ...VALID, DIGEST_PERIOD: "15m" }).digests.periodMs).toBe(900_000);
    expect(loadConfig({ ...VALID, DIGEST_PERIOD: "7d" }).digests.periodMs).toBe(7 * 86_400_000);
  });

  it.each(["0s", "24", "1w", "1.5h", "31d", "-1h"])("refuses %s, saying what it takes", (value) => {
    const line = onlyProblem({ ...VALID, DIGEST_PERIOD: value }, "DIGEST_PERIOD");
    expect(line).toContain("must be a number and a unit (s, m, h or d) from 1s to 30d");
    expect(line).toContain(`(got "${value}")`);
  });
});
