/**
 * Shared generators and checks of the fuzz tests.
 *
 * FUZZ_RUNS (environment) multiplies the number of runs of every property: `FUZZ_RUNS=10 npx
 * vitest run test/fuzz` runs ten times as many cases. FUZZ_SEED fixes the seed (fast-check prints
 * the seed and the shrunk counterexample of a failure; pass it back to replay it).
 */

import fc from "fast-check";
import { WEBHOOK_EVENTS } from "../../src/domain/index.js";
import type { Livestream } from "../../src/platform/schemas.js";
import { VIDEO_CATEGORIES, VISIBILITIES } from "../../src/platform/schemas.js";

const factor = Number(process.env.FUZZ_RUNS ?? "1");
const seed = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
if (seed !== undefined && Number.isFinite(seed)) fc.configureGlobal({ seed });

/** Per-test timeout: vitest's 20 s, times FUZZ_RUNS (more runs take longer). */
export const FUZZ_TIMEOUT = 20_000 * Math.max(1, Number.isFinite(factor) ? factor : 1);

/** `base` runs, times FUZZ_RUNS. */
export function runs(base: number): number {
  return Math.max(1, Math.round(base * (Number.isFinite(factor) && factor > 0 ? factor : 1)));
}

/** Pieces that break naive text handling: Slack mrkdwn and mentions, HTML, controls, bidi, emoji. */
export const FRAGMENTS = [
  "<!channel>",
  "<!here>",
  "<!everyone>",
  "<!subteam^S0123>",
  "<@U123>",
  "<@U123|bob>",
  "<#C123|general>",
  "<https://evil.example/x|click here>",
  "<!date^1700000000^{date}|x>",
  "&",
  "&amp;",
  "&lt;",
  "&#0;",
  "&#x110000;",
  "&#55296;",
  "<",
  ">",
  "*bold*",
  "_it_",
  "~s~",
  "`",
  "```",
  "> quote",
  "\n",
  "\r\n",
  "\t",
  "\u0000",
  "\u0007",
  "\u001b[31m",
  "\u202e",
  "\u200b",
  "\ufeff",
  "|",
  "\\",
  '"',
  "'",
  "%00",
  "../",
  "é",
  "e\u0301",
  "👩‍👩‍👧",
  "🔴",
  " ",
  "https://x.example/a b",
  "javascript:alert(1)",
  "<script>alert(1)</script>",
  "<p>",
  "<!--",
  "__proto__",
  "constructor",
] as const;

/** Markup-heavy text from the fragments above. */
export const fragmentText = fc
  .array(fc.oneof(fc.constantFrom(...FRAGMENTS), fc.string({ maxLength: 6 })), { maxLength: 12 })
  .map((parts) => parts.join(""));

/** A long repetition (up to `max` characters) of one fragment or character. */
export function longText(max = 5000): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.constantFrom<string>("x", "é", "👩‍👩‍👧", "<!channel>", "&", "`", " ", "\n", "a b"),
      fc.nat({ max }),
    )
    .map(([s, n]) => s.repeat(Math.ceil(n / s.length)).slice(0, n));
}

/** Any well-formed Unicode text (no lone surrogate). */
export const wellFormedText = fc.oneof(
  { weight: 3, arbitrary: fragmentText },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: 30 }) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 30 }) },
  { weight: 1, arbitrary: longText() },
);

/** Well-formed text, or text holding a lone surrogate. */
export const nastyText = fc.oneof(
  { weight: 6, arbitrary: wellFormedText },
  { weight: 1, arbitrary: fc.constantFrom("\ud800", "a\udfffb", "\udbff\udbff", `${"x".repeat(254)}\ud83d`) },
);

/** ISO 8601 date-times (some extreme), or strings `Date.parse` may or may not understand. */
export const timestampText = fc.oneof(
  {
    weight: 5,
    arbitrary: fc
      .date({
        min: new Date("2000-01-01T00:00:00Z"),
        max: new Date("2040-01-01T00:00:00Z"),
        noInvalidDate: true,
      })
      .map((d) => d.toISOString()),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      "+275760-09-13T00:00:00.000Z",
      "-271821-04-20T00:00:00.000Z",
      "1970-01-01T00:00:00Z",
      "2024-02-30T10:00:00Z",
      "2024",
      "not a date",
      "",
    ),
  },
);

const url = fc.oneof(
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  fc.constantFrom(
    "https://x.example/a|b",
    "https://x.example/<!channel>",
    "http://",
    `https://x/${"a".repeat(3100)}`,
  ),
  nastyText,
);

/** One of `known`, or any other text (the platform's lists can change). */
function tolerantEnum(known: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known) }, { weight: 1, arbitrary: nastyText });
}

const nullable = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: null, freq: 4 });
const partial = <T extends Record<string, fc.Arbitrary<unknown>>>(model: T) =>
  fc.record(model, { requiredKeys: [] });

/** Objects shaped like the platform's livestream (spec 2.1/2.2): sparse, nullable, odd values. */
export const livestreamArb: fc.Arbitrary<Livestream> = partial({
  livestream_id: fc.oneof(fc.stringMatching(/^x[0-9a-z]{4,10}$/), nastyText),
  title: nastyText,
  livestream_url: url,
  description: nullable(fc.oneof(nastyText, fc.constantFrom("<p>a &amp; b</p><script>x</script>"))),
  language: nullable(nastyText),
  category: tolerantEnum(VIDEO_CATEGORIES),
  country: nullable(nastyText),
  visibility: tolerantEnum(VISIBILITIES),
  is_for_kids: nullable(fc.boolean()),
  is_explicit: fc.boolean(),
  enable_comments: fc.boolean(),
  profile: partial({ profile_id: nastyText, name: nastyText, display_name: nullable(nastyText) }),
  start_at: nullable(timestampText),
  end_at: nullable(timestampText),
  ingest: partial({
    rtmp_url: nastyText,
    srt_url: nullable(nastyText),
    available_servers: fc.dictionary(nastyText, nastyText, { maxKeys: 250 }),
  }),
  status: partial({
    onair: fc.boolean(),
    airing_at: nullable(timestampText),
    audio_bitrate: nullable(
      fc.oneof(fc.integer(), fc.constantFrom(0, -1, 999, 1000, Number.MAX_SAFE_INTEGER)),
    ),
  }),
  recording: partial({
    auto_record: fc.boolean(),
    status: tolerantEnum(["starting", "started", "stopping", "stopped"]),
    start_at: nullable(timestampText),
    end_at: nullable(timestampText),
  }),
  geo_restriction: partial({
    mode: tolerantEnum(["allow", "deny"]),
    countries: fc.array(nastyText, { maxLength: 300 }),
  }),
  embedding: partial({ enable_embed: fc.boolean(), embed_url: url, embed_html: nastyText }),
  advertising: partial({
    end_at: nullable(timestampText),
    remaining: fc.oneof(fc.nat({ max: 30 }), fc.nat()),
  }),
  thumbnail: partial({ h240_url: nullable(url), h480_url: nullable(url), h1080_url: nullable(url) }),
  created_at: timestampText,
  updated_at: timestampText,
}) as fc.Arbitrary<Livestream>;

// --- Deliveries (spec 6.2) ---------------------------------------------------------------------------

/**
 * A profile id as the bot can hold one: the grammar takes at most 64 characters and the store at
 * most 100 without blanks or ":"; inside those bounds, anything.
 */
export const profileIdArb = fc.oneof(
  fc.stringMatching(/^[a-z0-9]{1,12}$/),
  nastyText.map((s) => s.replace(/[\s:]/g, "").slice(0, 100)).filter((s) => s !== "" && s !== "__proto__"),
);

const idText = fc.oneof(
  { weight: 4, arbitrary: fc.stringMatching(/^[a-z0-9]{1,12}$/) },
  { weight: 1, arbitrary: nastyText },
);
const preset = fc.oneof(fc.constantFrom("240p", "480p", "720p", "1080p", "source"), idText);
/** Unix ms (spec: integer). */
export const timestampMs = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 1_600_000_000_000, max: 1_900_000_000_000 }) },
  { weight: 1, arbitrary: fc.constantFrom(0, Number.MAX_SAFE_INTEGER) },
);
/**
 * Extra fields a delivery may carry (tolerated by the receiver; `__proto__`, `constructor` and
 * `prototype` are refused by the route, src/deliveries/body-limits.ts).
 */
const extras = fc.dictionary(
  fc
    .oneof(fc.string({ maxLength: 10 }), fc.constantFrom("toString", "hasOwnProperty", "valueOf"))
    .filter(
      (k) =>
        ![
          "owner_id",
          "video_id",
          "preset_name",
          "status",
          "progress",
          "__proto__",
          "constructor",
          "prototype",
        ].includes(k),
    ),
  // Nested keys too: a refused key at any depth makes the delivery invalid (the route says 400).
  fc.jsonValue({ maxDepth: 2 }).filter((v) => !hasReservedKey(v)),
  { maxKeys: 3 },
);

/** Whether `v` holds `__proto__`, `constructor` or `prototype` as a key at any depth. */
function hasReservedKey(v: unknown): boolean {
  if (typeof v !== "object" || v === null) return false;
  if (Array.isArray(v)) return v.some(hasReservedKey);
  return Object.keys(v).some(
    (k) =>
      k === "__proto__" ||
      k === "constructor" ||
      k === "prototype" ||
      hasReservedKey((v as Record<string, unknown>)[k]),
  );
}

/** A delivery the spec says is valid (section 6.2), with `owner` as owner_id. */
export function validDeliveryArb(
  owner: string,
): fc.Arbitrary<{ type: string; timestamp: number; data: Record<string, unknown> }> {
  const ref = fc.record({ owner_id: fc.constant(owner), video_id: idText });
  const simple = fc
    .tuple(fc.constantFrom("video.created", "video.published", "video.deleted"), ref, extras)
    .map(([type, r, x]) => ({ type, data: { ...x, ...r } }));
  const processing = fc
    .tuple(ref, preset, fc.integer({ min: 0, max: 100 }), extras)
    .map(([r, p, progress, x]) => ({
      type: "video.format.processing",
      data: { ...x, ...r, preset_name: p, status: "processing", progress },
    }));
  const ready = fc.tuple(ref, preset, extras).map(([r, p, x]) => ({
    type: "video.format.ready",
    data: { ...x, ...r, preset_name: p, status: "ready" },
  }));
  const unshown = fc
    .tuple(
      fc.constantFrom("video.complete", "video.format.error", "video.format.deleted"),
      ref,
      preset,
      extras,
    )
    .map(([type, r, p, x]) => ({ type, data: { ...x, ...r, preset_name: p } }));
  // "The list of valid events can change": an unknown type is a valid delivery too.
  const unknown = fc
    .tuple(fc.stringMatching(/^video\.[a-z.]{1,20}$/), ref, extras)
    .filter(([t]) => !(WEBHOOK_EVENTS as readonly string[]).includes(t))
    .map(([type, r, x]) => ({ type, data: { ...x, ...r } }));
  // Within the route's window (at most 7 days old, 5 minutes ahead), with margins.
  const now = Date.now();
  const recent = fc.integer({ min: now - 6 * 24 * 3600_000, max: now + 60_000 });
  return fc
    .tuple(fc.oneof(simple, processing, ready, unshown, unknown), recent)
    .map(([d, timestamp]) => ({ type: d.type, timestamp, data: d.data }));
}
