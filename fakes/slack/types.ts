/** Public types of the local Slack stand-in. */

export interface SlackUser {
  id: string;
  team_id: string;
  name: string;
  real_name?: string;
  is_admin?: boolean;
  is_owner?: boolean;
  is_primary_owner?: boolean;
  is_bot?: boolean;
  deleted?: boolean;
  tz?: string;
}

export interface RecordedCall {
  /** Web API method ("chat.postMessage") or "response_url" */
  method: string;
  /** the arguments as received, without `token`; blocks, attachments, view... JSON-decoded */
  args: Record<string, unknown>;
  token?: string;
  /** clock of the stand-in (`now()`) when the call arrived */
  at: number;
  /** HTTP status answered (0 until answered) */
  status: number;
  ok: boolean;
  error?: string;
  responseUrlId?: string;
}

/** One message as a channel shows it, after updates and deletes. */
export interface ChannelMessage {
  ts: string;
  thread_ts?: string;
  text: string;
  blocks?: unknown[];
  edits: number;
  user?: string;
  /** set on ephemeral messages: the only user who sees it */
  ephemeralTo?: string;
  /** Slack message metadata ({event_type, event_payload}) given with chat.postMessage / chat.update */
  metadata?: Record<string, unknown>;
}

/** A `chat.unfurl` the stand-in accepted. */
export interface RecordedUnfurl {
  channel?: string;
  ts?: string;
  unfurl_id?: string;
  source?: string;
  /** URL → attachment-like preview ({blocks} or {text}) */
  unfurls: Record<string, unknown>;
  /** Work Objects: `{entities: EntityMetadata[]}` given with the call (only when given) */
  metadata?: Record<string, unknown>;
}

/** An `entity.presentDetails` the stand-in accepted (a Work Object's flexpane, or why it cannot be shown). */
export interface RecordedEntityDetails {
  trigger_id: string;
  /** the entity shown (one EntityMetadata); exactly one of `metadata` and `error` is set */
  metadata?: Record<string, unknown>;
  /** why it is not shown ({status, custom_title?, custom_message?, ...}) */
  error?: Record<string, unknown>;
  /** only when given */
  user_auth_required?: boolean;
  /** clock of the stand-in when the call was accepted */
  at: number;
}

/** A workflow step's execution the stand-in started (`startExecution`) and how it ended. */
export interface RecordedCompletion {
  executionId: string;
  outcome: "success" | "error";
  /** completeSuccess's outputs */
  outputs?: Record<string, unknown>;
  /** completeError's error text */
  error?: string;
  /** which token completed it: the execution's workflow token, or a bot token */
  by: "workflow" | "bot";
  at: number;
}

/** Token rotation: installs and refreshes issue tokens that expire after `expiresInS` seconds. */
export interface TokenRotation {
  expiresInS: number;
}

export interface StandinFault {
  /** Web API method, "response_url", or "*" for every call */
  method: string;
  /** only calls whose `channel` argument is this one (default: any) */
  channel?: string;
  /** how many matching calls it applies to (default 1) */
  times?: number;
  status?: 429 | 500 | 502 | 503;
  /** seconds, for status 429 (default 1) */
  retryAfter?: number;
  /** answered as 200 {ok:false,error} on the Web API (4xx on a response_url) */
  error?: string;
  /** delay before answering (alone: the call is then handled normally) */
  latencyMs?: number;
  /**
   * The call is handled (a message is posted), then its answer is held this long before it is
   * sent: a caller that dies meanwhile never learns the outcome.
   */
  holdAnswerMs?: number;
  /**
   * The call is handled (a message is posted), then the connection is cut without an answer, as
   * when the answer is lost on the way back: the caller cannot tell whether it happened.
   */
  loseAnswer?: boolean;
}

export interface StandinChannels {
  /** channels the bot is a member of */
  member: Set<string>;
  /** public channels (the bot may post there without joining: chat:write.public) */
  public: Set<string>;
  archived: Set<string>;
  /** stand-in addition: other existing channels (the bot is not in them and they are not public) */
  known: Set<string>;
}

export type SocketEnvelopeType = "slash_commands" | "interactive" | "events_api";

/** An app's acknowledgement of a Socket Mode envelope. */
export interface SocketAck {
  envelope_id: string;
  /** what the app answered with ack(...) (a slash command's reply, a modal's response_action...) */
  payload?: Record<string, unknown>;
  /** clock of the stand-in when the ack arrived */
  at: number;
}

export interface SocketSendOptions {
  /** how long to wait for an open connection, then for the ack (default 5000 ms each) */
  timeoutMs?: number;
  envelopeId?: string;
  /** default true, false for events_api */
  acceptsResponsePayload?: boolean;
  /** events_api only (default 0 and "") */
  retryAttempt?: number;
  retryReason?: string;
}

/** Socket Mode: apps.connections.open and the WebSocket it points to. */
export interface SocketModeStandin {
  /** the app-level token apps.connections.open accepts (SLACK_APP_TOKEN) */
  appToken: string;
  /** every ack, in order of arrival */
  acks: SocketAck[];
  /** messages from the app that acknowledge no pending envelope */
  stray: unknown[];
  /** WebSocket connections open now */
  readonly connections: number;
  /** connections accepted since start (a reconnect makes it grow) */
  readonly connects: number;
  /** WebSocket pings received from the app */
  readonly pingsFromApp: number;
  /** Resolves once `n` connections were accepted since start and one is open. */
  waitForConnects(n: number, timeoutMs?: number): Promise<void>;
  /** Sends an envelope to the newest connection and resolves with its ack (rejects on timeout). */
  send(
    type: SocketEnvelopeType,
    payload: Record<string, unknown>,
    opts?: SocketSendOptions,
  ): Promise<SocketAck>;
  /** Sends {type:"disconnect", reason} (default "refresh_requested") to every open connection. */
  disconnect(reason?: string): void;
  /** Drops every connection without a close frame. */
  drop(): void;
}

export interface SlackStandin {
  /** http://127.0.0.1:PORT */
  url: string;
  /** url + "/api/" (SLACK_API_URL) */
  apiUrl: string;
  botToken: string;
  teamId: string;
  /** every Web API call and every response_url POST, in order of arrival */
  calls: RecordedCall[];
  callsTo(method: string): RecordedCall[];
  users: Map<string, SlackUser>;
  addUser(u: SlackUser): void;
  /**
   * Makes the bot token an organization-wide install of `enterpriseId` (auth.test says so), whose
   * requests may come from several workspaces; undefined: back to one workspace. Before the bot's
   * first request: it asks auth.test once.
   */
  installOrgWide(enterpriseId: string | undefined): void;
  channels: StandinChannels;
  /**
   * A unique response_url (url + "/response/<id>"). Bound to a channel, its in_channel and
   * ephemeral responses appear in messages(channel); `originalTs` names the message an interaction
   * came from (what replace_original / delete_original act on).
   */
  newResponseUrl(channel?: string, userId?: string, originalTs?: string): string;
  /** what was accepted on one response_url, in order */
  responses(responseUrl: string): Array<Record<string, unknown>>;
  /** Messages as a channel would show them, after updates and deletes (threads included, in ts order) */
  messages(channel: string): ChannelMessage[];
  /** stand-in addition: the view (modal or App Home) with this id */
  view(viewId: string): Record<string, unknown> | undefined;
  /** stand-in addition: the App Home view published for a user */
  homeView(userId: string): Record<string, unknown> | undefined;
  addFault(f: StandinFault): void;
  clearFaults(): void;
  /** stand-in addition: the tokens oauth.v2.access issued since the last reset (tests scan for leaks) */
  issuedTokens(): string[];
  /** the previews accepted by chat.unfurl, in order */
  unfurls(): RecordedUnfurl[];
  /** the Work Object details accepted by entity.presentDetails, in order */
  entityDetails(): RecordedEntityDetails[];
  /**
   * stand-in addition: a workflow step's execution, as Slack starts one before it sends
   * `function_executed`: its `function_execution_id` and its workflow token (`bot_access_token`,
   * accepted while the execution runs, `invalid_auth` once it completed or expired by `expireWorkflowToken`)
   */
  startExecution(): { executionId: string; token: string };
  /** stand-in addition: the execution's workflow token expires now (the wait outlived it) */
  expireWorkflowToken(executionId: string): void;
  /** the completions accepted by functions.completeSuccess / completeError, in order */
  completions(): RecordedCompletion[];
  /**
   * Token rotation on (installs answer refresh_token/expires_in, oauth.v2.access takes
   * grant_type=refresh_token, expired tokens get `token_expired`) or off (undefined).
   */
  setTokenRotation(rotation: TokenRotation | undefined): void;
  /** Socket Mode: apps.connections.open with the app token, envelopes over a WebSocket */
  socket: SocketModeStandin;
  /**
   * clears calls, messages, views, response urls, unfurls, entity details, faults, Socket Mode
   * acks; re-seeds users and channels
   */
  reset(): void;
  /** stops listening and destroys every connection, keep-alive or in flight */
  close(): Promise<void>;
}

export interface SlackStandinOptions {
  port?: number;
  host?: string;
  botToken?: string;
  /** app-level token for Socket Mode (default DEFAULT_APP_TOKEN) */
  appToken?: string;
  /** how often the Socket Mode server pings each connection (default 10000 ms) */
  socketPingIntervalMs?: number;
  teamId?: string;
  /** clock in ms (default Date.now): message ts, call times, response_url expiry */
  now?: () => number;
}
