/**
 * Small Block Kit builders that keep every piece inside its limit (see limits.ts), plus the mrkdwn
 * pieces the renderers share (links, mentions, inline code).
 */
import { MENTION_RE } from "../domain/index.js";
import { relative, slackDate, utcText } from "./dates.js";
import { escapeMrkdwn, escapeTruncate, truncate, truncateMrkdwn } from "./escape.js";
import { LIMITS } from "./limits.js";
import type {
  ActionsBlock,
  Button,
  ConfirmationDialog,
  ContextBlock,
  HeaderBlock,
  ImageElement,
  KnownBlock,
  Message,
  SectionBlock,
} from "./types.js";

/** A header block (plain text, at most 150 characters, never empty). */
export function header(text: string): HeaderBlock {
  const t = text.replace(/\s+/g, " ").trim();
  return {
    type: "header",
    text: { type: "plain_text", text: truncate(t || "—", LIMITS.headerText), emoji: true },
  };
}

/** A section of mrkdwn (already escaped by the caller), optionally with an accessory. */
export function section(mrkdwn: string, accessory?: ImageElement | Button): SectionBlock {
  const block: SectionBlock = {
    type: "section",
    text: { type: "mrkdwn", text: truncateMrkdwn(mrkdwn.trim() || "—", LIMITS.sectionText) },
  };
  if (accessory) block.accessory = accessory;
  return block;
}

/** A section of plain text: nothing in it is interpreted (safe for foreign text). */
export function plainSection(text: string): SectionBlock {
  return {
    type: "section",
    text: { type: "plain_text", text: truncate(text.trim() || "—", LIMITS.sectionText), emoji: false },
  };
}

/** A section of two-column fields (mrkdwn, already escaped), at most 10. */
export function fieldsSection(fields: readonly string[]): SectionBlock {
  return {
    type: "section",
    fields: fields.slice(0, LIMITS.sectionFields).map((f) => ({
      type: "mrkdwn" as const,
      text: truncateMrkdwn(f.trim() || "—", LIMITS.sectionFieldText),
    })),
  };
}

/** A context line of up to 10 mrkdwn elements (already escaped). */
export function context(elements: readonly string[]): ContextBlock {
  const els = elements.filter((e) => e.trim() !== "").slice(0, LIMITS.contextElements);
  return {
    type: "context",
    elements: (els.length > 0 ? els : ["—"]).map((e) => ({
      type: "mrkdwn" as const,
      text: truncateMrkdwn(e, LIMITS.sectionText),
    })),
  };
}

export interface ButtonOptions {
  text: string;
  actionId: string;
  value?: string;
  style?: "primary" | "danger";
  confirm?: ConfirmationDialog;
  accessibilityLabel?: string;
}

export function button(opts: ButtonOptions): Button {
  const b: Button = {
    type: "button",
    action_id: opts.actionId,
    text: { type: "plain_text", text: truncate(opts.text, LIMITS.buttonText), emoji: true },
  };
  if (opts.value !== undefined) b.value = opts.value;
  if (opts.style) b.style = opts.style;
  if (opts.confirm) b.confirm = opts.confirm;
  if (opts.accessibilityLabel)
    b.accessibility_label = truncate(opts.accessibilityLabel, LIMITS.accessibilityLabel);
  return b;
}

export function actions(elements: Button[], blockId?: string): ActionsBlock {
  const block: ActionsBlock = { type: "actions", elements: elements.slice(0, LIMITS.actionsElements) };
  if (blockId) block.block_id = truncate(blockId, LIMITS.blockId);
  return block;
}

export function confirmDialog(opts: {
  title: string;
  text: string;
  confirm: string;
  deny: string;
  danger?: boolean;
}): ConfirmationDialog {
  const d: ConfirmationDialog = {
    title: { type: "plain_text", text: truncate(opts.title, LIMITS.confirmTitle) },
    text: { type: "plain_text", text: truncate(opts.text, LIMITS.confirmText) },
    confirm: { type: "plain_text", text: truncate(opts.confirm, LIMITS.confirmButton) },
    deny: { type: "plain_text", text: truncate(opts.deny, LIMITS.confirmButton) },
  };
  if (opts.danger) d.style = "danger";
  return d;
}

export const divider: KnownBlock = { type: "divider" };

/** An http(s) URL Slack can link or fetch: no whitespace or mrkdwn delimiters, bounded length. */
export function isLinkableUrl(url: string | null | undefined, max = 2000): url is string {
  return typeof url === "string" && url.length <= max && /^https?:\/\/[^\s<>|"`]+$/i.test(url);
}

/** `<url|label>` for a usable URL, else the label alone (both escaped). */
export function link(url: string | null | undefined, label: string, maxLabel = 200): string {
  const l = escapeTruncate(label, maxLabel);
  return isLinkableUrl(url) ? `<${escapeMrkdwn(url)}|${l}>` : l;
}

/** Inline code of a foreign value (backticks removed, escaped, bounded). */
export function code(value: string, max = 200): string {
  const v = escapeTruncate(value.replace(/`/g, "'").replace(/\s+/g, " "), max);
  return `\`${v || " "}\``;
}

/** `<@U123>` for a Slack user id, else the escaped text. */
export function mention(userId: string): string {
  return /^[UW][A-Z0-9]{2,40}$/.test(userId) ? `<@${userId}>` : escapeTruncate(userId, 80);
}

/** Slack markup of a stored mention (validated again by MENTION_RE), or "". */
export function mentionMarkup(mention: string | null): string {
  if (mention === null || !MENTION_RE.test(mention)) return "";
  return mention === "here" ? "<!here>" : `<@${mention}>`;
}

/** `<#C123>` for a Slack channel id, else the escaped text. */
export function channel(channelId: string): string {
  return /^[CGD][A-Z0-9]{2,40}$/.test(channelId) ? `<#${channelId}>` : escapeTruncate(channelId, 80);
}

/** A date shown in the reader's time zone, with how long ago / how soon: "<date> (20 min ago)". */
export function when(date: Date, now: Date): string {
  return `${slackDate(date, utcText(date))} (${relative(date, now)})`;
}

/** A parsed timestamp, or undefined when absent, null or not a date. */
export function toDate(ts: string | null | undefined): Date | undefined {
  if (typeof ts !== "string") return undefined;
  const ms = Date.parse(ts);
  return Number.isFinite(ms) ? new Date(ms) : undefined;
}

/** Fallback `text` of a message: plain, escaped, within the limit, never empty. */
export function fallbackText(text: string): string {
  const t = escapeTruncate(text.replace(/\s+/g, " ").trim(), LIMITS.messageText);
  return t || "Message";
}

/** Lines grouped into sections of at most `max` characters each (long lines cut). */
export function chunkLines(lines: readonly string[], max = LIMITS.sectionText - 10): string[] {
  const chunks: string[] = [];
  let cur = "";
  for (const raw of lines) {
    const line = raw.length > max ? truncateMrkdwn(raw, max) : raw;
    if (cur !== "" && cur.length + 1 + line.length > max) {
      chunks.push(cur);
      cur = "";
    }
    cur = cur === "" ? line : `${cur}\n${line}`;
  }
  if (cur !== "") chunks.push(cur);
  return chunks;
}

export function message(text: string, blocks: KnownBlock[]): Message {
  return { text: fallbackText(text), blocks: blocks.slice(0, LIMITS.blocksPerMessage) };
}
