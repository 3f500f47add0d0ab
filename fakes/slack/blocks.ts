/**
 * Block Kit checks of the Slack stand-in: the documented limits that a bot most often trips over
 * (block count, text lengths, element counts, duplicate block ids, initial options not among the
 * options). Errors read like Slack's: "must be less than 3001 characters [json-pointer:/blocks/0/text/text]".
 * Unknown block and element types are accepted as they are.
 */

type Obj = Record<string, unknown>;

export const MAX_MESSAGE_BLOCKS = 50;
export const MAX_VIEW_BLOCKS = 100;
export const MAX_TEXT_CHARS = 40_000;

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

class Checker {
  readonly errors: string[] = [];

  add(message: string, pointer: string): void {
    this.errors.push(`${message} [json-pointer:${pointer}]`);
  }

  /** A string field of at most `max` characters (and at least `min`). */
  str(value: unknown, pointer: string, max: number, opts: { required?: boolean; min?: number } = {}): void {
    if (value === undefined) {
      if (opts.required) this.add("missing required field", pointer);
      return;
    }
    if (typeof value !== "string") {
      this.add("must be a string", pointer);
      return;
    }
    if (value.length > max) this.add(`must be less than ${max + 1} characters`, pointer);
    const min = opts.min ?? 0;
    if (value.length < min) this.add(`must be more than ${min - 1} characters`, pointer);
  }

  /** A text composition object. */
  text(
    value: unknown,
    pointer: string,
    max: number,
    opts: { required?: boolean; plainOnly?: boolean } = {},
  ): void {
    if (value === undefined) {
      if (opts.required) this.add("missing required field", pointer);
      return;
    }
    if (!isObj(value)) {
      this.add("must be an object", pointer);
      return;
    }
    const allowed = opts.plainOnly ? ["plain_text"] : ["plain_text", "mrkdwn"];
    if (typeof value.type !== "string" || !allowed.includes(value.type)) {
      this.add(`must be one of: ${allowed.join(", ")}`, `${pointer}/type`);
    }
    this.str(value.text, `${pointer}/text`, max, { required: true, min: 1 });
  }

  /** An array of `min`..`max` items; returns the items when it is an array. */
  list(value: unknown, pointer: string, min: number, max: number, required = true): unknown[] | undefined {
    if (value === undefined) {
      if (required) this.add("missing required field", pointer);
      return undefined;
    }
    if (!Array.isArray(value)) {
      this.add("must provide an array", pointer);
      return undefined;
    }
    if (value.length > max) this.add(`no more than ${max} items allowed`, pointer);
    if (value.length < min) this.add(`must provide at least ${min} items`, pointer);
    return value;
  }
}

/** Errors of a message's `blocks` (empty when valid). */
export function blockErrors(blocks: unknown, max = MAX_MESSAGE_BLOCKS, pointer = "/blocks"): string[] {
  const c = new Checker();
  checkBlocks(c, blocks, max, pointer);
  return c.errors;
}

/** Errors of a view (modal or App Home) given to views.open/update/publish. */
export function viewErrors(view: unknown, allowedTypes: readonly string[]): string[] {
  const c = new Checker();
  if (!isObj(view)) {
    c.add("must be an object", "/view");
    return c.errors;
  }
  if (typeof view.type !== "string" || !allowedTypes.includes(view.type)) {
    c.add(`must be one of: ${allowedTypes.join(", ")}`, "/view/type");
  }
  if (view.type === "modal") {
    c.text(view.title, "/view/title", 24, { required: true, plainOnly: true });
    c.text(view.submit, "/view/submit", 24, { plainOnly: true });
    c.text(view.close, "/view/close", 24, { plainOnly: true });
    const hasInput = Array.isArray(view.blocks) && view.blocks.some((b) => isObj(b) && b.type === "input");
    if (hasInput && view.submit === undefined) {
      c.add("submit is required when an input block is within the blocks", "/view/submit");
    }
  }
  c.str(view.private_metadata, "/view/private_metadata", 3000);
  c.str(view.callback_id, "/view/callback_id", 255);
  c.str(view.external_id, "/view/external_id", 255);
  checkBlocks(c, view.blocks, MAX_VIEW_BLOCKS, "/view/blocks");
  return c.errors;
}

function checkBlocks(c: Checker, blocks: unknown, max: number, pointer: string): void {
  const list = c.list(blocks, pointer, 0, max);
  if (list === undefined) return;
  const ids = new Set<string>();
  list.forEach((block, i) => {
    const at = `${pointer}/${i}`;
    if (!isObj(block)) {
      c.add("must be an object", at);
      return;
    }
    if (typeof block.type !== "string" || block.type === "") {
      c.add("missing required field: type", at);
      return;
    }
    c.str(block.block_id, `${at}/block_id`, 255);
    if (typeof block.block_id === "string") {
      if (ids.has(block.block_id)) c.add(`duplicate block_id: ${block.block_id}`, `${at}/block_id`);
      ids.add(block.block_id);
    }
    checkBlock(c, block, at);
  });
}

function checkBlock(c: Checker, block: Obj, at: string): void {
  switch (block.type) {
    case "section": {
      if (block.text === undefined && block.fields === undefined) {
        c.add("must provide either text or fields", at);
      }
      c.text(block.text, `${at}/text`, 3000);
      const fields = c.list(block.fields, `${at}/fields`, 1, 10, false);
      fields?.forEach((f, i) => {
        c.text(f, `${at}/fields/${i}`, 2000);
      });
      if (block.accessory !== undefined) checkElement(c, block.accessory, `${at}/accessory`);
      break;
    }
    case "header":
      c.text(block.text, `${at}/text`, 150, { required: true, plainOnly: true });
      break;
    case "context": {
      const elements = c.list(block.elements, `${at}/elements`, 1, 10);
      elements?.forEach((e, i) => {
        if (isObj(e) && e.type !== "image") c.text(e, `${at}/elements/${i}`, 3000);
      });
      break;
    }
    case "actions": {
      const elements = c.list(block.elements, `${at}/elements`, 1, 25);
      elements?.forEach((e, i) => {
        checkElement(c, e, `${at}/elements/${i}`);
      });
      break;
    }
    case "input":
      c.text(block.label, `${at}/label`, 2000, { required: true, plainOnly: true });
      c.text(block.hint, `${at}/hint`, 2000, { plainOnly: true });
      if (block.element === undefined) c.add("missing required field", `${at}/element`);
      else checkElement(c, block.element, `${at}/element`);
      break;
    case "image":
      if (block.image_url === undefined && block.slack_file === undefined) {
        c.add("must provide either image_url or slack_file", at);
      }
      c.str(block.image_url, `${at}/image_url`, 3000);
      c.str(block.alt_text, `${at}/alt_text`, 2000, { required: true, min: 1 });
      c.text(block.title, `${at}/title`, 2000, { plainOnly: true });
      break;
    default:
      break;
  }
}

function checkElement(c: Checker, element: unknown, at: string): void {
  if (!isObj(element)) {
    c.add("must be an object", at);
    return;
  }
  if (typeof element.type !== "string") {
    c.add("missing required field: type", at);
    return;
  }
  c.str(element.action_id, `${at}/action_id`, 255);
  switch (element.type) {
    case "button":
      c.text(element.text, `${at}/text`, 75, { required: true, plainOnly: true });
      c.str(element.value, `${at}/value`, 2000);
      c.str(element.url, `${at}/url`, 3000);
      if (element.style !== undefined && element.style !== "primary" && element.style !== "danger") {
        c.add("must be one of: primary, danger", `${at}/style`);
      }
      break;
    case "checkboxes":
    case "radio_buttons":
      checkOptions(c, element, at, 1, 10);
      break;
    case "overflow":
      checkOptions(c, element, at, 1, 5);
      break;
    case "static_select":
    case "multi_static_select":
      c.text(element.placeholder, `${at}/placeholder`, 150, { plainOnly: true });
      if (element.option_groups === undefined) checkOptions(c, element, at, 1, 100);
      break;
    case "image":
      c.str(element.alt_text, `${at}/alt_text`, 2000, { required: true, min: 1 });
      break;
    default:
      break;
  }
}

function checkOptions(c: Checker, element: Obj, at: string, min: number, max: number): void {
  const options = c.list(element.options, `${at}/options`, min, max) ?? [];
  const keys = new Set<string>();
  options.forEach((o, i) => {
    const p = `${at}/options/${i}`;
    if (!isObj(o)) {
      c.add("must be an object", p);
      return;
    }
    c.text(o.text, `${p}/text`, 75, { required: true });
    c.str(o.value, `${p}/value`, 150, { required: true, min: 1 });
    c.text(o.description, `${p}/description`, 75);
    keys.add(optionKey(o));
  });
  const initial = [
    ...(Array.isArray(element.initial_options) ? element.initial_options : []),
    ...(element.initial_option === undefined ? [] : [element.initial_option]),
  ];
  initial.forEach((o, i) => {
    if (!isObj(o) || !keys.has(optionKey(o))) {
      c.add("initial option must be one of the options", `${at}/initial_options/${i}`);
    }
  });
}

/** Slack matches initial options against options on their text and value. */
function optionKey(o: Obj): string {
  const text = isObj(o.text) ? o.text.text : undefined;
  return JSON.stringify([o.value, text]);
}
