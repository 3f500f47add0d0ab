/**
 * A Slack message as terminal lines: header, sections, fields as a label column, context, images
 * as their URL, buttons as [Label]. Falls back to the message's text when it has no blocks.
 */
import { blocksOf, elementLabel, isObj, labelledField, type Obj, str, textObject } from "./blocks.js";
import { maskSecrets, mrkdwnToText, type Names } from "./mrkdwn.js";

export interface MessageContent {
  text?: string;
  blocks?: unknown;
}

function textLines(v: unknown, names: Names): string[] {
  const t = textObject(v);
  if (t === undefined) return [];
  const text = t.type === "mrkdwn" ? mrkdwnToText(t.text, names) : maskSecrets(t.text);
  return text.split("\n");
}

/** Fields as `Label     value`, continuation lines under the value. */
function fieldLines(fields: Obj[], names: Names): string[] {
  const read = fields.map((f) => {
    const t = textObject(f);
    if (t === undefined) return { label: "", value: "" };
    const split = t.type === "mrkdwn" ? labelledField(t.text) : undefined;
    return split === undefined
      ? { label: "", value: mrkdwnToText(t.text, names) }
      : { label: mrkdwnToText(split.label, names), value: mrkdwnToText(split.value, names) };
  });
  const width = Math.min(18, Math.max(0, ...read.map((f) => [...f.label].length)) + 2);
  const out: string[] = [];
  for (const { label, value } of read) {
    const [first = "", ...rest] = value.split("\n");
    if (label === "") {
      out.push(first, ...rest);
      continue;
    }
    out.push(`${label.padEnd(width)}${first}`);
    for (const line of rest) out.push(`${" ".repeat(width)}${line}`);
  }
  return out;
}

function accessoryLine(a: unknown): string | undefined {
  if (!isObj(a)) return undefined;
  if (a.type === "image") return `🖼  ${str(a.image_url) ?? "(image)"}`;
  return a.type === "button" ? `[${maskSecrets(elementLabel(a))}]` : `[${maskSecrets(elementLabel(a))} ▾]`;
}

function blockLines(b: Obj, names: Names): string[] {
  switch (b.type) {
    case "header":
      return textLines(b.text, names);
    case "section": {
      const out = textLines(b.text, names);
      if (Array.isArray(b.fields)) out.push(...fieldLines(b.fields.filter(isObj), names));
      const accessory = accessoryLine(b.accessory);
      if (accessory !== undefined) out.push(accessory);
      return out;
    }
    case "context": {
      const parts = (Array.isArray(b.elements) ? b.elements.filter(isObj) : []).map((e) =>
        e.type === "image" ? `🖼 ${str(e.image_url) ?? ""}` : textLines(e, names).join(" "),
      );
      return [parts.join(" · ")];
    }
    case "actions": {
      const els = Array.isArray(b.elements) ? b.elements.filter(isObj) : [];
      return [
        els.map((e) => (e.type === "button" ? `[${elementLabel(e)}]` : `[${elementLabel(e)} ▾]`)).join("  "),
      ];
    }
    case "divider":
      return ["─".repeat(40)];
    case "image":
      return [`🖼  ${str(b.image_url) ?? "(image)"}${str(b.alt_text) ? ` (${str(b.alt_text)})` : ""}`];
    default:
      return [`[${String(b.type)} block]`];
  }
}

/** The lines a Slack user reads for this message. */
export function messageLines(m: MessageContent, names: Names): string[] {
  const blocks = blocksOf(m.blocks);
  if (blocks.length === 0) return mrkdwnToText(m.text ?? "", names).split("\n");
  return blocks.flatMap((b) => blockLines(b, names));
}
