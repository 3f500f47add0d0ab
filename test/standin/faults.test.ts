/** Fault injection as the real @slack/web-api client sees it: rate limits, 5xx, errors, latency. */
import { Agent, request } from "undici";
import { describe, expect, it } from "vitest";
import { type SlackStandin, startSlackStandin } from "../../fakes/slack/index.js";
import { type Client, caught, clientFor, ErrorCode, postJson, standinForFile } from "./helpers.js";

let s: SlackStandin;
let client: Client;

standinForFile(
  (started, c) => {
    s = started;
    client = c;
  },
  { rejectRateLimitedCalls: true },
);

describe("faults", () => {
  it("429 with Retry-After reaches WebClient as a rate-limited error, once by default", async () => {
    s.addFault({ method: "chat.postMessage", status: 429, retryAfter: 7 });
    const err = await caught(client.chat.postMessage({ channel: "C0GENERAL", text: "x" }));
    expect(err).toMatchObject({ code: ErrorCode.RateLimitedError, retryAfter: 7 });
    expect(s.callsTo("chat.postMessage")[0]).toMatchObject({ status: 429, ok: false, error: "ratelimited" });
    expect(s.messages("C0GENERAL")).toHaveLength(0);
    expect((await client.chat.postMessage({ channel: "C0GENERAL", text: "x" })).ok).toBe(true);
    expect(s.messages("C0GENERAL")).toHaveLength(1);
  });

  it("answers 429 on the wire with the header and Slack's body", async () => {
    s.addFault({ method: "auth.test", status: 429, retryAfter: 3 });
    const res = await request(`${s.apiUrl}auth.test`, {
      method: "POST",
      headers: { authorization: `Bearer ${s.botToken}` },
    });
    expect(res.statusCode).toBe(429);
    expect(res.headers["retry-after"]).toBe("3");
    expect(await res.body.json()).toEqual({ ok: false, error: "ratelimited" });
  });

  it("500 and 503 are HTTP errors for WebClient", async () => {
    s.addFault({ method: "users.info", status: 500 });
    s.addFault({ method: "users.info", status: 503 });
    expect(await caught(client.users.info({ user: "U0ADMIN" }))).toMatchObject({
      code: ErrorCode.HTTPError,
      statusCode: 500,
    });
    expect(await caught(client.users.info({ user: "U0ADMIN" }))).toMatchObject({ statusCode: 503 });
    expect((await client.users.info({ user: "U0ADMIN" })).ok).toBe(true);
  });

  it("a WebClient that retries gets through a transient 500", async () => {
    s.addFault({ method: "chat.postMessage", status: 500 });
    const retrying = clientFor(s, s.botToken, {
      retryConfig: { retries: 2, minTimeout: 10, maxTimeout: 20 },
    });
    expect((await retrying.chat.postMessage({ channel: "C0GENERAL", text: "x" })).ok).toBe(true);
    expect(s.callsTo("chat.postMessage").map((c) => c.status)).toEqual([500, 200]);
  });

  it("an error fault answers 200 {ok:false,error} for `times` calls", async () => {
    s.addFault({ method: "chat.update", error: "cant_update_message", times: 2 });
    const p = await client.chat.postMessage({ channel: "C0GENERAL", text: "a" });
    const update = () => client.chat.update({ channel: "C0GENERAL", ts: String(p.ts), text: "b" });
    expect(await caught(update())).toMatchObject({
      code: ErrorCode.PlatformError,
      error: "cant_update_message",
    });
    expect(await caught(update())).toMatchObject({ error: "cant_update_message" });
    expect((await update()).ok).toBe(true);
    expect(s.messages("C0GENERAL")[0]).toMatchObject({ text: "b", edits: 1 });
  });

  it('"*" matches any method and response_url; clearFaults removes them', async () => {
    s.addFault({ method: "*", error: "fatal_error", times: 3 });
    expect(await caught(client.auth.test())).toMatchObject({ error: "fatal_error" });
    expect(await caught(client.team.info())).toMatchObject({ error: "fatal_error" });
    const url = s.newResponseUrl();
    expect((await postJson(url, { text: "x" })).status).toBe(400);
    s.addFault({ method: "*", status: 500, times: 10 });
    s.clearFaults();
    expect((await client.auth.test()).ok).toBe(true);
  });

  it("faults response_url posts: 5xx, 429 with Retry-After", async () => {
    const url = s.newResponseUrl("C0GENERAL", "U0ADMIN");
    s.addFault({ method: "response_url", status: 503 });
    s.addFault({ method: "response_url", status: 429, retryAfter: 2 });
    expect((await postJson(url, { text: "x" })).status).toBe(503);
    const limited = await postJson(url, { text: "x" });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("2");
    expect(s.responses(url)).toEqual([]);
    expect((await postJson(url, { text: "x" })).status).toBe(200);
    expect(s.responses(url)).toEqual([{ text: "x" }]);
  });

  it("latency delays the answer, then the call is handled", async () => {
    s.addFault({ method: "auth.test", latencyMs: 300 });
    const started = performance.now();
    expect((await client.auth.test()).ok).toBe(true);
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    const again = performance.now();
    await client.auth.test();
    expect(performance.now() - again).toBeLessThan(250);
  });

  it("close() ends calls in flight and keep-alive connections at once", async () => {
    const other = await startSlackStandin();
    const agent = new Agent({ keepAliveTimeout: 60_000 });
    try {
      await request(`${other.apiUrl}api.test`, { method: "POST", dispatcher: agent }).then((r) =>
        r.body.text(),
      );
      other.addFault({ method: "auth.test", latencyMs: 30_000 });
      const hanging = request(`${other.apiUrl}auth.test`, {
        method: "POST",
        headers: { authorization: `Bearer ${other.botToken}` },
        dispatcher: agent,
      }).then(
        () => "answered",
        () => "failed",
      );
      await new Promise((r) => setTimeout(r, 50));
      const started = performance.now();
      await other.close();
      expect(performance.now() - started).toBeLessThan(1000);
      expect(await hanging).toBe("failed");
    } finally {
      await agent.close();
    }
  });
  it("a lost answer: the message is posted, the caller gets no answer (a request error)", async () => {
    s.addFault({ method: "chat.postMessage", loseAnswer: true });
    const err = await caught(client.chat.postMessage({ channel: "C0GENERAL", text: "posted?" }));
    expect(err.code).toBe(ErrorCode.RequestError);
    expect(s.messages("C0GENERAL").map((m) => m.text)).toEqual(["posted?"]);
    expect(s.callsTo("chat.postMessage")[0]).toMatchObject({ status: 0, ok: true });
    expect((await client.chat.postMessage({ channel: "C0GENERAL", text: "next" })).ok).toBe(true);
  });

  it("a held answer: the message is posted at once, the answer comes later", async () => {
    s.addFault({ method: "chat.postMessage", holdAnswerMs: 400 });
    const started = performance.now();
    const posting = client.chat.postMessage({ channel: "C0GENERAL", text: "held" });
    await new Promise((r) => setTimeout(r, 100));
    expect(s.messages("C0GENERAL").map((m) => m.text)).toEqual(["held"]);
    expect((await posting).ok).toBe(true);
    expect(performance.now() - started).toBeGreaterThanOrEqual(350);
  });
});
