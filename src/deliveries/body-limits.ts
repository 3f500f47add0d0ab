/**
 * What a delivery body may hold, checked on the delivery route before anything is stored.
 * More: README.md ("body-limits.ts").
 */

export const MAX_DEPTH = 16;
export const MAX_VALUES = 512;
export const MAX_KEY_LENGTH = 128;
export const MAX_STRING_LENGTH = 8192;
export const MAX_AGE_MS = 7 * 24 * 3600_000;
export const MAX_AHEAD_MS = 5 * 60_000;

export type RefusalReason =
  | "too_deep"
  | "too_many_values"
  | "key_too_long"
  | "string_too_long"
  | "reserved_key"
  | "too_old"
  | "in_future";

export interface Refusal {
  reason: RefusalReason;
  error: string;
}

const QUOTE = 34;
const BACKSLASH = 92;
const OPEN_BRACE = 123;
const OPEN_BRACKET = 91;
const CLOSE_BRACE = 125;
const CLOSE_BRACKET = 93;

/**
 * True when `text` opens more than `max` objects/arrays inside one another (brackets inside JSON
 * strings do not count). Linear: a string is skipped with indexOf, each quote found looks back
 * over the backslashes just before it (runs that are never looked at twice). Text that is not
 * JSON gives some answer; JSON.parse refuses it next anyway.
 */
export function tooDeep(text: string, max = MAX_DEPTH): boolean {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      let j = i + 1;
      for (;;) {
        j = text.indexOf('"', j);
        if (j < 0) return false; // unterminated string: not JSON
        let k = j - 1;
        while (text.charCodeAt(k) === BACKSLASH) k--;
        if ((j - 1 - k) % 2 === 0) break; // an even number of backslashes: the closing quote
        j++;
      }
      i = j;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > max) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

const RESERVED = new Set(["__proto__", "constructor", "prototype"]);

/** The first cap a parsed body breaks, or undefined. Run only on bodies `tooDeep` let through. */
export function valueProblem(body: unknown): Refusal | undefined {
  const budget = { left: MAX_VALUES };
  return walk(body, budget);
}

function walk(v: unknown, budget: { left: number }): Refusal | undefined {
  if (typeof v === "string") {
    return v.length > MAX_STRING_LENGTH
      ? { reason: "string_too_long", error: `a string is longer than ${MAX_STRING_LENGTH} characters` }
      : undefined;
  }
  if (typeof v !== "object" || v === null) return undefined;
  if (Array.isArray(v)) {
    budget.left -= v.length;
    if (budget.left < 0) return tooMany();
    for (const e of v) {
      const p = walk(e, budget);
      if (p) return p;
    }
    return undefined;
  }
  const keys = Object.keys(v);
  budget.left -= keys.length;
  if (budget.left < 0) return tooMany();
  for (const key of keys) {
    if (key.length > MAX_KEY_LENGTH) {
      return { reason: "key_too_long", error: `a key is longer than ${MAX_KEY_LENGTH} characters` };
    }
    if (RESERVED.has(key)) return { reason: "reserved_key", error: `the key "${key}" is not allowed` };
    const p = walk((v as Record<string, unknown>)[key], budget);
    if (p) return p;
  }
  return undefined;
}

const tooMany = (): Refusal => ({
  reason: "too_many_values",
  error: `more than ${MAX_VALUES} keys and array elements in all`,
});

/** Refuses a delivery time (Unix ms) too far from `now` (the bot's clock). */
export function timestampProblem(timestamp: number, now: number): Refusal | undefined {
  if (timestamp < now - MAX_AGE_MS) {
    return { reason: "too_old", error: "the timestamp is more than 7 days old" };
  }
  if (timestamp > now + MAX_AHEAD_MS) {
    return { reason: "in_future", error: "the timestamp is more than 5 minutes in the future" };
  }
  return undefined;
}
