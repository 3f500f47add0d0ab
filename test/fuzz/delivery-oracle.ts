/**
 * An independent oracle for the delivery route `POST /hooks/platform/<token>`, and generators of
 * hostile delivery bodies that know their own structure.
 *
 * The expected answer of each body comes from the rules as the contract ("Notifications",
 * "Workspaces and profiles (trust)"), the spec (section 6.2) and the route's published limits
 * state them, written out here from scratch: nothing in src/ is called (not parseDelivery, not
 * src/deliveries/body-limits.ts), so a mistake there cannot hide in the expectation.
 *
 * Readings made where the texts leave room (the route agrees with each; see the final report):
 *  - lengths of keys and strings are JavaScript string lengths (UTF-16 code units);
 *  - "keys + elements" counts every key of every object and every element of every array,
 *    the top level included, after JSON parsing (a repeated key counts once: the last one wins);
 *  - `type` is a non-empty event name of at most 200 characters; an unknown name is a delivery
 *    (spec 6.1: "the list of valid events can change") with any `data` object;
 *  - `status` of the format events is a string whose value is not checked (tolerant reader), and
 *    `progress` a number from 0 to 100 (the spec says integer; a fraction still names a
 *    percentage and refusing it would only lose a progress update);
 *  - the three events whose data the spec does not show need `video_id` (string); their
 *    `owner_id` and (format events) `preset_name` must be strings when present;
 *  - the timestamp is a non-negative integer number of Unix ms within [now - 7 d, now + 5 min];
 *  - bytes that are not UTF-8 read as U+FFFD (the body is decoded, not refused).
 */
import fc from "fast-check";

export const LIMITS = {
  bytes: 64 * 1024,
  depth: 16,
  values: 512,
  keyLength: 128,
  stringLength: 8192,
  typeLength: 200,
  ageMs: 7 * 24 * 3600_000,
  aheadMs: 5 * 60_000,
} as const;

const RESERVED = new Set(["__proto__", "constructor", "prototype"]);

export const NOT_JSON: unique symbol = Symbol("not JSON");

/** A body as sent, and what it means once parsed (NOT_JSON when it is not JSON at all). */
export interface Built {
  text: string | Buffer;
  value: unknown;
}

export interface Body {
  family: string;
  /** Duplicates: which earlier delivery to send again, and how (see `resend`). */
  pick?: number;
  variant?: number;
  /** The body for a request the route sees at `now` (bodies with relative timestamps). */
  build(now: number): Built;
}

// --- Values ---------------------------------------------------------------------------------------

type Obj = Record<string, unknown>;

/** An object with exactly these own keys in this order (`__proto__` included, as JSON.parse does). */
export function obj(entries: readonly (readonly [string, unknown])[]): Obj {
  const o: Obj = {};
  for (const [k, v] of entries) {
    Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return o;
}

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const own = (o: Obj, k: string): unknown => (Object.hasOwn(o, k) ? o[k] : undefined);

/** JSON text of a value of any depth (JSON.stringify recurses and overflows at a few thousand). */
export function toJson(value: unknown, space = ""): string {
  const out: string[] = [];
  type Frame = { open: boolean; items: [string | null, unknown][]; i: number; close: string };
  const stack: Frame[] = [];
  const emit = (v: unknown) => {
    if (Array.isArray(v)) {
      out.push("[");
      stack.push({ open: true, items: v.map((e) => [null, e]), i: 0, close: "]" });
    } else if (isObj(v)) {
      out.push("{");
      stack.push({ open: true, items: Object.keys(v).map((k) => [k, v[k]]), i: 0, close: "}" });
    } else {
      out.push(v === undefined ? "null" : (JSON.stringify(v) ?? "null"));
    }
  };
  emit(value);
  while (stack.length > 0) {
    const f = stack[stack.length - 1] as Frame;
    if (f.i >= f.items.length) {
      out.push(f.close);
      stack.pop();
      continue;
    }
    const [k, v] = f.items[f.i++] as [string | null, unknown];
    if (f.i > 1) out.push(",");
    out.push(space);
    if (k !== null) out.push(`${JSON.stringify(k)}:${space}`);
    emit(v);
  }
  return out.join("");
}

/** Canonical form of a parsed value (keys sorted), for "the same delivery". */
export function canon(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canon).join(",")}]`;
  if (isObj(v))
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canon(v[k])}`)
      .join(",")}}`;
  if (typeof v === "number" && !Number.isFinite(v)) return "null";
  return JSON.stringify(v) ?? "null";
}

// --- The oracle -----------------------------------------------------------------------------------

/** What the route must answer for one body, before the outbox's state is taken into account. */
export type Verdict = { status: 400 | 413; why: string } | { status: 200; why: "delivery"; identity: string };

/** The first value cap the parsed body breaks (iterative: bodies can be thousands deep). */
export function capProblem(v: unknown): string | undefined {
  let values = 0;
  const stack: [unknown, number][] = [[v, 1]];
  while (stack.length > 0) {
    const [x, depth] = stack.pop() as [unknown, number];
    if (typeof x === "string") {
      if (x.length > LIMITS.stringLength) return "string over 8192";
      continue;
    }
    if (typeof x !== "object" || x === null) continue;
    if (depth > LIMITS.depth) return "deeper than 16";
    if (Array.isArray(x)) {
      values += x.length;
      for (const e of x) stack.push([e, depth + 1]);
      continue;
    }
    const keys = Object.keys(x);
    values += keys.length;
    for (const k of keys) {
      if (k.length > LIMITS.keyLength) return "key over 128";
      if (RESERVED.has(k)) return `reserved key ${k}`;
      stack.push([(x as Obj)[k], depth + 1]);
    }
  }
  return values > LIMITS.values ? "more than 512 keys+elements" : undefined;
}

type Rule = "string" | "optional" | "percent";
const REF: [string, Rule][] = [
  ["owner_id", "string"],
  ["video_id", "string"],
];
const LOOSE: [string, Rule][] = [
  ["owner_id", "optional"],
  ["video_id", "string"],
];
/** Spec 6.2's data fields per event (and the readings above for the three not shown). */
export const DATA_RULES: Record<string, [string, Rule][]> = {
  "video.created": REF,
  "video.published": REF,
  "video.deleted": REF,
  "video.format.processing": [
    ...REF,
    ["preset_name", "string"],
    ["status", "string"],
    ["progress", "percent"],
  ],
  "video.format.ready": [...REF, ["preset_name", "string"], ["status", "string"]],
  "video.complete": LOOSE,
  "video.format.error": [...LOOSE, ["preset_name", "optional"]],
  "video.format.deleted": [...LOOSE, ["preset_name", "optional"]],
};
export const KNOWN_TYPES = Object.keys(DATA_RULES);

/** Why a parsed body is not a delivery (spec 6.2), or undefined. */
export function shapeProblem(v: unknown): string | undefined {
  if (!isObj(v)) return "not an object";
  const type = own(v, "type");
  const ts = own(v, "timestamp");
  const data = own(v, "data");
  if (typeof type !== "string" || type.length === 0 || type.length > LIMITS.typeLength) return "type";
  if (typeof ts !== "number" || !Number.isSafeInteger(ts) || ts < 0) return "timestamp not Unix ms";
  if (!isObj(data)) return "data not an object";
  for (const [field, rule] of (Object.hasOwn(DATA_RULES, type) ? DATA_RULES[type] : undefined) ?? []) {
    const f = own(data, field);
    if (f === undefined && Object.hasOwn(data, field) === false) {
      if (rule !== "optional") return `data.${field} missing`;
      continue;
    }
    if (rule === "percent" ? typeof f !== "number" || f < 0 || f > 100 : typeof f !== "string")
      return `data.${field}`;
  }
  return undefined;
}

/** The verdict for one body the route reads at `now` (bytes: the body's size on the wire). */
export function verdict(b: Built, now: number): Verdict {
  const bytes = typeof b.text === "string" ? Buffer.byteLength(b.text) : b.text.length;
  if (bytes > LIMITS.bytes) return { status: 413, why: "over 64 KiB" };
  if (b.value === NOT_JSON) return { status: 400, why: "not JSON" };
  const cap = capProblem(b.value);
  if (cap) return { status: 400, why: cap };
  const shape = shapeProblem(b.value);
  if (shape) return { status: 400, why: `not a delivery: ${shape}` };
  const d = b.value as { type: string; timestamp: number; data: Obj };
  if (d.timestamp < now - LIMITS.ageMs) return { status: 400, why: "older than 7 days" };
  if (d.timestamp > now + LIMITS.aheadMs) return { status: 400, why: "more than 5 min ahead" };
  return { status: 200, why: "delivery", identity: `${d.type}|${d.timestamp}|${canon(d.data)}` };
}

/** The identity of a stored item's delivery, as the oracle writes it. */
export const identityOf = (d: { type: string; timestamp: number; data: unknown }): string =>
  `${d.type}|${d.timestamp}|${canon(d.data)}`;

// --- Generators -----------------------------------------------------------------------------------

const DAY = 24 * 3600_000;
/** Timestamps relative to the route's clock: the window edges to the millisecond, and far off. */
const relTs = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: -6 * DAY, max: 4 * 60_000 }) },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      -LIMITS.ageMs - 1,
      -LIMITS.ageMs,
      -LIMITS.ageMs + 1,
      LIMITS.aheadMs - 1,
      LIMITS.aheadMs,
      LIMITS.aheadMs + 1,
      0,
      -LIMITS.ageMs - 60_000,
      LIMITS.aheadMs + 60_000,
      -365 * DAY,
      10 * 365 * DAY,
    ),
  },
  { weight: 1, arbitrary: fc.integer({ min: -30 * DAY, max: 30 * DAY }) },
);
/** Timestamps as raw JSON text: [text, value], for a route clock `now`. */
type TsLit = (now: number) => [string, unknown];
const litTs: fc.Arbitrary<TsLit> = fc.constantFrom<TsLit>(
  () => ["0", 0],
  () => ["-1", -1],
  () => ["-0", -0],
  () => ["1.5", 1.5],
  () => ["1e300", 1e300],
  () => ["-1e300", -1e300],
  () => ["1e400", Number.POSITIVE_INFINITY],
  () => ['"NaN"', "NaN"],
  () => ['"Infinity"', "Infinity"],
  () => ["null", null],
  () => ["true", true],
  () => ["[]", []],
  () => ["{}", {}],
  () => ['""', ""],
  (now) => [`"${now}"`, String(now)],
  (now) => [`${now}.0`, now],
  (now) => [`${now}.5`, now + 0.5],
  (now) => [`${now}e0`, now],
  (now) => [`${now / 1000}e3`, Number(`${now / 1000}e3`)],
  (now) => [`${Math.floor(now / 1000)}`, Math.floor(now / 1000)],
  (now) => [`${now * 1000}`, now * 1000],
  () => [`${Number.MAX_SAFE_INTEGER}`, Number.MAX_SAFE_INTEGER],
  () => [`${2 ** 53 + 2}`, 2 ** 53 + 2],
  (now) => [`${now - 0.25}`, now - 0.25],
);

const VIDEO_POOL = Array.from({ length: 40 }, (_, i) => `fz${i}`);
const smallText = fc.oneof(
  fc.stringMatching(/^[a-z0-9]{1,8}$/),
  fc.string({ unit: "grapheme", maxLength: 12 }),
  fc.constantFrom("<!channel>", "<@U123>", "é", "👩‍👩‍👧", "\u0000", "\\", '"', "[[{{", "__proto__"),
);
const videoId = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...VIDEO_POOL) },
  { weight: 1, arbitrary: smallText },
);
const ownerId = (owner: string) =>
  fc.oneof({ weight: 6, arbitrary: fc.constant(owner) }, { weight: 1, arbitrary: smallText });
const preset = fc.oneof(fc.constantFrom("240p", "480p", "720p", "1080p", "source"), smallText);
const extraKey = fc
  .oneof(
    fc.string({ maxLength: 10 }),
    fc.constantFrom("toString", "hasOwnProperty", "valueOf", "__PROTO__", "proto", "", " __proto__"),
  )
  .filter(
    (k) => !RESERVED.has(k) && !["owner_id", "video_id", "preset_name", "status", "progress"].includes(k),
  );
const extras = fc.array(fc.tuple(extraKey, fc.jsonValue({ maxDepth: 2 })), { maxLength: 3 });

/** A valid delivery's type and data entries (spec 6.2), with a few harmless extra fields. */
function validParts(owner: string): fc.Arbitrary<[string, [string, unknown][]]> {
  return fc
    .tuple(
      fc.oneof(
        { weight: 8, arbitrary: fc.constantFrom(...KNOWN_TYPES) },
        { weight: 1, arbitrary: fc.constantFrom("video.renamed", "x", "Video.Created", "video.created ") },
      ),
      ownerId(owner),
      videoId,
      preset,
      fc.oneof(fc.integer({ min: 0, max: 100 }), fc.constantFrom(0, 100, 42.5)),
      fc.boolean(),
      extras,
    )
    .map(([type, o, v, p, progress, optional, x]) => {
      const e: [string, unknown][] = [];
      const rules = DATA_RULES[type];
      if (!rules) return [type, [["owner_id", o], ["video_id", v], ...x]];
      for (const [field, rule] of rules) {
        if (rule === "optional" && !optional) continue;
        const value =
          field === "owner_id"
            ? o
            : field === "video_id"
              ? v
              : field === "preset_name"
                ? p
                : field === "progress"
                  ? progress
                  : type.endsWith("ready")
                    ? "ready"
                    : "processing";
        e.push([field, value]);
      }
      const names = new Set(e.map(([k]) => k));
      return [type, [...e, ...x.filter(([k]) => !names.has(k))]];
    });
}

type Ts = { rel: number } | { lit: TsLit } | { absent: true };
interface Draft {
  family: string;
  /** Top-level entries; the timestamp goes where TS_SLOT is. */
  top: [string, unknown][];
  ts: Ts;
  /** Whitespace between tokens. */
  space?: string;
  /** Raw text appended inside the top object before its closing brace (duplicate keys...). */
  tail?: (now: number) => [string, [string, unknown] | null];
}

const TS_SLOT = "\u0000ts-slot\u0000";

function buildDraft(d: Draft, now: number): Built {
  let tsText = "";
  let tsValue: unknown;
  if ("rel" in d.ts) {
    tsValue = now + d.ts.rel;
    tsText = String(tsValue);
  } else if ("lit" in d.ts) {
    [tsText, tsValue] = d.ts.lit(now);
  }
  const entries: [string, unknown][] = [];
  for (const [k, v] of d.top) {
    if (v === TS_SLOT) {
      if (!("absent" in d.ts)) entries.push([k, TS_SLOT]);
    } else entries.push([k, v]);
  }
  let text = toJson(obj(entries), d.space ?? "");
  text = text.replace(JSON.stringify(TS_SLOT), tsText);
  const valueEntries = entries.map(([k, v]): [string, unknown] => [k, v === TS_SLOT ? tsValue : v]);
  if (d.tail) {
    const [raw, entry] = d.tail(now);
    text = `${text.slice(0, -1)}${raw}}`;
    if (entry) {
      const at = valueEntries.findIndex(([k]) => k === entry[0]);
      if (at >= 0)
        valueEntries[at] = entry; // JSON: the last one wins, at the first one's place
      else valueEntries.push(entry);
    }
  }
  return { text, value: obj(valueEntries) };
}

const draftBody = (d: Draft): Body => ({ family: d.family, build: (now) => buildDraft(d, now) });

function delivery(type: unknown, data: unknown, more: [string, unknown][] = []): [string, unknown][] {
  return [["type", type], ["timestamp", TS_SLOT], ["data", data], ...more];
}

/** Nested arrays/objects `levels` deep (levels >= 1), built without recursion. */
export function nest(levels: number, kind: "array" | "object" | "mixed", leaf: unknown = 1): unknown {
  let v: unknown = kind === "object" ? obj([["a", leaf]]) : [leaf];
  for (let i = 1; i < levels; i++) {
    const asObject = kind === "object" || (kind === "mixed" && i % 2 === 1);
    v = asObject ? obj([["a", v]]) : [v];
  }
  return v;
}

/** A string of exactly `units` UTF-16 code units made of `ch` (one or two units), padded with x. */
function unitsOf(ch: string, units: number): string {
  const s = ch.repeat(Math.floor(units / ch.length));
  return s + "x".repeat(units - s.length);
}

const boundaryLength = (limit: number) =>
  fc.oneof(fc.integer({ min: limit - 2, max: limit + 2 }), fc.integer({ min: 0, max: 3 * limit }));
const longChar = fc.constantFrom("x", "é", "😀", '"', "\\", "\u0000", "[", "{");

export function bodyArb(owner: string): fc.Arbitrary<Body> {
  const parts = validParts(owner);
  const ts: fc.Arbitrary<Ts> = relTs.map((rel) => ({ rel }));
  const data = (entries: [string, unknown][]) => obj(entries);

  const valid = fc
    .tuple(parts, ts, fc.constantFrom("", " ", "\n  "), extras)
    .map(([[type, e], t, space, topExtra]) =>
      draftBody({
        family: "valid",
        top: delivery(
          type,
          data(e),
          topExtra.filter(([k]) => !["type", "timestamp", "data"].includes(k)),
        ),
        ts: t,
        space,
      }),
    );

  /** A valid delivery with one thing wrong (or harmlessly odd). */
  const nearValid = fc
    .tuple(parts, ts, fc.nat({ max: 15 }), fc.jsonValue({ maxDepth: 1 }))
    .map(([[type, e], t, m, junk]): Body => {
      let top = delivery(type, data(e));
      let tail: Draft["tail"];
      const fields = e.map(([k]) => k);
      switch (m) {
        case 0: // a data field missing
          top = delivery(type, data(e.slice(1)));
          break;
        case 1: // a data field of another type
          top = delivery(type, data(e.map(([k, v], i) => [k, i === e.length - 1 ? junk : v])));
          break;
        case 2:
          top = delivery(type, junk);
          break;
        case 3:
          top = delivery(junk, data(e));
          break;
        case 4:
          top = delivery("", data(e));
          break;
        case 5:
          top = delivery(unitsOf("v", 199 + (Number(JSON.stringify(junk)?.length ?? 0) % 4)), data(e));
          break;
        case 6: // progress out of range or of another kind
          top = delivery(
            "video.format.processing",
            data([
              ["owner_id", owner],
              ["video_id", "fz1"],
              ["preset_name", "720p"],
              ["status", "processing"],
              ["progress", [-1, 101, 100.0001, -0.5, "50", null, 99.99, 0][fields.length % 8]],
            ]),
          );
          break;
        case 7:
          top = delivery(type, [data(e)]);
          break;
        case 8: // wrapped in an array: not a delivery
          return {
            family: "near-valid",
            build: (now) => {
              const b = buildDraft({ family: "", top, ts: t }, now);
              return { text: `[${b.text as string}]`, value: [b.value] };
            },
          };
        case 9: // the timestamp missing
          return draftBody({ family: "near-valid", top, ts: { absent: true } });
        case 10: // a second timestamp, later in the text: the last one wins
          tail = (now) => {
            const v = [0, now, -1, now - LIMITS.ageMs - 5, "x"][fields.length % 5];
            return [`,"timestamp":${JSON.stringify(v)}`, ["timestamp", v]];
          };
          break;
        case 11: // a second data, later in the text
          tail = () => [`,"data":${JSON.stringify(junk) ?? "null"}`, ["data", junk]];
          break;
        case 12: // a second type
          tail = () => [`,"type":${JSON.stringify(junk) ?? "null"}`, ["type", junk]];
          break;
        case 13: // harmless: extra top-level fields, unknown type
          top = delivery(`video.${fields.join(".")}`.slice(0, 60), data(e), [["extra", junk]]);
          break;
        default: // harmless: a known field with an odd but valid string
          top = delivery(type, data(e.map(([k, v]) => [k, typeof v === "string" ? `${v}<!channel>` : v])));
      }
      return draftBody({ family: "near-valid", top, ts: t, ...(tail ? { tail } : {}) });
    });

  const timestamps = fc
    .tuple(
      parts,
      fc.oneof({ weight: 2, arbitrary: ts }, { weight: 1, arbitrary: litTs.map((lit) => ({ lit })) }),
    )
    .map(([[type, e], t]) => draftBody({ family: "timestamp", top: delivery(type, data(e)), ts: t }));

  /** Nesting: at the route's limit to the level, and thousands deep; in data or at the top. */
  const deep = fc
    .tuple(
      parts,
      ts,
      fc.oneof(fc.integer({ min: 12, max: 17 }), fc.integer({ min: 1, max: 5000 })),
      fc.constantFrom("array", "object", "mixed") as fc.Arbitrary<"array" | "object" | "mixed">,
      fc.nat({ max: 5 }),
    )
    .map(([[type, e], t, levels, kind, where]): Body => {
      const n = nest(levels, kind);
      if (where === 0)
        return draftBody({ family: "deep", top: delivery(type, data([...e, ["x", n]])), ts: t });
      if (where === 1) return draftBody({ family: "deep", top: delivery(type, data(e), [["x", n]]), ts: t });
      if (where === 2) return { family: "deep", build: () => ({ text: toJson(n), value: n }) };
      if (where === 3) {
        // Brackets and escapes inside strings are not nesting.
        const s = `${"\\".repeat(levels % 7)}"${"[{".repeat(Math.min(levels, 4000))}`;
        return draftBody({ family: "deep", top: delivery(type, data([...e, ["note", s]])), ts: t });
      }
      if (where === 4) {
        // Not closed: not JSON (or too deep first; a 400 either way).
        const open = kind === "object" ? '{"a":'.repeat(levels) : "[".repeat(levels);
        return { family: "deep", build: () => ({ text: open, value: NOT_JSON }) };
      }
      // Deep in a key's value inside an array of objects in data.
      return draftBody({
        family: "deep",
        top: delivery(type, data([...e, ["list", [obj([["k", n]])]]])),
        ts: t,
      });
    });

  /** Many keys and elements, around 512 in all. */
  const wide = fc
    .tuple(
      parts,
      ts,
      fc.oneof(fc.integer({ min: 495, max: 515 }), fc.integer({ min: 0, max: 6000 })),
      fc.nat({ max: 3 }),
    )
    .map(([[type, e], t, n, how]): Body => {
      let more: [string, unknown][];
      if (how === 0) more = [["list", Array.from({ length: n }, (_, i) => i)]];
      else if (how === 1) more = Array.from({ length: n }, (_, i): [string, unknown] => [`k${i}`, i]);
      else if (how === 2) more = [["lists", Array.from({ length: Math.ceil(n / 3) }, () => [1, 2])]];
      else more = [["o", obj(Array.from({ length: n }, (_, i): [string, unknown] => [`${i}`, null]))]];
      const names = new Set(e.map(([k]) => k));
      return draftBody({
        family: "wide",
        top: delivery(type, data([...e, ...more.filter(([k]) => !names.has(k))])),
        ts: t,
      });
    });

  /** Strings around 8,192 code units (and longer), in every place a string can be. */
  const huge = fc
    .tuple(parts, ts, boundaryLength(LIMITS.stringLength), longChar, fc.nat({ max: 5 }))
    .map(([[type, e], t, n, ch, where]): Body => {
      const s = unitsOf(ch, n);
      let top: [string, unknown][];
      if (where === 0) top = delivery(s, data(e));
      else if (where === 1) top = delivery(type, data(e.map(([k, v]) => [k, k === "video_id" ? s : v])));
      else if (where === 2) top = delivery(type, data([...e, ["note", s]]));
      else if (where === 3) top = delivery(type, data([...e, ["l", [[s]]]]));
      else if (where === 4) top = delivery(type, data(e), [["pad", s]]);
      else top = delivery(type, data(e.map(([k, v]) => [k, k === "owner_id" ? s : v])));
      return draftBody({ family: "huge", top, ts: t });
    });

  /** Odd keys: reserved names anywhere, empty, unicode, around 128 units, very long. */
  const keys = fc
    .tuple(
      parts,
      ts,
      fc.oneof(
        fc.constantFrom("__proto__", "constructor", "prototype"),
        fc.constantFrom(
          "",
          "toString",
          "hasOwnProperty",
          "__PROTO__",
          "__proto",
          "Constructor",
          "ö",
          "👩‍👩‍👧",
          "\u0000",
        ),
        fc.string({ unit: "grapheme", maxLength: 20 }),
        fc.tuple(boundaryLength(LIMITS.keyLength), longChar).map(([n, ch]) => unitsOf(ch, n)),
        fc.constant("k".repeat(5000)),
      ),
      fc.nat({ max: 4 }),
    )
    .map(([[type, e], t, key, where]): Body => {
      const names = new Set(["type", "timestamp", "data", ...e.map(([k]) => k)]);
      if (names.has(key)) key = `${key}_`;
      let top: [string, unknown][];
      if (where === 0) top = delivery(type, data(e), [[key, 1]]);
      else if (where === 1) top = delivery(type, data([...e, [key, "v"]]));
      else if (where === 2) top = delivery(type, data([...e, ["l", [obj([[key, obj([["a", 1]])]])]]]));
      else if (where === 3) top = delivery(type, data([...e, ["d", nest(10, "object", obj([[key, true]]))]]));
      else top = delivery(type, data([...e, ["s", key]])); // a value, not a key: harmless
      return draftBody({ family: "keys", top, ts: t });
    });

  const wrongTypes = fc
    .jsonValue({ maxDepth: 4 })
    .map((v): Body => ({ family: "wrong-types", build: () => ({ text: toJson(v), value: v }) }));

  /** Texts that are not JSON (JSON.parse, the grammar, says which of the random ones are). */
  const notJson = fc
    .oneof(
      fc.constantFrom(
        "",
        " ",
        "\ufeff{}",
        "{",
        "}",
        "{'type':'video.created'}",
        '{"type":"video.created",}',
        '{"timestamp":NaN}',
        '{"timestamp":Infinity}',
        '{"timestamp":01}',
        '{"timestamp":+1}',
        '{"timestamp":.5}',
        '{"timestamp":0x10}',
        "// c\n{}",
        '{"a":1}{"a":1}',
        "undefined",
        '{"a":"\n"}',
        '{"a":"\\x"}',
        "[1,]",
        "{type:1}",
        '"unterminated',
      ),
      fc
        .array(fc.constantFrom("{", "}", "[", "]", '"', ":", ",", "null", '"type"', '"data"', "1", " "), {
          maxLength: 25,
        })
        .map((a) => a.join("")),
      fc.string({ maxLength: 40 }),
    )
    .map((text): Body => {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        value = NOT_JSON;
      }
      return { family: "not-json", build: () => ({ text, value }) };
    });

  /** A valid delivery truncated or with garbage after it. */
  const broken = fc.tuple(parts, ts, fc.nat({ max: 1000 }), fc.boolean()).map(
    ([[type, e], t, cut, garbage]): Body => ({
      family: "not-json",
      build: (now) => {
        const text = buildDraft({ family: "", top: delivery(type, data(e)), ts: t }, now).text as string;
        return {
          text: garbage ? `${text} x` : text.slice(0, Math.max(1, Math.min(text.length - 1, cut))),
          value: NOT_JSON,
        };
      },
    }),
  );

  /** Around 64 KiB: valid deliveries padded with strings of at most 8,000 characters. */
  const sized = fc.tuple(parts, ts, fc.integer({ min: LIMITS.bytes - 40, max: LIMITS.bytes + 40 })).map(
    ([[type, e], t, size]): Body => ({
      family: "sized",
      build: (now) => {
        const pads = 9;
        const padded = (len: number) => {
          const entries: [string, unknown][] = [];
          for (let i = 0; i < pads; i++)
            entries.push([`p${i}`, "x".repeat(Math.min(8000, Math.max(0, len - i * 8000)))]);
          return buildDraft({ family: "", top: delivery(type, data([...e, ...entries])), ts: t }, now);
        };
        const base = Buffer.byteLength(padded(0).text as string);
        return padded(Math.max(0, size - base));
      },
    }),
  );

  return fc.oneof(
    { weight: 24, arbitrary: valid },
    { weight: 14, arbitrary: nearValid },
    { weight: 10, arbitrary: timestamps },
    { weight: 10, arbitrary: deep },
    { weight: 7, arbitrary: wide },
    { weight: 7, arbitrary: huge },
    { weight: 9, arbitrary: keys },
    { weight: 4, arbitrary: wrongTypes },
    { weight: 5, arbitrary: notJson },
    { weight: 2, arbitrary: broken },
    { weight: 1, arbitrary: sized },
    {
      weight: 7,
      arbitrary: fc.tuple(fc.nat(), fc.nat({ max: 3 })).map(
        ([pick, variant]): Body => ({
          family: "duplicate",
          pick,
          variant,
          build: () => ({ text: "", value: NOT_JSON }),
        }),
      ),
    },
  );
}

/** A body sent again: the same text, or the same delivery re-serialized (keys reversed, spaces). */
export function resend(b: Built, variant: number): Built {
  if (variant % 2 === 0 || !isObj(b.value)) return b;
  const entries = Object.keys(b.value)
    .reverse()
    .map((k): [string, unknown] => {
      const v = (b.value as Obj)[k];
      return [
        k,
        isObj(v)
          ? obj(
              Object.keys(v)
                .reverse()
                .map((j) => [j, v[j]]),
            )
          : v,
      ];
    });
  const value = obj([...entries, ["resent", true]]);
  return { text: ` ${toJson(value, " ")}\n`, value };
}

/** Bytes that are not UTF-8: inside a string they read as U+FFFD, elsewhere the body is not JSON. */
export function badUtf8Body(owner: string, videoIdText: string, inString: boolean): Body {
  return {
    family: "bad-utf8",
    build: (now) => {
      const ts = now - 60_000;
      const data = obj([
        ["owner_id", owner],
        ["video_id", `${videoIdText}\ufffd`],
      ]);
      if (!inString)
        return {
          text: Buffer.concat([
            Buffer.from(`{"type":"video.created","timestamp":${ts},"data":`),
            Buffer.from([0xff]),
            Buffer.from("{}}"),
          ]),
          value: NOT_JSON,
        };
      return {
        text: Buffer.concat([
          Buffer.from(
            `{"type":"video.created","timestamp":${ts},"data":{"owner_id":${JSON.stringify(owner)},"video_id":${JSON.stringify(videoIdText).slice(0, -1)}`,
          ),
          Buffer.from([0xc3]),
          Buffer.from('"}}'),
        ]),
        value: obj([
          ["type", "video.created"],
          ["timestamp", ts],
          ["data", data],
        ]),
      };
    },
  };
}
