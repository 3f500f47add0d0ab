/**
 * Fuzzing the delivery route `POST /hooks/platform/<token>` of the running bot over real HTTP:
 * random and malformed bodies, headers and tokens. The route never answers 5xx (the store is up),
 * keeps answering, never leaves a rejection unhandled, refuses exactly what is not a delivery, and
 * takes every delivery the spec (section 6.2) calls valid.
 */
import { connect } from "node:net";
import fc from "fast-check";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { parseDelivery } from "../../src/platform/schemas.js";
import { SEED } from "../../src/sandbox/server.js";
import { MAX_DELIVERY_BYTES } from "../../src/webhooks/receive.js";
import { type Harness, startHarness } from "../support/harness.js";
import { FRAGMENTS, FUZZ_TIMEOUT, nastyText, runs, validDeliveryArb } from "./arbitraries.js";
import { guardUnhandled, toWellFormed } from "./checks.js";

vi.setConfig({ testTimeout: FUZZ_TIMEOUT });

let h: Harness;
let hook: string;
let token: string;
const guard = guardUnhandled();

beforeAll(async () => {
  h = await startHarness({ worker: { manual: true }, env: { LOG_LEVEL: "warn" } });
  hook = await h.configureProfile();
  token = hook.slice(`${h.url}/hooks/platform/`.length);
  expect(token).toMatch(/^[A-Za-z0-9_-]{32,64}$/);
});

afterAll(async () => {
  // Still alive and answering after everything below.
  const health = await request(`${h.url}/healthz`);
  expect(health.statusCode).toBe(200);
  await health.body.text();
  await h.close();
  guard.dispose();
  guard.check();
});

interface Answer {
  status: number;
  body: string;
}

async function post(url: string, body: Buffer | string, headers: Record<string, string>): Promise<Answer> {
  const res = await request(url, { method: "POST", headers, body });
  return { status: res.statusCode, body: await res.body.text() };
}

const CONTENT_TYPES = [
  "application/json",
  "application/json; charset=utf-8",
  "application/json; charset=latin1",
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=xyz",
  "application/octet-stream",
  "",
  "ä/ö",
  "application/json, text/html",
];
const headerValue = fc
  .string({ unit: "binary-ascii", maxLength: 60 })
  .map((s) => [...s].filter((c) => c >= " " && c !== "\x7f").join(""));
const headersArb = fc
  .tuple(
    fc.constantFrom(...CONTENT_TYPES),
    fc.dictionary(fc.stringMatching(/^x-[a-z0-9-]{1,20}$/), headerValue, { maxKeys: 4 }),
    fc.option(fc.constantFrom("gzip", "br", "identity", "deflate, x"), { nil: undefined }),
    fc.option(fc.constantFrom("127.0.0.1", "10.0.0.1, 1.2.3.4", "garbage", "::1"), { nil: undefined }),
  )
  .map(([ct, extra, encoding, xff]) => ({
    ...extra,
    ...(ct === "" ? {} : { "content-type": ct }),
    ...(encoding ? { "content-encoding": encoding } : {}),
    ...(xff ? { "x-forwarded-for": xff } : {}),
  }));

const anyJson = fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v) ?? "null");
/** Deliveries with the right keys and random values of any type. */
const wrongTypes = fc
  .record(
    {
      type: fc.oneof(
        fc.constantFrom("video.created", "video.format.processing", "video.complete", ""),
        fc.anything(),
      ),
      timestamp: fc.oneof(
        fc.integer(),
        fc.double(),
        fc.string(),
        fc.constantFrom(-1, 1e300, "1700000000000"),
      ),
      data: fc.oneof(
        fc.anything({ maxDepth: 2 }),
        fc.record(
          {
            owner_id: fc.anything({ maxDepth: 1 }),
            video_id: fc.oneof(fc.string(), fc.anything({ maxDepth: 1 })),
            preset_name: fc.anything({ maxDepth: 1 }),
            progress: fc.oneof(fc.integer({ min: -10, max: 110 }), fc.double(), fc.string()),
            status: fc.anything({ maxDepth: 1 }),
          },
          { requiredKeys: [] },
        ),
      ),
    },
    { requiredKeys: [] },
  )
  .map((o) => JSON.stringify(o));
/** A valid delivery padded with a string field to `size` bytes (around the 64 KiB limit). */
const sized = fc.integer({ min: MAX_DELIVERY_BYTES - 300, max: MAX_DELIVERY_BYTES + 300 }).map((size) => {
  const base = JSON.stringify({
    type: "video.created",
    timestamp: 1,
    data: { owner_id: "o", video_id: "v", pad: "" },
  });
  return base.replace('"pad":""', `"pad":"${"x".repeat(Math.max(0, size - base.length))}"`);
});
/** Bytes that are not UTF-8, alone or inside an otherwise valid delivery. */
const badUtf8 = fc.oneof(
  fc.uint8Array({ maxLength: 200 }).map((a) => Buffer.from(a)),
  fc
    .constantFrom([0xc3, 0x28], [0xff, 0xfe], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82])
    .map((bytes) =>
      Buffer.concat([
        Buffer.from('{"type":"video.created","timestamp":1,"data":{"owner_id":"o","video_id":"'),
        Buffer.from(bytes),
        Buffer.from('"}}'),
      ]),
    ),
);
const bodyArb: fc.Arbitrary<Buffer | string> = fc.oneof(
  anyJson,
  wrongTypes,
  nastyText,
  fc
    .array(fc.constantFrom(...FRAGMENTS, "{", "}", "[", '"', ":", ",", "null"), { maxLength: 30 })
    .map((a) => a.join("")),
  sized,
  badUtf8,
  fc.constant(""),
);

/** The route's value caps as the contract states them: strings <= 8192, keys <= 128, no odd keys. */
function withinCaps(v: unknown, budget = { left: 512 }): boolean {
  if (typeof v === "string") return v.length <= 8192;
  if (typeof v !== "object" || v === null) return true;
  const entries = Array.isArray(v) ? v.map((e) => ["", e] as const) : Object.entries(v);
  budget.left -= entries.length;
  if (budget.left < 0) return false;
  return entries.every(
    ([k, e]) =>
      k.length <= 128 && !["__proto__", "constructor", "prototype"].includes(k) && withinCaps(e, budget),
  );
}

/** What the route should answer for a body sent to a valid token. */
function expected(body: Buffer | string): number {
  const buf = typeof body === "string" ? Buffer.from(body) : body;
  if (buf.length > MAX_DELIVERY_BYTES) return 413;
  try {
    const json: unknown = JSON.parse(buf.toString("utf8"));
    if (!parseDelivery(json).ok || !withinCaps(json)) return 400;
    // The route's window (Unix ms): at most 7 days old, 5 minutes ahead.
    const ts = (json as { timestamp: number }).timestamp;
    return ts < Date.now() - 7 * 24 * 3600_000 || ts > Date.now() + 5 * 60_000 ? 400 : 200;
  } catch {
    return 400;
  }
}

describe("POST /hooks/platform/<token>, fuzzed", () => {
  it("answers 200, 400 or 413 exactly as the body deserves, whatever the headers", async () => {
    await fc.assert(
      fc.asyncProperty(bodyArb, headersArb, async (body, headers) => {
        const want = expected(body);
        let got: Answer;
        try {
          got = await post(hook, body, headers);
        } catch (err) {
          // The route closes the connection after a 413; the client may see that before the answer.
          if (want === 413) return;
          throw err;
        }
        expect(got.status).toBe(want);
        expect(() => JSON.parse(got.body)).not.toThrow();
      }),
      { numRuns: runs(250) },
    );
    guard.check();
  });

  it("takes every valid delivery (spec 6.2): 200, and stored unless it is a duplicate", async () => {
    await fc.assert(
      fc.asyncProperty(validDeliveryArb(SEED.profiles.newsroom), headersArb, async (d, headers) => {
        const before = (await h.outbox.stats()).depth;
        const got = await post(hook, JSON.stringify(d), headers);
        expect(got.status).toBe(200);
        const status = (JSON.parse(got.body) as { status: string }).status;
        expect(["stored", "duplicate"]).toContain(status);
        expect((await h.outbox.stats()).depth).toBe(before + (status === "stored" ? 1 : 0));
      }),
      { numRuns: runs(150) },
    );
    guard.check();
  });

  it("refuses random tokens (traversal, unicode, very long) with a 4xx, never a 5xx", async () => {
    const tokenArb = fc.oneof(
      nastyText,
      fc.constantFrom(
        "..",
        "../..",
        "../../healthz",
        "%2e%2e%2f%2e%2e%2fhealthz",
        "..%2f..%2fmetrics",
        "%00",
        "%",
        "%zz",
      ),
      fc.stringMatching(/^[A-Za-z0-9_-]{32,64}$/),
      fc.constant(`${token}x`),
      fc.constant(token.slice(0, -1)),
      fc.constant(token.toUpperCase() === token ? token.toLowerCase() : token.toUpperCase()),
      fc.nat({ max: 20_000 }).map((n) => "A".repeat(n)),
    );
    const body = JSON.stringify({
      type: "video.created",
      timestamp: 1,
      data: { owner_id: "o", video_id: "v" },
    });
    await fc.assert(
      fc.asyncProperty(tokenArb, fc.boolean(), async (tok, encode) => {
        fc.pre(tok !== token);
        const path = `/hooks/platform/${encode ? encodeURIComponent(toWellFormed(tok)) : tok}`;
        let got: Answer;
        try {
          got = await post(`${h.url}${path}`, body, { "content-type": "application/json" });
        } catch (err) {
          // undici refuses some raw paths before sending anything (control characters...).
          if ((err as { code?: string }).code === "UND_ERR_INVALID_ARG") return;
          throw err;
        }
        expect(got.status).toBeGreaterThanOrEqual(400);
        expect(got.status).toBeLessThan(500);
      }),
      { numRuns: runs(200) },
    );
    guard.check();
  });

  it("regression: a malformed escape in the path is a 400, not Bolt's 500", async () => {
    // Found by the property above: Bolt's router threw URIError on "%" / "%zz" (fixed in
    // src/http/front.ts).
    for (const path of ["/hooks/platform/%", "/hooks/platform/%zz", `/hooks/platform/${token}%`]) {
      for (const method of ["POST", "GET"] as const) {
        const res = await request(`${h.url}${path}`, {
          method,
          ...(method === "POST" ? { body: "{}" } : {}),
        });
        await res.body.text();
        expect(res.statusCode).toBe(400);
      }
    }
    guard.check();
  });

  it("survives broken HTTP: a body shorter than declared, then a hang-up", async () => {
    const { port } = new URL(h.url);
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 2 * MAX_DELIVERY_BYTES }),
        fc.nat({ max: 2000 }),
        async (declared, sent) => {
          let answer = "";
          await new Promise<void>((resolve) => {
            const socket = connect(Number(port), "127.0.0.1", () => {
              socket.write(
                `POST /hooks/platform/${token} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`,
              );
              socket.end(Buffer.alloc(Math.min(sent, declared), 0x7b));
            });
            socket.on("data", (chunk: Buffer) => {
              answer += chunk.toString("latin1");
            });
            socket.on("error", () => resolve());
            socket.on("close", () => resolve());
            setTimeout(() => {
              socket.destroy();
              resolve();
            }, 200);
          });
          // A hung-up client gets no answer, or a 4xx; never a 5xx.
          expect(answer).not.toMatch(/^HTTP\/1\.1 5/);
          const health = await request(`${h.url}/healthz`);
          await health.body.text();
          expect(health.statusCode).toBe(200);
        },
      ),
      { numRuns: runs(30) },
    );
    guard.check();
  });
});
