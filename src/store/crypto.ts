/**
 * The store's cryptography, in one place. Delivery-callback tokens: made at random, kept only as their
 * sha256 (the callback id), compared in constant time. Values encrypted at rest (installations, when
 * STORE_ENCRYPTION_KEY is set): a versioned envelope `{ v: 1, enc: "aes-256-gcm+hkdf-sha256", iv,
 * tag, data }` (base64), AES-256-GCM with a random 12-byte IV, the key derived from
 * STORE_ENCRYPTION_KEY with HKDF-SHA256, and the store key as additional authenticated data. A
 * value that fails authentication raises `StoreCorruptError`; it is never treated as absent.
 */
import crypto from "node:crypto";
import { z } from "zod";
import { StoreCorruptError } from "./errors.js";

/** 32 to 64 characters of base64url: what `newCallbackToken()` makes (32), with room to grow. */
export const CALLBACK_TOKEN_RE = /^[A-Za-z0-9_-]{32,64}$/;

/** A fresh callback token: 24 random bytes (192 bits), base64url → 32 characters. */
export function newCallbackToken(): string {
  return crypto.randomBytes(24).toString("base64url");
}

export function isCallbackToken(token: unknown): token is string {
  return typeof token === "string" && CALLBACK_TOKEN_RE.test(token);
}

/** A callback id: the sha256 of a callback token, 64 lowercase hex digits. */
export const CALLBACK_ID_RE = /^[0-9a-f]{64}$/;

export function isCallbackId(callbackId: unknown): callbackId is string {
  return typeof callbackId === "string" && CALLBACK_ID_RE.test(callbackId);
}

/** The sha256 of a token (32 bytes). */
export const sha256 = (token: string): Buffer => crypto.createHash("sha256").update(token, "utf8").digest();

/** The callback id of a token (sha256, hex): what profiles keep and what the route is stored under. */
export function callbackIdOf(token: string): string {
  return sha256(token).toString("hex");
}

/**
 * Whether `token` is the token of route `callbackId`: their sha256 compared in constant time (both
 * are 32 bytes). false for a malformed token or id.
 */
export function tokenMatchesCallbackId(token: string, callbackId: string): boolean {
  if (!isCallbackToken(token) || !isCallbackId(callbackId)) return false;
  return crypto.timingSafeEqual(sha256(token), Buffer.from(callbackId, "hex"));
}

// --- Encryption at rest --------------------------------------------------------------------------

export const ENVELOPE_ALG = "aes-256-gcm+hkdf-sha256";
const HKDF_SALT = "platform-slack-bot/store-encryption";
const HKDF_INFO = "installation:v1";

/** The envelope of an encrypted value. */
export const encryptedDoc = z
  .object({
    v: z.literal(1),
    enc: z.literal(ENVELOPE_ALG),
    iv: z.base64(),
    tag: z.base64(),
    data: z.base64(),
  })
  .strict();
export type EncryptedDoc = z.infer<typeof encryptedDoc>;

/** Derives the AES-256 key from STORE_ENCRYPTION_KEY (a string of 32 characters or more). */
export function deriveKey(secret: string): Buffer {
  return Buffer.from(crypto.hkdfSync("sha256", Buffer.from(secret, "utf8"), HKDF_SALT, HKDF_INFO, 32));
}

export function seal(key: Buffer, storeKey: string, value: unknown): EncryptedDoc {
  const iv = crypto.randomBytes(12);
  const cipher = crypto.createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(storeKey, "utf8"));
  const data = Buffer.concat([cipher.update(JSON.stringify(value), "utf8"), cipher.final()]);
  return {
    v: 1,
    enc: ENVELOPE_ALG,
    iv: iv.toString("base64"),
    tag: cipher.getAuthTag().toString("base64"),
    data: data.toString("base64"),
  };
}

/** The decrypted value; throws StoreCorruptError when it does not authenticate. */
export function open(key: Buffer, storeKey: string, doc: EncryptedDoc): unknown {
  const iv = Buffer.from(doc.iv, "base64");
  const tag = Buffer.from(doc.tag, "base64");
  if (iv.length !== 12 || tag.length !== 16)
    throw new StoreCorruptError(storeKey, "encrypted value has a malformed IV or tag");
  let text: string;
  try {
    const decipher = crypto.createDecipheriv("aes-256-gcm", key, iv);
    decipher.setAAD(Buffer.from(storeKey, "utf8"));
    decipher.setAuthTag(tag);
    text = Buffer.concat([decipher.update(Buffer.from(doc.data, "base64")), decipher.final()]).toString(
      "utf8",
    );
  } catch (err) {
    throw new StoreCorruptError(
      storeKey,
      "encrypted value failed authentication: it was altered, or STORE_ENCRYPTION_KEY is not the key it was written with",
      { cause: err },
    );
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new StoreCorruptError(storeKey, "decrypted value is not JSON", { cause: err });
  }
}
