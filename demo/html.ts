/**
 * The final state of a channel as one self-contained HTML page: each message with its thread
 * replies, Block Kit rendered simply (header, sections, a grid of fields, small context text,
 * buttons shown disabled, images by URL). Everything that comes from a message is escaped.
 */
import { blocksOf, elementLabel, isObj, type Obj, str, textObject } from "./blocks.js";
import { escapeHtml, maskSecrets, mrkdwnToHtml, type Names, plainToHtml } from "./mrkdwn.js";

export interface PageMessage {
  ts: string;
  thread_ts?: string;
  text: string;
  blocks?: unknown[];
  edits: number;
  ephemeralTo?: string;
}

export interface ChannelPage {
  channel: string;
  messages: PageMessage[];
  names: Names;
  /** who posted the messages (the bot's name) */
  author: string;
  /** one line under the title */
  subtitle: string;
  /** Other conversations shown after the channel (a DM from the app), each under its own title. */
  also?: ReadonlyArray<{ title: string; subtitle: string; messages: PageMessage[] }>;
}

function textHtml(v: unknown, names: Names): string {
  const t = textObject(v);
  if (t === undefined) return "";
  return t.type === "mrkdwn" ? mrkdwnToHtml(t.text, names) : plainToHtml(t.text);
}

const isWebUrl = (url: string | undefined): url is string =>
  url !== undefined && /^https?:\/\/[^\s"'<>]+$/i.test(url);

function imageHtml(url: string | undefined, alt: string | undefined, cls: string): string {
  if (!isWebUrl(url)) return "";
  const a = escapeHtml(maskSecrets(alt ?? ""));
  return `<img class="${cls}" src="${escapeHtml(url)}" alt="${a}" title="${a}" loading="lazy">`;
}

function buttonHtml(e: Obj): string {
  const label = escapeHtml(maskSecrets(elementLabel(e)));
  const style = e.style === "danger" || e.style === "primary" ? ` ${e.style}` : "";
  return e.type === "button"
    ? `<button type="button" class="btn${style}" disabled>${label}</button>`
    : `<button type="button" class="btn select" disabled>${label} ▾</button>`;
}

function blockHtml(b: Obj, names: Names): string {
  switch (b.type) {
    case "header":
      return `<h3 class="block-header">${textHtml(b.text, names)}</h3>`;
    case "section": {
      const text = b.text === undefined ? "" : `<div class="section-text">${textHtml(b.text, names)}</div>`;
      const fields = Array.isArray(b.fields)
        ? `<div class="fields">${b.fields
            .filter(isObj)
            .map((f) => `<div class="field">${textHtml(f, names)}</div>`)
            .join("")}</div>`
        : "";
      let accessory = "";
      if (isObj(b.accessory)) {
        accessory =
          b.accessory.type === "image"
            ? imageHtml(str(b.accessory.image_url), str(b.accessory.alt_text), "accessory")
            : `<div class="accessory">${buttonHtml(b.accessory)}</div>`;
      }
      return `<section class="block section"><div class="section-main">${text}${fields}</div>${accessory}</section>`;
    }
    case "context": {
      const els = (Array.isArray(b.elements) ? b.elements.filter(isObj) : []).map((e) =>
        e.type === "image"
          ? imageHtml(str(e.image_url), str(e.alt_text), "context-image")
          : `<span>${textHtml(e, names)}</span>`,
      );
      return `<div class="block context">${els.join('<span class="sep"> · </span>')}</div>`;
    }
    case "actions": {
      const els = Array.isArray(b.elements) ? b.elements.filter(isObj) : [];
      return `<div class="block actions">${els.map(buttonHtml).join("")}</div>`;
    }
    case "divider":
      return "<hr>";
    case "image":
      return `<figure class="block image">${imageHtml(str(b.image_url), str(b.alt_text), "image")}</figure>`;
    default:
      return `<div class="block unknown">[${escapeHtml(String(b.type))} block]</div>`;
  }
}

function timeOf(ts: string): string {
  const ms = Math.floor(Number(ts) * 1000);
  return Number.isFinite(ms) ? new Date(ms).toISOString().slice(11, 19) : "";
}

function messageHtml(m: PageMessage, page: ChannelPage, replies: PageMessage[]): string {
  const blocks = blocksOf(m.blocks);
  const content =
    blocks.length > 0
      ? blocks.map((b) => blockHtml(b, page.names)).join("\n")
      : `<div class="section-text">${mrkdwnToHtml(m.text, page.names)}</div>`;
  const edited =
    m.edits > 0 ? ` <span class="edited">(edited${m.edits > 1 ? ` ×${m.edits}` : ""})</span>` : "";
  const only =
    m.ephemeralTo === undefined
      ? ""
      : `<div class="only">👁 Only visible to @${escapeHtml(page.names.user(m.ephemeralTo))}</div>`;
  const thread =
    replies.length === 0
      ? ""
      : `<div class="thread"><div class="thread-count">${replies.length} ${
          replies.length === 1 ? "reply" : "replies"
        }</div>${replies.map((r) => messageHtml(r, page, [])).join("\n")}</div>`;
  return `<article class="message${m.ephemeralTo === undefined ? "" : " ephemeral"}" id="m${escapeHtml(
    m.ts.replace(".", "-"),
  )}">
<div class="avatar" aria-hidden="true">▶</div>
<div class="body">
${only}<div class="meta"><strong>${escapeHtml(page.author)}</strong> <span class="app">APP</span> <time datetime="${escapeHtml(
    m.ts,
  )}">${timeOf(m.ts)} UTC</time>${edited}</div>
${content}
${thread}
</div>
</article>`;
}

const STYLE = `
body{margin:0;background:#f8f8f8;font:15px/1.46 -apple-system,BlinkMacSystemFont,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:#1d1c1d}
main{max-width:860px;margin:0 auto;background:#fff;min-height:100vh;box-shadow:0 0 0 1px #e2e2e2}
header.channel{padding:14px 20px;border-bottom:1px solid #e2e2e2;position:sticky;top:0;background:#fff}
header.channel h1{margin:0;font-size:18px}
header.channel p{margin:2px 0 0;color:#616061;font-size:13px}
.message{display:flex;gap:10px;padding:10px 20px}
.message:hover{background:#f8f8f8}
.message.ephemeral{background:#fdf8e8}
.avatar{flex:none;width:36px;height:36px;border-radius:6px;background:#4a154b;color:#fff;display:flex;align-items:center;justify-content:center;font-size:14px}
.body{flex:1;min-width:0}
.meta{font-size:15px}
.meta time,.edited{color:#616061;font-size:12px}
.app{background:#e8e8e8;color:#616061;font-size:10px;font-weight:700;padding:1px 3px;border-radius:2px}
.only{color:#616061;font-size:12px;margin-bottom:2px}
.block-header{font-size:18px;margin:6px 0}
.section{display:flex;gap:12px;margin:6px 0}
.section-main{flex:1;min-width:0;overflow-wrap:anywhere}
.fields{display:grid;grid-template-columns:1fr 1fr;gap:8px 16px;margin-top:4px}
img.accessory{flex:none;width:88px;height:88px;object-fit:cover;border-radius:6px;background:linear-gradient(135deg,#3a3f58,#8a6fb0);font-size:0;color:transparent}
/* Offline (the demo), thumbnails do not load: the box stays, the alt text is hidden */
img.context-image{width:16px;height:16px;vertical-align:middle}
figure.image{margin:6px 0}figure.image img{max-width:100%}
.context{color:#616061;font-size:12px;margin:6px 0}
.actions{display:flex;flex-wrap:wrap;gap:8px;margin:8px 0}
.btn{font:inherit;font-size:13px;font-weight:700;padding:4px 12px;border:1px solid #c6c6c6;border-radius:4px;background:#fff;color:#1d1c1d;opacity:.85}
.btn.primary{background:#007a5a;color:#fff;border-color:#007a5a}
.btn.danger{color:#e01e5a;border-color:#e01e5a}
code{font:12px Menlo,Consolas,monospace;background:#f3f3f3;border:1px solid #e2e2e2;border-radius:3px;padding:0 3px;color:#e01e5a}
pre{font:12px Menlo,Consolas,monospace;background:#f8f8f8;border:1px solid #e2e2e2;border-radius:4px;padding:8px;white-space:pre-wrap;overflow-wrap:anywhere}
a{color:#1264a3;text-decoration:none}
.mention{background:#e8f5fa;color:#1264a3;border-radius:3px;padding:0 2px}
.thread{border-left:3px solid #e2e2e2;margin:8px 0 4px;padding-left:4px}
.thread .message{padding:6px 8px}
.thread-count{color:#1264a3;font-size:13px;font-weight:700;padding:2px 8px}
hr{border:0;border-top:1px solid #e2e2e2}
`;

const isReply = (m: PageMessage) => m.thread_ts !== undefined && m.thread_ts !== m.ts;

/** Messages in order, each thread under its parent. */
function conversationHtml(messages: PageMessage[], page: ChannelPage): string {
  return messages
    .filter((m) => !isReply(m))
    .map((p) =>
      messageHtml(
        p,
        page,
        messages.filter((m) => isReply(m) && m.thread_ts === p.ts),
      ),
    )
    .join("\n");
}

/** The page: the channel, then the other conversations (`also`). */
export function channelHtml(page: ChannelPage): string {
  const body = [
    conversationHtml(page.messages, page),
    ...(page.also ?? []).map(
      (c) =>
        `<header class="channel"><h1>${escapeHtml(c.title)}</h1><p>${escapeHtml(c.subtitle)}</p></header>\n${conversationHtml(c.messages, page)}`,
    ),
  ].join("\n");
  const title = `#${page.channel}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} — platform-slack-bot demo</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<header class="channel"><h1>${escapeHtml(title)}</h1><p>${escapeHtml(page.subtitle)}</p></header>
${body}
</main>
</body>
</html>
`;
}
