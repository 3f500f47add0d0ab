/**
 * State of the stand-in's one workspace: users, channels, messages (with their edits), views,
 * response_urls, installed tokens, and the message clock. Web API methods and response_url posts
 * act on it; failures are thrown as SlackFailure and answered {ok:false, error}.
 */
import { blockErrors, MAX_TEXT_CHARS } from "./blocks.js";
import { STANDIN, seedChannels, seedUsers } from "./seed.js";
import type {
  ChannelMessage,
  RecordedCompletion,
  RecordedEntityDetails,
  RecordedUnfurl,
  SlackUser,
  StandinChannels,
  TokenRotation,
} from "./types.js";

export type Obj = Record<string, unknown>;

export const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** A Slack error answer: {ok:false, error, ...extra}. */
export class SlackFailure extends Error {
  constructor(
    readonly error: string,
    readonly extra: Obj = {},
  ) {
    super(error);
  }
}

export interface StoredMessage extends ChannelMessage {
  channel: string;
  attachments?: unknown[];
  deleted: boolean;
}

export interface ResponseUrlState {
  id: string;
  channel?: string;
  userId?: string;
  /** the message that replace_original / delete_original act on (the last one posted through it) */
  originalTs?: string;
  createdAt: number;
  uses: number;
  posts: Obj[];
}

/** The content of a message: what chat.postMessage, chat.update and response_url posts carry. */
export interface MessageContent {
  text?: string;
  blocks?: unknown[];
  attachments?: unknown[];
  metadata?: Obj;
}

/** Slack's reading of a boolean argument ("true"/"1" in forms, true in JSON). */
export function flag(v: unknown): boolean {
  return v === true || v === "true" || v === "1" || v === 1;
}

/** A non-empty string argument, or undefined. */
export function str(v: unknown): string | undefined {
  if (typeof v === "number") return String(v);
  return typeof v === "string" && v !== "" ? v : undefined;
}

/**
 * The text, blocks and attachments of a message, validated: blocks an array of at most 50 valid
 * blocks (invalid_blocks), attachments an array (invalid_attachments), text at most 40,000
 * characters (msg_too_long), and some content unless `optional` (no_text).
 */
export function readContent(args: Obj, optional = false): MessageContent {
  const out: MessageContent = {};
  if (args.blocks !== undefined && args.blocks !== "") {
    const errors = blockErrors(args.blocks);
    if (errors.length > 0) throw new SlackFailure("invalid_blocks", { errors });
    out.blocks = args.blocks as unknown[];
  }
  if (args.attachments !== undefined && args.attachments !== "") {
    if (!Array.isArray(args.attachments)) throw new SlackFailure("invalid_attachments");
    out.attachments = args.attachments;
  }
  if (args.text !== undefined && args.text !== null) {
    const text = typeof args.text === "string" ? args.text : String(args.text);
    if (text.length > MAX_TEXT_CHARS) throw new SlackFailure("msg_too_long");
    out.text = text;
  }
  const hasContent =
    (out.text !== undefined && out.text.trim() !== "") ||
    (out.blocks !== undefined && out.blocks.length > 0) ||
    (out.attachments !== undefined && out.attachments.length > 0);
  if (!hasContent && !optional) throw new SlackFailure("no_text");
  if (args.metadata !== undefined && args.metadata !== "") {
    const m = args.metadata;
    if (!isObj(m) || typeof m.event_type !== "string" || !isObj(m.event_payload))
      throw new SlackFailure("invalid_metadata_format");
    out.metadata = m;
  }
  return out;
}

export class Workspace {
  readonly users = new Map<string, SlackUser>();
  readonly channels: StandinChannels = {
    member: new Set(),
    public: new Set(),
    archived: new Set(),
    known: new Set(),
  };
  readonly views = new Map<string, Obj>();
  /** user id → id of their App Home view */
  readonly homeViews = new Map<string, string>();
  readonly responseUrls = new Map<string, ResponseUrlState>();
  readonly issuedTokens = new Set<string>();
  /** token → when it expires (ms on the clock), for rotated tokens */
  readonly tokenExpiry = new Map<string, number>();
  /** refresh token → team id; a refresh token works once */
  readonly refreshTokens = new Map<string, string>();
  readonly unfurls: RecordedUnfurl[] = [];
  readonly entityDetails: RecordedEntityDetails[] = [];
  /** function_execution_id → its workflow token and whether it still runs */
  readonly executions = new Map<string, { token: string; running: boolean; tokenValid: boolean }>();
  /** workflow token → function_execution_id */
  readonly workflowTokens = new Map<string, string>();
  readonly completions: RecordedCompletion[] = [];
  rotation: TokenRotation | undefined;
  /**
   * The organization of an organization-wide install (one bot token for every workspace of an
   * Enterprise Grid organization): auth.test then says so. Undefined: a one-workspace install.
   */
  orgWide: string | undefined;
  private readonly messagesByChannel = new Map<string, StoredMessage[]>();
  private lastMicros = 0;
  private seq = 0;

  constructor(
    readonly teamId: string,
    readonly now: () => number,
  ) {
    this.reset();
  }

  reset(): void {
    this.users.clear();
    for (const u of seedUsers(this.teamId)) this.users.set(u.id, u);
    seedChannels(this.channels);
    this.views.clear();
    this.homeViews.clear();
    this.responseUrls.clear();
    this.issuedTokens.clear();
    this.tokenExpiry.clear();
    this.refreshTokens.clear();
    this.unfurls.length = 0;
    this.entityDetails.length = 0;
    this.executions.clear();
    this.workflowTokens.clear();
    this.completions.length = 0;
    this.rotation = undefined;
    this.orgWide = undefined;
    this.messagesByChannel.clear();
    // The clock and the sequence keep going: a ts or an id is never handed out twice.
  }

  /** Message timestamps: "1700000000.000100", from the clock, strictly increasing. */
  nextTs(): string {
    const micros = Math.max(Math.floor(this.now()) * 1000, this.lastMicros + 100);
    this.lastMicros = micros;
    const seconds = Math.floor(micros / 1_000_000);
    return `${seconds}.${String(micros % 1_000_000).padStart(6, "0")}`;
  }

  /** A workflow step's execution: its id and its workflow token (valid while it runs). */
  startExecution(): { executionId: string; token: string } {
    const seq = this.nextSeq();
    const executionId = `Fx${seq.toString(36).toUpperCase().padStart(10, "0")}`;
    const token = `xwfp-standin-${this.teamId}-${seq}`;
    this.executions.set(executionId, { token, running: true, tokenValid: true });
    this.workflowTokens.set(token, executionId);
    return { executionId, token };
  }

  /** Whether `token` is a workflow token Slack still accepts. */
  workflowTokenValid(token: string): boolean {
    const id = this.workflowTokens.get(token);
    const e = id === undefined ? undefined : this.executions.get(id);
    return e?.running === true && e.tokenValid;
  }

  nextSeq(): number {
    this.seq += 1;
    return this.seq;
  }

  /**
   * A new bot token for `teamId`; with rotation on, it expires and comes with a refresh token
   * (the answer's refresh_token / expires_in).
   */
  issueToken(teamId: string): Obj {
    const seq = this.nextSeq();
    if (this.rotation === undefined) {
      const token = `xoxb-installed-${teamId}-${seq}`;
      this.issuedTokens.add(token);
      return { access_token: token };
    }
    const token = `xoxe.xoxb-rotated-${teamId}-${seq}`;
    const refresh = `xoxe-1-refresh-${teamId}-${seq}`;
    this.issuedTokens.add(token);
    this.tokenExpiry.set(token, this.now() + this.rotation.expiresInS * 1000);
    this.refreshTokens.set(refresh, teamId);
    return { access_token: token, refresh_token: refresh, expires_in: this.rotation.expiresInS };
  }

  /** A user id given as a channel means the bot's DM with that user ("U0ADMIN" → "D0ADMIN"). */
  resolveChannel(id: string): string {
    return /^[UW]/.test(id) && this.users.has(id) ? `D${id.slice(1)}` : id;
  }

  /** The user of a DM channel id, if it is one. */
  dmUser(id: string): string | undefined {
    if (!id.startsWith("D")) return undefined;
    const user = `U${id.slice(1)}`;
    return this.users.has(user) ? user : undefined;
  }

  exists(id: string): boolean {
    const c = this.channels;
    return (
      c.member.has(id) ||
      c.public.has(id) ||
      c.archived.has(id) ||
      c.known.has(id) ||
      this.dmUser(id) !== undefined
    );
  }

  isMember(id: string): boolean {
    return this.channels.member.has(id) || this.dmUser(id) !== undefined;
  }

  /** Throws what chat.postMessage answers for a channel the bot may not post to. */
  checkPostable(channel: string): void {
    if (!this.exists(channel)) throw new SlackFailure("channel_not_found");
    if (this.channels.archived.has(channel)) throw new SlackFailure("is_archived");
    if (this.isMember(channel) || this.channels.public.has(channel)) return;
    throw new SlackFailure("not_in_channel");
  }

  post(
    channel: string,
    content: MessageContent,
    extra: { thread_ts?: string; ephemeralTo?: string } = {},
  ): StoredMessage {
    const message: StoredMessage = {
      channel,
      ts: this.nextTs(),
      text: content.text ?? "",
      edits: 0,
      user: STANDIN.botUserId,
      deleted: false,
    };
    if (extra.thread_ts !== undefined) message.thread_ts = extra.thread_ts;
    if (content.blocks !== undefined) message.blocks = content.blocks;
    if (content.attachments !== undefined) message.attachments = content.attachments;
    if (content.metadata !== undefined) message.metadata = content.metadata;
    if (extra.ephemeralTo !== undefined) message.ephemeralTo = extra.ephemeralTo;
    const list = this.messagesByChannel.get(channel) ?? [];
    list.push(message);
    this.messagesByChannel.set(channel, list);
    return message;
  }

  /** Replaces what `content` carries; keeps the rest. */
  edit(message: StoredMessage, content: MessageContent): void {
    if (content.text !== undefined) message.text = content.text;
    if (content.blocks !== undefined) message.blocks = content.blocks;
    if (content.attachments !== undefined) message.attachments = content.attachments;
    if (content.metadata !== undefined) message.metadata = content.metadata;
    message.edits += 1;
  }

  /** A message still shown in the channel (ephemeral ones included). */
  find(channel: string, ts: string): StoredMessage | undefined {
    return this.messagesByChannel.get(channel)?.find((m) => m.ts === ts && !m.deleted);
  }

  list(channel: string): StoredMessage[] {
    return (this.messagesByChannel.get(channel) ?? []).filter((m) => !m.deleted);
  }

  /** A message as the Web API returns it. */
  wire(m: StoredMessage): Obj {
    const out: Obj = {
      type: "message",
      text: m.text,
      user: m.user,
      bot_id: STANDIN.botId,
      app_id: STANDIN.appId,
      team: this.teamId,
      ts: m.ts,
    };
    if (m.thread_ts !== undefined) out.thread_ts = m.thread_ts;
    if (m.blocks !== undefined) out.blocks = m.blocks;
    if (m.attachments !== undefined) out.attachments = m.attachments;
    if (m.edits > 0) out.edited = { user: m.user, ts: m.ts };
    if (m.metadata !== undefined) out.metadata = m.metadata;
    return out;
  }

  /** A message as messages(channel) shows it (a copy). */
  shown(m: StoredMessage): ChannelMessage {
    const out: ChannelMessage = { ts: m.ts, text: m.text, edits: m.edits };
    if (m.thread_ts !== undefined) out.thread_ts = m.thread_ts;
    if (m.blocks !== undefined) out.blocks = structuredClone(m.blocks);
    if (m.user !== undefined) out.user = m.user;
    if (m.ephemeralTo !== undefined) out.ephemeralTo = m.ephemeralTo;
    if (m.metadata !== undefined) out.metadata = structuredClone(m.metadata);
    return out;
  }
}
