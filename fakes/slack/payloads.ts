/**
 * Builders of the request bodies Slack sends to an app's request URL: slash commands (form
 * fields), interactions (form field `payload` holding JSON) and Events API callbacks (JSON).
 * Sign them with signSlackRequest and send them with sendSigned. The `...Payload`/`...Fields`
 * builders give the same content as objects: what a Socket Mode envelope carries.
 */
import { randomBytes } from "node:crypto";
import { channelName, DEFAULT_TEAM_ID, SEED_CHANNELS, SEED_USERS, STANDIN, userName } from "./seed.js";

type Obj = Record<string, unknown>;

const DEFAULT_USER = SEED_USERS.member;
const DEFAULT_CHANNEL = SEED_CHANNELS.general;

/** A trigger id shaped like Slack's: "<digits>.<digits>.<32 hex>". */
export function newTriggerId(): string {
  return `${Date.now()}.${Math.floor(Math.random() * 1e11)}.${randomBytes(16).toString("hex")}`;
}

/** A Slack timestamp ("1700000000.123456") for the current time. */
function slackTs(): string {
  const ms = Date.now();
  return `${Math.floor(ms / 1000)}.${String((ms % 1000) * 1000 + Math.floor(Math.random() * 1000)).padStart(6, "0")}`;
}

const userJson = (id: string, teamId: string) => ({
  id,
  username: userName(id),
  name: userName(id),
  team_id: teamId,
});
const teamJson = (teamId: string) => ({ id: teamId, domain: STANDIN.teamDomain });

export interface SlashCommandOptions {
  command: "/live" | "/webhook" | (string & {});
  text: string;
  userId?: string;
  teamId?: string;
  channelId?: string;
  responseUrl: string;
  triggerId?: string;
}

/** The fields of a slash command in Slack's order, as strings (the payload of a Socket Mode envelope). */
export function slashCommandFields(opts: SlashCommandOptions): Record<string, string> {
  return Object.fromEntries(slashCommandEntries(opts));
}

/** The form-encoded body of a slash command, fields in Slack's order. */
export function slashCommandBody(opts: SlashCommandOptions): string {
  return new URLSearchParams(slashCommandEntries(opts)).toString();
}

function slashCommandEntries(opts: SlashCommandOptions): Array<[string, string]> {
  const teamId = opts.teamId ?? DEFAULT_TEAM_ID;
  const userId = opts.userId ?? DEFAULT_USER;
  const channelId = opts.channelId ?? DEFAULT_CHANNEL;
  return [
    ["token", STANDIN.verificationToken],
    ["team_id", teamId],
    ["team_domain", STANDIN.teamDomain],
    ["channel_id", channelId],
    ["channel_name", channelName(channelId)],
    ["user_id", userId],
    ["user_name", userName(userId)],
    ["command", opts.command],
    ["text", opts.text],
    ["api_app_id", STANDIN.appId],
    ["is_enterprise_install", "false"],
    ["response_url", opts.responseUrl],
    ["trigger_id", opts.triggerId ?? newTriggerId()],
  ];
}

export interface BlockActionsOptions {
  actionId: string;
  value?: string;
  blockId?: string;
  userId?: string;
  teamId?: string;
  channelId?: string;
  responseUrl: string;
  triggerId?: string;
  /** ts of the message holding the button (default: an ephemeral message, which has no `message`) */
  messageTs?: string;
  container?: Record<string, unknown>;
  message?: Record<string, unknown>;
  /** for a checkboxes action: the options checked after the click */
  selectedOptions?: Array<{ value: string }>;
  /** for a static_select action: the option chosen (give the menu's blockId too) */
  selectedOption?: { value: string; text?: string };
  /** for an action inside a modal or App Home: the view (give a container of type "view" too) */
  view?: Record<string, unknown>;
}

/** The form-encoded body (`payload=<json>`) of a block_actions interaction. */
export function blockActionsBody(opts: BlockActionsOptions): string {
  return new URLSearchParams({ payload: JSON.stringify(blockActionsPayload(opts)) }).toString();
}

/** The block_actions interaction payload as an object (what `payload=` holds). */
export function blockActionsPayload(opts: BlockActionsOptions): Obj {
  const teamId = opts.teamId ?? DEFAULT_TEAM_ID;
  const userId = opts.userId ?? DEFAULT_USER;
  const channelId = opts.channelId ?? DEFAULT_CHANNEL;
  const messageTs = opts.messageTs ?? (typeof opts.message?.ts === "string" ? opts.message.ts : undefined);
  const container: Obj = opts.container ?? {
    type: "message",
    message_ts: messageTs ?? slackTs(),
    channel_id: channelId,
    is_ephemeral: messageTs === undefined,
  };
  const action: Obj = {
    action_id: opts.actionId,
    block_id: opts.blockId ?? "actions",
    type: "button",
    action_ts: slackTs(),
  };
  if (opts.selectedOption !== undefined) {
    action.type = "static_select";
    action.selected_option = {
      text: { type: "plain_text", text: opts.selectedOption.text ?? opts.selectedOption.value, emoji: true },
      value: opts.selectedOption.value,
    };
    action.placeholder = { type: "plain_text", text: "Choose", emoji: true };
  } else if (opts.selectedOptions !== undefined) {
    action.type = "checkboxes";
    action.selected_options = opts.selectedOptions.map((o) => ({
      text: { type: "plain_text", text: o.value },
      value: o.value,
    }));
  } else {
    action.text = { type: "plain_text", text: opts.actionId, emoji: true };
    if (opts.value !== undefined) action.value = opts.value;
  }
  const payload: Obj = {
    type: "block_actions",
    user: userJson(userId, teamId),
    api_app_id: STANDIN.appId,
    token: STANDIN.verificationToken,
    container,
    trigger_id: opts.triggerId ?? newTriggerId(),
    team: teamJson(teamId),
    enterprise: null,
    is_enterprise_install: false,
  };
  if (container.type !== "view") payload.channel = { id: channelId, name: channelName(channelId) };
  const message =
    opts.message ??
    (messageTs === undefined
      ? undefined
      : {
          type: "message",
          ts: messageTs,
          user: STANDIN.botUserId,
          bot_id: STANDIN.botId,
          text: "",
          blocks: [],
        });
  if (message !== undefined) payload.message = message;
  if (opts.view !== undefined) payload.view = opts.view;
  payload.state = { values: {} };
  payload.response_url = opts.responseUrl;
  payload.actions = [action];
  return payload;
}

export interface ViewSubmissionOptions {
  callbackId: string;
  privateMetadata?: string;
  /** state.values: block_id → action_id → element state */
  values: Record<string, Record<string, unknown>>;
  userId?: string;
  teamId?: string;
  viewId?: string;
  hash?: string;
  triggerId?: string;
}

/** The form-encoded body (`payload=<json>`) of a modal's view_submission. */
export function viewSubmissionBody(opts: ViewSubmissionOptions): string {
  return new URLSearchParams({ payload: JSON.stringify(viewSubmissionPayload(opts)) }).toString();
}

/** The view_submission payload as an object (what `payload=` holds). */
export function viewSubmissionPayload(opts: ViewSubmissionOptions): Obj {
  const teamId = opts.teamId ?? DEFAULT_TEAM_ID;
  const userId = opts.userId ?? DEFAULT_USER;
  const viewId = opts.viewId ?? "V0000000001";
  return {
    type: "view_submission",
    team: teamJson(teamId),
    user: userJson(userId, teamId),
    api_app_id: STANDIN.appId,
    token: STANDIN.verificationToken,
    trigger_id: opts.triggerId ?? newTriggerId(),
    view: {
      id: viewId,
      team_id: teamId,
      type: "modal",
      blocks: [],
      private_metadata: opts.privateMetadata ?? "",
      callback_id: opts.callbackId,
      state: { values: opts.values },
      hash: opts.hash ?? `${Math.floor(Date.now() / 1000)}.${randomBytes(4).toString("hex")}`,
      title: { type: "plain_text", text: "Stand-in", emoji: true },
      clear_on_close: false,
      notify_on_close: false,
      close: null,
      submit: { type: "plain_text", text: "Save", emoji: true },
      previous_view_id: null,
      root_view_id: viewId,
      app_id: STANDIN.appId,
      external_id: "",
      app_installed_team_id: teamId,
      bot_id: STANDIN.botId,
    },
    response_urls: [],
    is_enterprise_install: false,
    enterprise: null,
  };
}

/** The JSON body of an Events API callback carrying `event`. */
export function eventBody(opts: { event: Record<string, unknown>; teamId?: string }): string {
  return JSON.stringify(eventPayload(opts));
}

/** The Events API callback carrying `event`, as an object. */
export function eventPayload(opts: { event: Record<string, unknown>; teamId?: string }): Obj {
  const teamId = opts.teamId ?? DEFAULT_TEAM_ID;
  const eventTs = typeof opts.event.event_ts === "string" ? opts.event.event_ts : slackTs();
  return {
    token: STANDIN.verificationToken,
    team_id: teamId,
    api_app_id: STANDIN.appId,
    event: { ...opts.event, event_ts: eventTs },
    type: "event_callback",
    event_id: `Ev${randomBytes(5).toString("hex").toUpperCase()}`,
    event_time: Math.floor(Date.now() / 1000),
    authorizations: [
      {
        enterprise_id: null,
        team_id: teamId,
        user_id: STANDIN.botUserId,
        is_bot: true,
        is_enterprise_install: false,
      },
    ],
    is_ext_shared_channel: false,
  };
}

/** The JSON body of the Events API's URL verification handshake. */
export function urlVerificationBody(challenge: string): string {
  return JSON.stringify({ token: STANDIN.verificationToken, challenge, type: "url_verification" });
}

export interface LinkSharedOptions {
  urls: string[];
  userId?: string;
  teamId?: string;
  channelId?: string;
  /** ts of the message holding the links (default: a new one) */
  messageTs?: string;
  /** a link pasted in the message composer: Slack sends unfurl_id and source "composer" */
  composer?: boolean;
}

/** The `link_shared` event Slack sends for links on the app's unfurl domains (wrap with eventBody). */
export function linkSharedEvent(opts: LinkSharedOptions): Obj {
  const event: Obj = {
    type: "link_shared",
    channel: opts.composer ? "COMPOSER" : (opts.channelId ?? DEFAULT_CHANNEL),
    is_bot_user_member: true,
    user: opts.userId ?? DEFAULT_USER,
    message_ts: opts.messageTs ?? slackTs(),
    links: opts.urls.map((url) => ({ domain: new URL(url).hostname, url })),
    source: opts.composer ? "composer" : "conversations_history",
  };
  if (opts.composer) event.unfurl_id = `C${randomBytes(8).toString("hex").toUpperCase()}`;
  return event;
}

export interface EntityDetailsRequestedOptions {
  /** the Work Object's URL as pasted (link.url and app_unfurl_url) */
  url: string;
  /** the entity's external_ref, as the app gave it in chat.unfurl's metadata (absent unless given) */
  externalRef?: { id: string; type?: string };
  userId?: string;
  channelId?: string;
  /** ts of the message holding the unfurl (default: a new one) */
  messageTs?: string;
  /** default: a new one (newTriggerId), for entity.presentDetails */
  triggerId?: string;
  /** the entity's url (default: `url`) */
  entityUrl?: string;
}

/**
 * The `entity_details_requested` event Slack sends when a user opens a Work Object's flexpane
 * (wrap with eventBody); the app answers with entity.presentDetails and the event's trigger_id.
 */
export function entityDetailsRequestedEvent(opts: EntityDetailsRequestedOptions): Obj {
  const event: Obj = {
    type: "entity_details_requested",
    user: opts.userId ?? DEFAULT_USER,
    trigger_id: opts.triggerId ?? newTriggerId(),
    link: { url: opts.url, domain: new URL(opts.url).hostname },
    entity_url: opts.entityUrl ?? opts.url,
    app_unfurl_url: opts.url,
    user_locale: "en-US",
    event_ts: slackTs(),
    channel: opts.channelId ?? DEFAULT_CHANNEL,
    message_ts: opts.messageTs ?? slackTs(),
  };
  if (opts.externalRef !== undefined) event.external_ref = { ...opts.externalRef };
  return event;
}

export interface FunctionExecutedOptions {
  /** the step's callback_id in the manifest (`livestream_status`, `wait_until_live`, …) */
  callbackId: string;
  inputs: Record<string, unknown>;
  /** from the stand-in's `startExecution()` */
  executionId: string;
  /** the execution's workflow token (`bot_access_token`) */
  token: string;
}

/** The `function_executed` event Slack sends when a workflow reaches the app's step (wrap with eventBody). */
export function functionExecutedEvent(opts: FunctionExecutedOptions): Obj {
  return {
    type: "function_executed",
    function: {
      id: `Fn${randomBytes(5).toString("hex").toUpperCase()}`,
      callback_id: opts.callbackId,
      title: opts.callbackId,
      description: "",
      type: "app",
      input_parameters: [],
      output_parameters: [],
      app_id: STANDIN.appId,
      date_created: Math.floor(Date.now() / 1000),
      date_updated: Math.floor(Date.now() / 1000),
      date_deleted: 0,
    },
    inputs: opts.inputs,
    function_execution_id: opts.executionId,
    workflow_execution_id: `Wx${randomBytes(5).toString("hex").toUpperCase()}`,
    bot_access_token: opts.token,
  };
}
