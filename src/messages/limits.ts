/**
 * Block Kit limits (from the doc comments of `@slack/types` 3.x and Slack's Block Kit reference),
 * text helpers every renderer uses, and `assertWithinLimits`, the checker tests run on every
 * rendered message.
 *
 * Lengths are counted in UTF-16 code units (`string.length`), which is never less than what Slack
 * counts, so a message that passes here is not refused for length there.
 */
import type { KnownBlock, Message } from "./types.js";

export const LIMITS = {
  /** Section `text`, and every text object without a smaller limit (minimum 1). */
  sectionText: 3000,
  /** Header block text, plain_text only. */
  headerText: 150,
  /** Section `fields`: at most 10 items of at most 2000 characters each. */
  sectionFields: 10,
  sectionFieldText: 2000,
  /** Context block: at most 10 elements. */
  contextElements: 10,
  /** Actions block: at most 25 elements. */
  actionsElements: 25,
  buttonText: 75,
  buttonValue: 2000,
  buttonUrl: 3000,
  accessibilityLabel: 75,
  actionId: 255,
  blockId: 255,
  imageAltText: 2000,
  imageUrl: 3000,
  /** Confirmation dialog object. */
  confirmTitle: 100,
  confirmText: 300,
  confirmButton: 30,
  /** Static select menu: at most 100 options; option text 75, value 150; placeholder 150. */
  selectOptions: 100,
  optionText: 75,
  optionValue: 150,
  placeholder: 150,
  /** Blocks in one message. */
  blocksPerMessage: 50,
  /** Top-level `text` of chat.postMessage (longer is truncated by Slack). */
  messageText: 40000,
} as const;

export const ELLIPSIS = "…";

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** At most `max` code units; a cut string ends with "…" and never with half a surrogate pair. */
export function truncate(s: string, max: number): string {
  if (max <= 0) return "";
  if (s.length <= max) return s;
  if (max === 1) return ELLIPSIS;
  let cut = max - 1;
  if (isHighSurrogate(s.charCodeAt(cut - 1))) cut--;
  return `${s.slice(0, cut).trimEnd()}${ELLIPSIS}`;
}

/** Escapes the three characters Slack's mrkdwn treats as control characters. */
export function escapeMrkdwn(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** Escapes and truncates so that the escaped result fits in `max` (no entity is cut in half). */
export function escapeTruncate(s: string, max: number): string {
  const full = escapeMrkdwn(s);
  if (full.length <= max) return full;
  if (max <= 0) return "";
  let out = "";
  for (const ch of s) {
    const e = escapeMrkdwn(ch);
    if (out.length + e.length + ELLIPSIS.length > max) break;
    out += e;
  }
  return `${out.trimEnd()}${ELLIPSIS}`;
}

/**
 * Truncates mrkdwn that is already escaped and may hold `<...>` tokens (links, mentions, dates):
 * a cut never leaves half a token or half an entity behind.
 */
export function truncateMrkdwn(s: string, max: number): string {
  if (s.length <= max) return s;
  if (max <= 1) return truncate(s, max);
  const keep = (n: number): string => {
    let k = s.slice(0, Math.max(0, n));
    if (isHighSurrogate(k.charCodeAt(k.length - 1))) k = k.slice(0, -1);
    const open = k.lastIndexOf("<");
    if (open > k.lastIndexOf(">")) k = k.slice(0, open);
    const amp = k.lastIndexOf("&");
    if (amp > k.lastIndexOf(";")) k = k.slice(0, amp);
    return k.trimEnd();
  };
  const fences = (k: string) => k.split("```").length - 1;
  let kept = keep(max - ELLIPSIS.length);
  let closing = "";
  // An unclosed code block would swallow what follows: close it (and make room for it).
  if (fences(kept) % 2 === 1) {
    kept = keep(max - ELLIPSIS.length - 3);
    if (fences(kept) % 2 === 1) closing = "```";
  }
  return `${kept}${ELLIPSIS}${closing}`;
}

const NAMED_ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: " ",
  hellip: "…",
  mdash: "—",
  ndash: "–",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
  laquo: "«",
  raquo: "»",
  bull: "•",
  middot: "·",
  copy: "©",
  reg: "®",
  trade: "™",
  euro: "€",
  pound: "£",
  deg: "°",
  times: "×",
  shy: "",
  agrave: "à",
  aacute: "á",
  acirc: "â",
  auml: "ä",
  ccedil: "ç",
  egrave: "è",
  eacute: "é",
  ecirc: "ê",
  euml: "ë",
  icirc: "î",
  iuml: "ï",
  ntilde: "ñ",
  ocirc: "ô",
  ouml: "ö",
  ugrave: "ù",
  ucirc: "û",
  uuml: "ü",
  szlig: "ß",
  Agrave: "À",
  Eacute: "É",
  Egrave: "È",
  Ccedil: "Ç",
};

function decodeEntity(match: string, body: string): string {
  if (body.startsWith("#")) {
    const hex = body[1] === "x" || body[1] === "X";
    const n = Number.parseInt(body.slice(hex ? 2 : 1), hex ? 16 : 10);
    if (!Number.isFinite(n) || n <= 0 || n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff)) return "\uFFFD";
    return String.fromCodePoint(n);
  }
  return NAMED_ENTITIES[body] ?? match;
}

const BLOCK_TAG =
  /<\/?(?:p|div|br|li|ul|ol|h[1-6]|tr|td|th|table|blockquote|pre|hr|section|article|header|footer)\b[^>]*>/gi;

/**
 * Plain text of an HTML fragment (the livestream description): comments, scripts and styles
 * dropped, tags stripped (block tags become spaces), common entities decoded once, whitespace
 * collapsed. A `<` that does not open a tag (`a < b`) is kept.
 */
export function htmlToText(html: string): string {
  return html
    .replace(/<!--[\s\S]*?(?:-->|$)/g, " ")
    .replace(/<(script|style)\b[^>]*>[\s\S]*?(?:<\/\1\s*>|$)/gi, " ")
    .replace(BLOCK_TAG, " ")
    .replace(/<\/?[a-zA-Z][^>]*>/g, "")
    .replace(/&(#[0-9]{1,8}|#[xX][0-9a-fA-F]{1,7}|[a-zA-Z][a-zA-Z0-9]{1,10});/g, decodeEntity)
    .replace(/\s+/g, " ")
    .trim();
}

function toMs(date: Date | string): number {
  return typeof date === "string" ? Date.parse(date) : date.getTime();
}

/** "2024-05-01 18:00 UTC": the fallback of a Slack date token, and text for plain contexts. */
export function utcText(date: Date | string): string {
  const ms = toMs(date);
  if (!Number.isFinite(ms)) return "unknown time";
  return `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/**
 * A Slack date token, shown in each reader's time zone: `<!date^UNIX^{date_short_pretty} {time}|fallback>`.
 * An unparsable date gives the (escaped) fallback alone.
 */
export function slackDate(
  date: Date | string,
  fallback: string,
  format = "{date_short_pretty} {time}",
): string {
  const ms = toMs(date);
  const fb = escapeMrkdwn(fallback.replace(/\|/g, "/"));
  if (!Number.isFinite(ms)) return fb;
  return `<!date^${Math.floor(ms / 1000)}^${format}|${fb}>`;
}

/** "20 min ago", "in 2 h", "3 d ago", "just now". */
export function relative(from: Date, now: Date): string {
  const diff = from.getTime() - now.getTime();
  if (!Number.isFinite(diff)) return "at an unknown time";
  const minutes = Math.floor(Math.abs(diff) / 60_000);
  if (minutes < 1) return diff < 0 ? "just now" : "in less than a minute";
  let span: string;
  if (minutes < 60) span = `${minutes} min`;
  else if (minutes < 24 * 60) span = `${Math.floor(minutes / 60)} h`;
  else if (minutes < 365 * 24 * 60) span = `${Math.floor(minutes / (24 * 60))} d`;
  else span = `${Math.floor(minutes / (365 * 24 * 60))} y`;
  return diff < 0 ? `${span} ago` : `in ${span}`;
}

// --- The checker -----------------------------------------------------------------------------------

/** Every `<...>` of mrkdwn the renderers may emit: links, mentions, channels, dates, specials. */
const MRKDWN_TOKEN =
  /^<(?:(?:https?:\/\/|mailto:)[^\s<>|]+(?:\|[^<>]+)?|@[UW][A-Z0-9]+|#[CGD][A-Z0-9]+(?:\|[^<>]*)?|!date\^-?\d+\^[^<>|]+(?:\^[^<>|]+)?\|[^<>]+|!(?:here|channel|everyone)|!subteam\^[A-Z0-9]+)>/;

function mrkdwnProblems(text: string): string[] {
  const problems: string[] = [];
  for (let i = text.indexOf("<"); i !== -1; i = text.indexOf("<", i + 1)) {
    if (!MRKDWN_TOKEN.test(text.slice(i))) {
      problems.push(`unescaped or malformed "<" at ${i}: ${JSON.stringify(text.slice(i, i + 40))}`);
      break;
    }
  }
  const amp = /&(?!amp;|lt;|gt;)/.exec(text);
  if (amp) problems.push(`unescaped "&" at ${amp.index}`);
  return problems;
}

interface TextLike {
  type?: unknown;
  text?: unknown;
}

function checkText(out: string[], where: string, t: TextLike | undefined, max: number, plainOnly = false) {
  if (t === undefined) return;
  if (t.type !== "plain_text" && t.type !== "mrkdwn") {
    out.push(`${where}: text object type ${String(t.type)}`);
    return;
  }
  if (plainOnly && t.type !== "plain_text") out.push(`${where}: must be plain_text`);
  if (typeof t.text !== "string" || t.text.trim().length === 0) {
    out.push(`${where}: empty text`);
    return;
  }
  if (t.text.length > max) out.push(`${where}: ${t.text.length} > ${max} characters`);
  if (t.type === "mrkdwn") for (const p of mrkdwnProblems(t.text)) out.push(`${where}: ${p}`);
}

function checkMax(out: string[], where: string, value: unknown, max: number) {
  if (typeof value === "string" && value.length > max) {
    out.push(`${where}: ${value.length} > ${max} characters`);
  }
}

interface ElementLike {
  type?: unknown;
  action_id?: unknown;
  text?: TextLike;
  value?: unknown;
  url?: unknown;
  style?: unknown;
  accessibility_label?: unknown;
  confirm?: { title?: TextLike; text?: TextLike; confirm?: TextLike; deny?: TextLike; style?: unknown };
  alt_text?: unknown;
  image_url?: unknown;
  placeholder?: TextLike;
  options?: unknown;
  initial_option?: { text?: TextLike; value?: unknown };
}

function checkStaticSelect(out: string[], where: string, el: ElementLike) {
  if (typeof el.action_id !== "string" || el.action_id === "") out.push(`${where}.action_id: missing`);
  checkText(out, `${where}.placeholder`, el.placeholder, LIMITS.placeholder, true);
  const options = Array.isArray(el.options)
    ? (el.options as Array<{ text?: TextLike; value?: unknown }>)
    : [];
  if (options.length === 0 || options.length > LIMITS.selectOptions)
    out.push(`${where}.options: ${options.length} items (1..${LIMITS.selectOptions})`);
  options.forEach((o, i) => {
    checkText(out, `${where}.options[${i}].text`, o.text, LIMITS.optionText, true);
    if (typeof o.value !== "string" || o.value === "") out.push(`${where}.options[${i}].value: missing`);
    checkMax(out, `${where}.options[${i}].value`, o.value, LIMITS.optionValue);
  });
  const initial = el.initial_option;
  if (initial && !options.some((o) => o.value === initial.value && o.text?.text === initial.text?.text))
    out.push(`${where}.initial_option: not one of the options`);
}

function checkImage(out: string[], where: string, el: ElementLike) {
  if (typeof el.alt_text !== "string" || el.alt_text.length === 0) out.push(`${where}.alt_text: missing`);
  checkMax(out, `${where}.alt_text`, el.alt_text, LIMITS.imageAltText);
  if (typeof el.image_url !== "string" || !/^https?:\/\/\S+$/.test(el.image_url)) {
    out.push(`${where}.image_url: not an http(s) URL`);
  }
  checkMax(out, `${where}.image_url`, el.image_url, LIMITS.imageUrl);
}

function checkElement(out: string[], where: string, el: ElementLike) {
  checkMax(out, `${where}.action_id`, el.action_id, LIMITS.actionId);
  if (el.type === "image") {
    checkImage(out, where, el);
    return;
  }
  if (el.type === "static_select") {
    checkStaticSelect(out, where, el);
    return;
  }
  if (el.type !== "button") {
    out.push(`${where}: element type ${String(el.type)} is not checked`);
    return;
  }
  checkText(out, `${where}.text`, el.text, LIMITS.buttonText, true);
  if (typeof el.action_id !== "string" || el.action_id === "") out.push(`${where}.action_id: missing`);
  checkMax(out, `${where}.value`, el.value, LIMITS.buttonValue);
  checkMax(out, `${where}.url`, el.url, LIMITS.buttonUrl);
  checkMax(out, `${where}.accessibility_label`, el.accessibility_label, LIMITS.accessibilityLabel);
  if (el.style !== undefined && el.style !== "primary" && el.style !== "danger") {
    out.push(`${where}.style: ${String(el.style)}`);
  }
  const c = el.confirm;
  if (c) {
    checkText(out, `${where}.confirm.title`, c.title, LIMITS.confirmTitle, true);
    if (!c.text) out.push(`${where}.confirm.text: missing`);
    checkText(out, `${where}.confirm.text`, c.text, LIMITS.confirmText);
    checkText(out, `${where}.confirm.confirm`, c.confirm, LIMITS.confirmButton, true);
    checkText(out, `${where}.confirm.deny`, c.deny, LIMITS.confirmButton, true);
  }
}

function checkBlock(out: string[], where: string, block: KnownBlock) {
  switch (block.type) {
    case "header":
      checkText(out, `${where}.text`, block.text, LIMITS.headerText, true);
      if (!block.text) out.push(`${where}.text: missing`);
      break;
    case "section": {
      if (!block.text && !block.fields?.length) out.push(`${where}: neither text nor fields`);
      checkText(out, `${where}.text`, block.text, LIMITS.sectionText);
      const fields = block.fields ?? [];
      if (fields.length > LIMITS.sectionFields) {
        out.push(`${where}.fields: ${fields.length} > ${LIMITS.sectionFields} items`);
      }
      fields.forEach((f, i) => {
        checkText(out, `${where}.fields[${i}]`, f, LIMITS.sectionFieldText);
      });
      if (block.accessory) checkElement(out, `${where}.accessory`, block.accessory);
      break;
    }
    case "context": {
      const n = block.elements.length;
      if (n === 0 || n > LIMITS.contextElements) out.push(`${where}.elements: ${n} items (1..10)`);
      block.elements.forEach((el, i) => {
        if (el.type === "image") checkImage(out, `${where}.elements[${i}]`, el);
        else checkText(out, `${where}.elements[${i}]`, el, LIMITS.sectionText);
      });
      break;
    }
    case "actions": {
      const n = block.elements.length;
      if (n === 0 || n > LIMITS.actionsElements) out.push(`${where}.elements: ${n} items (1..25)`);
      const ids = new Set<string>();
      block.elements.forEach((el, i) => {
        checkElement(out, `${where}.elements[${i}]`, el);
        const id = "action_id" in el ? el.action_id : undefined;
        if (typeof id === "string") {
          if (ids.has(id)) out.push(`${where}.elements[${i}].action_id: duplicate ${id}`);
          ids.add(id);
        }
      });
      break;
    }
    case "divider":
      break;
    case "image":
      checkImage(out, where, block);
      break;
    default:
      out.push(`${where}: block type ${block.type} is not checked`);
  }
}

/**
 * Every violation of the limits above (and of mrkdwn escaping) in a message; [] when Slack will
 * accept it. Used by tests on every rendered message.
 */
export function assertWithinLimits(msg: Message): string[] {
  const out: string[] = [];
  if (msg.text.trim().length === 0) out.push("text: empty");
  if (msg.text.length > LIMITS.messageText) out.push(`text: ${msg.text.length} > ${LIMITS.messageText}`);
  if (msg.blocks.length > LIMITS.blocksPerMessage) {
    out.push(`blocks: ${msg.blocks.length} > ${LIMITS.blocksPerMessage}`);
  }
  const blockIds = new Set<string>();
  msg.blocks.forEach((block, i) => {
    const where = `blocks[${i}] (${block.type})`;
    if (block.block_id !== undefined) {
      checkMax(out, `${where}.block_id`, block.block_id, LIMITS.blockId);
      if (blockIds.has(block.block_id)) out.push(`${where}.block_id: duplicate ${block.block_id}`);
      blockIds.add(block.block_id);
    }
    checkBlock(out, where, block);
  });
  return out;
}
