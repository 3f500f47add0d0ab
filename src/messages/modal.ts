/**
 * The events editor modal (issue 5): pure renderers, data in, Slack view JSON out. The listeners
 * open it with `eventsModalLoading` (a trigger_id lives 3 s), fill it with `eventsModal`, and show
 * the outcome with `eventsModalSaving` / `eventsModalSaved` / `eventsModalError`.
 *
 * What the modal carries between requests (team, profile, where the button was, the events it was
 * opened with) travels in `private_metadata`, written by `encodeMeta` and read by `decodeMeta`.
 *
 * The limits checker of views is test code: test/messages/view-limits.ts.
 */

import type { Checkboxes, InputBlock, ModalView, Option, PlainTextElement } from "@slack/types";
import { z } from "zod";
import {
  isWebhookEvent,
  WEBHOOK_EVENT_DESCRIPTIONS,
  WEBHOOK_EVENTS,
  type WebhookEvent,
} from "../domain/index.js";
import { escapeTruncate, truncate } from "./escape.js";
import { BLOCKS, VIEWS } from "./ids.js";
import { code, context, section } from "./kit.js";
import { profileRef } from "./profiles.js";
import type { KnownBlock } from "./types.js";

export type { HomeView, ModalView } from "@slack/types";

/** Under the events of a form saved with none. */
export const NO_EVENT_CHOSEN = "Choose at least one event: the platform needs one.";

/** Limits of views (Slack's view and input references, and the doc comments of `@slack/types`). */
export const VIEW_LIMITS = {
  /** Blocks in a modal or a Home tab. */
  blocksPerView: 100,
  /** Modal title, submit and close texts. */
  title: 24,
  submit: 24,
  close: 24,
  privateMetadata: 3000,
  callbackId: 255,
  inputLabel: 2000,
  inputHint: 2000,
  /** Checkboxes: at most 10 options. */
  checkboxOptions: 10,
  /** Static selects: at most 100 options. */
  selectOptions: 100,
  optionText: 75,
  optionValue: 75,
  optionDescription: 75,
  actionId: 255,
  blockId: 255,
  /** Placeholders of inputs and selects. */
  placeholder: 150,
  /** plain_text_input value. */
  plainTextInput: 3000,
} as const;

const TITLE = "Webhook events";
const MAX_UNKNOWN_SHOWN = 10;

export function plain(text: string, max: number): PlainTextElement {
  return { type: "plain_text", text: truncate(text, max), emoji: true };
}

/** The modal shell: title, callback id, metadata (dropped when over the limit), buttons. */
function modal(opts: { meta?: string; blocks: KnownBlock[]; close: string; submit?: string }): ModalView {
  const view: ModalView = {
    type: "modal",
    callback_id: VIEWS.eventsModal,
    title: plain(TITLE, VIEW_LIMITS.title),
    close: plain(opts.close, VIEW_LIMITS.close),
    blocks: opts.blocks.slice(0, VIEW_LIMITS.blocksPerView),
  };
  if (opts.submit) view.submit = plain(opts.submit, VIEW_LIMITS.submit);
  // A longer value would make Slack refuse the whole view: without it, a submission is answered
  // "open the editor again" instead (decodeMeta gives undefined).
  if (opts.meta !== undefined && opts.meta.length <= VIEW_LIMITS.privateMetadata)
    view.private_metadata = opts.meta;
  return view;
}

function profile(profileId: string, name?: string): string {
  return profileRef(profileId, name);
}

/** One checkbox of an event: its name as inline code, its one-line description of spec 6.1. */
export function eventOption(e: (typeof WEBHOOK_EVENTS)[number]): Option {
  return {
    text: { type: "mrkdwn", text: code(e, VIEW_LIMITS.optionText - 2) },
    value: e,
    description: {
      type: "plain_text",
      text: truncate(WEBHOOK_EVENT_DESCRIPTIONS[e], VIEW_LIMITS.optionDescription),
    },
  };
}

function unknownList(events: readonly string[]): string {
  const shown = events.slice(0, MAX_UNKNOWN_SHOWN).map((e) => code(e, 60));
  const more = events.length - shown.length;
  return `${shown.join(", ")}${more > 0 ? ` and ${more} more` : ""}`;
}

/** One checkbox per event of the enumeration, those of `checked` checked (unknown ones ignored). */
export function eventCheckboxes(actionId: string, checked: Iterable<string>): Checkboxes {
  const wanted = new Set(checked);
  const options = WEBHOOK_EVENTS.map(eventOption);
  const initial = options.filter((opt) => opt.value !== undefined && wanted.has(opt.value));
  const element: Checkboxes = { type: "checkboxes", action_id: actionId, options };
  if (initial.length > 0) element.initial_options = initial;
  return element;
}

/** The editor: intro, one input of checkboxes (current known events checked), notes. */
function editorBlocks(profileId: string, current: readonly string[], name?: string): KnownBlock[] {
  const element = eventCheckboxes(BLOCKS.eventsInput, current);
  const input: InputBlock = {
    type: "input",
    block_id: BLOCKS.events,
    label: plain("Events the platform sends", VIEW_LIMITS.inputLabel),
    hint: plain("Choose at least one event.", VIEW_LIMITS.inputHint),
    element,
  };
  const blocks: KnownBlock[] = [
    section(`Choose the events the platform sends for profile ${profile(profileId, name)}.`),
  ];
  blocks.push(input);
  const unknown = [...new Set(current)].filter((e) => !isWebhookEvent(e));
  if (unknown.length > 0) {
    blocks.push(context([`❔ Not known to this bot, dropped on save: ${unknownList(unknown)}`]));
  }
  blocks.push(context(["Saving changes only the events; the callback URL stays."]));
  return blocks;
}

/** Opened at once from a button or `/webhook events` (no submit: nothing to save yet). */
export function eventsModalLoading(meta: string, profileId: string): ModalView {
  return modal({
    meta,
    close: "Cancel",
    blocks: [section(`⏳ Loading the webhook of profile ${profile(profileId)}…`)],
  });
}

/**
 * The editor, with the events the platform has now checked. `notice` is mrkdwn (already escaped)
 * shown above it, for example a warning that the events changed elsewhere.
 */
export function eventsModal(opts: {
  meta: string;
  profileId: string;
  /** The profile's label (display name, else name). */
  profileName?: string | undefined;
  current: readonly string[];
  notice?: string | undefined;
}): ModalView {
  const blocks: KnownBlock[] = [];
  if (opts.notice?.trim()) blocks.push(section(opts.notice));
  blocks.push(...editorBlocks(opts.profileId, opts.current, opts.profileName));
  return modal({ meta: opts.meta, blocks, submit: "Save", close: "Cancel" });
}

/** Shown by the submission's ack while the platform is updated (no submit). */
export function eventsModalSaving(meta: string, profileId: string): ModalView {
  return modal({
    meta,
    close: "Close",
    blocks: [section(`⏳ Saving the events of profile ${profile(profileId)}…`)],
  });
}

function eventLine(e: string): string {
  const desc = isWebhookEvent(e) ? WEBHOOK_EVENT_DESCRIPTIONS[e] : "not an event this bot knows";
  return `• ${code(e, 60)} — ${escapeTruncate(desc, 200)}`;
}

/** After saving: the events as read back from the platform. */
export function eventsModalSaved(opts: {
  profileId: string;
  profileName?: string | undefined;
  events: readonly string[];
}): ModalView {
  const events = [...new Set(opts.events)];
  const lines = [
    `✅ Events of profile ${profile(opts.profileId, opts.profileName)} saved. The platform now sends${events.length === 0 ? " no events." : ` ${events.length === 1 ? "this event" : `these ${events.length} events`}:`}`,
    ...events.slice(0, 20).map(eventLine),
  ];
  if (events.length > 20) lines.push(`• and ${events.length - 20} more`);
  return modal({
    close: "Done",
    blocks: [section(lines.join("\n")), context(["The callback URL is unchanged."])],
  });
}

/**
 * A failure, in plain words at the top. `message` is mrkdwn (already escaped), typically from
 * `describePlatformError` (it ends with the correlation id). With `current`, the editor follows
 * with those events checked, so the person can retry.
 */
export function eventsModalError(opts: {
  meta: string;
  profileId: string;
  message: string;
  current?: readonly string[] | undefined;
}): ModalView {
  const text = opts.message.trim() || "Something went wrong; try again in a moment.";
  const blocks: KnownBlock[] = [section(`⚠️ ${text}`)];
  if (opts.current === undefined) return modal({ meta: opts.meta, blocks, close: "Close" });
  blocks.push(...editorBlocks(opts.profileId, opts.current));
  return modal({ meta: opts.meta, blocks, submit: "Save", close: "Cancel" });
}

/** `v` as a plain object, or undefined (arrays and null included). */
export function record(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === "object" && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : undefined;
}

/**
 * The events checked in a submission (`view.state.values`, the checkboxes at `blockId` /
 * `actionId`): only known events, each once, in the order of the enumeration. Any other shape
 * gives [].
 */
export function parseEventsSubmission(
  values: unknown,
  blockId: string = BLOCKS.events,
  actionId: string = BLOCKS.eventsInput,
): WebhookEvent[] {
  const input = record(record(record(values)?.[blockId])?.[actionId]);
  const selected = input?.selected_options;
  if (!Array.isArray(selected)) return [];
  const chosen = new Set<string>();
  for (const opt of selected) {
    const value = record(opt)?.value;
    if (typeof value === "string") chosen.add(value);
  }
  return WEBHOOK_EVENTS.filter((e) => chosen.has(e));
}

// --- private_metadata -----------------------------------------------------------------------------

const metaSchema = z.object({
  teamId: z.string().min(1),
  profileId: z.string().min(1),
  channelId: z.string().min(1).optional(),
  responseUrl: z
    .string()
    .regex(/^https?:\/\/\S+$/)
    .optional(),
  /** The events the editor was filled with (null: not loaded yet), to detect a change elsewhere. */
  original: z.array(z.string()).nullable(),
});

export type EventsModalMeta = z.infer<typeof metaSchema>;

/**
 * JSON for `private_metadata`, at most 3000 characters: when too long, `responseUrl` is dropped
 * (the message the button was on is then not updated), then `channelId` (no ephemeral
 * confirmation). When even that does not fit, "" (decodeMeta refuses it: "open it again").
 */
export function encodeMeta(m: {
  teamId: string;
  profileId: string;
  channelId?: string | undefined;
  responseUrl?: string | undefined;
  original: readonly string[] | null;
}): string {
  const base = {
    teamId: m.teamId,
    profileId: m.profileId,
    ...(m.channelId ? { channelId: m.channelId } : {}),
    ...(m.responseUrl ? { responseUrl: m.responseUrl } : {}),
    original: m.original === null ? null : [...m.original],
  };
  const { responseUrl: _url, ...noUrl } = base;
  const { channelId: _channel, ...bare } = noUrl;
  for (const candidate of [base, noUrl, bare]) {
    const s = JSON.stringify(candidate);
    if (s.length <= VIEW_LIMITS.privateMetadata) return s;
  }
  return "";
}

/** The metadata of `encodeMeta`, or undefined for anything else (empty, not JSON, wrong shape). */
export function decodeMeta(s: string): EventsModalMeta | undefined {
  if (typeof s !== "string" || s === "" || s.length > VIEW_LIMITS.privateMetadata) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(s);
  } catch {
    return undefined;
  }
  const parsed = metaSchema.safeParse(raw);
  return parsed.success ? parsed.data : undefined;
}
