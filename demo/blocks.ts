/**
 * Reading Block Kit as it arrives at the Slack stand-in (plain JSON, `unknown`): small guards and
 * accessors shared by the terminal and HTML renderings of the demo.
 */

export type Obj = Record<string, unknown>;

export const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

export interface TextObject {
  type: "mrkdwn" | "plain_text";
  text: string;
}

/** A text object (`{type, text}`), or undefined. */
export function textObject(v: unknown): TextObject | undefined {
  if (!isObj(v) || typeof v.text !== "string") return undefined;
  return { type: v.type === "plain_text" ? "plain_text" : "mrkdwn", text: v.text };
}

/** The blocks of a message: the objects of an array, anything else ignored. */
export function blocksOf(v: unknown): Obj[] {
  return Array.isArray(v) ? v.filter(isObj) : [];
}

export function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

/** The label of an interactive element: a button's text, a select's placeholder, else its type. */
export function elementLabel(e: Obj): string {
  return (
    textObject(e.text)?.text ??
    textObject(e.placeholder)?.text ??
    str(e.type)?.replace(/_/g, " ") ??
    "control"
  );
}

/** A field written `*Label*\nvalue…` split in two, else undefined. */
export function labelledField(text: string): { label: string; value: string } | undefined {
  const m = /^\*([^*\n]+)\*\n([\s\S]*)$/.exec(text);
  if (m === null) return undefined;
  return { label: m[1] ?? "", value: m[2] ?? "" };
}
