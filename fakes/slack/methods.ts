/**
 * The Web API methods the stand-in implements, answering like Slack: {ok:true, ...} or a
 * SlackFailure ({ok:false, error}). Arguments arrive decoded (blocks, view... as JSON values).
 */
import { blockErrors, MAX_MESSAGE_BLOCKS, viewErrors } from "./blocks.js";
import { channelName, SEED_CHANNELS, STANDIN } from "./seed.js";
import type { RecordedCompletion, RecordedEntityDetails, SlackUser } from "./types.js";
import {
  flag,
  isObj,
  type Obj,
  readContent,
  SlackFailure,
  type StoredMessage,
  str,
  type Workspace,
} from "./workspace.js";

export interface CallContext {
  ws: Workspace;
  args: Obj;
  /** the Authorization header, for oauth.v2.access client credentials */
  authorization?: string;
  /** the token the call carried (checked already when the method needs one) */
  token?: string;
}

interface Method {
  /** needs a valid token (not_authed / invalid_auth otherwise) */
  auth: boolean;
  handle(ctx: CallContext): Obj;
}

const required = (v: unknown, error: string): string => {
  const s = str(v);
  if (s === undefined) throw new SlackFailure(error);
  return s;
};

function userJson(u: SlackUser): Obj {
  const realName = u.real_name ?? u.name;
  return {
    id: u.id,
    team_id: u.team_id,
    name: u.name,
    deleted: u.deleted ?? false,
    real_name: realName,
    tz: u.tz ?? "Europe/London",
    is_admin: u.is_admin ?? false,
    is_owner: u.is_owner ?? false,
    is_primary_owner: u.is_primary_owner ?? false,
    is_restricted: false,
    is_ultra_restricted: false,
    is_bot: u.is_bot ?? false,
    is_app_user: false,
    profile: { real_name: realName, display_name: u.name, team: u.team_id },
  };
}

/** A thread parent in the channel; a reply's ts threads to its parent, like Slack. */
function threadOf(ws: Workspace, channel: string, args: Obj): string | undefined {
  const ts = str(args.thread_ts);
  if (ts === undefined) return undefined;
  const parent = ws.find(channel, ts);
  if (parent === undefined || parent.ephemeralTo !== undefined) throw new SlackFailure("invalid_thread_ts");
  return parent.thread_ts ?? parent.ts;
}

/** A message the bot can edit or delete: shown, not ephemeral. */
function existingMessage(ws: Workspace, args: Obj) {
  const channel = ws.resolveChannel(required(args.channel, "channel_not_found"));
  if (!ws.exists(channel)) throw new SlackFailure("channel_not_found");
  const ts = required(args.ts, "message_not_found");
  const message = ws.find(channel, ts);
  if (message === undefined || message.ephemeralTo !== undefined) throw new SlackFailure("message_not_found");
  return { channel, message };
}

function storeView(ws: Workspace, view: Obj, existing?: Obj): Obj {
  const id = typeof existing?.id === "string" ? existing.id : `V${String(ws.nextSeq()).padStart(10, "0")}`;
  const stored: Obj = {
    type: "modal",
    blocks: [],
    private_metadata: "",
    callback_id: "",
    external_id: "",
    state: { values: {} },
    clear_on_close: false,
    notify_on_close: false,
    close: null,
    submit: null,
    previous_view_id: null,
    ...view,
    id,
    team_id: ws.teamId,
    hash: `${Math.floor(ws.now() / 1000)}.${ws.nextSeq().toString(36).padStart(8, "0")}`,
    root_view_id: id,
    app_id: STANDIN.appId,
    app_installed_team_id: ws.teamId,
    bot_id: STANDIN.botId,
  };
  ws.views.set(id, stored);
  return structuredClone(stored);
}

function checkView(view: unknown, types: readonly string[]): Obj {
  if (view === undefined || view === "")
    throw new SlackFailure("invalid_arguments", { errors: ["view is required"] });
  const errors = viewErrors(view, types);
  if (errors.length > 0 || !isObj(view)) throw new SlackFailure("invalid_arguments", { errors });
  return view;
}

function checkHash(args: Obj, existing: Obj): void {
  const hash = str(args.hash);
  if (hash !== undefined && hash !== existing.hash) throw new SlackFailure("hash_conflict");
}

/** oauth.v2.access's answer for `teamId`: a new bot token (and refresh token when rotating). */
function botGrant(ws: Workspace, teamId: string): Obj {
  return {
    ok: true,
    ...ws.issueToken(teamId),
    token_type: "bot",
    scope: STANDIN.scope,
    bot_user_id: STANDIN.botUserId,
    app_id: STANDIN.appId,
    team: { id: teamId, name: teamId === ws.teamId ? STANDIN.teamName : `Workspace ${teamId}` },
    enterprise: null,
    is_enterprise_install: false,
  };
}

function teamJson(ws: Workspace): Obj {
  return {
    id: ws.teamId,
    name: STANDIN.teamName,
    domain: STANDIN.teamDomain,
    email_domain: "",
    icon: { image_default: true },
  };
}

/** Slack's `oldest`/`latest` window (exclusive unless `inclusive`): ts strings compared as numbers. */
function within(messages: StoredMessage[], args: Obj): StoredMessage[] {
  const oldest = Number(str(args.oldest) ?? "0");
  const latest = str(args.latest) === undefined ? Number.POSITIVE_INFINITY : Number(args.latest);
  const inclusive = flag(args.inclusive);
  return messages.filter((m) => {
    const ts = Number(m.ts);
    return inclusive ? ts >= oldest && ts <= latest : ts > oldest && ts < latest;
  });
}

/**
 * One page of `messages` (already in answer order): `limit` (default 100, at most 999) from the
 * opaque `cursor`; `has_more` and `response_metadata.next_cursor` as Slack gives them. Metadata
 * only with `include_all_metadata`.
 */
function page(ws: Workspace, messages: StoredMessage[], args: Obj): Obj {
  const limit = Math.min(999, Math.max(1, Math.floor(Number(str(args.limit) ?? "100")) || 100));
  const cursor = str(args.cursor);
  const from = cursor === undefined ? 0 : Number(Buffer.from(cursor, "base64url").toString("utf8").slice(5));
  if (!Number.isInteger(from) || from < 0) throw new SlackFailure("invalid_cursor");
  const withMetadata = flag(args.include_all_metadata);
  const shown = messages.slice(from, from + limit).map((m) => {
    const wire = ws.wire(m);
    if (!withMetadata) delete wire.metadata;
    return wire;
  });
  const more = from + limit < messages.length;
  return {
    ok: true,
    messages: shown,
    has_more: more,
    ...(more
      ? { response_metadata: { next_cursor: Buffer.from(`next:${from + limit}`).toString("base64url") } }
      : {}),
  };
}

/**
 * A step's execution completed, once: an unknown one is `function_execution_not_found`, one that
 * completed already `execution_not_in_running_state` (Slack's answers); its workflow token stops
 * working. A workflow token completes only its own execution; a bot token any of its workspace's.
 */
function complete(
  { ws, args, token }: CallContext,
  how: Pick<RecordedCompletion, "outcome" | "outputs" | "error">,
): void {
  const executionId = required(args.function_execution_id, "invalid_arguments");
  const execution = ws.executions.get(executionId);
  if (execution === undefined) throw new SlackFailure("function_execution_not_found");
  const own = ws.workflowTokens.get(token ?? "");
  if (own !== undefined && own !== executionId) throw new SlackFailure("access_denied");
  if (!execution.running) throw new SlackFailure("execution_not_in_running_state");
  execution.running = false;
  const by = own !== undefined ? "workflow" : "bot";
  ws.completions.push({ executionId, ...how, by, at: ws.now() });
}

/** An argument that was given (form fields arrive as strings: "" is not given). */
const given = (v: unknown): boolean => v !== undefined && v !== null && v !== "";

/** An object argument: as sent in a JSON body, or JSON-encoded in a form field (what @slack/web-api does). */
function decoded(v: unknown): unknown {
  if (typeof v !== "string") return v;
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return v;
  }
}

const filled = (v: unknown): v is string => typeof v === "string" && v !== "";
const problem = (pointer: string, reason: string) => `${reason} [json-pointer:${pointer}]`;

/**
 * What is wrong with one Work Object entity (EntityMetadata) at `pointer`: the strings Slack needs
 * (entity_type, url, external_ref.id, entity_payload.attributes.title.text) and custom fields'
 * key, label and type. With `unfurled` (chat.unfurl), app_unfurl_url is required and must be one
 * of the call's unfurled URLs.
 */
function entityErrors(entity: unknown, pointer: string, unfurled?: ReadonlySet<string>): string[] {
  if (!isObj(entity)) return [problem(pointer, "must be an object")];
  const errors: string[] = [];
  const need = (value: unknown, path: string) => {
    if (!filled(value)) errors.push(problem(`${pointer}/${path}`, "must be a non-empty string"));
  };
  need(entity.entity_type, "entity_type");
  need(entity.url, "url");
  if (unfurled !== undefined) {
    need(entity.app_unfurl_url, "app_unfurl_url");
    if (filled(entity.app_unfurl_url) && !unfurled.has(entity.app_unfurl_url))
      errors.push(problem(`${pointer}/app_unfurl_url`, "must be one of the URLs in unfurls"));
  }
  const ref = entity.external_ref;
  if (!isObj(ref)) errors.push(problem(`${pointer}/external_ref`, "must be an object"));
  else need(ref.id, "external_ref/id");
  const payload = entity.entity_payload;
  const attributes = isObj(payload) ? payload.attributes : undefined;
  const title = isObj(attributes) ? attributes.title : undefined;
  if (!isObj(payload)) errors.push(problem(`${pointer}/entity_payload`, "must be an object"));
  else if (!isObj(attributes))
    errors.push(problem(`${pointer}/entity_payload/attributes`, "must be an object"));
  else if (!isObj(title))
    errors.push(problem(`${pointer}/entity_payload/attributes/title`, "must be an object"));
  else need(title.text, "entity_payload/attributes/title/text");
  const custom = isObj(payload) ? payload.custom_fields : undefined;
  if (custom !== undefined) {
    if (!Array.isArray(custom))
      errors.push(problem(`${pointer}/entity_payload/custom_fields`, "must be an array"));
    else
      custom.forEach((field: unknown, i) => {
        const at = `entity_payload/custom_fields/${i}`;
        if (!isObj(field)) errors.push(problem(`${pointer}/${at}`, "must be an object"));
        else for (const key of ["key", "label", "type"]) need(field[key], `${at}/${key}`);
      });
  }
  return errors;
}

export const METHODS: Record<string, Method> = {
  "api.test": { auth: false, handle: ({ args }) => ({ ok: true, args }) },

  "auth.test": {
    auth: true,
    handle: ({ ws }) => ({
      ok: true,
      url: `https://${STANDIN.teamDomain}.slack.com/`,
      team: STANDIN.teamName,
      user: STANDIN.botName,
      team_id: ws.teamId,
      user_id: STANDIN.botUserId,
      bot_id: STANDIN.botId,
      ...(ws.orgWide !== undefined ? { enterprise_id: ws.orgWide } : {}),
      is_enterprise_install: ws.orgWide !== undefined,
    }),
  },

  "team.info": { auth: true, handle: ({ ws }) => ({ ok: true, team: teamJson(ws) }) },
  // The token of the call itself is revoked (an issued one; the seeded bot token stays).
  "auth.revoke": {
    auth: true,
    handle: ({ ws, token }) => {
      const revoked = token !== undefined && ws.issuedTokens.delete(token);
      return { ok: true, revoked };
    },
  },

  "users.info": {
    auth: true,
    handle: ({ ws, args }) => {
      const user = ws.users.get(required(args.user, "user_not_found"));
      if (user === undefined) throw new SlackFailure("user_not_found");
      return { ok: true, user: userJson(user) };
    },
  },

  "conversations.info": {
    auth: true,
    handle: ({ ws, args }) => {
      const id = ws.resolveChannel(required(args.channel, "channel_not_found"));
      if (!ws.exists(id)) throw new SlackFailure("channel_not_found");
      const dmUser = ws.dmUser(id);
      if (dmUser !== undefined) {
        return { ok: true, channel: { id, is_im: true, user: dmUser, is_archived: false, is_member: true } };
      }
      const isPublic = ws.channels.public.has(id);
      return {
        ok: true,
        channel: {
          id,
          name: channelName(id),
          name_normalized: channelName(id),
          is_channel: isPublic,
          is_group: !isPublic,
          is_im: false,
          is_private: !isPublic,
          is_archived: ws.channels.archived.has(id),
          is_general: id === SEED_CHANNELS.general,
          is_member: ws.isMember(id),
          created: 1_600_000_000,
          creator: "U0OWNER",
        },
      };
    },
  },

  "conversations.open": {
    auth: true,
    handle: ({ ws, args }) => {
      // Resuming a DM by its id, or opening the bot's DM with one user (D… per user: see dmUser).
      const channel = str(args.channel);
      if (channel !== undefined) {
        const user = ws.dmUser(channel);
        if (user === undefined) throw new SlackFailure("channel_not_found");
        return { ok: true, channel: { id: channel } };
      }
      const users = (str(args.users) ?? "")
        .split(",")
        .map((u) => u.trim())
        .filter((u) => u !== "");
      if (users.length === 0) throw new SlackFailure("users_list_not_supplied");
      if (users.length > 8) throw new SlackFailure("too_many_users");
      // Multi-person DMs (mpim) are not modelled: said plainly rather than half-done.
      if (users.length > 1) throw new SlackFailure("standin_mpim_not_modelled");
      const user = ws.users.get(users[0] as string);
      if (user === undefined) throw new SlackFailure("user_not_found");
      if (user.deleted) throw new SlackFailure("user_disabled");
      if (user.id === STANDIN.botUserId) throw new SlackFailure("cannot_dm_bot");
      const id = ws.resolveChannel(user.id);
      return flag(args.return_im)
        ? {
            ok: true,
            channel: { id, is_im: true, user: user.id, created: 1_600_000_000, is_user_deleted: false },
          }
        : { ok: true, channel: { id } };
    },
  },

  "chat.postMessage": {
    auth: true,
    handle: ({ ws, args }) => {
      const channel = ws.resolveChannel(required(args.channel, "channel_not_found"));
      ws.checkPostable(channel);
      const content = readContent(args);
      const thread_ts = threadOf(ws, channel, args);
      const message = ws.post(channel, content, thread_ts === undefined ? {} : { thread_ts });
      return { ok: true, channel, ts: message.ts, message: ws.wire(message) };
    },
  },

  "chat.postEphemeral": {
    auth: true,
    handle: ({ ws, args }) => {
      const channel = ws.resolveChannel(required(args.channel, "channel_not_found"));
      const user = required(args.user, "user_not_found");
      if (!ws.users.has(user)) throw new SlackFailure("user_not_found");
      ws.checkPostable(channel);
      const content = readContent(args);
      const thread_ts = threadOf(ws, channel, args);
      const message = ws.post(channel, content, {
        ephemeralTo: user,
        ...(thread_ts === undefined ? {} : { thread_ts }),
      });
      return { ok: true, message_ts: message.ts };
    },
  },

  "chat.update": {
    auth: true,
    handle: ({ ws, args }) => {
      const { channel, message } = existingMessage(ws, args);
      if (ws.channels.archived.has(channel)) throw new SlackFailure("is_archived");
      ws.edit(message, readContent(args));
      return { ok: true, channel, ts: message.ts, text: message.text, message: ws.wire(message) };
    },
  },

  "chat.unfurl": {
    auth: true,
    handle: ({ ws, args }) => {
      const unfurlId = str(args.unfurl_id);
      const source = str(args.source);
      const channel = str(args.channel);
      const ts = str(args.ts);
      if ((unfurlId === undefined || source === undefined) && (channel === undefined || ts === undefined))
        throw new SlackFailure("invalid_arguments", {
          errors: ["give channel and ts, or unfurl_id and source"],
        });
      const unfurls = args.unfurls;
      if (!isObj(unfurls) || Object.keys(unfurls).length === 0)
        throw new SlackFailure("invalid_unfurls_format");
      for (const [url, preview] of Object.entries(unfurls)) {
        if (!isObj(preview)) throw new SlackFailure("invalid_unfurls_format");
        if (preview.blocks !== undefined) {
          const errors = blockErrors(preview.blocks, MAX_MESSAGE_BLOCKS, `/unfurls/${url}/blocks`);
          if (errors.length > 0) throw new SlackFailure("invalid_blocks", { errors });
        }
      }
      // Work Objects: one entity per unfurled URL it describes (app_unfurl_url, the URL as pasted).
      let metadata: Obj | undefined;
      if (given(args.metadata)) {
        const m = decoded(args.metadata);
        const entities = isObj(m) ? m.entities : undefined;
        const unfurled = new Set(Object.keys(unfurls));
        const errors = !isObj(m)
          ? [problem("/metadata", "must be an object")]
          : !Array.isArray(entities) || entities.length === 0
            ? [problem("/metadata/entities", "must be a non-empty array")]
            : entities.flatMap((e: unknown, i) => entityErrors(e, `/metadata/entities/${i}`, unfurled));
        if (errors.length > 0 || !isObj(m)) throw new SlackFailure("invalid_metadata", { errors });
        metadata = m;
      }
      if (channel !== undefined && !ws.exists(ws.resolveChannel(channel)))
        throw new SlackFailure("channel_not_found");
      ws.unfurls.push({
        ...(channel !== undefined ? { channel, ts } : {}),
        ...(unfurlId !== undefined ? { unfurl_id: unfurlId, source } : {}),
        unfurls: structuredClone(unfurls),
        ...(metadata !== undefined ? { metadata: structuredClone(metadata) } : {}),
      });
      return { ok: true };
    },
  },

  "entity.presentDetails": {
    auth: true,
    handle: ({ ws, args }) => {
      // Any non-empty trigger id: the stand-in does not track which ones it handed out.
      const triggerId = str(args.trigger_id);
      if (triggerId === undefined)
        throw new SlackFailure("invalid_arguments", { errors: ["trigger_id is required"] });
      const metadata = given(args.metadata) ? decoded(args.metadata) : undefined;
      const error = given(args.error) ? decoded(args.error) : undefined;
      if ((metadata === undefined) === (error === undefined))
        throw new SlackFailure("invalid_arguments", { errors: ["give exactly one of metadata and error"] });
      const record: RecordedEntityDetails = { trigger_id: triggerId, at: ws.now() };
      if (metadata !== undefined) {
        const errors = entityErrors(metadata, "/metadata");
        if (errors.length > 0 || !isObj(metadata)) throw new SlackFailure("invalid_metadata", { errors });
        record.metadata = structuredClone(metadata);
      } else {
        if (!isObj(error))
          throw new SlackFailure("invalid_arguments", { errors: ["error must be an object"] });
        if (!filled(error.status))
          throw new SlackFailure("invalid_arguments", { errors: ["error.status is required"] });
        if (error.status === "custom" && !filled(error.custom_message))
          throw new SlackFailure("invalid_arguments", {
            errors: ["error.custom_message is required when error.status is custom"],
          });
        record.error = structuredClone(error);
      }
      if (given(args.user_auth_required)) record.user_auth_required = flag(args.user_auth_required);
      ws.entityDetails.push(record);
      return { ok: true };
    },
  },

  "conversations.history": {
    auth: true,
    handle: ({ ws, args }) => {
      const channel = ws.resolveChannel(required(args.channel, "channel_not_found"));
      if (!ws.exists(channel)) throw new SlackFailure("channel_not_found");
      // Top-level messages (and thread parents), newest first, like Slack.
      const top = ws.list(channel).filter((m) => m.ephemeralTo === undefined && m.thread_ts === undefined);
      return page(ws, within(top, args).reverse(), args);
    },
  },

  "conversations.replies": {
    auth: true,
    handle: ({ ws, args }) => {
      const channel = ws.resolveChannel(required(args.channel, "channel_not_found"));
      if (!ws.exists(channel)) throw new SlackFailure("channel_not_found");
      const ts = required(args.ts, "thread_not_found");
      const parent = ws.find(channel, ts);
      if (parent === undefined || parent.ephemeralTo !== undefined)
        throw new SlackFailure("thread_not_found");
      const root = parent.thread_ts ?? parent.ts;
      // The parent first, then its replies oldest first, like Slack.
      const thread = ws
        .list(channel)
        .filter((m) => m.ephemeralTo === undefined && (m.ts === root || m.thread_ts === root));
      return page(ws, within(thread, args), args);
    },
  },

  "chat.delete": {
    auth: true,
    handle: ({ ws, args }) => {
      const { channel, message } = existingMessage(ws, args);
      if (message.user !== STANDIN.botUserId) throw new SlackFailure("cant_delete_message");
      message.deleted = true;
      return { ok: true, channel, ts: message.ts };
    },
  },

  "views.open": {
    auth: true,
    handle: ({ ws, args }) => {
      if (str(args.trigger_id) === undefined && str(args.interactivity_pointer) === undefined) {
        throw new SlackFailure("invalid_arguments", { errors: ["trigger_id is required"] });
      }
      const view = checkView(args.view, ["modal"]);
      return { ok: true, view: storeView(ws, view) };
    },
  },

  "views.update": {
    auth: true,
    handle: ({ ws, args }) => {
      const viewId = str(args.view_id);
      const externalId = str(args.external_id);
      if (viewId === undefined && externalId === undefined) {
        throw new SlackFailure("invalid_arguments", { errors: ["view_id or external_id is required"] });
      }
      const existing =
        viewId !== undefined
          ? ws.views.get(viewId)
          : [...ws.views.values()].find((v) => v.external_id === externalId);
      if (existing === undefined) throw new SlackFailure("not_found");
      checkHash(args, existing);
      const type = typeof existing.type === "string" ? existing.type : "modal";
      const view = checkView(args.view, [type]);
      return { ok: true, view: storeView(ws, view, existing) };
    },
  },

  "views.publish": {
    auth: true,
    handle: ({ ws, args }) => {
      const userId = required(args.user_id, "invalid_arguments");
      if (!ws.users.has(userId)) throw new SlackFailure("user_not_found");
      const view = checkView(args.view, ["home"]);
      const existingId = ws.homeViews.get(userId);
      const existing = existingId === undefined ? undefined : ws.views.get(existingId);
      if (existing !== undefined) checkHash(args, existing);
      const stored = storeView(ws, view, existing);
      ws.homeViews.set(userId, String(stored.id));
      return { ok: true, view: stored };
    },
  },

  "functions.completeSuccess": {
    auth: true,
    handle: (ctx) => {
      const outputs = ctx.args.outputs;
      if (!isObj(outputs)) throw new SlackFailure("invalid_arguments");
      complete(ctx, { outcome: "success", outputs: structuredClone(outputs) });
      return { ok: true };
    },
  },

  "functions.completeError": {
    auth: true,
    handle: (ctx) => {
      const error = required(ctx.args.error, "invalid_arguments");
      complete(ctx, { outcome: "error", error });
      return { ok: true };
    },
  },

  "oauth.v2.access": {
    auth: false,
    handle: ({ ws, args, authorization }) => {
      const basic = authorization?.toLowerCase().startsWith("basic ") ?? false;
      if (str(args.client_id) === undefined && !basic) throw new SlackFailure("invalid_client_id");
      if (str(args.grant_type) === "refresh_token") {
        // Token rotation: a refresh token works once and gives a new pair.
        const refresh = str(args.refresh_token);
        const teamId = refresh === undefined ? undefined : ws.refreshTokens.get(refresh);
        if (refresh === undefined || teamId === undefined || ws.rotation === undefined)
          throw new SlackFailure("invalid_refresh_token");
        ws.refreshTokens.delete(refresh);
        return botGrant(ws, teamId);
      }
      // `good-code` installs the stand-in's own team; `good-code:T0OTHER` another workspace (its
      // token is accepted like the others), so tests can install several through the real flow.
      const m = /^([^:]+)(?::([TE][A-Z0-9]{2,40}))?$/.exec(str(args.code) ?? "");
      if (m?.[1] !== STANDIN.goodCode) throw new SlackFailure("invalid_code");
      const teamId = m[2] ?? ws.teamId;
      return { ...botGrant(ws, teamId), authed_user: { id: STANDIN.installingUser } };
    },
  },
};
