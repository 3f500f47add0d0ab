/**
 * The slash-command grammar of the contract, as pure parsers: text in, a command or a usage
 * problem out. Nothing here talks to Slack, the platform or the store.
 */
import { isPlatformId, isWebhookEvent, WEBHOOK_EVENTS, type WebhookEvent } from "../../../domain/index.js";
import {
  parseAtWord,
  parseDigestWord,
  parseMentionWord,
  parsePauseWords,
  parsePresetWord,
} from "./grammar-modes.js";
import type { LiveCommand, Parsed, WebhookCommand } from "./grammar-types.js";

export type {
  DigestChoice,
  LiveCommand,
  Parsed,
  ProfileCommand,
  WebhookCommand,
} from "./grammar-types.js";

/**
 * Every subcommand of `/live` and `/webhook` (help included): the entry points the authorization
 * covers (test/security/entry-points.test.ts has one row per name). The types below fail to
 * compile when a command kind is missing from its list.
 */
export const LIVE_SUBCOMMANDS = ["help", "status", "ingest", "watch", "unwatch", "watching"] as const;
export const WEBHOOK_SUBCOMMANDS = [
  "help",
  "set",
  "show",
  "events",
  "remove",
  "test",
  "managers",
  "subscribe",
  "unsubscribe",
  "subscriptions",
  "pause",
  "resume",
] as const;
type Exhaustive<Kind, Listed> = [Exclude<Kind, Listed>] extends [never] ? true : never;
const listsAreComplete: [
  Exhaustive<LiveCommand["kind"], (typeof LIVE_SUBCOMMANDS)[number]>,
  Exhaustive<WebhookCommand["kind"], (typeof WEBHOOK_SUBCOMMANDS)[number]>,
] = [true, true];
void listsAreComplete;

/** Slack wraps links and mentions: `<https://x|label>`, `<@U123|name>`. */
function unwrap(token: string): string {
  const m = /^<([^|>]+)(\|[^>]*)?>$/.exec(token);
  return m?.[1] ?? token;
}

function tokens(text: string): string[] {
  return text
    .trim()
    .split(/\s+/)
    .filter((t) => t !== "");
}

/**
 * A livestream id, or a URL whose `video` query parameter or last path segment is the id
 * (`https://www.dailymotion.com/video/x9b2k4m`, an embed URL with `?video=x9b2k4m`).
 */
export function parseLivestreamRef(raw: string): Parsed<string> {
  const token = unwrap(raw.trim());
  if (isPlatformId(token)) return { ok: true, value: token };
  let url: URL | undefined;
  try {
    url = new URL(token);
  } catch {
    url = undefined;
  }
  if (url && (url.protocol === "https:" || url.protocol === "http:")) {
    const fromQuery = url.searchParams.get("video");
    const last = url.pathname
      .split("/")
      .filter((s) => s !== "")
      .pop();
    const candidate = fromQuery ?? last;
    if (candidate && isPlatformId(candidate)) return { ok: true, value: candidate };
  }
  return { ok: false, problem: `"${truncateForEcho(raw)}" is not a livestream id or livestream URL.` };
}

function truncateForEcho(s: string): string {
  return s.length > 80 ? `${s.slice(0, 79)}…` : s;
}

export function parseLive(text: string): Parsed<LiveCommand> {
  const [sub, ...rest] = tokens(text);
  if (sub === undefined || sub.toLowerCase() === "help") return { ok: true, value: { kind: "help" } };
  const kind = sub.toLowerCase();
  if (kind === "watching") {
    if (rest.length > 0) return { ok: false, problem: "`/live watching` takes nothing after it." };
    return { ok: true, value: { kind: "watching" } };
  }
  if (kind !== "status" && kind !== "ingest" && kind !== "watch" && kind !== "unwatch") {
    return { ok: false, problem: `Unknown subcommand "${truncateForEcho(sub)}".` };
  }
  if (rest.length === 0) return { ok: false, problem: `\`/live ${kind}\` needs a livestream id or URL.` };
  const watching = kind === "watch" || kind === "unwatch";
  if (watching && rest.length === 1 && rest[0]?.toLowerCase() === "dm")
    return { ok: false, problem: `\`/live ${kind} … dm\` needs a livestream id or URL before \`dm\`.` };
  const dm = watching && rest.length === 2 && rest[1]?.toLowerCase() === "dm";
  if (rest.length > (dm ? 2 : 1)) {
    return {
      ok: false,
      problem: watching
        ? `\`/live ${kind}\` takes one livestream id or URL, then \`dm\` for a DM to you instead of this channel.`
        : `\`/live ${kind}\` takes one livestream id or URL.`,
    };
  }
  const ref = parseLivestreamRef(rest[0] ?? "");
  if (!ref.ok) return ref;
  if (kind === "watch" || kind === "unwatch")
    return { ok: true, value: { kind, livestreamId: ref.value, dm } };
  return { ok: true, value: { kind, livestreamId: ref.value } };
}

/**
 * Events as typed by a person: space or comma separated, `all` for every event, and the
 * `video.` prefix optional (`created` = `video.created`). None given means all.
 */
/** `created`, `video.created` → `video.created`; `all` → "all"; anything else → null. */
function eventName(word: string): WebhookEvent | "all" | null {
  const w = word.trim().toLowerCase();
  if (w === "all") return "all";
  const full = w.startsWith("video.") ? w : `video.${w}`;
  return isWebhookEvent(full) ? full : null;
}

export function parseEvents(words: readonly string[]): Parsed<WebhookEvent[]> {
  const items = words.flatMap((w) => w.split(",")).map((w) => w.trim().toLowerCase());
  const named = items.filter((w) => w !== "");
  if (named.length === 0 || named.includes("all")) return { ok: true, value: [...WEBHOOK_EVENTS] };
  const out: WebhookEvent[] = [];
  const unknown: string[] = [];
  for (const w of named) {
    const name = eventName(w);
    if (name === null) unknown.push(w);
    else if (name !== "all" && !out.includes(name)) out.push(name);
  }
  if (unknown.length > 0) {
    return {
      ok: false,
      problem: `Unknown event${unknown.length > 1 ? "s" : ""}: ${unknown.map(truncateForEcho).join(", ")}. Valid events: ${WEBHOOK_EVENTS.join(", ")} (or \`all\`).`,
    };
  }
  return { ok: true, value: out };
}

/**
 * A profile as typed: an id or a `name` (same characters: letters, digits, `-` and `_`). Which one
 * it is, is decided when it is resolved, not here.
 */
function parseProfileWord(raw: string | undefined): Parsed<string | null> {
  if (raw === undefined) return { ok: true, value: null };
  if (!isPlatformId(raw))
    return { ok: false, problem: `"${truncateForEcho(raw)}" is not a profile id or profile name.` };
  return { ok: true, value: raw };
}

/** Whether `word` is event names (`created,published`, `all`): then no profile was given before it. */
function isEventWord(word: string): boolean {
  return word.split(",").every((w) => w === "" || eventName(w) !== null);
}

/** Whether `word` is one of `set`'s or `subscribe`'s options rather than a profile. */
function isOptionWord(word: string): boolean {
  return /^(url|preset|presets|mention|digest|at)=/i.test(word) || isEventWord(word);
}

/** `/webhook pause [profile] <duration>` */
function parsePause(rest: readonly string[]): Parsed<WebhookCommand> {
  const words = parsePauseWords(rest);
  if (!words.ok) return words;
  const profile = parseProfileWord(words.value.profileWord);
  if (!profile.ok) return profile;
  const { duration, ms } = words.value;
  return { ok: true, value: { kind: "pause", profile: profile.value, duration, ms } };
}

function parseUserMention(raw: string | undefined): Parsed<string> {
  const m = raw === undefined ? null : /^<@([UW][A-Z0-9]+)(\|[^>]*)?>$/.exec(raw);
  if (m?.[1]) return { ok: true, value: m[1] };
  if (raw && /^[UW][A-Z0-9]{2,}$/.test(raw)) return { ok: true, value: raw };
  return {
    ok: false,
    problem: "Name the person with an @mention, for example `/webhook managers add @alex`.",
  };
}

/** `/webhook subscribe [profile] [event ...] [preset=<name,...>] [mention=<@user or @here>]` */
function parseSubscribe(rest: readonly string[]): Parsed<WebhookCommand> {
  const first = rest[0];
  const given = first !== undefined && !isOptionWord(first);
  const profile = parseProfileWord(given ? first : undefined);
  if (!profile.ok) return profile;
  const more = given ? rest.slice(1) : rest;
  let presets: string[] | null = null;
  let mention: string | null = null;
  let mentionGiven = false;
  let digest: "daily" | "weekly" | "off" | null = null;
  let at: string | null = null;
  const eventWords: string[] = [];
  for (const w of more) {
    const lower = w.toLowerCase();
    if (lower.startsWith("digest=")) {
      if (digest !== null) return { ok: false, problem: "Give `digest=` only once." };
      const d = parseDigestWord(w);
      if (!d.ok) return d;
      digest = d.value;
    } else if (lower.startsWith("at=")) {
      if (at !== null) return { ok: false, problem: "Give `at=` only once." };
      const a = parseAtWord(w);
      if (!a.ok) return a;
      at = a.value;
    } else if (lower.startsWith("preset=") || lower.startsWith("presets=")) {
      if (presets !== null) return { ok: false, problem: "Give `preset=` only once." };
      const p = parsePresetWord(w);
      if (!p.ok) return p;
      presets = p.value;
    } else if (lower.startsWith("mention=")) {
      if (mentionGiven) return { ok: false, problem: "Give `mention=` only once." };
      mentionGiven = true;
      const m = parseMentionWord(w.slice(8));
      if (!m.ok) return m;
      mention = m.value;
    } else eventWords.push(w);
  }
  if (at !== null && digest !== "daily" && digest !== "weekly")
    return {
      ok: false,
      problem: "`at=` goes with `digest=daily` or `digest=weekly`, for example `digest=daily at=09:00`.",
    };
  const events = parseEvents(eventWords);
  if (!events.ok) return events;
  const filtersGiven = eventWords.length > 0 || presets !== null || mentionGiven;
  return {
    ok: true,
    value: {
      kind: "subscribe",
      profile: profile.value,
      events: events.value,
      presets: presets ?? [],
      mention,
      ...(digest === null ? {} : { digest: digest === "off" ? "off" : { every: digest, at } }),
      ...(digest !== null && !filtersGiven ? { keepFilters: true as const } : {}),
    },
  };
}

/** `/webhook set [profile] [url=<https URL>] [event ...]` */
function parseSet(rest: readonly string[]): Parsed<WebhookCommand> {
  const first = rest[0];
  const given = first !== undefined && !isOptionWord(first);
  const profile = parseProfileWord(given ? first : undefined);
  if (!profile.ok) return profile;
  let url: string | null = null;
  const eventWords: string[] = [];
  for (const w of given ? rest.slice(1) : rest) {
    if (w.toLowerCase().startsWith("url=")) {
      if (url !== null) return { ok: false, problem: "Give `url=` only once." };
      url = unwrap(w.slice(4));
      if (!url.toLowerCase().startsWith("https://")) {
        return {
          ok: false,
          problem: "`url=` must be an https:// URL: the platform only delivers to HTTPS.",
        };
      }
      try {
        new URL(url);
      } catch {
        return { ok: false, problem: `"${truncateForEcho(url)}" is not a valid URL.` };
      }
    } else eventWords.push(w);
  }
  const events = parseEvents(eventWords);
  if (!events.ok) return events;
  return { ok: true, value: { kind: "set", profile: profile.value, url, events: events.value } };
}

export function parseWebhook(text: string): Parsed<WebhookCommand> {
  const [sub, ...rest] = tokens(text);
  if (sub === undefined || sub.toLowerCase() === "help") return { ok: true, value: { kind: "help" } };
  const kind = sub.toLowerCase();
  switch (kind) {
    case "set":
      return parseSet(rest);
    case "events": {
      const first = rest[0];
      const given = first !== undefined && !isEventWord(first);
      const profile = parseProfileWord(given ? first : undefined);
      if (!profile.ok) return profile;
      const words = given ? rest.slice(1) : rest;
      if (words.length === 0)
        return { ok: true, value: { kind: "events", profile: profile.value, events: null } };
      const events = parseEvents(words);
      if (!events.ok) return events;
      return { ok: true, value: { kind: "events", profile: profile.value, events: events.value } };
    }
    case "subscribe":
      return parseSubscribe(rest);
    case "pause":
      return parsePause(rest);
    case "resume": {
      if (rest.length > 1)
        return { ok: false, problem: "`/webhook resume` takes at most one profile id or name." };
      const profile = parseProfileWord(rest[0]);
      if (!profile.ok) return profile;
      return { ok: true, value: { kind: "resume", profile: profile.value } };
    }
    case "unsubscribe": {
      const profile = parseProfileWord(rest[0]);
      if (rest.length !== 1 || !profile.ok || profile.value === null)
        return {
          ok: false,
          problem: profile.ok ? "`/webhook unsubscribe` takes one profile id or name." : profile.problem,
        };
      return { ok: true, value: { kind: "unsubscribe", profile: profile.value } };
    }
    case "subscriptions":
    case "show":
    case "remove":
    case "test": {
      if (rest.length > 1)
        return { ok: false, problem: `\`/webhook ${kind}\` takes at most one profile id or name.` };
      const profile = parseProfileWord(rest[0]);
      if (!profile.ok) return profile;
      return { ok: true, value: { kind, profile: profile.value } };
    }
    case "managers": {
      const [action, who, ...extra] = rest;
      if (action === undefined || action.toLowerCase() === "list") {
        return { ok: true, value: { kind: "managers", action: "list" } };
      }
      const a = action.toLowerCase();
      if ((a !== "add" && a !== "remove") || extra.length > 0) {
        return {
          ok: false,
          problem:
            "Use `/webhook managers`, `/webhook managers add @person` or `/webhook managers remove @person`.",
        };
      }
      const user = parseUserMention(who);
      if (!user.ok) return user;
      return { ok: true, value: { kind: "managers", action: a, userId: user.value } };
    }
    default:
      return { ok: false, problem: `Unknown subcommand "${truncateForEcho(sub)}".` };
  }
}

export { commandText } from "./grammar-text.js";
