/**
 * The HTTP transport of every Slack Web API client the bot builds (`fetch` of WebClientOptions):
 * undici's `request` instead of the global `fetch`. The Web API client keeps all its own work
 * (queue, retries, rate limits, errors); only the round trip is lighter: the global fetch builds
 * WHATWG Request, stream and Response objects around each call, which cost about as much CPU as
 * the rest of the call (measured against the Slack stand-in: 1.4–2.1 ms of CPU a chat.postMessage
 * with it, 0.7–0.9 ms with this).
 * More: README.md ("transport.ts").
 */
import { STATUS_CODES } from "node:http";
import { request } from "undici";

type FetchFunction = typeof globalThis.fetch;

/** Statuses whose Response may have no body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * A `fetch` for the Web API client's calls: a string URL and a string body (or none), which is
 * every call it makes except file uploads (a FormData body), passed on to the global fetch.
 * Fails the way fetch fails, so the client and src/posting/slack-errors.ts see the same errors:
 * a request that did not go through rejects with `TypeError("fetch failed")` and its cause
 * (`ECONNREFUSED`...), an aborted one with the signal's reason (the client's timeout). No
 * redirect is followed (the client asks for none): a 3xx is answered to the client as it came.
 */
export const slackFetch: FetchFunction = async (input, init) => {
  const body = init?.body;
  if (typeof input !== "string" || (body !== undefined && body !== null && typeof body !== "string")) {
    return globalThis.fetch(input, init);
  }
  const signal = init?.signal ?? undefined;
  let text: string;
  let status: number;
  let raw: Record<string, string | string[] | undefined>;
  try {
    const res = await request(input, {
      method: (init?.method ?? "GET") as "GET",
      headers: init?.headers as Record<string, string> | undefined,
      body: body ?? undefined,
      signal,
    });
    status = res.statusCode;
    raw = res.headers;
    text = await res.body.text();
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    throw new TypeError("fetch failed", { cause: err });
  }
  const headers = new Headers();
  for (const name in raw) {
    const v = raw[name];
    if (Array.isArray(v)) for (const one of v) headers.append(name, one);
    else if (v !== undefined) headers.set(name, v);
  }
  return new Response(NULL_BODY.has(status) ? null : text, {
    status,
    statusText: STATUS_CODES[status] ?? "",
    headers,
  });
};
