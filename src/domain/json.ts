/**
 * Canonical JSON: one text per value, whatever its key order. The video messages show foreign
 * data with it, and src/notify hashes it (dedupe keys, the parent's hash).
 */

/** The JSON text of a leaf value, or undefined for an array or object. */
function leafJson(value: unknown): string | undefined {
  if (value === null || value === undefined) return "null";
  switch (typeof value) {
    case "string":
      return JSON.stringify(value);
    case "number":
      return Number.isFinite(value) ? JSON.stringify(value) : "null";
    case "boolean":
      return value ? "true" : "false";
    case "bigint":
      return JSON.stringify(value.toString());
    case "function":
    case "symbol":
      return "null";
    default:
      return undefined;
  }
}

type Frame =
  | { arr: readonly unknown[]; i: number }
  | { obj: Record<string, unknown>; keys: string[]; i: number; first: boolean };

const skipped = (v: unknown): boolean => v === undefined || typeof v === "function" || typeof v === "symbol";

/**
 * JSON with object keys sorted recursively (code-unit order), so equal values give equal text
 * whatever their key insertion order. Like `JSON.stringify`: `undefined` and functions are left
 * out of objects and become `null` in arrays, non-finite numbers become `null`.
 *
 * Never "Maximum call stack size exceeded": plain recursion for the usual shallow data (fast, this
 * runs for every delivery), and below RECURSION_MAX levels an explicit stack for the rest, so
 * foreign data nested thousands of levels deep still gives its text.
 */
export function canonicalJson(value: unknown): string {
  return recursive(value, 0);
}

const RECURSION_MAX = 64;

function recursive(value: unknown, depth: number): string {
  const leaf = leafJson(value);
  if (leaf !== undefined) return leaf;
  if (depth >= RECURSION_MAX) return iterative(value);
  // Plain string building rather than map/join: this runs for every delivery (dedupe key).
  if (Array.isArray(value)) {
    let out = "[";
    for (let i = 0; i < value.length; i++) out += (i === 0 ? "" : ",") + recursive(value[i], depth + 1);
    return `${out}]`;
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj);
  if (keys.length > 1) keys.sort();
  let out = "{";
  let first = true;
  for (const key of keys) {
    const v = obj[key];
    if (skipped(v)) continue;
    out += `${first ? "" : ","}${JSON.stringify(key)}:${recursive(v, depth + 1)}`;
    first = false;
  }
  return `${out}}`;
}

/** The same text with an explicit stack (no recursion, whatever the depth). */
function iterative(value: unknown): string {
  let out = "";
  const stack: Frame[] = [];
  const open = (v: unknown): void => {
    const l = leafJson(v);
    if (l !== undefined) {
      out += l;
    } else if (Array.isArray(v)) {
      out += "[";
      stack.push({ arr: v, i: 0 });
    } else {
      const obj = v as Record<string, unknown>;
      const keys = Object.keys(obj);
      if (keys.length > 1) keys.sort();
      out += "{";
      stack.push({ obj, keys, i: 0, first: true });
    }
  };
  open(value);
  for (let top = stack.at(-1); top !== undefined; top = stack.at(-1)) {
    if ("arr" in top) {
      if (top.i < top.arr.length) {
        if (top.i > 0) out += ",";
        open(top.arr[top.i++]);
      } else {
        out += "]";
        stack.pop();
      }
      continue;
    }
    let next: { key: string; v: unknown } | undefined;
    while (next === undefined && top.i < top.keys.length) {
      const key = top.keys[top.i++] as string;
      const v = top.obj[key];
      if (!skipped(v)) next = { key, v };
    }
    if (next === undefined) {
      out += "}";
      stack.pop();
    } else {
      out += `${top.first ? "" : ","}${JSON.stringify(next.key)}:`;
      top.first = false;
      open(next.v);
    }
  }
  return out;
}
