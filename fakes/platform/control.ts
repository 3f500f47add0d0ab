/**
 * Control endpoints under `/_sandbox/` for other processes (demo, CLI users): no auth, JSON in
 * and out, never subject to faults.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { z } from "zod";
import { methodNotAllowed, notFound, routeNotFound, unprocessable } from "./errors.js";
import { readBody, sendJson } from "./http.js";
import type { Sandbox } from "./types.js";

const faultSchema = z.strictObject({
  method: z.string().min(1).optional(),
  path: z.string().min(1).optional(),
  latencyMs: z.number().int().min(0).max(600_000).optional(),
  status: z
    .union([
      z.literal(403),
      z.literal(422),
      z.literal(429),
      z.literal(500),
      z.literal(502),
      z.literal(503),
      z.literal(504),
    ])
    .optional(),
  retryAfterSeconds: z.number().int().min(0).optional(),
  retryAfterHeader: z.string().nullable().optional(),
  detailsRetryAfter: z.number().int().min(0).nullable().optional(),
  envelope: z.union([z.boolean(), z.literal("html")]).optional(),
  slowBody: z
    .strictObject({
      chunks: z.number().int().min(1).max(10_000),
      intervalMs: z.number().int().min(0).max(600_000),
    })
    .optional(),
  body: z.enum(["invalid-json", "schema-mismatch", "html"]).optional(),
  dropConnection: z.boolean().optional(),
  times: z.number().int().min(1).optional(),
});

const lifecycleSchema = z.strictObject({
  videoId: z.string().min(1).optional(),
  presets: z.array(z.string().min(1)).min(1).optional(),
  progressSteps: z.number().int().min(1).max(1000).optional(),
  formatError: z.string().optional(),
  deleteAtEnd: z.boolean().optional(),
  shuffle: z.boolean().optional(),
  concurrency: z.number().int().min(1).max(64).optional(),
  localAddress: z.string().optional(),
  deliverTo: z.url().optional(),
  force: z.boolean().optional(),
  unknownVideo: z.boolean().optional(),
});

const deliverSchema = z
  .strictObject({
    profile_id: z.string().min(1),
    event: z
      .strictObject({
        type: z.string().min(1),
        data: z.record(z.string(), z.unknown()).optional(),
        timestamp: z.number().int().optional(),
      })
      .optional(),
    lifecycle: z.union([z.literal(true), lifecycleSchema]).optional(),
    force: z.boolean().optional(),
    localAddress: z.string().optional(),
    deliverTo: z.url().optional(),
    headers: z.record(z.string(), z.string()).optional(),
    unknownVideo: z.boolean().optional(),
  })
  .refine((b) => (b.event === undefined) !== (b.lifecycle === undefined), {
    message: "give exactly one of event or lifecycle",
  });

async function json<T>(req: IncomingMessage, schema: z.ZodType<T>, emptyOk = false): Promise<T> {
  const raw = (await readBody(req)).toString("utf8");
  let value: unknown = {};
  if (raw.trim() !== "" || !emptyOk) {
    try {
      value = JSON.parse(raw);
    } catch {
      throw unprocessable("INVALID_FORMAT", "The request body is not valid JSON", { param: "body" });
    }
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    throw unprocessable("INVALID_FORMAT", "The request body does not match the expected shape", {
      param: "body",
      issues: parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })),
    });
  }
  return parsed.data;
}

const liveActionSchema = z.discriminatedUnion("action", [
  z.strictObject({ action: z.literal("on_air"), at: z.iso.datetime({ offset: true }).optional() }),
  z.strictObject({ action: z.literal("off_air") }),
  z.strictObject({
    action: z.literal("ad_break"),
    durationMs: z.number().int().min(0).max(3_600_000).optional(),
  }),
  z.strictObject({
    action: z.literal("recording"),
    status: z.enum(["starting", "started", "stopping", "stopped"]),
  }),
  z.strictObject({ action: z.literal("title"), title: z.string().min(1).max(255) }),
]);

const liveSchema = z.strictObject({ livestream_id: z.string().min(1), step: liveActionSchema });

const scriptSchema = z.strictObject({
  livestream_id: z.string().min(1),
  steps: z
    .array(z.strictObject({ afterMs: z.number().int().min(0).max(3_600_000), step: liveActionSchema }))
    .min(1)
    .max(1000),
});

const id = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/, "must be an id such as x8nw5fq");

const videoSchema = z.strictObject({
  video_id: id,
  profile_id: id,
  title: z.string().min(1).max(255).optional(),
  description: z.string().max(3000).nullable().optional(),
  visibility: z.enum(["public", "private", "password"]).optional(),
  status: z.enum(["processing", "ready", "published", "deleted"]).optional(),
});

const keySchema = z.strictObject({
  scopes: z.array(z.string().min(1)).nullable(),
  onMissing: z.enum(["narrow", "refuse"]).optional(),
});

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void> | void;

export const CONTROL_ENDPOINTS = [
  "POST /_sandbox/reset",
  "POST /_sandbox/faults",
  "DELETE /_sandbox/faults",
  "POST /_sandbox/expire-tokens",
  "POST /_sandbox/revoke-tokens",
  "GET /_sandbox/requests",
  "GET /_sandbox/stats",
  "POST /_sandbox/deliver",
  "POST /_sandbox/live",
  "POST /_sandbox/live/script",
  "POST /_sandbox/videos",
  "DELETE /_sandbox/videos/{video_id}",
  "POST /_sandbox/key",
];

function routes(sb: Sandbox): Record<string, Record<string, Handler>> {
  const ok = (res: ServerResponse) => sendJson(res, 200, { ok: true });
  return {
    "/_sandbox/reset": {
      POST: (_req, res) => {
        sb.reset();
        ok(res);
      },
    },
    "/_sandbox/faults": {
      POST: async (req, res) => {
        sb.addFault(await json(req, faultSchema));
        sendJson(res, 201, { ok: true });
      },
      DELETE: (_req, res) => {
        sb.clearFaults();
        ok(res);
      },
    },
    "/_sandbox/expire-tokens": {
      POST: (_req, res) => {
        sb.expireAllTokens();
        ok(res);
      },
    },
    "/_sandbox/revoke-tokens": {
      POST: (_req, res) => {
        sb.revokeAllTokens();
        ok(res);
      },
    },
    "/_sandbox/requests": { GET: (_req, res) => sendJson(res, 200, { requests: sb.requests }) },
    "/_sandbox/stats": { GET: (_req, res) => sendJson(res, 200, sb.stats()) },
    "/_sandbox/live": {
      POST: async (req, res) => {
        const body = await json(req, liveSchema);
        sb.live(body.livestream_id, body.step);
        const ls = sb.state.livestreams.get(body.livestream_id);
        sendJson(res, 200, {
          ok: true,
          status: ls?.status,
          advertising: ls?.advertising,
          recording: ls?.recording,
          start_at: ls?.start_at,
        });
      },
    },
    "/_sandbox/live/script": {
      POST: async (req, res) => {
        const body = await json(req, scriptSchema);
        sb.playScript(body.livestream_id, body.steps);
        sendJson(res, 202, { ok: true, steps: body.steps.length });
      },
    },
    "/_sandbox/videos": {
      POST: async (req, res) => {
        const body = await json(req, videoSchema);
        const existed = sb.state.videos.has(body.video_id);
        const video = sb.putVideo(body);
        sendJson(res, existed ? 200 : 201, { video });
      },
    },
    "/_sandbox/key": {
      POST: async (req, res) => {
        const body = await json(req, keySchema);
        sb.setKeyScopes({ scopes: body.scopes, onMissing: body.onMissing ?? "narrow" });
        ok(res);
      },
    },
    "/_sandbox/deliver": {
      POST: async (req, res) => {
        const body = await json(req, deliverSchema);
        if (!sb.state.profiles.has(body.profile_id)) throw notFound("profile", body.profile_id, "profile_id");
        const { profile_id, event, lifecycle, ...opts } = body;
        const results =
          event !== undefined
            ? [await sb.deliver(profile_id, event, opts)]
            : await sb.deliverLifecycle(profile_id, {
                ...(lifecycle === true || lifecycle === undefined ? {} : lifecycle),
                ...(opts.force === undefined ? {} : { force: opts.force }),
                ...(opts.localAddress === undefined ? {} : { localAddress: opts.localAddress }),
                ...(opts.deliverTo === undefined ? {} : { deliverTo: opts.deliverTo }),
                ...(opts.unknownVideo === undefined ? {} : { unknownVideo: opts.unknownVideo }),
              });
        sendJson(res, 200, { results });
      },
    },
  };
}

const VIDEO_PATH = /^\/_sandbox\/videos\/([^/]+)$/;

export async function handleControl(sb: Sandbox, req: IncomingMessage, res: ServerResponse, path: string) {
  const method = req.method ?? "GET";
  const video = VIDEO_PATH.exec(path);
  if (video !== null) {
    if (method !== "DELETE") throw methodNotAllowed(method, ["DELETE"]);
    let videoId = video[1] ?? "";
    try {
      videoId = decodeURIComponent(videoId);
    } catch {
      // keep the raw segment; it matches no video
    }
    if (!sb.deleteVideo(videoId)) throw notFound("video", videoId, "video_id");
    sendJson(res, 200, { ok: true });
    return;
  }
  const route = routes(sb)[path];
  if (route === undefined) throw routeNotFound(method, path);
  const handler = route[method];
  if (handler === undefined) throw methodNotAllowed(method, Object.keys(route));
  await handler(req, res);
}
