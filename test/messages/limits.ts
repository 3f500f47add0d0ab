/**
 * `assertWithinLimits`: every violation of Slack's Block Kit limits (LIMITS, src/messages/limits.ts)
 * in a rendered message; the tests run it on every message the renderers produce.
 *
 * Lengths are counted in UTF-16 code units (`string.length`), which is never less than what Slack
 * counts, so a message that passes here is not refused for length there.
 */
import { type KnownBlock, LIMITS, type Message } from "../../src/messages/index.js";

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
  options.forEach((opts, i) => {
    checkText(out, `${where}.options[${i}].text`, opts.text, LIMITS.optionText, true);
    if (typeof opts.value !== "string" || opts.value === "")
      out.push(`${where}.options[${i}].value: missing`);
    checkMax(out, `${where}.options[${i}].value`, opts.value, LIMITS.optionValue);
  });
  const initial = el.initial_option;
  if (
    initial &&
    !options.some((opts) => opts.value === initial.value && opts.text?.text === initial.text?.text)
  )
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
