/**
 * Shared checks of the fuzz tests: Block Kit limits (independent of src/messages/limits.ts),
 * mention injection, well-formed Unicode, and a guard against unhandled rejections.
 */
interface Obj {
  [k: string]: unknown;
}
const isObj = (v: unknown): v is Obj => v !== null && typeof v === "object" && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === "string" ? v : "");

function textProblems(out: string[], where: string, t: unknown, max: number, plainOnly = false): void {
  if (!isObj(t)) {
    out.push(`${where}: not a text object`);
    return;
  }
  if (t.type !== "plain_text" && (plainOnly || t.type !== "mrkdwn"))
    out.push(`${where}: type ${String(t.type)}`);
  const s = str(t.text);
  if (s.trim() === "") out.push(`${where}: empty`);
  if (s.length > max) out.push(`${where}: ${s.length} > ${max}`);
}

function elementProblems(out: string[], where: string, el: unknown): void {
  if (!isObj(el)) {
    out.push(`${where}: not an object`);
    return;
  }
  const id = str(el.action_id);
  if (el.action_id !== undefined && (id === "" || id.length > 255))
    out.push(`${where}.action_id: ${id.length}`);
  if (el.type === "button") {
    textProblems(out, `${where}.text`, el.text, 75, true);
    if (str(el.value).length > 2000) out.push(`${where}.value: > 2000`);
    if (str(el.url).length > 3000) out.push(`${where}.url: > 3000`);
  } else if (el.type === "static_select") {
    textProblems(out, `${where}.placeholder`, el.placeholder, 150, true);
    const options = Array.isArray(el.options) ? el.options : [];
    if (options.length < 1 || options.length > 100) out.push(`${where}.options: ${options.length}`);
    options.forEach((o, j) => {
      if (!isObj(o)) {
        out.push(`${where}.options[${j}]: not an object`);
        return;
      }
      textProblems(out, `${where}.options[${j}].text`, o.text, 75, true);
      const v = str(o.value);
      if (v === "" || v.length > 150) out.push(`${where}.options[${j}].value: ${v.length}`);
    });
  } else if (el.type === "image") {
    if (!/^https?:\/\/\S+$/.test(str(el.image_url)) || str(el.image_url).length > 3000) {
      out.push(`${where}.image_url: not a usable URL`);
    }
    const alt = str(el.alt_text);
    if (alt === "" || alt.length > 2000) out.push(`${where}.alt_text: ${alt.length}`);
  }
}

/**
 * Block Kit limits, checked independently of src/messages/limits.ts (so a mistake in that
 * checker does not hide one in the renderers): blocks, header/section/fields/context/actions
 * texts, buttons, ids, and the fallback text of a message.
 */
export function blockKitProblems(msg: { text?: unknown; blocks?: unknown }, maxBlocks = 50): string[] {
  const out: string[] = [];
  if (msg.text !== undefined) {
    const t = str(msg.text);
    if (t.trim() === "") out.push("text: empty fallback");
    if (t.length > 40000) out.push("text: > 40000");
  }
  const blocks = Array.isArray(msg.blocks) ? msg.blocks : [];
  if (blocks.length === 0) out.push("blocks: none");
  if (blocks.length > maxBlocks) out.push(`blocks: ${blocks.length} > ${maxBlocks}`);
  const ids = new Set<string>();
  blocks.forEach((b, i) => {
    const w = `blocks[${i}]`;
    if (!isObj(b)) {
      out.push(`${w}: not an object`);
      return;
    }
    if (b.block_id !== undefined) {
      const id = str(b.block_id);
      if (id === "" || id.length > 255 || ids.has(id)) out.push(`${w}.block_id: ${JSON.stringify(id)}`);
      ids.add(id);
    }
    const elements = Array.isArray(b.elements) ? b.elements : [];
    switch (b.type) {
      case "header":
        textProblems(out, `${w}.text`, b.text, 150, true);
        break;
      case "section": {
        const fields = Array.isArray(b.fields) ? b.fields : [];
        if (b.text === undefined && fields.length === 0) out.push(`${w}: no text and no fields`);
        if (b.text !== undefined) textProblems(out, `${w}.text`, b.text, 3000);
        if (fields.length > 10) out.push(`${w}.fields: ${fields.length} > 10`);
        fields.forEach((f, j) => {
          textProblems(out, `${w}.fields[${j}]`, f, 2000);
        });
        if (b.accessory !== undefined) elementProblems(out, `${w}.accessory`, b.accessory);
        break;
      }
      case "context":
        if (elements.length < 1 || elements.length > 10) out.push(`${w}.elements: ${elements.length}`);
        elements.forEach((e, j) => {
          if (isObj(e) && e.type === "image") elementProblems(out, `${w}.elements[${j}]`, e);
          else textProblems(out, `${w}.elements[${j}]`, e, 3000);
        });
        break;
      case "actions":
        if (elements.length < 1 || elements.length > 25) out.push(`${w}.elements: ${elements.length}`);
        elements.forEach((e, j) => {
          elementProblems(out, `${w}.elements[${j}]`, e);
        });
        break;
      case "divider":
      case "image":
      case "input":
        break;
      default:
        out.push(`${w}: unexpected block type ${String(b.type)}`);
    }
  });
  return out;
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** No lone surrogate (String.prototype.isWellFormed, which the TypeScript target lacks). */
export function isWellFormed(s: string): boolean {
  LONE_SURROGATE.lastIndex = 0;
  return !LONE_SURROGATE.test(s);
}

/** Lone surrogates replaced by U+FFFD. */
export function toWellFormed(s: string): string {
  return s.replace(LONE_SURROGATE, "\ufffd");
}

/** Every string of a value, keys included. */
export function stringsOf(v: unknown, out: string[] = []): string[] {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) for (const x of v) stringsOf(x, out);
  else if (isObj(v)) {
    for (const [k, x] of Object.entries(v)) {
      out.push(k);
      stringsOf(x, out);
    }
  }
  return out;
}

/** The texts Slack reads as mrkdwn: mrkdwn text objects, and the fallback `text` of a message. */
export function mrkdwnTexts(v: unknown, out: string[] = []): string[] {
  if (Array.isArray(v)) for (const x of v) mrkdwnTexts(x, out);
  else if (isObj(v)) {
    if (v.type === "mrkdwn" && typeof v.text === "string") out.push(v.text);
    for (const x of Object.values(v)) mrkdwnTexts(x, out);
  }
  return out;
}

/**
 * Mentions and specials that would notify someone: `<!channel>`, `<!here>`, `<!everyone>`,
 * `<!subteam^…>`, and user/channel mentions other than `allowed` (what the renderer was asked to
 * mention). Date tokens and links are fine.
 */
export function injectionProblems(
  msg: { text?: unknown; blocks?: unknown },
  allowed: readonly string[] = [],
): string[] {
  const texts = mrkdwnTexts(msg.blocks);
  if (typeof msg.text === "string") texts.push(msg.text);
  const out: string[] = [];
  for (const t of texts) {
    for (const m of t.matchAll(/<([!@#])([^|>]*)/g)) {
      const [whole, sigil, rest = ""] = m;
      if (sigil === "!" && rest.startsWith("date^")) continue;
      if ((sigil === "@" || sigil === "#") && allowed.includes(rest)) continue;
      out.push(`${JSON.stringify(whole)} in ${JSON.stringify(t.slice(0, 120))}`);
    }
  }
  return out;
}

/** Fails the test on an unhandled rejection in this process (vitest also reports them). */
export function guardUnhandled(): { check(): void; dispose(): void } {
  const seen: unknown[] = [];
  const onRejection = (reason: unknown) => {
    seen.push(reason);
  };
  process.on("unhandledRejection", onRejection);
  return {
    check() {
      if (seen.length > 0) throw new Error(`unhandled rejection: ${String(seen[0])}`);
    },
    dispose() {
      process.off("unhandledRejection", onRejection);
    },
  };
}
