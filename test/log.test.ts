/**
 * Logs must never carry secrets: the client secret, access tokens, Authorization headers, Slack
 * tokens or ingest URLs (stream keys). Captures pino's JSON lines in memory.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogger, REDACTED, scrubSecrets } from "../src/log.js";
import { PlatformClient } from "../src/platform/index.js";
import { type Sandbox, SEED, startSandbox } from "../src/sandbox/server.js";

function capture() {
  const lines: string[] = [];
  return {
    lines,
    destination: { write: (s: string) => void lines.push(s) },
    text: () => lines.join(""),
    parsed: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>),
  };
}

describe("logger", () => {
  it("writes JSON lines at the configured level with child bindings", () => {
    const cap = capture();
    const log = createLogger({ level: "info", destination: cap.destination });
    log.debug("hidden");
    log.child({ reqId: "r-1", team: "T1" }).info({ n: 1 }, "hello");
    const [line] = cap.parsed();
    expect(cap.lines).toHaveLength(1);
    expect(line).toMatchObject({ level: "info", msg: "hello", reqId: "r-1", team: "T1", n: 1 });
    expect(typeof line?.time).toBe("string");
  });

  it("redacts secret-bearing keys wherever they are", () => {
    const cap = capture();
    const log = createLogger({ level: "info", destination: cap.destination });
    log.info(
      {
        headers: { authorization: "Basic dXNlcjpwYXNz" },
        req: { headers: { authorization: "Basic abc123abc" } },
        access_token: "opaque-token-value",
        client_secret: "cs-value-1234",
        ingest: { rtmp_url: "not-a-url-but-secret" },
        livestream: { ingest: { srt_url: "also-secret" } },
        botToken: "plain-value-xyz",
      },
      "request",
    );
    const text = cap.text();
    for (const secret of [
      "dXNlcjpwYXNz",
      "abc123abc",
      "opaque-token-value",
      "cs-value-1234",
      "not-a-url-but-secret",
      "also-secret",
      "plain-value-xyz",
    ]) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain(REDACTED);
  });

  it("scrubs registered secrets and secret-shaped strings from messages and errors", () => {
    const cap = capture();
    const log = createLogger({
      level: "info",
      destination: cap.destination,
      secrets: ["my-client-secret", undefined],
    });
    const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl";
    log.error(
      { err: new Error(`failed with my-client-secret and Bearer ${jwt}`) },
      "tokens xoxb-123-456-abc xapp-1-A-2 and rtmp://publish.example.net/live/sk_1 srt://in.example:9000?streamid=sk_2 at /hooks/platform/AbC123_-x client_secret=hunter2",
    );
    const text = cap.text();
    for (const s of ["my-client-secret", jwt, "xoxb-123", "xapp-1", "sk_1", "sk_2", "AbC123_-x", "hunter2"]) {
      expect(text).not.toContain(s);
    }
    expect(text).toContain("rtmp://[REDACTED]");
    expect(text).toContain("/hooks/platform/[REDACTED]");
  });

  it("scrubSecrets leaves ordinary text alone", () => {
    const s = "GET /v2/livestreams/x9b2k4m?fields=title 200 in 12 ms";
    expect(scrubSecrets(s, ["secret-value"])).toBe(s);
  });
});

describe("no secret in the logs after a full token and request cycle", () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox();
  });
  afterAll(async () => {
    await sb.close();
  });

  it("logs at trace level through success, 401 refresh, 4xx, 5xx, broken bodies and bad credentials", async () => {
    const cap = capture();
    const logger = createLogger({
      level: "trace",
      destination: cap.destination,
      secrets: [sb.clientSecret, "wrong-secret-xyz"],
    });
    const mk = (secret: string) =>
      new PlatformClient({
        apiUrl: sb.apiUrl,
        authUrl: sb.url,
        clientId: sb.clientId,
        clientSecret: secret,
        scopes: ["live.read", "profile.manage"],
        timeouts: { connectMs: 1000, headersMs: 300, bodyMs: 300 },
        logger,
        sleep: async () => {},
      });
    const c = mk(sb.clientSecret);
    const tokens: string[] = [];
    const swallow = (p: Promise<unknown>) =>
      p.catch((err: unknown) => logger.error({ err }, "operation failed"));

    const ls = await c.getLivestream(SEED.livestreams.onAirAdBreak, ["title", "ingest", "status"]);
    logger.info({ livestream: ls }, "livestream read"); // as a careless caller might
    tokens.push(await c.tokens.getToken());
    sb.expireAllTokens();
    await c.getLivestream(SEED.livestreams.onAirAdBreak, ["ingest"]);
    tokens.push(await c.tokens.getToken());
    await swallow(c.getLivestream("x0missing", ["title"]));
    sb.addFault({ path: "/v2/livestreams", status: 500, times: 3 });
    await swallow(c.getLivestream(SEED.livestreams.onAirAdBreak, ["ingest"]));
    sb.addFault({ path: "/v2/livestreams", body: "schema-mismatch", times: 1 });
    await swallow(c.getLivestream(SEED.livestreams.onAirAdBreak, ["title"]));
    sb.addFault({ path: "/v2/livestreams", latencyMs: 1000, times: 3 });
    await swallow(c.getLivestream(SEED.livestreams.onAirAdBreak, ["ingest"]));
    await swallow(
      c.setWebhook(SEED.profiles.newsroom, {
        callback_url: "http://insecure.example/x",
        events: ["video.created"],
      }),
    );
    await swallow(mk("wrong-secret-xyz").getLivestream(SEED.livestreams.onAirAdBreak, ["title"]));
    sb.addFault({ path: "/v2/token", status: 503 });
    await swallow(mk(sb.clientSecret).getLivestream(SEED.livestreams.onAirAdBreak, ["title"]));
    await c.close();

    const text = cap.text();
    expect(cap.lines.length).toBeGreaterThan(10);
    expect(text).toContain("platform request failed");
    expect(tokens.every((t) => t.length > 20)).toBe(true);
    expect(new Set(tokens).size).toBe(2);
    for (const secret of [
      sb.clientSecret,
      "wrong-secret-xyz",
      ...tokens,
      SEED.streamKey,
      "rtmp://publish",
      "Bearer ey",
    ]) {
      expect(text, `log leaks ${secret}`).not.toContain(secret);
    }
    // Failures were logged with what support needs.
    expect(text).toMatch(/correlation_id/);
    expect(text).toMatch(/RESOURCE_NOT_FOUND/);
  });
});
