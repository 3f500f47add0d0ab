/** Callback tokens: format, uniqueness, and the constant-time comparison of stored hashes. */
import crypto from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import {
  CALLBACK_TOKEN_RE,
  CallbackRepo,
  isCallbackToken,
  newCallbackToken,
  type Store,
} from "../../src/store/index.js";
import { captureLogger, memoryBackend } from "./helpers.js";

const sha256hex = (s: string) => crypto.createHash("sha256").update(s).digest("hex");

describe("newCallbackToken", () => {
  it("makes 32 base64url characters carrying 24 random bytes", () => {
    for (let i = 0; i < 100; i++) {
      const token = newCallbackToken();
      expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(Buffer.from(token, "base64url")).toHaveLength(24);
      expect(isCallbackToken(token)).toBe(true);
    }
  });

  it("never repeats itself over 10,000 tokens", () => {
    const tokens = new Set<string>();
    for (let i = 0; i < 10_000; i++) tokens.add(newCallbackToken());
    expect(tokens.size).toBe(10_000);
  });

  it("isCallbackToken accepts 32-64 base64url characters only", () => {
    expect(CALLBACK_TOKEN_RE.test("a".repeat(32))).toBe(true);
    expect(isCallbackToken("a".repeat(64))).toBe(true);
    expect(isCallbackToken("a".repeat(31))).toBe(false);
    expect(isCallbackToken("a".repeat(65))).toBe(false);
    expect(isCallbackToken(`${"a".repeat(31)}=`)).toBe(false);
    expect(isCallbackToken(`${"a".repeat(31)}\n`)).toBe(false);
    expect(isCallbackToken(undefined)).toBe(false);
  });
});

describe("CallbackRepo compares stored hashes in constant time", () => {
  let store: Store;
  let callbacks: CallbackRepo;

  beforeAll(async () => {
    const { logger } = captureLogger();
    store = await memoryBackend().open(logger);
    callbacks = new CallbackRepo(store, logger);
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });
  afterAll(async () => {
    await store.close();
  });

  it("a record whose stored hash differs from the token's is not a match", async () => {
    const token = newCallbackToken();
    // A record at the token's key, but holding another token's hash.
    await store.keyv.set(`route:${sha256hex(token)}`, {
      v: 1,
      tokenSha256: sha256hex(newCallbackToken()),
      teamId: "T0001",
      profileId: "x1",
      channelId: "C0001",
    });
    const compare = vi.spyOn(crypto, "timingSafeEqual");
    expect(await callbacks.get(token)).toBeUndefined();
    expect(compare).toHaveBeenCalledTimes(1);
    const [a, b] = compare.mock.calls[0] ?? [];
    expect(Buffer.isBuffer(a) && a.length).toBe(32);
    expect(Buffer.isBuffer(b) && b.length).toBe(32);
    expect(compare.mock.results[0]?.value).toBe(false);
  });

  it("a matching record goes through the same comparison", async () => {
    const token = newCallbackToken();
    await callbacks.put(token, { teamId: "T0001", profileId: "x1", channelId: "C0001" });
    const compare = vi.spyOn(crypto, "timingSafeEqual");
    expect(await callbacks.get(token)).toEqual({ teamId: "T0001", profileId: "x1", channelId: "C0001" });
    expect(compare).toHaveBeenCalledTimes(1);
    expect(compare.mock.results[0]?.value).toBe(true);
  });
});
