/**
 * The delivery route's own protections, as the README states them:
 * - the token: 192 random bits per (workspace, profile), stored only as its SHA-256, found by that
 *   hash and compared in constant time. What is meaningful to test here (a timing measurement would
 *   be flaky): every wrong token, however close, gets the same 404 byte for byte; the store is only
 *   ever asked for `route:<sha256(token)>`, never the token (CallbackRepo's short-lived cache of
 *   lookups is keyed by the same hash), so the one lookup an attacker drives is
 *   keyed by a hash they cannot steer toward a real token (each differing character changes the
 *   whole hash); the one comparison with stored material is crypto.timingSafeEqual on two 32-byte
 *   hashes (spied in test/store/tokens.test.ts).
 * - WEBHOOK_ALLOWED_IPS (addresses and CIDR blocks, IPv4 and IPv6, IPv4-mapped IPv6 read as IPv4)
 *   and TRUST_PROXY (X-Forwarded-For ignored unless true; then only its last entry, the one your
 *   proxy appended; an entry that is not an address falls back to the connection's address).
 * test/notify/route.test.ts covers the basic cases; these are the rest.
 */
import { createHash } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import { request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { allowList, clientAddress } from "../../src/deliveries/source.js";
import { configureProfile, localHookUrl, memorySnapshot } from "../faults/support.js";
import { type Harness, startHarness } from "../support/harness.js";

const delivery = (videoId: string) =>
  JSON.stringify({
    type: "video.created",
    timestamp: Date.now(),
    data: { owner_id: SEED.profiles.newsroom, video_id: videoId },
  });

async function post(url: string, headers: Record<string, string | string[]> = {}) {
  const res = await request(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: delivery("x7sec"),
  });
  const { date: _date, ...rest } = res.headers;
  return { status: res.statusCode, body: await res.body.text(), headers: rest };
}

/** `token` with the character at `index` replaced by another base64url character. */
function flip(token: string, index: number): string {
  const at = index < 0 ? token.length + index : index;
  const c = token[at] === "A" ? "B" : "A";
  return `${token.slice(0, at)}${c}${token.slice(at + 1)}`;
}

describe("the callback token", () => {
  let h: Harness;
  let hook: string;
  let token: string;
  beforeAll(async () => {
    h = await startHarness({ worker: { manual: true } });
    hook = await configureProfile(h, "C0NEWS");
    token = hook.split("/").pop() ?? "";
  });
  afterAll(async () => {
    await h.close();
  });

  it("every wrong token, however close, gets the same 404", async () => {
    expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const base = hook.slice(0, -token.length);
    const wrong = [
      flip(token, -1), // differs in the last character only
      flip(token, 0), // in the first only
      token.slice(0, -1), // one character short (malformed)
      `${token}A`, // one longer: well-formed, unknown
      token.toUpperCase() === token ? token.toLowerCase() : token.toUpperCase(),
      "A".repeat(32),
      `${token}${token}`, // 64 characters: well-formed, unknown
    ];
    const answers = await Promise.all(wrong.map((t) => post(`${base}${t}`)));
    const first = answers[0];
    expect(first?.status).toBe(404);
    for (const a of answers) expect(a).toEqual(first);
    expect((await post(hook)).status).toBe(200);
  });

  it("is looked up by its SHA-256 only, and stored nowhere in the clear", async () => {
    // A fresh token (setting the webhook again rotates it), so no lookup of it is remembered yet.
    const fresh = await configureProfile(h, "C0NEWS");
    const token = fresh.split("/").pop() ?? "";
    const hook = fresh;
    const keyv = h.store.keyv;
    const read: string[] = [];
    const get = keyv.get.bind(keyv);
    keyv.get = ((key: string, ...rest: unknown[]) => {
      read.push(String(key));
      return (get as (...a: unknown[]) => unknown)(key, ...rest);
    }) as typeof keyv.get;
    try {
      const near = flip(token, -1);
      await post(hook);
      await post(`${hook.slice(0, -token.length)}${near}`);
    } finally {
      keyv.get = get;
    }
    const sha = (t: string) => createHash("sha256").update(t).digest("hex");
    expect(read).toContain(`route:${sha(token)}`);
    expect(read).toContain(`route:${sha(flip(token, -1))}`);
    expect(read.some((k) => k.includes(token) || k.includes(flip(token, -1)))).toBe(false);
    const route = [...memorySnapshot(h).entries()].filter(([k]) => k.includes(":route:")).flat();
    expect(route.join("\n")).toContain(sha(token));
    expect(route.join("\n")).not.toContain(token);
  });

  /**
   * The README says the token is "stored only as a SHA-256 hash": the route is keyed by it, and the
   * workspace's settings keep the route's id (the same hash), not the token, so whoever can read
   * the store cannot forge deliveries. (Settings once kept it in the clear: see
   * legacy-settings.test.ts for documents written then.)
   */
  it("is stored nowhere in the clear (README's claim)", () => {
    const current = localHookUrl(h).split("/").pop() ?? "";
    expect(current).toMatch(/^[A-Za-z0-9_-]{32}$/);
    const stored = [...memorySnapshot(h).entries()].flat().join("\n");
    expect(stored).not.toContain(current);
  });
});

describe("WEBHOOK_ALLOWED_IPS, TRUST_PROXY off", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      env: { WEBHOOK_ALLOWED_IPS: "127.0.0.2, 127.0.0.4/31, 2001:db8::/32", TRUST_PROXY: "false" },
      worker: { manual: true },
    });
    await configureProfile(h, "C0NEWS");
  });
  afterAll(async () => {
    await h.close();
  });

  const from = (localAddress: string) =>
    h.sandbox
      .deliver(
        SEED.profiles.newsroom,
        { type: "video.created", data: { owner_id: SEED.profiles.newsroom, video_id: "x7ip" } },
        { deliverTo: h.url, localAddress, force: true },
      )
      .then((r) => r.status);

  it("lets in listed addresses and CIDR blocks, and nothing else", async () => {
    const statuses = await Promise.all(
      ["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5", "127.0.0.6", "127.0.0.1"].map(from),
    );
    expect(statuses).toEqual([200, 403, 200, 200, 403, 403]);
  });

  it("ignores X-Forwarded-For, however it is spoofed", async () => {
    const spoofs: Array<Record<string, string>> = [
      { "x-forwarded-for": "127.0.0.2" },
      { "x-forwarded-for": "198.51.100.1, 127.0.0.2" },
      { "x-forwarded-for": "::ffff:127.0.0.2" },
      { "x-forwarded-for": "2001:db8::1" },
      { "x-real-ip": "127.0.0.2", forwarded: "for=127.0.0.2" },
    ];
    const hook = h.sandbox.state.profiles.get(SEED.profiles.newsroom)?.webhook.callback_url ?? "";
    const local = `${h.url}${new URL(hook).pathname}`;
    // From 127.0.0.1 (not allowed): every spoof is still refused.
    for (const headers of spoofs)
      expect((await post(local, headers)).status, JSON.stringify(headers)).toBe(403);
    // From an allowed address, a forged header naming a refused one changes nothing either.
    const r = await h.sandbox.deliver(
      SEED.profiles.newsroom,
      { type: "video.created", data: { owner_id: SEED.profiles.newsroom, video_id: "x7ip2" } },
      {
        deliverTo: h.url,
        localAddress: "127.0.0.2",
        force: true,
        headers: { "x-forwarded-for": "203.0.113.9" },
      },
    );
    expect(r.status).toBe(200);
  });
});

describe("TRUST_PROXY on: the last X-Forwarded-For entry", () => {
  let h: Harness;
  let local: string;
  beforeAll(async () => {
    h = await startHarness({
      env: { WEBHOOK_ALLOWED_IPS: "203.0.113.0/29,2001:db8::/32", TRUST_PROXY: "true" },
      worker: { manual: true },
    });
    local = await configureProfile(h, "C0NEWS");
  });
  afterAll(async () => {
    await h.close();
  });

  it.each([
    { name: "one allowed address", xff: "203.0.113.7", status: 200 },
    {
      name: "a chain ending with an allowed address",
      xff: "198.51.100.1, 10.0.0.1, 203.0.113.3",
      status: 200,
    },
    { name: "a chain whose allowed entry the client wrote", xff: "203.0.113.7, 198.51.100.1", status: 403 },
    { name: "an IPv4-mapped IPv6 address", xff: "::ffff:203.0.113.5", status: 200 },
    { name: "an IPv6 address in an allowed block", xff: "2001:db8:1::42", status: 200 },
    { name: "an IPv6 address outside", xff: "2001:db9::1", status: 403 },
    { name: "just outside the CIDR block", xff: "203.0.113.8", status: 403 },
    { name: "a last entry that is not an address (falls back)", xff: "203.0.113.7, unknown", status: 403 },
    { name: "an address with a port (not an address: falls back)", xff: "203.0.113.7:4711", status: 403 },
  ])("$name → $status", async ({ xff, status }) => {
    expect((await post(local, { "x-forwarded-for": xff })).status).toBe(status);
  });

  it("two X-Forwarded-For headers read as one chain, in order", async () => {
    expect((await post(local, { "x-forwarded-for": ["198.51.100.1", "203.0.113.7"] })).status).toBe(200);
    expect((await post(local, { "x-forwarded-for": ["203.0.113.7", "198.51.100.1"] })).status).toBe(403);
  });

  it("no X-Forwarded-For: the connection's own address (127.0.0.1, not allowed)", async () => {
    expect((await post(local)).status).toBe(403);
  });
});

describe("source.ts on addresses a dual-stack listener reports", () => {
  const req = (remoteAddress: string, xff?: string) =>
    ({
      socket: { remoteAddress } as Socket,
      headers: xff === undefined ? {} : { "x-forwarded-for": xff },
    }) as IncomingMessage;

  it("reads ::ffff:a.b.c.d as a.b.c.d, with and without a proxy", () => {
    expect(clientAddress(req("::ffff:127.0.0.2"), false)).toBe("127.0.0.2");
    expect(clientAddress(req("::ffff:10.0.0.1", "::ffff:203.0.113.7"), true)).toBe("203.0.113.7");
    expect(clientAddress(req("::ffff:10.0.0.1", "203.0.113.7"), false)).toBe("10.0.0.1");
    const allowed = allowList(["127.0.0.2", "10.1.0.0/16"]);
    expect(allowed?.("::ffff:127.0.0.2")).toBe(true);
    expect(allowed?.("::ffff:10.1.200.3")).toBe(true);
    expect(allowed?.("::ffff:10.2.0.1")).toBe(false);
    expect(allowed?.("")).toBe(false);
    expect(allowList([])).toBeNull();
  });
});
