import { describe, expect, it } from "vitest";
import {
  ACTIONS,
  ingestMessage,
  LIMITS,
  LIVESTREAM_CARD_FIELDS,
  livestreamCard,
  type Message,
} from "../../src/messages/index.js";
import { validateLivestreamFields } from "../../src/platform/fields.js";
import { LIVESTREAM_FIELDS, type Livestream } from "../../src/platform/schemas.js";
import {
  blockText,
  buttons,
  DAY,
  Gen,
  HOUR,
  INGEST,
  iso,
  MIN,
  mrkdwnTexts,
  NOW,
  nullsEverywhere,
  offAir,
  onAirWithAdBreak,
  prng,
  randomLivestream,
} from "./fixtures.js";
import { assertWithinLimits } from "./limits.js";

function card(ls: Livestream, extra: { refreshedAt?: Date; requestedBy?: string } = {}): Message {
  const msg = livestreamCard(ls, { now: NOW, ...extra });
  expect(assertWithinLimits(msg)).toEqual([]);
  return msg;
}

/** No ingest address, key or label of INGEST (nor the words) anywhere in the message. */
function expectNoIngest(
  msg: Message,
  ingest: { rtmp_url?: string; srt_url?: string | null; available_servers?: Record<string, string> } = INGEST,
) {
  const json = JSON.stringify(msg);
  expect(json).not.toMatch(/rtmp|srt:|\bSRT\b|ingest|stream key|STREAMKEY|SECRET/i);
  const values = [ingest.rtmp_url, ingest.srt_url, ...Object.entries(ingest.available_servers ?? {}).flat()];
  for (const v of values) if (v) expect(json).not.toContain(v);
}

describe("livestreamCard: realistic livestreams", () => {
  it("on air with an ad break running", () => {
    const ls = onAirWithAdBreak();
    const msg = card(ls, { requestedBy: "U123ABC" });
    const text = blockText(msg);
    expect(msg.blocks[0]).toEqual({
      type: "header",
      text: { type: "plain_text", text: "Evening news", emoji: true },
    });
    expect(JSON.stringify(msg)).toContain("<https://www.dailymotion.com/video/x8abc12|");
    expect(text).toMatch(
      /🔴 \*On air\* since <!date\^1741977600\^[^|]+\|2025-03-14 18:40 UTC> \(20 min ago\)/,
    );
    expect(text).toContain("17/24 ads left this hour");
    expect(text).toMatch(/Ad break running, ends <!date\^\d+\^\{time\}\|[^>]+> \(in less than a minute\)/);
    expect(text).toContain("Only in FR, BE, CH");
    expect(text).toContain("Started <!date^1741977600");
    expect(text).toMatch(/Scheduled to end <!date[^>]+> \(in 1 h\)/);
    expect(text).toContain("Auto-record on · ⏺️ recording");
    expect(text).toContain("128 kbps");
    expect(text).toContain("Public");
    expect(text).toMatch(
      /Enabled · <https:\/\/geo\.dailymotion\.com\/player\.html\?video=x8abc12\|embed URL>/,
    );
    expect(text).toContain("Tonight’s headlines & weather.");
    expect(text).toMatch(/Livestream updated <!date[^>]+> \(5 min ago\)/);
    expect(text).toMatch(/Card refreshed <!date[^>]+> by <@U123ABC>/);
    expect(msg.text).toBe("Evening news: on air, ad break running, 17/24 ads left");
    const section = msg.blocks[1];
    expect(section?.type === "section" && section.accessory).toEqual({
      type: "image",
      image_url: "https://s1.example.net/x8abc12/240.jpg",
      alt_text: "Thumbnail of Evening news",
    });
    expect(buttons(msg)).toEqual([
      expect.objectContaining({ action_id: ACTIONS.liveRefresh, value: "x8abc12" }),
    ]);
  });

  it("an ad break that ended is not shown as running", () => {
    const ls = onAirWithAdBreak();
    ls.advertising = { remaining: 16, end_at: iso(-30_000) };
    const text = blockText(card(ls));
    expect(text).not.toContain("Ad break running");
    expect(text).toContain("16/24 ads left this hour");
  });

  it("on air with the hourly quota used up", () => {
    const ls = onAirWithAdBreak();
    ls.advertising = { remaining: 0, end_at: null };
    const msg = card(ls);
    expect(blockText(msg)).toContain("0/24 ads left this hour (quota used up or ad breaks unavailable)");
    expect(msg.text).toBe("Evening news: on air, 0/24 ads left");
  });

  it("off air: last on air, no ads, no audio, embedding disabled, everywhere, no thumbnail", () => {
    const msg = card(offAir());
    const text = blockText(msg);
    expect(text).toMatch(/⚫ \*Off air\* · last on air <!date[^>]+> \(2 d ago\)/);
    expect(text).toContain("No ads while off air");
    expect(text).not.toContain("ads left");
    expect(text).toContain("No audio signal");
    expect(text).toMatch(/\*Embedding\*\nDisabled(\n|$)/);
    expect(text).not.toContain("embed URL");
    expect(text).toContain("Available everywhere");
    expect(text).toMatch(/Ended <!date[^>]+> \(2 d ago\)/);
    expect(text).toContain("Auto-record off · ⏹️ stopped");
    expect(text).toContain("Private");
    expect(msg.text).toBe("Morning show: off air");
    expect(JSON.stringify(msg)).not.toContain('"accessory"');
  });

  it("scheduled in the future", () => {
    const ls = offAir();
    ls.start_at = iso(2 * HOUR);
    ls.end_at = iso(3 * HOUR);
    ls.status = { onair: false, airing_at: null, audio_bitrate: null };
    const text = blockText(card(ls));
    expect(text).toMatch(/Scheduled to start <!date[^>]+> \(in 2 h\)/);
    expect(text).toMatch(/Scheduled to end <!date[^>]+> \(in 3 h\)/);
    expect(text).toContain("never on air yet");
  });

  it("recording starting", () => {
    const ls = onAirWithAdBreak();
    ls.recording = { auto_record: true, status: "starting" };
    expect(blockText(card(ls))).toContain("Auto-record on · ⏳ starting");
  });

  it("geo-restriction: deny list, empty allow list", () => {
    const ls = onAirWithAdBreak();
    ls.geo_restriction = { mode: "deny", countries: ["RU", "CN"] };
    expect(blockText(card(ls))).toContain("Blocked in RU, CN");
    ls.geo_restriction = { mode: "allow", countries: [] };
    expect(blockText(card(ls))).toContain("Available nowhere");
  });

  it("geo-restriction: a long list is shortened", () => {
    const ls = onAirWithAdBreak();
    ls.geo_restriction = { mode: "allow", countries: Array.from({ length: 250 }, (_, i) => `C${i}`) };
    const text = blockText(card(ls));
    expect(text).toContain("C39 and 210 more");
    expect(text).not.toContain("C40,");
  });

  it("thumbnail falls back to 480 px, and is skipped when not a usable URL", () => {
    const ls = onAirWithAdBreak();
    ls.thumbnail = { h240_url: null, h480_url: "https://s1.example.net/480.jpg" };
    expect(JSON.stringify(card(ls))).toContain('"image_url":"https://s1.example.net/480.jpg"');
    ls.thumbnail = { h240_url: "javascript:alert(1)", h480_url: null };
    expect(JSON.stringify(card(ls))).not.toContain("image_url");
  });

  it("audio bitrate units", () => {
    const ls = onAirWithAdBreak();
    const audio = (b: number | null) => {
      ls.status = { onair: true, audio_bitrate: b };
      return blockText(card(ls));
    };
    expect(audio(64_400)).toContain("64 kbps");
    expect(audio(500)).toContain("500 bps");
    expect(audio(0)).toContain("No audio signal");
    expect(audio(null)).toContain("No audio signal");
  });

  it("refreshedAt and requestedBy are shown; a non-id requester is escaped text", () => {
    const refreshedAt = new Date(NOW.getTime() - 2 * MIN);
    const text = blockText(card(onAirWithAdBreak(), { refreshedAt, requestedBy: "<!channel>" }));
    expect(text).toContain(`Card refreshed <!date^${Math.floor(refreshedAt.getTime() / 1000)}^`);
    expect(JSON.stringify(card(onAirWithAdBreak(), { requestedBy: "<!channel>" }))).not.toContain(
      "<!channel>",
    );
  });
});

describe("livestreamCard: sparse, null, long and unknown values", () => {
  it("a fully sparse livestream renders 'unknown' and no Refresh button", () => {
    const msg = card({});
    const text = blockText(msg);
    expect(msg.text).toBe("Untitled livestream: on-air state unknown");
    expect(text).toContain("On-air state unknown");
    expect(text.match(/_unknown_/g)?.length).toBeGreaterThanOrEqual(7);
    expect(text).not.toMatch(/undefined|NaN|null/);
    expect(buttons(msg)).toEqual([]);
  });

  it("only an id: the Refresh button still works", () => {
    const msg = card({ livestream_id: "x9" });
    expect(msg.text).toBe("Livestream x9: on-air state unknown");
    expect(buttons(msg)[0]).toMatchObject({ action_id: "live_refresh", value: "x9" });
  });

  it("nulls everywhere the spec allows them", () => {
    const msg = card(nullsEverywhere());
    const text = blockText(msg);
    expect(text).toContain("Start: not scheduled");
    expect(text).toContain("End: not scheduled");
    expect(text).toContain("never on air yet");
    expect(text).toContain("No audio signal");
    expect(text).toContain("Auto-record on · ⏳ starting");
    expect(text).not.toMatch(/undefined|NaN|\bnull\b/);
    expect(msg.blocks.some((b) => b.type === "section" && b.text?.type === "plain_text")).toBe(false);
  });

  it("a 255-character title and a 3000-character HTML description with entities", () => {
    const title = `${"🔴".repeat(100)}${"T".repeat(55)}`;
    expect(title).toHaveLength(255);
    const description = `<p>${"Caf&eacute; &amp; cr&egrave;me &lt;live&gt; &#8212; ".repeat(60)}</p>`.slice(
      0,
      3000,
    );
    const ls: Livestream = { ...onAirWithAdBreak(), title, description };
    const msg = card(ls);
    const head = msg.blocks[0];
    expect(head?.type).toBe("header");
    const headText = head?.type === "header" ? head.text.text : "";
    expect(headText.length).toBeLessThanOrEqual(LIMITS.headerText);
    expect(headText.endsWith("…")).toBe(true);
    expect(headText.startsWith("🔴🔴")).toBe(true);
    const excerpt = msg.blocks.find((b) => b.type === "section" && b.text?.type === "plain_text");
    const excerptText = excerpt?.type === "section" ? (excerpt.text?.text ?? "") : "";
    expect(excerptText).toMatch(/^Café & crème <live> — Café/);
    expect(excerptText.length).toBeLessThanOrEqual(300);
    expect(excerptText).not.toMatch(/&[a-z]+;|<p>/);
    expect(msg.text.startsWith("🔴🔴")).toBe(true);
  });

  it("unknown enumeration values are shown as they are, escaped", () => {
    const ls = onAirWithAdBreak();
    ls.visibility = "unlisted";
    ls.recording = { auto_record: false, status: "paused" };
    ls.geo_restriction = { mode: "block<x>", countries: ["FR"] };
    ls.category = "cooking";
    const msg = card(ls);
    const text = blockText(msg);
    expect(text).toContain("`unlisted`");
    expect(text).toContain("status `paused`");
    expect(text).toContain("Mode `block<x>`: FR");
    expect(JSON.stringify(msg)).toContain("block&lt;x&gt;");
  });

  it("hostile strings cannot inject mentions or links", () => {
    const ls = onAirWithAdBreak();
    ls.title = "<!channel> <https://evil.example|click> & co";
    ls.livestream_url = "https://evil.example/a|b>c";
    ls.geo_restriction = { mode: "deny", countries: ["<!here>"] };
    const msg = card(ls);
    // Plain-text parts (header, alt text) are not interpreted; every mrkdwn part is escaped.
    const mrkdwn = mrkdwnTexts(msg);
    expect(mrkdwn).toContain("&lt;!here");
    expect(mrkdwn).not.toContain("<!here>");
    expect(mrkdwn).not.toContain("<https://evil.example");
    expect(mrkdwn).not.toContain("Open the livestream");
    expect(msg.text).toContain("&lt;!channel&gt; &lt;https://evil.example|click&gt; &amp; co");
    expect(msg.text).not.toContain("<!channel>");
  });
});

describe("livestreamCard never shows ingest addresses", () => {
  it("even when ls.ingest is present", () => {
    for (const ls of [onAirWithAdBreak(), offAir(), nullsEverywhere()]) {
      expect(ls.ingest).toBeDefined();
      expectNoIngest(card(ls), ls.ingest);
    }
  });
});

describe("LIVESTREAM_CARD_FIELDS", () => {
  it("is a valid sparse fields list without ingest", () => {
    expect(validateLivestreamFields(LIVESTREAM_CARD_FIELDS)).toEqual([...LIVESTREAM_CARD_FIELDS]);
    expect(LIVESTREAM_CARD_FIELDS.some((f) => f === "ingest" || f.startsWith("ingest."))).toBe(false);
    expect(new Set(LIVESTREAM_CARD_FIELDS).size).toBe(LIVESTREAM_CARD_FIELDS.length);
  });

  /** For each requested field: a change that must show on the card (base: on air, all fields). */
  const changes: Record<string, (ls: Livestream) => void> = {
    livestream_id: (ls) => {
      ls.livestream_id = "x0other";
    },
    title: (ls) => {
      ls.title = "Other title";
    },
    livestream_url: (ls) => {
      ls.livestream_url = "https://www.dailymotion.com/video/x0other";
    },
    description: (ls) => {
      ls.description = "<p>Other</p>";
    },
    visibility: (ls) => {
      ls.visibility = "password";
    },
    start_at: (ls) => {
      ls.start_at = iso(-3 * HOUR);
    },
    end_at: (ls) => {
      ls.end_at = iso(5 * HOUR);
    },
    updated_at: (ls) => {
      ls.updated_at = iso(-1 * DAY);
    },
    "status.onair": (ls) => {
      ls.status = { ...ls.status, onair: false };
    },
    "status.airing_at": (ls) => {
      ls.status = { ...ls.status, airing_at: iso(-2 * HOUR) };
    },
    "status.audio_bitrate": (ls) => {
      ls.status = { ...ls.status, audio_bitrate: 96_000 };
    },
    "recording.auto_record": (ls) => {
      ls.recording = { ...ls.recording, auto_record: false };
    },
    "recording.status": (ls) => {
      ls.recording = { ...ls.recording, status: "stopping" };
    },
    "advertising.remaining": (ls) => {
      ls.advertising = { ...ls.advertising, remaining: 3 };
    },
    "advertising.end_at": (ls) => {
      ls.advertising = { ...ls.advertising, end_at: null };
    },
    "geo_restriction.mode": (ls) => {
      ls.geo_restriction = { ...ls.geo_restriction, mode: "deny" };
    },
    "geo_restriction.countries": (ls) => {
      ls.geo_restriction = { ...ls.geo_restriction, countries: ["DE"] };
    },
    "embedding.enable_embed": (ls) => {
      ls.embedding = { ...ls.embedding, enable_embed: false };
    },
    "embedding.embed_url": (ls) => {
      ls.embedding = { ...ls.embedding, embed_url: "https://geo.dailymotion.com/player.html?video=x0other" };
    },
    "thumbnail.h240_url": (ls) => {
      ls.thumbnail = { ...ls.thumbnail, h240_url: "https://s1.example.net/other-240.jpg" };
    },
    "thumbnail.h480_url": (ls) => {
      // The 480 px image is the fallback: it shows when there is no 240 px one.
      ls.thumbnail = { ...ls.thumbnail, h240_url: null, h480_url: "https://s1.example.net/other-480.jpg" };
    },
  };

  it("has a visible effect for every listed field", () => {
    expect(Object.keys(changes).sort()).toEqual([...LIVESTREAM_CARD_FIELDS].sort());
    for (const field of LIVESTREAM_CARD_FIELDS) {
      const base = onAirWithAdBreak();
      if (field === "thumbnail.h480_url") base.thumbnail = { ...base.thumbnail, h240_url: null };
      const changed = structuredClone(base);
      changes[field]?.(changed);
      expect(JSON.stringify(card(changed)), field).not.toBe(JSON.stringify(card(base)));
    }
  });

  it("renders nothing of the fields it does not request", () => {
    const base = onAirWithAdBreak();
    const requested = new Set(LIVESTREAM_CARD_FIELDS);
    const others: string[] = [];
    for (const [top, subs] of Object.entries(LIVESTREAM_FIELDS)) {
      if (subs === null) {
        if (!requested.has(top)) others.push(top);
      } else {
        for (const sub of subs) if (!requested.has(`${top}.${sub}`)) others.push(`${top}.${sub}`);
      }
    }
    expect(others).toContain("ingest.rtmp_url");
    expect(others).toContain("category");
    const values: Record<string, unknown> = {
      string: "zz-changed-value",
      boolean: "flip",
      object: { profile_id: "zz-profile", name: "zz-name" },
    };
    const reference = JSON.stringify(card(base));
    for (const path of others) {
      const changed = structuredClone(base) as Record<string, unknown>;
      const [top, sub] = path.split(".") as [string, string | undefined];
      if (sub === undefined) {
        const old = changed[top];
        changed[top] =
          typeof old === "boolean"
            ? !old
            : top === "profile"
              ? values.object
              : top.endsWith("_at")
                ? iso(-7 * DAY)
                : "zz";
      } else {
        const obj = { ...((changed[top] as Record<string, unknown> | undefined) ?? {}) };
        const old = obj[sub];
        obj[sub] =
          typeof old === "boolean"
            ? !old
            : sub.endsWith("_url")
              ? "https://zz.example/zz.jpg"
              : sub.endsWith("_at")
                ? iso(-7 * DAY)
                : sub === "available_servers"
                  ? { zz: "rtmp://zz" }
                  : "zz";
        changed[top] = obj;
      }
      expect(JSON.stringify(card(changed as Livestream)), path).toBe(reference);
    }
  });
});

describe("property: random livestreams", () => {
  it("every card is within Block Kit limits, has a text and never shows ingest data", () => {
    const g = new Gen(prng(20250314));
    for (let i = 0; i < 600; i++) {
      const ls = randomLivestream(g);
      const now = new Date(NOW.getTime() + g.int(-DAY, DAY));
      const msg = livestreamCard(ls, { now, requestedBy: g.pick(["U123", "W9ZZ", "<@U1>", ""]) });
      const violations = assertWithinLimits(msg);
      expect(violations, `livestream #${i}: ${JSON.stringify(ls).slice(0, 500)}`).toEqual([]);
      expect(msg.text.trim()).not.toBe("");
      expect(JSON.stringify(msg)).not.toMatch(/\bundefined\b|\bNaN\b|\[object Object\]|SECRET|rtmp:|srt:/);
    }
  });

  it("every ingest message is within limits and its text carries no address", () => {
    const g = new Gen(prng(7));
    for (let i = 0; i < 300; i++) {
      const ls = randomLivestream(g);
      const msg = ingestMessage(ls);
      expect(assertWithinLimits(msg), `livestream #${i}`).toEqual([]);
      expect(msg.text).not.toMatch(/SECRET|rtmp:|srt:/);
    }
  });
});

describe("ingestMessage", () => {
  it("shows RTMP, SRT and every server in code, with the stream-key warning", () => {
    const msg = ingestMessage(onAirWithAdBreak());
    expect(assertWithinLimits(msg)).toEqual([]);
    const text = blockText(msg);
    expect(text).toContain("carry the stream key");
    expect(text).toContain(`\`\`\`${INGEST.rtmp_url}\`\`\``);
    expect(text).toContain(`\`\`\`${INGEST.srt_url}\`\`\``);
    expect(text).toContain(`Europe (Paris): ${INGEST.available_servers["Europe (Paris)"]}`);
    expect(text).toContain(`US East: ${INGEST.available_servers["US East"]}`);
    expect(msg.text).not.toContain("STREAMKEY");
    expect(msg.text).toContain("Evening news");
  });

  it("says when an address is not available", () => {
    const text = blockText(ingestMessage(nullsEverywhere()));
    expect(text).toMatch(/\*SRT\*\nNot available/);
    expect(text).toContain("None listed");
    const sparse = blockText(ingestMessage({}));
    expect(sparse).toMatch(/\*RTMP\*\nNot available/);
  });

  it("splits a long server list into closed code blocks", () => {
    const ls: Livestream = {
      title: "Many servers",
      ingest: {
        rtmp_url: "rtmp://a/live/k",
        available_servers: Object.fromEntries(
          Array.from({ length: 150 }, (_, i) => [
            `Server number ${i}`,
            `rtmp://server-${i}.example.net/live/KEY-${i}`,
          ]),
        ),
      },
    };
    const msg = ingestMessage(ls);
    expect(assertWithinLimits(msg)).toEqual([]);
    const sections = msg.blocks.filter(
      (b) => b.type === "section" && b.text?.text.includes("rtmp://server-"),
    );
    expect(sections.length).toBeGreaterThan(1);
    for (const s of sections) {
      const t = s.type === "section" ? (s.text?.text ?? "") : "";
      expect((t.split("```").length - 1) % 2).toBe(0);
    }
    expect(blockText(msg)).toContain("Server number 149: rtmp://server-149.example.net/live/KEY-149");
  });
});
