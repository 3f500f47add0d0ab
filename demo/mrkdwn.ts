/**
 * Slack mrkdwn for the demo's two outputs: a terminal (plain text, `*bold*` kept) and an HTML page
 * (escaped, with bold, italics, code and links). Only what the bot's messages use is rendered:
 * `<!date^…|fallback>`, `<#C…>`, `<@U…>`, `<url|label>`, `<!here>`, code spans and blocks.
 * Stream keys are masked everywhere: the demo prints to a terminal and writes a file.
 */

/** Display names of the people and channels of the demo workspace. */
export interface Names {
  user(id: string): string;
  channel(id: string): string;
}

const STREAM_KEY = /\b(sk_live_)[A-Za-z0-9]+/g;

/** `rtmp://…/live/sk_live_7Qm2…` → `rtmp://…/live/sk_live_••••`. */
export function maskSecrets(text: string): string {
  return text.replace(STREAM_KEY, "$1••••");
}

/** The same value with every string in it masked (message arguments, blocks). */
export function maskDeep<T>(value: T): T {
  return JSON.parse(maskSecrets(JSON.stringify(value))) as T;
}

/** Slack escapes these three in mrkdwn and plain text it sends. */
export function unescapeSlack(text: string): string {
  return text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}

export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/** One `<…>` token of mrkdwn, read. */
type Token =
  | { kind: "link"; url: string; label: string | undefined }
  | { kind: "user"; name: string }
  | { kind: "channel"; name: string }
  | { kind: "text"; text: string };

function readToken(inner: string, names: Names): Token {
  const bar = inner.indexOf("|");
  const target = bar === -1 ? inner : inner.slice(0, bar);
  const label = bar === -1 ? undefined : unescapeSlack(inner.slice(bar + 1));
  if (target.startsWith("!date^")) {
    return { kind: "text", text: label ?? "(a date)" };
  }
  if (target.startsWith("!subteam^")) return { kind: "text", text: label ?? "@group" };
  if (target.startsWith("!")) return { kind: "text", text: `@${target.slice(1)}` };
  if (target.startsWith("@")) return { kind: "user", name: label ?? names.user(target.slice(1)) };
  if (target.startsWith("#")) return { kind: "channel", name: label ?? names.channel(target.slice(1)) };
  return { kind: "link", url: unescapeSlack(target), label };
}

/** Splits mrkdwn into text pieces and `<…>` tokens. */
function tokens(mrkdwn: string, names: Names): Token[] {
  const out: Token[] = [];
  let last = 0;
  for (const m of mrkdwn.matchAll(/<([^<>\n]+)>/g)) {
    const at = m.index ?? 0;
    if (at > last) out.push({ kind: "text", text: unescapeSlack(mrkdwn.slice(last, at)) });
    out.push(readToken(m[1] ?? "", names));
    last = at + m[0].length;
  }
  if (last < mrkdwn.length) out.push({ kind: "text", text: unescapeSlack(mrkdwn.slice(last)) });
  return out;
}

function tokenText(t: Token): string {
  switch (t.kind) {
    case "user":
      return `@${t.name}`;
    case "channel":
      return `#${t.name}`;
    case "link":
      return t.label === undefined || t.label === t.url ? t.url : `${t.label} (${t.url})`;
    case "text":
      return t.text;
  }
}

/** mrkdwn → terminal text: tokens resolved, entities unescaped, code fences dropped, `*bold*` kept. */
export function mrkdwnToText(mrkdwn: string, names: Names): string {
  const parts = tokens(mrkdwn, names).map(tokenText).join("").split("```");
  let out = "";
  for (const [i, part] of parts.entries()) {
    if (i % 2 === 1) {
      // A code block stands on its own lines.
      if (out !== "" && !out.endsWith("\n")) out += "\n";
      out += part.replace(/^\n|\n$/g, "");
      if (i < parts.length - 1 && !(parts[i + 1] ?? "").startsWith("\n") && parts[i + 1] !== "") out += "\n";
    } else {
      out += part;
    }
  }
  return maskSecrets(out);
}

/** Inline formatting of already-escaped HTML text: `code`, *bold*, _italic_, ~strike~. */
function inlineHtml(escaped: string): string {
  const edge = "(^|[\\s(\\[>'\"\\u2014\\u00b7:])";
  const end = "(?=$|[\\s).,;:!?\\]<'\"\\u2014\\u00b7])";
  return escaped
    .replace(/`([^`\n]+)`/g, "<code>$1</code>")
    .replace(new RegExp(`${edge}\\*([^*\\n]+)\\*${end}`, "g"), "$1<strong>$2</strong>")
    .replace(new RegExp(`${edge}_([^_\\n]+)_${end}`, "g"), "$1<em>$2</em>")
    .replace(new RegExp(`${edge}~([^~\\n]+)~${end}`, "g"), "$1<del>$2</del>");
}

const isWebUrl = (url: string) => /^https?:\/\/[^\s"'<>]+$/i.test(url);

function tokensHtml(mrkdwn: string, names: Names, formatted: boolean): string {
  return tokens(mrkdwn, names)
    .map((t) => {
      switch (t.kind) {
        case "user":
          return `<span class="mention">@${escapeHtml(t.name)}</span>`;
        case "channel":
          return `<span class="mention">#${escapeHtml(t.name)}</span>`;
        case "link":
          return isWebUrl(t.url)
            ? `<a href="${escapeHtml(t.url)}" rel="noopener noreferrer">${escapeHtml(t.label ?? t.url)}</a>`
            : escapeHtml(tokenText(t));
        case "text":
          return formatted ? inlineHtml(escapeHtml(t.text)) : escapeHtml(t.text);
      }
      return "";
    })
    .join("");
}

/** mrkdwn → HTML: everything escaped; code blocks as <pre>, line breaks as <br>. */
export function mrkdwnToHtml(mrkdwn: string, names: Names): string {
  const parts = maskSecrets(mrkdwn).split("```");
  return parts
    .map((part, i) => {
      if (i % 2 === 1) return `<pre>${tokensHtml(part.replace(/^\n|\n$/g, ""), names, false)}</pre>`;
      // A <pre> is a block already: no line break before or after it.
      let text = part;
      if (i > 0) text = text.replace(/^\n/, "");
      if (i < parts.length - 1) text = text.replace(/\n$/, "");
      return tokensHtml(text, names, true).replace(/\n/g, "<br>");
    })
    .join("");
}

/** Plain text (never interpreted by Slack) → HTML. */
export function plainToHtml(text: string): string {
  return escapeHtml(maskSecrets(text)).replace(/\n/g, "<br>");
}
