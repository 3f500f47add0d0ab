/**
 * Logs must never carry secrets: the client secret, access tokens, Authorization headers, Slack
 * tokens or ingest URLs (stream keys). Captures pino's JSON lines in memory.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Sandbox, SEED, startSandbox } from "../fakes/platform/server.js";
import { createLogger, originOnly, REDACTED, scrubSecrets } from "../src/log.js";
import { PlatformClient } from "../src/platform/index.js";
import { type Harness, startHarness } from "./support/harness.js";
import { scanForSecrets } from "./support/secret-scan.js";

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

describe("foreign callback URLs are logged as their origin only", () => {
  const ORIGIN = "https://hooks.partner.example:8443";
  const PATH = "/in/s3cretPathPart0123";
  const QUERY = "?key=s3cretQueryPart0123";
  const URL_WITH_SECRETS = `${ORIGIN}${PATH}${QUERY}`;

  it("originOnly keeps scheme, host and port, and drops userinfo, path and query", () => {
    expect(originOnly(`https://user:pw@hooks.partner.example:8443${PATH}${QUERY}#frag`)).toBe(ORIGIN);
    expect(originOnly("https://hooks.example.com/")).toBe("https://hooks.example.com");
    expect(originOnly("not a url /with/path")).toBe(REDACTED);
    expect(originOnly(null)).toBeNull();
  });

  it("the log scrubber reduces callback URLs under their keys, in JSON bodies and in url= arguments", () => {
    const cap = capture();
    const log = createLogger({ level: "trace", destination: cap.destination });
    log.warn({ readBack: { callback_url: URL_WITH_SECRETS, events: ["video.created"] } }, "read back");
    log.warn({ err: { details: { field: "webhook.callback_url", provided: URL_WITH_SECRETS } } }, "refused");
    log.trace({ body: JSON.stringify({ webhook: { callback_url: URL_WITH_SECRETS } }) }, "PATCH body");
    log.debug({ foreignUrl: URL_WITH_SECRETS, callbackUrl: URL_WITH_SECRETS }, "settings");
    log.info(`command: /webhook set x2vq8nw url=${URL_WITH_SECRETS} created`);
    const text = cap.text();
    expect(cap.lines).toHaveLength(5);
    expect(text).not.toContain("s3cretPathPart0123");
    expect(text).not.toContain("s3cretQueryPart0123");
    for (const line of cap.lines) expect(line).toContain(ORIGIN);
    // Other URLs and paths stay readable.
    expect(scrubSecrets('{"url":"https://api.example.com/v2/profiles/x2?fields=a"}')).toContain(
      "/v2/profiles/x2",
    );
  });

  describe("through the whole bot at LOG_LEVEL=trace", () => {
    let h: Harness;
    beforeAll(async () => {
      h = await startHarness({ env: { LOG_LEVEL: "trace" }, worker: { manual: true } });
    });
    afterAll(async () => {
      await h.close();
      // The harness's scan knew the URL's path and query as secrets for the logs, and found none.
      expect(h.secretScan?.kinds).toContain("foreign callback URL path/query");
      expect(h.secretScan?.leaks).toEqual([]);
    });

    it("`/webhook set <profile> url=…` with a secret in path and query logs the origin, not the rest", async () => {
      const set = await h.slash("/webhook", `set ${SEED.profiles.newsroom} url=${URL_WITH_SECRETS} created`, {
        user: "U0ADMIN",
        channel: "C0NEWS",
      });
      const answer = await h.answer(set.responseUrl);
      expect(JSON.stringify(answer)).toMatch(/post nothing|will not post|won't post/i);
      expect(h.sandbox.state.profiles.get(SEED.profiles.newsroom)?.webhook.callback_url).toBe(
        URL_WITH_SECRETS,
      );
      const show = await h.slash("/webhook", `show ${SEED.profiles.newsroom}`, {
        user: "U0ADMIN",
        channel: "C0NEWS",
      });
      await h.answer(show.responseUrl);

      const text = h.logs.join("");
      expect(h.logger.level).toBe("trace");
      expect(text).toContain(ORIGIN);
      expect(text).not.toContain("s3cretPathPart0123");
      expect(text).not.toContain("s3cretQueryPart0123");
      // The scan the harness runs at close catches the URL if a line carries it.
      const planted = scanForSecrets(
        [{ kind: "foreign callback URL path/query", value: URL_WITH_SECRETS, logOnly: true }],
        [...h.logs, `{"msg":"${URL_WITH_SECRETS}"}`],
        [],
      );
      expect(planted.leaks).toHaveLength(1);
    });
  });
});
