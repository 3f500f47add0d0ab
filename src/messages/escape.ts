/**
 * The text helpers every renderer uses: truncation that never cuts a surrogate pair, an entity or
 * a mrkdwn token in half, mrkdwn escaping, and the plain text of an HTML fragment.
 *
 * Lengths are counted in UTF-16 code units (`string.length`), like the limits of limits.ts.
 */

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
