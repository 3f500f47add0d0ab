/**
 * `assertViewWithinLimits`: the views' counterpart of `assertWithinLimits` (src/messages/limits.ts).
 * Test code only: the message tests and the fuzz suite run it on every rendered modal and Home tab.
 * Input blocks are checked by element type: checkboxes, plain_text_input, static_select,
 * conversations_select and multi_users_select.
 */
import type { HomeView, ModalView } from "@slack/types";
import { type KnownBlock, VIEW_LIMITS } from "../../src/messages/index.js";
import { assertWithinLimits } from "./limits.js";

/** `v` as a plain object, or undefined (arrays and null included). */
function record(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === "object" && !Array.isArray(v)
    ? (v as Record<string, unknown>)
    : undefined;
}

// --- The checker -----------------------------------------------------------------------------------

function checkPlain(out: string[], where: string, t: unknown, max: number, required = false): void {
  if (t === undefined) {
    if (required) out.push(`${where}: missing`);
    return;
  }
  const o = record(t);
  if (o?.type !== "plain_text") out.push(`${where}: must be plain_text`);
  const text = o?.text;
  if (typeof text !== "string" || text.trim() === "") out.push(`${where}: empty text`);
  else if (text.length > max) out.push(`${where}: ${text.length} > ${max} characters`);
}

function checkOption(out: string[], where: string, opt: unknown): void {
  const o = record(opt);
  const text = record(o?.text);
  if (text?.type !== "plain_text" && text?.type !== "mrkdwn") out.push(`${where}.text: not a text object`);
  const t = text?.text;
  if (typeof t !== "string" || t.trim() === "") out.push(`${where}.text: empty`);
  else {
    if (t.length > VIEW_LIMITS.optionText) out.push(`${where}.text: ${t.length} > ${VIEW_LIMITS.optionText}`);
    if (text?.type === "mrkdwn") {
      // The message checker knows mrkdwn escaping: run it on a section holding the same text.
      const probs = assertWithinLimits({
        text: "x",
        blocks: [{ type: "section", text: { type: "mrkdwn", text: t } }],
      });
      for (const p of probs) out.push(`${where}.text: ${p.replace(/^blocks\[0\] \(section\)\.text: /, "")}`);
    }
  }
  const v = o?.value;
  if (typeof v !== "string" || v === "") out.push(`${where}.value: missing`);
  else if (v.length > VIEW_LIMITS.optionValue)
    out.push(`${where}.value: ${v.length} > ${VIEW_LIMITS.optionValue}`);
  if (o?.description !== undefined) {
    checkPlain(out, `${where}.description`, o.description, VIEW_LIMITS.optionDescription);
  }
}

function checkInput(out: string[], where: string, block: Record<string, unknown>): void {
  checkPlain(out, `${where}.label`, block.label, VIEW_LIMITS.inputLabel, true);
  checkPlain(out, `${where}.hint`, block.hint, VIEW_LIMITS.inputHint);
  const el = record(block.element);
  const id = el?.action_id;
  if (typeof id !== "string" || id === "") out.push(`${where}.element.action_id: missing`);
  else if (id.length > VIEW_LIMITS.actionId) out.push(`${where}.element.action_id: too long`);
  if (el?.type === "plain_text_input") {
    checkPlain(out, `${where}.element.placeholder`, el.placeholder, VIEW_LIMITS.placeholder);
    const initial = el.initial_value;
    const max = typeof el.max_length === "number" ? el.max_length : VIEW_LIMITS.plainTextInput;
    if (initial !== undefined && (typeof initial !== "string" || initial.length > max)) {
      out.push(`${where}.element.initial_value: not a string of at most ${max} characters`);
    }
    return;
  }
  if (el?.type === "conversations_select" || el?.type === "multi_users_select") {
    checkPlain(out, `${where}.element.placeholder`, el.placeholder, VIEW_LIMITS.placeholder);
    const users = el.initial_users;
    if (users !== undefined && (!Array.isArray(users) || users.some((u) => typeof u !== "string"))) {
      out.push(`${where}.element.initial_users: not a list of user ids`);
    }
    const conv = el.initial_conversation;
    if (conv !== undefined && (typeof conv !== "string" || conv === "")) {
      out.push(`${where}.element.initial_conversation: not a conversation id`);
    }
    return;
  }
  if (el?.type === "static_select") {
    checkPlain(out, `${where}.element.placeholder`, el.placeholder, VIEW_LIMITS.placeholder);
    const options = Array.isArray(el.options) ? el.options : [];
    if (options.length === 0 || options.length > VIEW_LIMITS.selectOptions)
      out.push(`${where}.element.options: ${options.length} items (1..${VIEW_LIMITS.selectOptions})`);
    options.forEach((opt, i) => {
      checkOption(out, `${where}.element.options[${i}]`, opt);
    });
    // Slack requires the initial option to be exactly one of the options.
    const initial = el.initial_option;
    if (initial !== undefined && !options.some((opts) => JSON.stringify(opts) === JSON.stringify(initial)))
      out.push(`${where}.element.initial_option: not one of the options`);
    return;
  }
  if (el?.type !== "checkboxes") {
    out.push(`${where}.element: type ${String(el?.type)} is not checked`);
    return;
  }
  const options = Array.isArray(el.options) ? el.options : [];
  if (options.length === 0 || options.length > VIEW_LIMITS.checkboxOptions) {
    out.push(`${where}.element.options: ${options.length} items (1..${VIEW_LIMITS.checkboxOptions})`);
  }
  const values = new Set<string>();
  options.forEach((opt, i) => {
    checkOption(out, `${where}.element.options[${i}]`, opt);
    const v = record(opt)?.value;
    if (typeof v === "string") {
      if (values.has(v)) out.push(`${where}.element.options[${i}].value: duplicate ${v}`);
      values.add(v);
    }
  });
  if (el.initial_options !== undefined) {
    const initial = Array.isArray(el.initial_options) ? el.initial_options : [];
    if (initial.length === 0) out.push(`${where}.element.initial_options: empty (omit it instead)`);
    const known = options.map((opt) => JSON.stringify(opt));
    initial.forEach((opt, i) => {
      // Slack requires each initial option to be exactly one of the options.
      if (!known.includes(JSON.stringify(opt))) {
        out.push(`${where}.element.initial_options[${i}]: not one of the options`);
      }
    });
  }
}

/**
 * Every violation of Slack's limits in a modal or Home tab view; [] when Slack will accept it.
 * Blocks other than `input` are checked by `assertWithinLimits` one by one.
 */
export function assertViewWithinLimits(view: ModalView | HomeView): string[] {
  const out: string[] = [];
  const blocks: unknown[] = view.blocks;
  if (blocks.length === 0) out.push("blocks: none");
  if (blocks.length > VIEW_LIMITS.blocksPerView) {
    out.push(`blocks: ${blocks.length} > ${VIEW_LIMITS.blocksPerView}`);
  }
  if (view.callback_id !== undefined && view.callback_id.length > VIEW_LIMITS.callbackId) {
    out.push(`callback_id: ${view.callback_id.length} > ${VIEW_LIMITS.callbackId}`);
  }
  if (view.private_metadata !== undefined && view.private_metadata.length > VIEW_LIMITS.privateMetadata) {
    out.push(`private_metadata: ${view.private_metadata.length} > ${VIEW_LIMITS.privateMetadata}`);
  }
  const hasInput = blocks.some((b) => record(b)?.type === "input");
  if (view.type === "modal") {
    checkPlain(out, "title", view.title, VIEW_LIMITS.title, true);
    checkPlain(out, "close", view.close, VIEW_LIMITS.close);
    checkPlain(out, "submit", view.submit, VIEW_LIMITS.submit);
    if (hasInput && view.submit === undefined) out.push("submit: required with an input block");
  }
  const blockIds = new Set<string>();
  blocks.forEach((b, i) => {
    const block = record(b) ?? {};
    const where = `blocks[${i}] (${String(block.type)})`;
    const id = block.block_id;
    if (typeof id === "string") {
      if (blockIds.has(id)) out.push(`${where}.block_id: duplicate ${id}`);
      if (id.length > VIEW_LIMITS.blockId)
        out.push(`${where}.block_id: ${id.length} > ${VIEW_LIMITS.blockId}`);
      blockIds.add(id);
    }
    if (block.type === "input") {
      checkInput(out, where, block);
      return;
    }
    for (const p of assertWithinLimits({ text: "view", blocks: [b as KnownBlock] })) {
      out.push(p.replace(/^blocks\[0\] \([a-z_]+\)/, where));
    }
  });
  return out;
}
