/**
 * The words of `/webhook pause` and of `/webhook subscribe … digest=… at=… preset=… mention=…`
 * (grammar.ts reads the rest): pure parsers, text in, a value or a usage problem out.
 */
import type { Parsed } from "./grammar-types.js";

/** The shortest and longest pause. */
export const PAUSE_MIN_MS = 5_000;
export const PAUSE_MAX_MS = 7 * 86_400_000;
const UNIT_MS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const TIME_OF_DAY = /^(?:[01]\d|2[0-3]):[0-5]\d$/;

const echo = (s: string) => (s.length > 80 ? `${s.slice(0, 79)}…` : s);

/** `30m`, `2h`, `1d`, `1h30m` → ms; null for anything else. */
export function parseDuration(word: string): number | null {
  const w = word.toLowerCase();
  if (!/^(?:\d{1,6}[smhd]){1,4}$/.test(w)) return null;
  let ms = 0;
  for (const m of w.matchAll(/(\d+)([smhd])/g)) ms += Number(m[1]) * (UNIT_MS[m[2] ?? "s"] ?? 0);
  return ms;
}

/** `[profile] <duration>`: the profile word as typed (not checked here) and the duration. */
export function parsePauseWords(
  rest: readonly string[],
): Parsed<{ profileWord: string | undefined; duration: string; ms: number }> {
  const usage =
    "`/webhook pause` takes the profile (its name or id) and how long, from 5s to 7d: for example `/webhook pause northwind-news 2h` (`30m`, `1d`, `1h30m`).";
  if (rest.length === 0 || rest.length > 2) return { ok: false, problem: usage };
  const duration = rest[rest.length - 1] ?? "";
  const ms = parseDuration(duration);
  if (ms === null)
    return {
      ok: false,
      // One word that is no duration: most likely the profile, with the duration left out.
      problem:
        rest.length === 1
          ? `How long? \`/webhook pause\` needs a duration after "${echo(duration)}". ${usage}`
          : `"${echo(duration)}" is not a duration. ${usage}`,
    };
  if (ms < PAUSE_MIN_MS || ms > PAUSE_MAX_MS)
    return { ok: false, problem: `A pause lasts from 5s to 7d (7 days), not ${echo(duration)}. ${usage}` };
  return {
    ok: true,
    value: { profileWord: rest.length === 2 ? rest[0] : undefined, duration: duration.toLowerCase(), ms },
  };
}

/** `digest=daily|weekly|off` → the choice, or a problem. */
export function parseDigestWord(word: string): Parsed<"daily" | "weekly" | "off"> {
  const v = word.slice(word.indexOf("=") + 1).toLowerCase();
  if (v === "daily" || v === "weekly" || v === "off") return { ok: true, value: v };
  return {
    ok: false,
    problem:
      "`digest=` takes `daily`, `weekly` or `off` (live messages again), for example `digest=daily at=09:00`.",
  };
}

/** `at=HH:MM` → `HH:MM`, or a problem. */
export function parseAtWord(word: string): Parsed<string> {
  const at = word.slice(word.indexOf("=") + 1);
  if (TIME_OF_DAY.test(at)) return { ok: true, value: at };
  return {
    ok: false,
    problem: `\`at=\` takes a time of day as HH:MM (00:00 to 23:59), for example \`at=09:00\`${at ? ` ("${echo(at)}" is not one)` : ""}.`,
  };
}

const PRESET = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** `preset=720p,1080p` (or `presets=`) → the format names, once each; else a problem. */
export function parsePresetWord(w: string): Parsed<string[]> {
  const names = w
    .slice(w.indexOf("=") + 1)
    .split(",")
    .filter((n) => n !== "");
  const bad = names.find((n) => !PRESET.test(n));
  if (names.length === 0 || names.length > 50 || bad !== undefined)
    return {
      ok: false,
      problem: `\`preset=\` takes format names separated by commas, for example \`preset=720p,1080p\`${bad ? ` ("${echo(bad)}" is not one)` : ""}.`,
    };
  return { ok: true, value: [...new Set(names)] };
}

/** `mention=@here` (or `<!here>`) → "here"; `mention=<@U123>` (`<@U123|name>`) → "U123"; else a problem. */
export function parseMentionWord(raw: string): Parsed<string> {
  if (raw === "@here" || raw === "<!here>" || raw === "<!here|here>" || raw === "<!here|@here>")
    return { ok: true, value: "here" };
  const m = /^<@([UW][A-Z0-9]{2,20})(\|[^<>&]{0,80})?>$/.exec(raw);
  if (m?.[1]) return { ok: true, value: m[1] };
  return {
    ok: false,
    problem: "`mention=` takes `@here` or one person's @mention (for example `mention=@alex`), nothing else.",
  };
}
