/**
 * The local Slack stand-in: the Web API under /api/<method> (what @slack/web-api calls when
 * SLACK_API_URL points here), response_urls under /response/<id> (what Bolt's respond() posts
 * to) and Socket Mode's WebSocket under /link/ (socket.ts), on plain node:http, with a call log,
 * a channel view of messages and fault injection.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type CallContext, METHODS } from "./methods.js";
import { createResponseUrl, postToResponseUrl, responseUrlId } from "./responses.js";
import { DEFAULT_APP_TOKEN, DEFAULT_BOT_TOKEN, DEFAULT_TEAM_ID } from "./seed.js";
import { attachSocketServer, socketModeFacade } from "./socket.js";
import type { RecordedCall, SlackStandin, SlackStandinOptions, StandinFault } from "./types.js";
import { isObj, type Obj, SlackFailure, Workspace } from "./workspace.js";

export type * from "./types.js";

const MAX_BODY_BYTES = 5 * 1024 * 1024;

/** Arguments @slack/web-api sends JSON-encoded inside form fields; decoded before handling and recording. */
const JSON_ARGS = new Set([
  "blocks",
  "attachments",
  "view",
  "metadata",
  "unfurls",
  "user_auth_blocks",
  "outputs",
]);

/**
 * JSON-encoded arguments of one method only: `error` is an object for entity.presentDetails but a
 * plain string for functions.completeError (where "404" or "true" must stay strings).
 */
const METHOD_JSON_ARGS: Record<string, readonly string[]> = {
  "entity.presentDetails": ["error"],
};

const FAULT_ERRORS: Record<number, string> = {
  429: "ratelimited",
  500: "internal_error",
  502: "bad_gateway",
  503: "service_unavailable",
};

class FaultQueue {
  private entries: Array<{ fault: StandinFault; remaining: number }> = [];

  add(fault: StandinFault): void {
    const remaining = fault.times ?? 1;
    if (remaining > 0) this.entries.push({ fault: { ...fault }, remaining });
  }

  clear(): void {
    this.entries = [];
  }

  /** The first fault for this call, counted as used. */
  take(method: string, channel?: unknown): StandinFault | undefined {
    const index = this.entries.findIndex(
      ({ fault }) =>
        (fault.method === "*" || fault.method === method) &&
        (fault.channel === undefined || fault.channel === channel),
    );
    const entry = this.entries[index];
    if (entry === undefined) return undefined;
    entry.remaining -= 1;
    if (entry.remaining <= 0) this.entries.splice(index, 1);
    return entry.fault;
  }
}

class BodyTooLarge extends Error {}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
    size += buf.length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLarge();
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function mediaType(req: IncomingMessage): string {
  return (req.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
}

function tryJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Web API arguments from the query string and a form or JSON body; `bad` names a body Slack refuses. */
function parseArgs(
  req: IncomingMessage,
  raw: string,
  url: URL,
  method: string,
): { args: Obj; json: boolean; bad?: string } {
  const args: Obj = Object.fromEntries(url.searchParams);
  const media = mediaType(req);
  const json = media === "application/json";
  let bad: string | undefined;
  if (raw.trim() !== "") {
    if (json) {
      const value = tryJson(raw);
      if (isObj(value)) Object.assign(args, value);
      else bad = "invalid_json";
    } else if (media === "application/x-www-form-urlencoded" || media === "") {
      Object.assign(args, Object.fromEntries(new URLSearchParams(raw)));
    } else {
      bad = "invalid_form_data";
    }
  }
  const own = Object.hasOwn(METHOD_JSON_ARGS, method) ? (METHOD_JSON_ARGS[method] ?? []) : [];
  for (const key of [...JSON_ARGS, ...own]) {
    const value = args[key];
    if (typeof value === "string" && value !== "") {
      const decoded = tryJson(value);
      if (decoded !== undefined) args[key] = decoded;
    }
  }
  return bad === undefined ? { args, json } : { args, json, bad };
}

function sendJson(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed || res.socket === null || res.socket.destroyed) return;
  const body = JSON.stringify(value);
  res.writeHead(status, {
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

export async function startSlackStandin(opts: SlackStandinOptions = {}): Promise<SlackStandin> {
  const now = opts.now ?? Date.now;
  const botToken = opts.botToken ?? DEFAULT_BOT_TOKEN;
  const appToken = opts.appToken ?? DEFAULT_APP_TOKEN;
  const ws = new Workspace(opts.teamId ?? DEFAULT_TEAM_ID, now);
  const calls: RecordedCall[] = [];
  const faults = new FaultQueue();
  const sleepers = new Map<NodeJS.Timeout, () => void>();
  let baseUrl = "";

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        sleepers.delete(timer);
        resolve();
      }, ms);
      sleepers.set(timer, resolve);
    });

  /** Answers and completes the call's record. */
  const answer = (
    res: ServerResponse,
    call: RecordedCall,
    status: number,
    body: Obj,
    headers: Record<string, string> = {},
  ) => {
    call.status = status;
    call.ok = status === 200 && body.ok === true;
    if (typeof body.error === "string") call.error = body.error;
    sendJson(res, status, body, headers);
  };

  /**
   * A fault's answer, or undefined when the call goes on (none, latency only, or a fault on the
   * answer: `after` is then the fault, for the caller to apply once the call was handled).
   */
  async function applyFault(
    method: string,
    after?: { fault?: StandinFault },
    channel?: unknown,
  ): Promise<{ status: number; body: Obj; headers: Record<string, string> } | undefined> {
    const fault = faults.take(method, channel);
    if (fault === undefined) return undefined;
    if (fault.latencyMs !== undefined && fault.latencyMs > 0) await sleep(fault.latencyMs);
    if (fault.loseAnswer || fault.holdAnswerMs !== undefined) {
      if (after) after.fault = fault;
      return undefined;
    }
    if (fault.status !== undefined) {
      const headers: Record<string, string> =
        fault.status === 429 ? { "Retry-After": String(fault.retryAfter ?? 1) } : {};
      const error = fault.error ?? FAULT_ERRORS[fault.status] ?? "internal_error";
      return { status: fault.status, body: { ok: false, error }, headers };
    }
    if (fault.error !== undefined) {
      const status = method !== "response_url" ? 200 : /^(expired|used)_url$/.test(fault.error) ? 404 : 400;
      return { status, body: { ok: false, error: fault.error }, headers: {} };
    }
    return undefined;
  }

  async function handleApi(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    method: string,
  ): Promise<void> {
    const raw = await readBody(req);
    const { args, json, bad } = parseArgs(req, raw, url, method);
    const header = req.headers.authorization;
    const bearer = header?.startsWith("Bearer ") ? header.slice("Bearer ".length).trim() : undefined;
    // Slack takes the token from the body only in forms; JSON bodies need the header.
    const bodyToken = !json && typeof args.token === "string" && args.token !== "" ? args.token : undefined;
    const token = bearer ?? bodyToken;
    delete args.token;
    const call: RecordedCall = { method, args, at: now(), status: 0, ok: false };
    if (token !== undefined) call.token = token;
    calls.push(call);

    const onAnswer: { fault?: StandinFault } = {};
    const faulted = await applyFault(method, onAnswer, args.channel);
    if (faulted !== undefined) {
      answer(res, call, faulted.status, faulted.body, faulted.headers);
      return;
    }
    /** The call was handled; its answer is held, or lost, when a fault says so. */
    const reply = async (status: number, body: Obj) => {
      const f = onAnswer.fault;
      if (f?.holdAnswerMs !== undefined) await sleep(f.holdAnswerMs);
      if (f?.loseAnswer) {
        call.status = 0;
        call.ok = status === 200 && body.ok === true;
        res.socket?.destroy();
        return;
      }
      answer(res, call, status, body);
    };
    try {
      if (method === "apps.connections.open" && bad === undefined) {
        answer(res, call, 200, socket.openConnection(token));
        return;
      }
      const spec = METHODS[method];
      if (spec === undefined) throw new SlackFailure("unknown_method");
      if (bad !== undefined) throw new SlackFailure(bad);
      if (spec.auth) {
        if (token === undefined) throw new SlackFailure("not_authed");
        if (token !== botToken && !ws.issuedTokens.has(token) && !ws.workflowTokenValid(token))
          throw new SlackFailure("invalid_auth");
        const expires = ws.tokenExpiry.get(token);
        if (expires !== undefined && now() >= expires) throw new SlackFailure("token_expired");
      }
      const ctx: CallContext = { ws, args: structuredClone(args), ...(token ? { token } : {}) };
      if (header !== undefined) ctx.authorization = header;
      await reply(200, spec.handle(ctx));
    } catch (err) {
      if (!(err instanceof SlackFailure)) throw err;
      await reply(200, { ok: false, error: err.error, ...err.extra });
    }
  }

  async function handleResponseUrl(req: IncomingMessage, res: ServerResponse, id: string): Promise<void> {
    const raw = await readBody(req);
    const parsed = tryJson(raw);
    const call: RecordedCall = {
      method: "response_url",
      args: isObj(parsed) ? structuredClone(parsed) : { raw },
      at: now(),
      status: 0,
      ok: false,
      responseUrlId: id,
    };
    calls.push(call);
    const faulted = await applyFault("response_url");
    if (faulted !== undefined) {
      answer(res, call, faulted.status, faulted.body, faulted.headers);
      return;
    }
    const outcome = postToResponseUrl(ws, id, parsed);
    answer(res, call, outcome.status, outcome.body);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://standin.invalid");
    const path = url.pathname;
    if (path.startsWith("/api/") && path.length > "/api/".length) {
      await handleApi(req, res, url, decodeURIComponent(path.slice("/api/".length)));
      return;
    }
    const response = /^\/response\/([^/]+)$/.exec(path);
    if (response?.[1] !== undefined) {
      if (req.method !== "POST") {
        sendJson(res, 405, { ok: false, error: "method_not_allowed" }, { Allow: "POST" });
        return;
      }
      await handleResponseUrl(req, res, response[1]);
      return;
    }
    sendJson(res, 404, { ok: false, error: "not_found" });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (err instanceof BodyTooLarge) {
        sendJson(res, 413, { ok: false, error: "request_too_large" }, { Connection: "close" });
        return;
      }
      const message = err instanceof Error ? err.message : String(err);
      sendJson(res, 500, { ok: false, error: "internal_error", detail: message });
    });
  });
  const socket = attachSocketServer(server, {
    appToken,
    botToken,
    baseUrl: () => baseUrl,
    now,
    pingIntervalMs: opts.socketPingIntervalMs ?? 10_000,
  });
  const host = opts.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const shownHost =
    host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "[::1]" : host.includes(":") ? `[${host}]` : host;
  baseUrl = `http://${shownHost}:${port}`;

  const standin: SlackStandin = {
    url: baseUrl,
    apiUrl: `${baseUrl}/api/`,
    botToken,
    teamId: ws.teamId,
    calls,
    callsTo: (method) => calls.filter((c) => c.method === method),
    users: ws.users,
    addUser: (u) => {
      ws.users.set(u.id, { ...u });
    },
    installOrgWide: (enterpriseId) => {
      ws.orgWide = enterpriseId;
    },
    channels: ws.channels,
    newResponseUrl: (channel, userId, originalTs) =>
      createResponseUrl(ws, baseUrl, channel, userId, originalTs),
    responses: (responseUrl) => {
      const id = responseUrlId(responseUrl);
      const state = id === undefined ? undefined : ws.responseUrls.get(id);
      return structuredClone(state?.posts ?? []);
    },
    messages: (channel) => ws.list(ws.resolveChannel(channel)).map((m) => ws.shown(m)),
    view: (viewId) => {
      const view = ws.views.get(viewId);
      return view === undefined ? undefined : structuredClone(view);
    },
    homeView: (userId) => {
      const id = ws.homeViews.get(userId);
      const view = id === undefined ? undefined : ws.views.get(id);
      return view === undefined ? undefined : structuredClone(view);
    },
    addFault: (f) => faults.add(f),
    clearFaults: () => faults.clear(),
    issuedTokens: () => [...ws.issuedTokens],
    unfurls: () => structuredClone(ws.unfurls),
    entityDetails: () => structuredClone(ws.entityDetails),
    startExecution: () => ws.startExecution(),
    expireWorkflowToken: (executionId) => {
      const e = ws.executions.get(executionId);
      if (e) e.tokenValid = false;
    },
    completions: () => structuredClone(ws.completions),
    setTokenRotation: (rotation) => {
      ws.rotation = rotation === undefined ? undefined : { ...rotation };
    },
    socket: socketModeFacade(socket, appToken),
    reset: () => {
      calls.length = 0;
      faults.clear();
      ws.reset();
      socket.reset();
    },
    close: async () => {
      for (const [timer, resolve] of sleepers) {
        clearTimeout(timer);
        resolve();
      }
      sleepers.clear();
      socket.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
  return standin;
}
