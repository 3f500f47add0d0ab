import { request } from "undici";
import { expect } from "vitest";
import type { Sandbox } from "../../fakes/platform/server.js";

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: unknown;
}

/** Nested property access by dotted path ("error.details.param"); undefined when absent. */
export function at(value: unknown, path: string): unknown {
  let v = value;
  for (const key of path.split(".")) {
    if (typeof v !== "object" || v === null) return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

export const keys = (value: unknown): string[] =>
  typeof value === "object" && value !== null ? Object.keys(value) : [];

export async function call(
  method: string,
  url: string,
  opts: { headers?: Record<string, string>; body?: string } = {},
): Promise<Reply> {
  const res = await request(url, {
    method: method as "GET",
    headers: opts.headers,
    body: opts.body,
  });
  const text = await res.body.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, headers: res.headers, text, json };
}

export const form = (fields: Record<string, string>) => ({
  headers: { "content-type": "application/x-www-form-urlencoded" },
  body: new URLSearchParams(fields).toString(),
});

export async function tokenFor(
  sb: Sandbox,
  scope = "live.read profile.manage",
  clientId = sb.clientId,
  clientSecret = sb.clientSecret,
): Promise<string> {
  const r = await call(
    "POST",
    `${sb.url}/v2/token`,
    form({ grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret, scope }),
  );
  expect(r.status).toBe(200);
  return String(at(r.json, "access_token"));
}

export const bearer = (token: string, extra: Record<string, string> = {}) => ({
  authorization: `Bearer ${token}`,
  ...extra,
});

export async function api(
  sb: Sandbox,
  method: string,
  path: string,
  token: string | undefined,
  body?: unknown,
  contentType = "application/json",
): Promise<Reply> {
  const headers: Record<string, string> = token === undefined ? {} : bearer(token);
  if (body !== undefined) headers["content-type"] = contentType;
  return call(method, `${sb.apiUrl}${path}`, {
    headers,
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** Asserts the section 7 envelope with exactly these code and details. */
export function expectEnvelope(r: Reply, status: number, code: string, details?: unknown): void {
  expect(r.status).toBe(status);
  expect(r.headers["content-type"]).toMatch(/^application\/json/);
  expect(keys(r.json)).toEqual(["error"]);
  expect(keys(at(r.json, "error")).sort()).toEqual([
    "code",
    "correlation_id",
    "details",
    "documentation_url",
    "message",
  ]);
  expect(at(r.json, "error.code")).toBe(code);
  expect(at(r.json, "error.message")).toMatch(/\S/);
  expect(at(r.json, "error.correlation_id")).toMatch(/^[0-9a-f]{16,}$/);
  expect(at(r.json, "error.documentation_url")).toBe(`https://developers.example.com/api/errors#${code}`);
  if (details !== undefined) expect(at(r.json, "error.details")).toEqual(details);
}
