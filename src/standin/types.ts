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
}

export interface StandinFault {
  /** Web API method, "response_url", or "*" for any call */
  method: string;
  /** how many matching calls it applies to (default 1) */
  times?: number;
  status?: 429 | 500 | 502 | 503;
  /** seconds, for status 429 (default 1) */
  retryAfter?: number;
  /** answered as 200 {ok:false,error} on the Web API (4xx on a response_url) */
  error?: string;
  /** delay before answering (alone: the call is then handled normally) */
  latencyMs?: number;
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
  /** clears calls, messages, views, response urls, faults; re-seeds users and channels */
  reset(): void;
  /** stops listening and destroys every connection, keep-alive or in flight */
  close(): Promise<void>;
}

export interface SlackStandinOptions {
  port?: number;
  host?: string;
  botToken?: string;
  teamId?: string;
  /** clock in ms (default Date.now): message ts, call times, response_url expiry */
  now?: () => number;
}
