/**
 * METRICS_TOKEN (contract, Environment): when set, /metrics requires `Authorization: Bearer
 * <token>`; anything else is 401 with `WWW-Authenticate: Bearer` and a JSON reason. Unset, /metrics
 * is open and start-up warns that it is public. The token never reaches a log line (the harness's
 * secret scan at close knows it).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Harness, startHarness } from "../support/harness.js";

const TOKEN = "metrics-token-0123456789abcdef0123";

async function metrics(h: Harness, authorization?: string) {
  const r = await fetch(`${h.url}/metrics`, authorization ? { headers: { authorization } } : {});
  return {
    status: r.status,
    text: await r.text(),
    challenge: r.headers.get("www-authenticate"),
    type: r.headers.get("content-type") ?? "",
  };
}

describe("/metrics with METRICS_TOKEN set", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { METRICS_TOKEN: TOKEN }, worker: { manual: true } });
  });
  afterAll(async () => {
    await h.close();
  });

  it("refuses a request without Authorization: 401, WWW-Authenticate: Bearer, a JSON reason", async () => {
    const r = await metrics(h);
    expect(r.status).toBe(401);
    expect(r.challenge).toMatch(/^Bearer\b/);
    expect(r.type).toMatch(/application\/json/);
    expect(JSON.parse(r.text)).toEqual({ error: expect.stringContaining("Authorization: Bearer") });
    expect(r.text).not.toContain("bot_");
  });

  it("refuses a wrong token of the same length", async () => {
    const wrong = `${TOKEN.slice(0, -1)}X`;
    const r = await metrics(h, `Bearer ${wrong}`);
    expect(r.status).toBe(401);
    expect(r.challenge).toMatch(/^Bearer\b/);
    expect(JSON.parse(r.text)).toEqual({ error: expect.stringContaining("not the metrics token") });
    expect(r.text).not.toContain("bot_");
  });

  it("refuses tokens of another length (a prefix, the token with more after it) and other schemes", async () => {
    for (const authorization of [
      `Bearer ${TOKEN.slice(0, 8)}`,
      `Bearer ${TOKEN}0`,
      `Basic ${Buffer.from(`x:${TOKEN}`).toString("base64")}`,
      `Bearer`,
    ]) {
      const r = await metrics(h, authorization);
      expect(r.status, authorization.slice(0, 12)).toBe(401);
      expect(r.challenge).toMatch(/^Bearer\b/);
    }
  });

  it("serves the metrics for the right token", async () => {
    const r = await metrics(h, `Bearer ${TOKEN}`);
    expect(r.status).toBe(200);
    expect(r.type).toMatch(/text\/plain/);
    expect(r.text).toMatch(/bot_outbox_depth \d+/);
  });

  it("keeps /healthz and /readyz open", async () => {
    expect((await fetch(`${h.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${h.url}/readyz`)).status).toBe(200);
  });

  it("does not warn that /metrics is public, and never logs the token", () => {
    const text = h.logs.join("");
    expect(text).not.toContain("/metrics is public");
    expect(text).not.toContain(TOKEN);
  });
});

describe("/metrics without METRICS_TOKEN", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ worker: { manual: true } });
  });
  afterAll(async () => {
    await h.close();
  });

  it("is open, and start-up warned once that it is public", async () => {
    const r = await metrics(h);
    expect(r.status).toBe(200);
    expect(r.text).toMatch(/bot_outbox_depth \d+/);
    const warned = h.logs.filter((l) => l.includes("/metrics is public"));
    expect(warned).toHaveLength(1);
    expect(warned[0]).toContain('"level":"warn"');
  });
});
