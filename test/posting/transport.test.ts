/**
 * The Slack Web API transport (src/posting/transport.ts): every WebClient the bot builds sends its
 * calls through `slackFetch` (undici's request) instead of the global fetch. What the client makes
 * of an answer must not change: each case below is run through two WebClients, one on the global
 * fetch and one on slackFetch, against the same local server, and both must give the same result
 * or the same error (code, status, retry-after, and `notPosted`, which reads the error's cause).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ErrorCode, WebClient, LogLevel as WebLogLevel } from "@slack/web-api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { workerClientOptions } from "../../src/install/oauth.js";
import { notPosted, slackFetch } from "../../src/posting/index.js";

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;

let server: Server;
let base: string;
let handler: Handler = (_req, _body, res) => res.end();
const seen: Array<{ method: string; url: string; headers: IncomingMessage["headers"]; body: string }> = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      seen.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body });
      handler(req, body, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

function clients(apiUrl = base, timeout = 2_000) {
  const options = {
    slackApiUrl: apiUrl,
    timeout,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
    logLevel: WebLogLevel.ERROR,
  };
  return {
    global: new WebClient("xoxb-test", options),
    lean: new WebClient("xoxb-test", {
      ...options,
      fetch: (url, init) => {
        leanCalls++;
        return slackFetch(url, init);
      },
    }),
  };
}

/** What a call gave, comparable between the two clients. */
async function outcome(call: Promise<unknown>) {
  try {
    return { ok: await call };
  } catch (err) {
    const e = err as {
      code?: string;
      statusCode?: number;
      statusMessage?: string;
      body?: unknown;
      retryAfter?: number;
      data?: unknown;
      original?: { name?: string; cause?: { code?: string } };
    };
    return {
      code: e.code,
      statusCode: e.statusCode,
      statusMessage: e.statusMessage,
      body: e.body,
      retryAfter: e.retryAfter,
      data: e.data,
      original: e.original?.name,
      cause: e.original?.cause?.code,
      notPosted: notPosted(err),
    };
  }
}

let leanCalls = 0;

async function both(make: (c: WebClient) => Promise<unknown>, apiUrl?: string, timeout?: number) {
  const c = clients(apiUrl, timeout);
  const before = leanCalls;
  const r = { global: await outcome(make(c.global)), lean: await outcome(make(c.lean)) };
  expect(leanCalls - before, "the lean client's call went through slackFetch").toBe(1);
  return r;
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...headers });
  res.end(JSON.stringify(body));
};

describe("slackFetch, the Web API client's transport", () => {
  it("is the transport of the worker's Web API clients", () => {
    expect(workerClientOptions(base).fetch).toBe(slackFetch);
  });

  it("sends the same request as the global fetch and gives the same result", async () => {
    handler = (_req, body, res) =>
      json(res, 200, { ok: true, ts: "1.2", echo: body }, { "x-oauth-scopes": "chat:write, channels:read" });
    seen.length = 0;
    const r = await both((c) =>
      c.chat.postMessage({ channel: "C1", text: "hé & ünïcode", blocks: [{ type: "divider" }] }),
    );
    expect(r.lean).toEqual(r.global);
    expect(r.lean.ok).toMatchObject({
      ok: true,
      ts: "1.2",
      response_metadata: { scopes: ["chat:write", "channels:read"] },
    });
    const [a, b] = seen;
    expect(b?.method).toBe(a?.method);
    expect(b?.url).toBe("/api/chat.postMessage");
    expect(b?.body).toBe(a?.body);
    expect(b?.headers.authorization).toBe("Bearer xoxb-test");
    expect(b?.headers["content-type"]).toBe(a?.headers["content-type"]);
    expect(b?.headers["user-agent"]).toBe(a?.headers["user-agent"]);
  });

  it("gives Slack's refusal the same way (ok: false)", async () => {
    handler = (_req, _body, res) => json(res, 200, { ok: false, error: "channel_not_found" });
    const r = await both((c) => c.chat.postMessage({ channel: "C404", text: "x" }));
    expect(r.lean).toEqual(r.global);
    expect(r.lean).toMatchObject({ code: ErrorCode.PlatformError, notPosted: true });
  });

  it("gives a 429 the same rate-limited error, with its retry-after", async () => {
    handler = (_req, _body, res) =>
      json(res, 429, { ok: false, error: "ratelimited" }, { "retry-after": "7" });
    const r = await both((c) => c.chat.update({ channel: "C1", ts: "1.2", text: "x" }));
    expect(r.lean).toEqual(r.global);
    expect(r.lean).toMatchObject({ code: ErrorCode.RateLimitedError, retryAfter: 7, notPosted: true });
  });

  it("gives a 5xx the same HTTP error (status, reason phrase, body)", async () => {
    handler = (_req, _body, res) => {
      res.writeHead(503, { "content-type": "text/plain" });
      res.end("upstream down");
    };
    const r = await both((c) => c.chat.postMessage({ channel: "C1", text: "x" }));
    expect(r.lean).toEqual(r.global);
    expect(r.lean).toMatchObject({
      code: ErrorCode.HTTPError,
      statusCode: 503,
      statusMessage: "Service Unavailable",
      body: "upstream down",
      // A 5xx may follow the work: not "certainly not posted".
      notPosted: false,
    });
  });

  it("fails a refused connection like fetch does: a request error whose cause is ECONNREFUSED", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const r = await both(
      (c) => c.chat.postMessage({ channel: "C1", text: "x" }),
      `http://127.0.0.1:${port}/api/`,
    );
    expect(r.lean).toEqual(r.global);
    expect(r.lean).toMatchObject({
      code: ErrorCode.RequestError,
      original: "TypeError",
      cause: "ECONNREFUSED",
      notPosted: true,
    });
  });

  it("fails a call past the client's timeout like fetch does (the signal's reason)", async () => {
    const hanging: ServerResponse[] = [];
    handler = (_req, _body, res) => hanging.push(res);
    const r = await both((c) => c.chat.postMessage({ channel: "C1", text: "x" }), base, 150);
    for (const res of hanging) res.destroy();
    expect(r.lean).toEqual(r.global);
    expect(r.lean).toMatchObject({
      code: ErrorCode.RequestError,
      original: "TimeoutError",
      notPosted: false,
    });
  });

  it("follows no redirect: a 3xx reaches the client as an HTTP error (fetch threw a request error)", async () => {
    handler = (_req, _body, res) => {
      res.writeHead(302, { location: `${base}elsewhere` });
      res.end();
    };
    seen.length = 0;
    const r = await both((c) => c.chat.postMessage({ channel: "C1", text: "x" }));
    expect(r.global).toMatchObject({ code: ErrorCode.RequestError, notPosted: false });
    expect(r.lean).toMatchObject({ code: ErrorCode.HTTPError, statusCode: 302, notPosted: false });
    expect(seen.map((s) => s.url)).toEqual(["/api/chat.postMessage", "/api/chat.postMessage"]);
  });

  it("keeps repeated headers and answers a status without a body", async () => {
    handler = (_req, _body, res) => {
      res.writeHead(204, [
        ["set-cookie", "a=1"],
        ["set-cookie", "b=2"],
        ["x-one", "1"],
      ]);
      res.end();
    };
    const res = await slackFetch(`${base}anything`, { method: "POST", body: "x=1" });
    expect(res.status).toBe(204);
    expect(res.statusText).toBe("No Content");
    expect(res.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
    expect(res.headers.get("x-one")).toBe("1");
    expect(await res.text()).toBe("");
  });

  it("hands a body it does not carry (a file upload's FormData) to the global fetch", async () => {
    handler = (_req, body, res) => json(res, 200, { ok: true, length: body.length });
    seen.length = 0;
    const form = new FormData();
    form.append("file", new Blob(["hello"]), "hello.txt");
    const res = await slackFetch(`${base}files.upload`, { method: "POST", body: form });
    expect(res.status).toBe(200);
    expect(seen[0]?.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    expect(seen[0]?.body).toContain("hello");
  });
});
