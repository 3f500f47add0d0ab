/**
 * response_url handling: unique URLs per slash command or interaction, usable 5 times within 30
 * minutes like Slack's. Bound to a channel, a response shows in that channel: in_channel as a
 * message, otherwise ephemerally to the user; replace_original / delete_original act on the
 * interaction's message or the last message posted through the same URL.
 */
import { randomBytes } from "node:crypto";
import { flag, isObj, type Obj, readContent, SlackFailure, str, type Workspace } from "./workspace.js";

export const RESPONSE_URL_MAX_USES = 5;
export const RESPONSE_URL_LIFETIME_MS = 30 * 60 * 1000;

export interface ResponseOutcome {
  status: number;
  body: Obj;
}

export function createResponseUrl(
  ws: Workspace,
  baseUrl: string,
  channel?: string,
  userId?: string,
  originalTs?: string,
): string {
  const id = `${String(ws.nextSeq()).padStart(6, "0")}${randomBytes(6).toString("hex")}`;
  ws.responseUrls.set(id, {
    id,
    ...(channel === undefined ? {} : { channel: ws.resolveChannel(channel) }),
    ...(userId === undefined ? {} : { userId }),
    ...(originalTs === undefined ? {} : { originalTs }),
    createdAt: ws.now(),
    uses: 0,
    posts: [],
  });
  return `${baseUrl}/response/${id}`;
}

/** The id in a response URL made by createResponseUrl (undefined for anything else). */
export function responseUrlId(url: string): string | undefined {
  const match = /\/response\/([^/?#]+)$/.exec(url);
  return match?.[1];
}

/** Handles one POST to /response/<id>; `body` is the parsed JSON (undefined when it was not JSON). */
export function postToResponseUrl(ws: Workspace, id: string, body: unknown): ResponseOutcome {
  const state = ws.responseUrls.get(id);
  const failure = (status: number, error: string, extra: Obj = {}): ResponseOutcome => ({
    status,
    body: { ok: false, error, ...extra },
  });
  if (state === undefined || ws.now() - state.createdAt > RESPONSE_URL_LIFETIME_MS) {
    return failure(404, "expired_url");
  }
  if (state.uses >= RESPONSE_URL_MAX_USES) return failure(404, "used_url");
  if (!isObj(body)) return failure(400, "invalid_payload");
  const deleting = flag(body.delete_original);
  let content: ReturnType<typeof readContent>;
  try {
    content = readContent(body, deleting);
  } catch (err) {
    if (err instanceof SlackFailure) return failure(400, err.error, err.extra);
    throw err;
  }
  state.uses += 1;
  state.posts.push(structuredClone(body));
  const channel = state.channel;
  if (channel === undefined) return { status: 200, body: { ok: true } };

  const original = state.originalTs === undefined ? undefined : ws.find(channel, state.originalTs);
  if (deleting) {
    if (original !== undefined) original.deleted = true;
    delete state.originalTs;
  } else if (flag(body.replace_original) && original !== undefined) {
    ws.edit(original, content);
  } else {
    const thread_ts = str(body.thread_ts);
    const visible = body.response_type === "in_channel";
    const message = ws.post(channel, content, {
      ...(thread_ts === undefined ? {} : { thread_ts }),
      ...(visible ? {} : { ephemeralTo: state.userId ?? "unknown" }),
    });
    state.originalTs = message.ts;
  }
  return { status: 200, body: { ok: true } };
}
