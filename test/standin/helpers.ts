import { webApi } from "@slack/bolt";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { type SlackStandin, startSlackStandin } from "../../fakes/slack/index.js";
import { pollUntil } from "../support/wait.js";

export const { WebClient, ErrorCode, LogLevel } = webApi;
export type Client = InstanceType<typeof WebClient>;

/** A real @slack/web-api client pointed at the stand-in, quiet, without retries unless asked (null: no token). */
export function clientFor(
  s: SlackStandin,
  token: string | null = s.botToken,
  opts: ConstructorParameters<typeof WebClient>[1] = {},
): Client {
  return new WebClient(token ?? undefined, {
    slackApiUrl: s.apiUrl,
    logLevel: LogLevel.ERROR,
    retryConfig: { retries: 0 },
    ...opts,
  });
}

/**
 * One stand-in for the file, reset before each test, with a WebClient of its bot token (`opts`
 * for the client); `started` gets both once it listens.
 */
export function standinForFile(
  started: (s: SlackStandin, client: Client) => void,
  opts: ConstructorParameters<typeof WebClient>[1] = {},
): void {
  let standin: SlackStandin | undefined;
  beforeAll(async () => {
    standin = await startSlackStandin();
    started(standin, clientFor(standin, standin.botToken, opts));
  });
  beforeEach(() => standin?.reset());
  afterAll(async () => {
    await standin?.close();
  });
}

export interface CaughtError {
  code?: string;
  /** data.error of a platform error */
  error?: string;
  data?: Record<string, unknown>;
  statusCode?: number;
  retryAfter?: number;
  message: string;
}

/** The error a promise rejects with; fails the test when it resolves. */
export async function caught(p: Promise<unknown>): Promise<CaughtError> {
  let value: unknown;
  try {
    value = await p;
  } catch (err) {
    const e = err as Error & {
      code?: string;
      data?: Record<string, unknown>;
      statusCode?: number;
      retryAfter?: number;
    };
    const out: CaughtError = { message: e.message };
    if (e.code !== undefined) out.code = e.code;
    if (e.data !== undefined) {
      out.data = e.data;
      if (typeof e.data.error === "string") out.error = e.data.error;
    }
    if (e.statusCode !== undefined) out.statusCode = e.statusCode;
    if (e.retryAfter !== undefined) out.retryAfter = e.retryAfter;
    return out;
  }
  throw new Error(`expected a rejection, got ${JSON.stringify(value)}`);
}

export async function waitFor<T>(
  probe: () => T | undefined | false,
  timeoutMs = 5000,
  what = "condition",
): Promise<T> {
  return pollUntil(probe, timeoutMs, what);
}

/** POSTs JSON to a URL (a response_url); status, parsed body and headers. */
export async function postJson(
  url: string,
  body: unknown,
): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

export const section = (text: string, blockId?: string) => ({
  type: "section",
  ...(blockId === undefined ? {} : { block_id: blockId }),
  text: { type: "mrkdwn", text },
});
