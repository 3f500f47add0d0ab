/**
 * Slack request signing (version v0), as Slack signs every request it sends to an app:
 * `x-slack-signature: v0=<hex HMAC-SHA256 of "v0:<timestamp>:<raw body>" keyed by the signing secret>`
 * and `x-slack-request-timestamp: <unix seconds>`.
 */
import { createHmac } from "node:crypto";
import { performance } from "node:perf_hooks";
import { request } from "undici";

// A type alias rather than an interface, so the headers can be passed where a
// Record<string, string> is expected.
export type SlackSignatureHeaders = {
  "x-slack-signature": string;
  "x-slack-request-timestamp": string;
};

/** The v0 signature of a body sent at `timestampSeconds`: "v0=<64 hex digits>". */
export function slackSignature(body: string, signingSecret: string, timestampSeconds: number): string {
  const hmac = createHmac("sha256", signingSecret);
  hmac.update(`v0:${timestampSeconds}:${body}`);
  return `v0=${hmac.digest("hex")}`;
}

/** The two headers Slack adds to a request carrying `body`. */
export function signSlackRequest(
  body: string,
  signingSecret: string,
  timestampSeconds: number = Math.floor(Date.now() / 1000),
): SlackSignatureHeaders {
  return {
    "x-slack-signature": slackSignature(body, signingSecret, timestampSeconds),
    "x-slack-request-timestamp": String(timestampSeconds),
  };
}

export interface SignedReply {
  status: number;
  body: string;
  /** round-trip time, from sending to the whole answer read */
  ms: number;
}

/**
 * POSTs `body` to `url` signed like Slack. The content type follows the body (JSON when it starts
 * with "{", form otherwise) unless given; `timestamp` (seconds) and `signature` override the
 * signing, to send stale or forged requests.
 */
export async function sendSigned(
  url: string,
  body: string,
  signingSecret: string,
  opts: { contentType?: string; timestamp?: number; signature?: string } = {},
): Promise<SignedReply> {
  const headers: Record<string, string> = {
    "content-type":
      opts.contentType ??
      (body.trimStart().startsWith("{") ? "application/json" : "application/x-www-form-urlencoded"),
    "user-agent": "Slackbot 1.0 (+https://api.slack.com/robots)",
    ...signSlackRequest(body, signingSecret, opts.timestamp),
  };
  if (opts.signature !== undefined) headers["x-slack-signature"] = opts.signature;
  const started = performance.now();
  const res = await request(url, { method: "POST", headers, body });
  const text = await res.body.text();
  return { status: res.statusCode, body: text, ms: performance.now() - started };
}
