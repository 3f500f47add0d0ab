/**
 * The set-up modal and the managers modal of the App Home (issue 5: every change a command makes
 * can be made from buttons). Pure renderers and parsers: data in, Slack view JSON out.
 *
 * Set-up = `/webhook set`: a profile (a menu of the profiles bound to the workspace, by name; a
 * text field for its id or name when that list cannot be had), the channel its notifications go
 * to, the events, and an optional foreign HTTPS URL (`url=`). Managers = `/webhook managers
 * add|remove`.
 */

import type {
  ConversationsSelect,
  InputBlock,
  ModalView,
  MultiUsersSelect,
  PlainTextInput,
  StaticSelect,
} from "@slack/types";
import { z } from "zod";
import { isPlatformId, WEBHOOK_EVENTS, type WebhookEvent } from "../domain/index.js";
import { escapeTruncate } from "./escape.js";
import { BLOCKS, VIEWS } from "./ids.js";
import { channel, code, context, mention, section } from "./kit.js";
import {
  eventCheckboxes,
  NO_EVENT_CHOSEN,
  parseEventsSubmission,
  plain,
  record,
  VIEW_LIMITS,
} from "./modal.js";
import { type MenuProfile, profileOptions, profileRef } from "./profiles.js";
import type { KnownBlock } from "./types.js";

/** What the set-up and managers modals carry in `private_metadata`. */
const setupMetaSchema = z.object({ teamId: z.string().min(1), kind: z.enum(["setup", "managers"]) });
export type SetupMeta = z.infer<typeof setupMetaSchema>;

export function encodeSetupMeta(m: SetupMeta): string {
  return JSON.stringify({ teamId: m.teamId, kind: m.kind });
}

export function decodeSetupMeta(s: unknown): SetupMeta | undefined {
  if (typeof s !== "string" || s.length > VIEW_LIMITS.privateMetadata) return undefined;
  try {
    const parsed = setupMetaSchema.safeParse(JSON.parse(s));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function shell(opts: {
  callbackId: string;
  title: string;
  meta: string;
  blocks: KnownBlock[];
  submit?: string;
  close: string;
}): ModalView {
  const view: ModalView = {
    type: "modal",
    callback_id: opts.callbackId,
    title: plain(opts.title, VIEW_LIMITS.title),
    close: plain(opts.close, VIEW_LIMITS.close),
    blocks: opts.blocks.slice(0, VIEW_LIMITS.blocksPerView),
    private_metadata: opts.meta,
  };
  if (opts.submit) view.submit = plain(opts.submit, VIEW_LIMITS.submit);
  return view;
}

// --- Set up notifications ---------------------------------------------------------------------------

export interface SetupValues {
  profileId?: string | undefined;
  channelId?: string | null | undefined;
  events?: readonly string[] | undefined;
  url?: string | null | undefined;
}

const SETUP_TITLE = "Set up notifications";
const MANAGERS_TITLE = "Managers";

/** The profile's input: a menu of `profiles` (the one being changed kept in it), else a text field. */
function profileInput(
  v: SetupValues,
  profiles: readonly MenuProfile[] | undefined,
): StaticSelect | PlainTextInput {
  if (profiles === undefined) {
    const text: PlainTextInput = {
      type: "plain_text_input",
      action_id: BLOCKS.setupProfile,
      max_length: 64,
      placeholder: plain("its id or its name, for example x2vq8nw", VIEW_LIMITS.placeholder),
    };
    if (v.profileId) text.initial_value = v.profileId.slice(0, 64);
    return text;
  }
  const current = v.profileId;
  const listed =
    current && !profiles.some((p) => p.profileId === current)
      ? [{ profileId: current }, ...profiles]
      : profiles;
  const options = profileOptions(listed);
  const menu: StaticSelect = {
    type: "static_select",
    action_id: BLOCKS.setupProfile,
    placeholder: plain("Choose a profile", VIEW_LIMITS.placeholder),
    options,
  };
  const initial = options.find((opts) => opts.value === current);
  if (initial) menu.initial_option = initial;
  return menu;
}

function setupInputs(v: SetupValues, profiles: readonly MenuProfile[] | undefined): KnownBlock[] {
  const profile = profileInput(v, profiles);
  const conversation: ConversationsSelect = {
    type: "conversations_select",
    action_id: BLOCKS.setupChannel,
    placeholder: plain("Choose a channel", VIEW_LIMITS.placeholder),
    filter: { include: ["public", "private"], exclude_bot_users: true },
  };
  if (v.channelId) conversation.initial_conversation = v.channelId;
  const events = eventCheckboxes(BLOCKS.setupEvents, v.events ?? WEBHOOK_EVENTS);
  const url: PlainTextInput = {
    type: "plain_text_input",
    action_id: BLOCKS.setupUrl,
    placeholder: plain("https://… (leave empty to get the notifications in Slack)", VIEW_LIMITS.placeholder),
  };
  if (v.url) url.initial_value = v.url.slice(0, VIEW_LIMITS.plainTextInput);
  const input = (blockId: string, label: string, hint: string, element: InputBlock["element"]) =>
    ({
      type: "input",
      block_id: blockId,
      label: plain(label, VIEW_LIMITS.inputLabel),
      hint: plain(hint, VIEW_LIMITS.inputHint),
      element,
    }) satisfies InputBlock;
  return [
    input(
      BLOCKS.setupProfile,
      profiles === undefined ? "Profile (its id or name)" : "Profile",
      profiles === undefined
        ? "The platform profile whose video events you want."
        : "The platform profile whose video events you want: the profiles this workspace may use.",
      profile,
    ),
    input(
      BLOCKS.setupChannel,
      "Channel",
      "Where the notifications are posted. Public channels work at once; invite the bot to a private channel first (/invite).",
      conversation,
    ),
    input(BLOCKS.setupEvents, "Events", "Choose at least one event.", events),
    {
      ...input(
        BLOCKS.setupUrl,
        "Or deliver to your own HTTPS URL (advanced)",
        "Leave empty so the bot receives the events and posts them in the channel. With a URL, the platform sends the events there and the bot posts nothing for this profile.",
        url,
      ),
      optional: true,
    },
  ];
}

/**
 * The form; `notice` (mrkdwn, already escaped) is shown above it, for example an error. With
 * `profiles`, the profile is chosen from a menu of them; without, it is typed.
 */
export function setupModal(opts: {
  meta: string;
  values?: SetupValues;
  profiles?: readonly MenuProfile[] | undefined;
  notice?: string | undefined;
}): ModalView {
  const blocks: KnownBlock[] = [];
  if (opts.notice?.trim()) blocks.push(section(opts.notice));
  blocks.push(
    section(
      "Choose a profile and the channel for its video notifications: the bot registers itself as the profile's webhook, then posts one message per video there, kept up to date.",
    ),
    ...setupInputs(opts.values ?? {}, opts.profiles?.length ? opts.profiles : undefined),
    context(["This replaces the profile's current webhook (callback URL and events), like `/webhook set`."]),
  );
  return shell({
    callbackId: VIEWS.setupModal,
    title: SETUP_TITLE,
    meta: opts.meta,
    blocks,
    submit: "Set up",
    close: "Cancel",
  });
}

/** A message in place of a form (loading, saving, not a manager, an error). */
export function formMessage(opts: {
  kind: SetupMeta["kind"];
  meta: string;
  text: string;
  close?: string;
}): ModalView {
  const setup = opts.kind === "setup";
  return shell({
    callbackId: setup ? VIEWS.setupModal : VIEWS.managersModal,
    title: setup ? SETUP_TITLE : MANAGERS_TITLE,
    meta: opts.meta,
    blocks: [section(opts.text.trim() || "…")],
    close: opts.close ?? "Close",
  });
}

/** After a successful set-up: where the events go now. */
export function setupModalDone(opts: {
  meta: string;
  profileId: string;
  profileName?: string | undefined;
  channelId: string | null;
  url: string | null;
  events: readonly string[];
}): ModalView {
  const id = profileRef(opts.profileId, opts.profileName);
  const dest =
    opts.url === null && opts.channelId
      ? `its video notifications now come to ${channel(opts.channelId)} (a confirmation was posted there)`
      : "the platform now sends its events to the URL you gave; this bot posts nothing for it";
  const events = [...new Set(opts.events)].map((e) => code(e, 60)).join(", ") || "none";
  return shell({
    callbackId: VIEWS.setupModal,
    title: SETUP_TITLE,
    meta: opts.meta,
    blocks: [
      section(`✅ Profile ${id} is set up: ${dest}.`),
      section(`*Events:* ${events}`),
      context(["Change it later from the Home tab or with `/webhook`."]),
    ],
    close: "Done",
  });
}

export interface ParsedSetup {
  values: { profileId: string; channelId: string | null; url: string | null; events: WebhookEvent[] };
  /** block_id → what is wrong; empty when the submission is valid. */
  errors: Record<string, string>;
}

function field(values: unknown, blockId: string): Record<string, unknown> | undefined {
  return record(record(record(values)?.[blockId])?.[blockId]);
}

/** Reads and checks a set-up submission (`view.state.values`); every shape is tolerated. */
export function parseSetupSubmission(values: unknown): ParsedSetup {
  const errors: Record<string, string> = {};
  // The menu's choice, or the text field's id or name.
  const input = field(values, BLOCKS.setupProfile);
  const chosen = record(input?.selected_option)?.value;
  const rawProfile = chosen !== undefined && chosen !== null ? chosen : input?.value;
  const profileId = typeof rawProfile === "string" ? rawProfile.trim() : "";
  if (!isPlatformId(profileId)) {
    errors[BLOCKS.setupProfile] = profileId
      ? "This is not a profile id or name: letters, digits, - and _ only (up to 64)."
      : "Choose a profile.";
  }
  const rawChannel = field(values, BLOCKS.setupChannel)?.selected_conversation;
  const channelId =
    typeof rawChannel === "string" && /^[CGD][A-Z0-9]{2,}$/.test(rawChannel) ? rawChannel : null;
  const rawUrl = field(values, BLOCKS.setupUrl)?.value;
  const urlText = typeof rawUrl === "string" ? rawUrl.trim() : "";
  let url: string | null = null;
  if (urlText) {
    let ok = false;
    try {
      ok = new URL(urlText).protocol === "https:";
    } catch {
      ok = false;
    }
    if (ok) url = urlText;
    else
      errors[BLOCKS.setupUrl] =
        "Give a full https:// URL (the platform only delivers to HTTPS), or leave it empty.";
  }
  if (channelId === null && !urlText)
    errors[BLOCKS.setupChannel] = "Choose the channel for the notifications.";
  const events = parseEventsSubmission(values, BLOCKS.setupEvents, BLOCKS.setupEvents);
  if (events.length === 0) errors[BLOCKS.setupEvents] = NO_EVENT_CHOSEN;
  return { values: { profileId, channelId, url, events }, errors };
}

// --- Managers ----------------------------------------------------------------------------------------

const MAX_INITIAL_USERS = 100;

function configuredLine(configured: readonly string[]): KnownBlock[] {
  if (configured.length === 0) return [];
  const shown = configured.slice(0, 20).map(mention).join(", ");
  const more = configured.length > 20 ? ` and ${configured.length - 20} more` : "";
  return [
    context([`Also managers through the bot's MANAGER_USER_IDS setting (changed there): ${shown}${more}`]),
  ];
}

/** The managers editor: the people added as managers, editable. */
export function managersModal(opts: {
  meta: string;
  configured: readonly string[];
  added: readonly string[];
  notice?: string | undefined;
}): ModalView {
  const element: MultiUsersSelect = {
    type: "multi_users_select",
    action_id: BLOCKS.managersInput,
    placeholder: plain("Add people", VIEW_LIMITS.placeholder),
  };
  const initial = [...new Set(opts.added)].slice(0, MAX_INITIAL_USERS);
  if (initial.length > 0) element.initial_users = initial;
  const blocks: KnownBlock[] = [];
  if (opts.notice?.trim()) blocks.push(section(opts.notice));
  blocks.push(
    section(
      "Managers can set up, change, test and remove webhooks. Workspace admins and owners always are; add or remove other people here.",
    ),
    {
      type: "input",
      block_id: BLOCKS.managersInput,
      optional: true,
      label: plain("People added as managers", VIEW_LIMITS.inputLabel),
      hint: plain("Same as /webhook managers add and remove.", VIEW_LIMITS.inputHint),
      element,
    },
    ...configuredLine(opts.configured),
  );
  return shell({
    callbackId: VIEWS.managersModal,
    title: MANAGERS_TITLE,
    meta: opts.meta,
    blocks,
    submit: "Save",
    close: "Cancel",
  });
}

/** After saving: who was added and removed. */
export function managersModalSaved(opts: {
  meta: string;
  added: readonly string[];
  removed: readonly string[];
  now: readonly string[];
}): ModalView {
  const list = (ids: readonly string[]) => ids.slice(0, 30).map(mention).join(", ") || "nobody";
  const lines = [
    "✅ Managers saved.",
    `*Added:* ${list(opts.added)}`,
    `*Removed:* ${list(opts.removed)}`,
    `*Added managers now:* ${list(opts.now)}`,
  ];
  return shell({
    callbackId: VIEWS.managersModal,
    title: MANAGERS_TITLE,
    meta: opts.meta,
    blocks: [section(lines.join("\n")), context(["Workspace admins and owners are always managers."])],
    close: "Done",
  });
}

/** The user ids chosen in a managers submission; every other shape gives []. */
export function parseManagersSubmission(values: unknown): string[] {
  const users = field(values, BLOCKS.managersInput)?.selected_users;
  if (!Array.isArray(users)) return [];
  return [
    ...new Set(users.filter((u): u is string => typeof u === "string" && /^[UW][A-Z0-9]{2,}$/.test(u))),
  ];
}

/** Escaped profile id for texts built by the listeners. */
export function profileText(profileId: string): string {
  return escapeTruncate(profileId, 100);
}
