/** Realistic livestreams, a seeded PRNG and random livestreams built from the schema's options. */

import type { Message } from "../../src/messages/index.js";
import type { Livestream } from "../../src/platform/schemas.js";

export const NOW = new Date("2025-03-14T19:00:00.000Z");

export function iso(offsetMs: number): string {
  return new Date(NOW.getTime() + offsetMs).toISOString();
}
export const MIN = 60_000;
export const HOUR = 60 * MIN;
export const DAY = 24 * HOUR;

export const INGEST = {
  rtmp_url: "rtmp://ingest-eu.example.net/live/STREAMKEY-rtmp-5f3a9c",
  srt_url: "srt://ingest-eu.example.net:9000?streamid=STREAMKEY-srt-77b1",
  available_servers: {
    "Europe (Paris)": "rtmp://par.example.net/live/STREAMKEY-par-01",
    "US East": "rtmp://iad.example.net/live/STREAMKEY-iad-02",
  },
};

/** On air for 20 minutes, an ad break running, 17 ads left, geo allow FR BE CH. */
export function onAirWithAdBreak(): Livestream {
  return {
    livestream_id: "x8abc12",
    title: "Evening news",
    livestream_url: "https://www.dailymotion.com/video/x8abc12",
    description: "<p>Tonight&rsquo;s headlines &amp; weather.</p>",
    visibility: "public",
    category: "news",
    start_at: iso(-20 * MIN),
    end_at: iso(1 * HOUR),
    updated_at: iso(-5 * MIN),
    created_at: iso(-10 * DAY),
    status: { onair: true, airing_at: iso(-20 * MIN), audio_bitrate: 128_000 },
    recording: { auto_record: true, status: "started", start_at: iso(-20 * MIN), end_at: null },
    advertising: { remaining: 17, end_at: iso(40_000) },
    geo_restriction: { mode: "allow", countries: ["FR", "BE", "CH"] },
    embedding: {
      enable_embed: true,
      embed_url: "https://geo.dailymotion.com/player.html?video=x8abc12",
      embed_html: '<iframe src="https://geo.dailymotion.com/player.html?video=x8abc12"></iframe>',
    },
    thumbnail: {
      h1080_url: "https://s1.example.net/x8abc12/1080.jpg",
      h720_url: "https://s1.example.net/x8abc12/720.jpg",
      h480_url: "https://s1.example.net/x8abc12/480.jpg",
      h240_url: "https://s1.example.net/x8abc12/240.jpg",
      default_url: "https://s1.example.net/x8abc12/full.jpg",
    },
    ingest: structuredClone(INGEST),
  };
}

/** Ended two days ago: off air, no ads, no audio, no thumbnails, embedding disabled. */
export function offAir(): Livestream {
  return {
    livestream_id: "x7off00",
    title: "Morning show",
    livestream_url: "https://www.dailymotion.com/video/x7off00",
    description: null,
    visibility: "private",
    start_at: iso(-2 * DAY - 2 * HOUR),
    end_at: iso(-2 * DAY),
    updated_at: iso(-2 * DAY),
    status: { onair: false, airing_at: iso(-2 * DAY - 2 * HOUR), audio_bitrate: null },
    recording: { auto_record: false, status: "stopped", start_at: null, end_at: null },
    advertising: { remaining: 0, end_at: null },
    geo_restriction: { mode: "deny", countries: [] },
    embedding: { enable_embed: false, embed_url: "https://geo.dailymotion.com/player.html?video=x7off00" },
    thumbnail: { h1080_url: null, h720_url: null, h480_url: null, h240_url: null, default_url: null },
    ingest: structuredClone(INGEST),
  };
}

/** Every field the spec allows to be null, null. */
export function nullsEverywhere(): Livestream {
  return {
    livestream_id: "x0null0",
    title: "Null island",
    livestream_url: "https://www.dailymotion.com/video/x0null0",
    description: null,
    language: null,
    country: null,
    is_for_kids: null,
    start_at: null,
    end_at: null,
    status: { onair: false, airing_at: null, audio_bitrate: null },
    recording: { auto_record: true, status: "starting", start_at: null, end_at: null },
    advertising: { remaining: 0, end_at: null },
    thumbnail: { h1080_url: null, h720_url: null, h480_url: null, h240_url: null, default_url: null },
    ingest: { rtmp_url: "rtmp://x/live/KEY", srt_url: null, available_servers: {} },
  };
}

// --- PRNG and random livestreams ------------------------------------------------------------------

/** mulberry32: small, seeded, good enough for property-style tests. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export class Gen {
  constructor(readonly rand: () => number) {}
  int(min: number, max: number): number {
    return min + Math.floor(this.rand() * (max - min + 1));
  }
  bool(p = 0.5): boolean {
    return this.rand() < p;
  }
  pick<T>(items: readonly T[]): T {
    const v = items[Math.floor(this.rand() * items.length)];
    if (v === undefined) throw new Error("pick from an empty list");
    return v;
  }
  /** undefined (missing) with probability 1 - p. */
  maybe<T>(make: () => T, p = 0.75): T | undefined {
    return this.bool(p) ? make() : undefined;
  }
  text(maxLen: number): string {
    const pieces = [
      "Live",
      " ",
      "news",
      "<b>",
      "&",
      "&amp;",
      "a|b",
      ">",
      "<",
      "`",
      "*bold*",
      "_it_",
      "~s~",
      "🔴",
      "👩‍💻",
      "é",
      "\n",
      "\t",
      "<@U123>",
      "<!channel>",
      "<https://evil.example|click>",
      "ÿ",
      "日本語",
      "x".repeat(50),
    ];
    const n = this.int(0, 40);
    let s = "";
    for (let i = 0; i < n; i++) s += this.pick(pieces);
    if (this.bool(0.1)) s += "y".repeat(this.int(100, 3000));
    return s.slice(0, maxLen);
  }
  url(): string {
    return this.pick([
      "https://www.dailymotion.com/video/x8abc12",
      "https://s1.example.net/a/240.jpg?x=1&y=2",
      "http://plain.example.net/p.jpg",
      "not a url",
      "",
      "javascript:alert(1)",
      "https://example.net/with space",
      "https://example.net/a|b>c",
      `https://example.net/${"l".repeat(this.int(100, 4000))}`,
      "ftp://example.net/x",
    ]);
  }
  timestamp(): string {
    return new Date(NOW.getTime() + this.int(-400 * DAY, 400 * DAY) / this.int(1, 1000)).toISOString();
  }
}

/** A random livestream of the schema's shape: every field may be missing or null where allowed. */
export function randomLivestream(g: Gen): Livestream {
  const ls: Livestream = {};
  const set = <K extends keyof Livestream>(k: K, make: () => Livestream[K]) => {
    const v = g.maybe(make);
    if (v !== undefined) ls[k] = v;
  };
  const nullable =
    <T>(make: () => T): (() => T | null) =>
    () =>
      g.bool(0.3) ? null : make();
  set("livestream_id", () => g.pick(["x8abc12", "k2Z9", "a".repeat(g.int(1, 3000)), "id with <&>"]));
  set("title", () => g.text(g.bool(0.9) ? 255 : 2000));
  set("livestream_url", () => g.url());
  set(
    "description",
    nullable(() => g.text(3000)),
  );
  set("visibility", () => g.pick(["public", "private", "password", "unlisted", ""]));
  set("category", () => g.pick(["news", "sport", "cooking"]));
  set(
    "start_at",
    nullable(() => g.timestamp()),
  );
  set(
    "end_at",
    nullable(() => g.timestamp()),
  );
  set("updated_at", () => g.timestamp());
  set("created_at", () => g.timestamp());
  set("status", () => {
    const s: NonNullable<Livestream["status"]> = {};
    if (g.bool(0.8)) s.onair = g.bool();
    if (g.bool(0.8)) s.airing_at = nullable(() => g.timestamp())();
    if (g.bool(0.8))
      s.audio_bitrate = nullable(() => g.pick([0, 1, 999, 64_000, 128_000, 320_000, 2 ** 31]))();
    return s;
  });
  set("recording", () => {
    const r: NonNullable<Livestream["recording"]> = {};
    if (g.bool(0.8)) r.auto_record = g.bool();
    if (g.bool(0.8)) r.status = g.pick(["starting", "started", "stopping", "stopped", "paused", g.text(300)]);
    if (g.bool(0.5)) r.start_at = nullable(() => g.timestamp())();
    return r;
  });
  set("advertising", () => {
    const a: NonNullable<Livestream["advertising"]> = {};
    if (g.bool(0.8)) a.remaining = g.pick([0, 1, 17, 24, 25, 1000]);
    if (g.bool(0.8)) a.end_at = nullable(() => g.timestamp())();
    return a;
  });
  set("geo_restriction", () => {
    const geo: NonNullable<Livestream["geo_restriction"]> = {};
    if (g.bool(0.85)) geo.mode = g.pick(["allow", "deny", "block", "<x>"]);
    if (g.bool(0.85)) {
      const n = g.pick([0, 1, 3, 60, 300]);
      geo.countries = Array.from({ length: n }, () =>
        g.pick(["FR", "BE", "CH", "US", "<&>", "Narnia-land-long"]),
      );
    }
    return geo;
  });
  set("embedding", () => {
    const e: NonNullable<Livestream["embedding"]> = {};
    if (g.bool(0.8)) e.enable_embed = g.bool();
    if (g.bool(0.8)) e.embed_url = g.url();
    if (g.bool(0.3)) e.embed_html = "<iframe></iframe>";
    return e;
  });
  set("thumbnail", () => {
    const t: NonNullable<Livestream["thumbnail"]> = {};
    for (const k of ["h1080_url", "h720_url", "h480_url", "h240_url", "default_url"] as const) {
      if (g.bool(0.7)) t[k] = nullable(() => g.url())();
    }
    return t;
  });
  set("ingest", () => ({
    rtmp_url: `rtmp://in.example.net/live/SECRETKEY${g.int(0, 9999)}`,
    srt_url: g.bool() ? null : `srt://in.example.net:9000?streamid=SECRETSRT${g.int(0, 9999)}`,
    available_servers: Object.fromEntries(
      Array.from({ length: g.int(0, 60) }, (_, i) => [
        `server ${i} ${g.text(30)}`,
        `rtmp://s${i}.example.net/live/SECRETSRV${i}`,
      ]),
    ),
  }));
  return ls;
}

// --- Reading messages -----------------------------------------------------------------------------

function unescapeMrkdwn(s: string): string {
  return s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
}

/** Every `text` string of the blocks (recursively), unescaped, one per line. */
export function blockText(msg: Message): string {
  const out: string[] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) for (const x of v) walk(x);
    else if (v !== null && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) {
        if (k === "text" && typeof x === "string") out.push(x);
        else walk(x);
      }
    }
  };
  walk(msg.blocks);
  return unescapeMrkdwn(out.join("\n"));
}

/** The raw text of every mrkdwn object (what Slack interprets: links, mentions). */
export function mrkdwnTexts(msg: Message): string {
  const out: string[] = [];
  const walk = (v: unknown) => {
    if (Array.isArray(v)) for (const x of v) walk(x);
    else if (v !== null && typeof v === "object") {
      const o = v as Record<string, unknown>;
      if (o.type === "mrkdwn" && typeof o.text === "string") out.push(o.text);
      else for (const x of Object.values(o)) walk(x);
    }
  };
  walk(msg.blocks);
  return out.join("\n");
}

/** All buttons of a message, wherever they are. */
export function buttons(
  msg: Message,
): Array<{ action_id?: string; value?: string; style?: string; confirm?: unknown; text: { text: string } }> {
  const out: Array<{
    action_id?: string;
    value?: string;
    style?: string;
    confirm?: unknown;
    text: { text: string };
  }> = [];
  for (const b of msg.blocks) {
    if (b.type === "actions") for (const el of b.elements) if (el.type === "button") out.push(el);
    if (b.type === "section" && b.accessory?.type === "button") out.push(b.accessory);
  }
  return out;
}
