/**
 * What Slack users see, as it happens: reads the stand-in's recorded calls in order
 * (chat.postMessage, chat.update, chat.delete, response_url posts) and prints each one as a new
 * message, a thread reply, an edit or a deletion, with the message rendered as text.
 */
import type { RecordedCall, SlackStandin } from "../fakes/slack/index.js";
import { str } from "./blocks.js";
import { maskDeep, type Names } from "./mrkdwn.js";
import type { Style } from "./style.js";
import { messageLines } from "./text.js";

export interface TranscriptStats {
  messages: number;
  replies: number;
  edits: number;
  ephemeral: number;
  deleted: number;
  failed: number;
}

export function ordinal(n: number): string {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  const suffix = ["th", "st", "nd", "rd"][n % 10] ?? "th";
  return `${n}${n % 10 > 3 ? "th" : suffix}`;
}

/** Message lines are wrapped at this many characters, as Slack wraps them to its window. */
const WIDTH = 100;

/**
 * Breaks a line at spaces to at most `width` characters (a longer word, such as a URL, stays
 * whole). Continuation lines are indented like the line's text: under a bullet's text, under a
 * field's value, or under the text after its leading spaces.
 */
export function wrap(line: string, width: number): string[] {
  if ([...line].length <= width) return [line];
  const bullet = /^\s*[•\-*] /.exec(line)?.[0];
  const indent = (bullet ?? /^(\S[^\n]*?\s{2,})\S/.exec(line)?.[1] ?? /^\s*/.exec(line)?.[0] ?? "").length;
  const pad = " ".repeat(indent > width / 2 ? 2 : indent);
  // A context line ("Created … · Published … · 36 events") breaks between its parts first.
  const parts = line.includes(" · ") ? line.split(" · ").map((p, i) => (i === 0 ? p : `· ${p}`)) : [line];
  const out: string[] = [];
  let current = "";
  const push = (piece: string, sep: string) => {
    const next = current === "" ? piece : `${current}${sep}${piece}`;
    if ([...next].length > width && current.trim() !== "") {
      out.push(current);
      current = `${pad}${piece}`;
    } else {
      current = next;
    }
  };
  for (const part of parts) {
    if ([...part].length + pad.length <= width) push(part, " ");
    else for (const word of part.split(" ")) push(word, " ");
  }
  if (current !== "") out.push(current);
  return out;
}

/** The id at the end of a response_url (`…/response/<id>`). */
function responseId(url: string): string {
  return /\/response\/([^/?#]+)$/.exec(url)?.[1] ?? url;
}

export class Transcript {
  readonly stats: TranscriptStats = {
    messages: 0,
    replies: 0,
    edits: 0,
    ephemeral: 0,
    deleted: 0,
    failed: 0,
  };
  /** Printed events (messages, replies, edits, deletions), to tell whether anything new appeared. */
  events = 0;
  /** Called before each event is printed (the demo flushes its own narration there). */
  beforeEvent: (() => void) | undefined;
  private cursor = 0;
  private timer: NodeJS.Timeout | undefined;
  /** `${channel} ${ts}` of every message already accounted for */
  private readonly seen = new Set<string>();
  private readonly editCount = new Map<string, number>();
  private readonly urls = new Map<string, { channel: string; user: string; last?: string }>();

  constructor(
    private readonly slack: SlackStandin,
    private readonly names: Names,
    private readonly print: (line: string) => void,
    private readonly s: Style,
  ) {}

  /** Remembers where a response_url answers (the stand-in does not say it in the call). */
  track(responseUrl: string, channel: string, user: string): void {
    this.urls.set(responseId(responseUrl), { channel, user });
  }

  start(intervalMs = 15): void {
    this.timer ??= setInterval(() => this.pump(), intervalMs);
  }

  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    this.pump();
  }

  /** Prints every call answered so far, in order; stops at the first still in flight. */
  pump(): void {
    const calls = this.slack.calls;
    while (this.cursor < calls.length) {
      const call = calls[this.cursor];
      if (call === undefined || call.status === 0) return;
      this.cursor += 1;
      this.show(call);
    }
  }

  private where(channel: string): string {
    if (/^[UW]/.test(channel)) return `DM @${this.names.user(channel)}`;
    // The stand-in's DM of the app with U… is D… (conversations.open).
    if (/^D/.test(channel)) return `DM @${this.names.user(`U${channel.slice(1)}`)}`;
    return `#${this.names.channel(channel)}`;
  }

  /** The ts of the oldest message of the channel not yet accounted for. */
  private newTs(channel: string): string | undefined {
    const fresh = this.slack.messages(channel).find((m) => !this.seen.has(`${channel} ${m.ts}`));
    if (fresh !== undefined) this.seen.add(`${channel} ${fresh.ts}`);
    return fresh?.ts;
  }

  private announce(): void {
    this.beforeEvent?.();
    this.events += 1;
    this.print("");
  }

  private body(args: Record<string, unknown>): void {
    const content = maskDeep({ text: str(args.text), blocks: args.blocks });
    for (const line of messageLines(content, this.names)) {
      for (const part of wrap(line, WIDTH)) this.print(`   ${this.s.dim("│")} ${part}`);
    }
  }

  private edited(channel: string, ts: string, args: Record<string, unknown>): void {
    const key = `${channel} ${ts}`;
    const n = (this.editCount.get(key) ?? 0) + 1;
    this.editCount.set(key, n);
    this.stats.edits += 1;
    this.announce();
    this.print(
      `${this.s.bold(this.where(channel))}  ${this.s.yellow(`✎ edited (${ordinal(n)} edit)`)} ${this.s.dim(
        `message ts ${ts}`,
      )}`,
    );
    this.body(args);
  }

  private posted(
    channel: string,
    args: Record<string, unknown>,
    opts: { ephemeralTo?: string; threadTs?: string } = {},
  ): string | undefined {
    const ts = this.newTs(channel);
    const only =
      opts.ephemeralTo === undefined
        ? ""
        : ` ${this.s.magenta(`(only visible to @${this.names.user(opts.ephemeralTo)})`)}`;
    this.announce();
    if (opts.threadTs !== undefined) {
      this.stats.replies += 1;
      this.print(
        `${this.s.bold(this.where(channel))}  ${this.s.cyan("↳ thread reply")} ${this.s.dim(
          `(ts ${ts ?? "?"}, in the thread of ${opts.threadTs})`,
        )}${only}`,
      );
    } else {
      if (opts.ephemeralTo === undefined) this.stats.messages += 1;
      else this.stats.ephemeral += 1;
      this.print(
        `${this.s.bold(this.where(channel))}  ${this.s.green("✉ new message")} ${this.s.dim(`(ts ${ts ?? "?"})`)}${only}`,
      );
    }
    this.body(args);
    return ts;
  }

  private show(call: RecordedCall): void {
    const args = call.args;
    if (!call.ok) {
      if (["chat.postMessage", "chat.update", "chat.delete", "response_url"].includes(call.method)) {
        this.stats.failed += 1;
        this.print(
          this.s.dim(`   (${call.method} answered ${call.status} ${call.error ?? ""}; the bot retries)`),
        );
      }
      return;
    }
    switch (call.method) {
      case "chat.postMessage": {
        const channel = str(args.channel) ?? "?";
        const thread = str(args.thread_ts);
        this.posted(channel, args, thread === undefined ? {} : { threadTs: thread });
        return;
      }
      case "chat.postEphemeral": {
        const channel = str(args.channel) ?? "?";
        this.posted(channel, args, { ephemeralTo: str(args.user) ?? "?" });
        return;
      }
      case "chat.update":
        this.edited(str(args.channel) ?? "?", str(args.ts) ?? "?", args);
        return;
      case "chat.delete":
        this.stats.deleted += 1;
        this.announce();
        this.print(
          `${this.s.bold(this.where(str(args.channel) ?? "?"))}  🗑 deleted (ts ${str(args.ts) ?? "?"})`,
        );
        return;
      case "response_url": {
        const url = this.urls.get(call.responseUrlId ?? "");
        if (url === undefined) return;
        if (args.delete_original === true || args.delete_original === "true") {
          this.stats.deleted += 1;
          this.announce();
          this.print(`${this.s.bold(this.where(url.channel))}  🗑 deleted (ts ${url.last ?? "?"})`);
          return;
        }
        if ((args.replace_original === true || args.replace_original === "true") && url.last !== undefined) {
          this.edited(url.channel, url.last, args);
          return;
        }
        const visible = args.response_type === "in_channel";
        const thread = str(args.thread_ts);
        url.last = this.posted(url.channel, args, {
          ...(visible ? {} : { ephemeralTo: url.user }),
          ...(thread === undefined ? {} : { threadTs: thread }),
        });
        return;
      }
      default:
        return;
    }
  }
}
