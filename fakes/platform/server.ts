/**
 * The platform sandbox: token service (`/v2/token`) and API v2 (`/v2/...`) of
 * /work/shared/spec/platform-api-v2.md on plain node:http, with fault injection, request log,
 * webhook deliveries and control endpoints (`/_sandbox/...`).
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { authenticate, type ClientRecord, issueToken, type TokenContext } from "./auth.js";
import { handleControl } from "./control.js";
import { Deliverer } from "./deliver.js";
import { ApiError, methodNotAllowed, notFound, OAuthError, routeNotFound, unprocessable } from "./errors.js";
import { applyFault, FaultList } from "./faults.js";
import { onStatus, PendingTimers, readBody, send, sendEnvelope, sendError, sendJson } from "./http.js";
import { applyLiveAction, LiveScripts, settleLivestream } from "./live-show.js";
import { readLivestream } from "./livestreams.js";
import { readMe } from "./me.js";
import { patchProfile, readProfile, StaleReads } from "./profiles.js";
import { SEED, seedState } from "./seed.js";
import { TokenIssuer } from "./tokens.js";
import type { KeyScopes, RequestLogEntry, Sandbox, SandboxOptions, SandboxStats } from "./types.js";
import { makeVideo, noteVideoEvent, readVideo } from "./videos.js";

export { SANDBOX_WEBHOOK_SOURCE_IPS } from "./deliver.js";
export { SEED } from "./seed.js";
export type * from "./types.js";

type Route = (req: IncomingMessage, res: ServerResponse, id: string, url: URL) => Promise<void>;

const NO_STORE = { "Cache-Control": "no-store", Pragma: "no-cache" };

export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const now = options.now ?? Date.now;
  const clientId = options.clientId ?? "sandbox-client";
  const clientSecret = options.clientSecret ?? "sandbox-secret";
  const issuer = new TokenIssuer(now, options.tokenLifetimeSeconds ?? 1800);
  const initialKey: KeyScopes = options.keyScopes ?? { scopes: null, onMissing: "narrow" };
  const key: ClientRecord = { secret: clientSecret, key: initialKey };
  const clients = new Map<string, ClientRecord>([
    [SEED.clients.reader.clientId, { secret: SEED.clients.reader.clientSecret, fixedScope: "live.read" }],
    [clientId, key],
  ]);
  const tokenCtx: TokenContext = { clients, issuer, grantScope: options.grantScope };
  const seeded = seedState(clientId, now());
  const state = { profiles: seeded.profiles, livestreams: seeded.livestreams, videos: seeded.videos };
  const requests: RequestLogEntry[] = [];
  const counters: SandboxStats = { tokenRequests: 0, apiRequests: 0, deliveries: 0 };
  const faults = new FaultList();
  const timers = new PendingTimers();
  const stale = new StaleReads(options.staleReads ?? 0);
  const scripts = new LiveScripts((id) => state.livestreams.get(id), now);
  const deliverer = new Deliverer({
    profile: (id) => state.profiles.get(id),
    now,
    deliverTo: options.deliverTo,
    onSent: () => {
      counters.deliveries += 1;
    },
    onVideoEvent: (profileId, type, videoId) => {
      const profile = state.profiles.get(profileId);
      if (profile !== undefined) noteVideoEvent(state.videos, profile, type, videoId, now());
    },
  });

  // One `fields` parameter, comma-separated (spec 4.1); a repeated one is refused rather than
  // guessed at (joined? first? last?), as the client never sends it.
  const fieldsOf = (url: URL) => {
    const all = url.searchParams.getAll("fields");
    if (all.length > 1) {
      throw unprocessable("INVALID_FORMAT", "Give fields once, as a comma-separated list", {
        param: "fields",
        provided: all,
        requirement: "a single comma-separated fields parameter",
      });
    }
    return all[0];
  };

  const api: Array<{ pattern: RegExp; methods: Record<string, Route> }> = [
    {
      pattern: /^\/v2\/token$/,
      methods: {
        POST: async (req, res) => {
          const body = await readBody(req);
          try {
            sendJson(res, 200, issueToken(req, body, tokenCtx), NO_STORE);
          } catch (err) {
            if (!(err instanceof OAuthError)) throw err;
            sendJson(res, err.status, { error: err.error, error_description: err.description }, NO_STORE);
          }
        },
      },
    },
    {
      pattern: /^\/v2\/livestreams\/([^/]+)$/,
      methods: {
        GET: async (req, res, id, url) => {
          const caller = authenticate(req, issuer);
          const live = state.livestreams.get(id);
          if (live !== undefined) settleLivestream(live, now());
          sendJson(res, 200, readLivestream(state.livestreams, state.profiles, caller, id, fieldsOf(url)));
        },
      },
    },
    {
      pattern: /^\/v2\/profiles\/([^/]+)$/,
      methods: {
        GET: async (req, res, id, url) => {
          const caller = authenticate(req, issuer);
          sendJson(res, 200, readProfile(state.profiles, caller, id, fieldsOf(url), stale));
        },
        PATCH: async (req, res, id) => {
          const body = await readBody(req);
          const caller = authenticate(req, issuer);
          const out = patchProfile(state.profiles, caller, id, req, body, {
            mode: options.patchResponse ?? "profile",
            normalizeUrls: options.normalizeUrls,
            stale,
          });
          if (out.body === null) send(res, out.status, null);
          else sendJson(res, out.status, out.body);
        },
      },
    },
    {
      pattern: /^\/v2\/videos\/([^/]+)$/,
      methods: {
        GET: async (req, res, id, url) => {
          const caller = authenticate(req, issuer);
          sendJson(res, 200, readVideo(state.videos, state.profiles, caller, id, fieldsOf(url)));
        },
      },
    },
    {
      pattern: /^\/v2\/me$/,
      methods: {
        GET: async (req, res, _id, url) => {
          const caller = authenticate(req, issuer);
          sendJson(res, 200, readMe(state.profiles, caller, fieldsOf(url)));
        },
      },
    },
  ];

  async function route(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const method = req.method ?? "GET";
    const path = url.pathname;
    for (const { pattern, methods } of api) {
      const match = pattern.exec(path);
      if (match === null) continue;
      const handler = methods[method];
      if (handler === undefined) throw methodNotAllowed(method, Object.keys(methods));
      let id = match[1] ?? "";
      try {
        id = decodeURIComponent(id);
      } catch {
        // keep the raw segment; it will match no id
      }
      return handler(req, res, id, url);
    }
    // The spec's security scheme mentions a v1 token path, but tokens are served at /v2/token only.
    const hint = path === "/v1/token" ? "; the token endpoint is POST /v2/token" : "";
    throw routeNotFound(method, path, hint);
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://sandbox.invalid");
    const path = url.pathname;
    if (path === "/_sandbox" || path.startsWith("/_sandbox/")) {
      // Control requests drive the sandbox; they are not platform traffic: not logged, never faulted.
      await handleControl(sandbox, req, res, path).catch((err: unknown) => answerError(res, err));
      return;
    }
    const entry: RequestLogEntry = {
      method: req.method ?? "GET",
      path,
      query: Object.fromEntries(url.searchParams),
      authorization: req.headers.authorization === undefined ? "absent" : "present",
      status: 0,
      at: now(),
    };
    requests.push(entry);
    let reported = false;
    const report = () => {
      if (reported) return;
      reported = true;
      options.onRequest?.(entry);
    };
    onStatus(res, (status) => {
      entry.status = status;
      report();
    });
    res.on("close", report);
    if (path === "/v2/token") counters.tokenRequests += 1;
    else if (path.startsWith("/v2/")) counters.apiRequests += 1;
    try {
      const fault = faults.take(entry.method, path);
      if (fault !== undefined && (await applyFault(fault, res, path, timers))) return;
      await route(req, res, url);
    } catch (err) {
      answerError(res, err);
    }
  }

  function answerError(res: ServerResponse, err: unknown): void {
    if (err instanceof ApiError) sendError(res, err);
    else {
      const message = err instanceof Error ? err.message : String(err);
      sendEnvelope(res, 500, "INTERNAL_SERVER_ERROR", `Sandbox error: ${message}`, null);
    }
  }

  const server = createServer((req, res) => {
    // Tracked so close() can wait for it; handle() answers its own errors.
    timers.track(handle(req, res).catch(() => undefined));
  });
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const shownHost =
    host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "[::1]" : host.includes(":") ? `[${host}]` : host;
  const base = `http://${shownHost}:${port}`;

  const sandbox: Sandbox = {
    url: base,
    apiUrl: `${base}/v2`,
    clientId,
    clientSecret,
    requests,
    state,
    async close() {
      // Sockets first, so handlers woken below find their responses destroyed and answer nothing;
      // then every pending latency or slow-body sleep is rejected, and the handlers are awaited.
      const closed = new Promise<void>((resolve) => {
        server.close(() => resolve());
      });
      server.closeAllConnections();
      scripts.cancelAll();
      timers.cancelAll();
      await timers.drain();
      await closed;
      await deliverer.close();
    },
    reset() {
      const fresh = seedState(clientId, now());
      state.profiles.clear();
      state.livestreams.clear();
      state.videos.clear();
      for (const [k, v] of fresh.profiles) state.profiles.set(k, v);
      for (const [k, v] of fresh.livestreams) state.livestreams.set(k, v);
      for (const [k, v] of fresh.videos) state.videos.set(k, v);
      key.key = initialKey;
      scripts.cancelAll();
      faults.clear();
      stale.clear();
      requests.length = 0;
      counters.tokenRequests = 0;
      counters.apiRequests = 0;
      counters.deliveries = 0;
    },
    stats: () => ({ ...counters }),
    pendingRequests: () => timers.running,
    addFault: (f) => faults.add(f),
    clearFaults: () => faults.clear(),
    expireAllTokens: () => issuer.expireAll(),
    revokeAllTokens: () => issuer.revokeAll(),
    issuedTokens: () => [...issuer.tokens],
    setWebhook(profileId, webhook) {
      const profile = state.profiles.get(profileId);
      if (profile === undefined) throw new Error(`setWebhook: unknown profile ${profileId}`);
      profile.webhook = { callback_url: webhook.callback_url, events: webhook.events && [...webhook.events] };
    },
    deliver: (profileId, event, opts) => deliverer.deliver(profileId, event, opts),
    deliverLifecycle: (profileId, opts) => deliverer.lifecycle(profileId, opts),
    live(livestreamId, action) {
      const ls = state.livestreams.get(livestreamId);
      if (ls === undefined) throw notFound("livestream", livestreamId, "livestream_id");
      applyLiveAction(ls, action, now());
    },
    putVideo(video) {
      const profile = state.profiles.get(video.profile_id);
      if (profile === undefined) throw notFound("profile", video.profile_id, "profile_id");
      const current = state.videos.get(video.video_id);
      const stored =
        current === undefined
          ? makeVideo(video, profile, now())
          : { ...current, ...video, video_id: current.video_id, profile_id: current.profile_id };
      state.videos.set(stored.video_id, stored);
      return stored;
    },
    deleteVideo: (videoId) => state.videos.delete(videoId),
    setKeyScopes(next) {
      key.key = { scopes: next.scopes === null ? null : [...next.scopes], onMissing: next.onMissing };
    },
    playScript(livestreamId, steps) {
      if (!state.livestreams.has(livestreamId)) throw notFound("livestream", livestreamId, "livestream_id");
      scripts.play(livestreamId, steps);
    },
  };
  return sandbox;
}
