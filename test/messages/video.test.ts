import { describe, expect, it } from "vitest";
import {
  LIMITS,
  MAX_PRESET_LINES,
  type Message,
  parentMetadata,
  progressBar,
  renderMilestone,
  renderParent,
  videoUrl,
} from "../../src/messages/index.js";
import type { Delivery } from "../../src/platform/schemas.js";
import { parentHash } from "../../src/video/hash.js";
import {
  applyDelivery,
  initialState,
  type Milestone,
  PRESET_CAP,
  type VideoState,
} from "../../src/video/state.js";
import {
  applyAll,
  CTX,
  delivery,
  ev,
  int,
  lifecycle,
  pick,
  prng,
  T0,
  VIDEO,
} from "../notify/video/fixtures.js";
import { assertWithinLimits } from "./limits.js";

const at = (ms: number) => T0 + ms;
const NOW = new Date(T0 + 60_000);

/** Every text of a message (fallback, section texts, context elements). */
function texts(m: Message): string[] {
  const out = [m.text];
  for (const b of m.blocks) {
    if (b.type === "section" && b.text) out.push(b.text.text);
    if (b.type === "context") for (const e of b.elements) if ("text" in e) out.push(e.text);
  }
  return out;
}
const all = (m: Message) => texts(m).join("\n");

function milestone(s: VideoState, key: string): Milestone {
  const m = s.milestones.find((x) => x.key === key);
  if (!m) throw new Error(`no milestone ${key}`);
  return m;
}

describe("progressBar", () => {
  it("has one filled cell per full 10%", () => {
    expect(progressBar(0)).toBe("▱▱▱▱▱▱▱▱▱▱");
    expect(progressBar(50)).toBe("▰▰▰▰▰▱▱▱▱▱");
    expect(progressBar(99)).toBe("▰▰▰▰▰▰▰▰▰▱");
    expect(progressBar(100)).toBe("▰▰▰▰▰▰▰▰▰▰");
    expect(progressBar(250)).toBe("▰▰▰▰▰▰▰▰▰▰");
    expect(progressBar(Number.NaN)).toBe("▱▱▱▱▱▱▱▱▱▱");
  });
});

describe("renderParent through a lifecycle", () => {
  const ds = lifecycle();
  const upTo = (pred: (d: Delivery) => boolean) => applyAll(ds.slice(0, ds.findIndex(pred)));

  it("created: header with the video, owner and profile, the stage and the event count", () => {
    const created = applyAll(ds.slice(0, 1));
    const m = renderParent(created, NOW);
    expect(m.text).toBe("Video x1abc: created");
    expect(all(m)).toContain("🎬 *Video* `x1abc` · owner `owner42` · profile `prof1`");
    const own = renderParent({ ...created, ownerId: created.profileId }, NOW);
    expect(all(own)).toContain("🎬 *Video* `x1abc` · profile `prof1`");
    expect(all(m)).toContain("🆕 *Created* <!date^");
    expect(all(m)).toMatch(/Last event <!date\^\d+\^[^|]+\|2025-03-14 18:00 UTC> · 1 event$/m);
    expect(assertWithinLimits(m)).toEqual([]);
  });

  it("encoding: one line per preset with bar and percentage, and a fallback with the progress", () => {
    const s = upTo((d) => d.type === "video.format.ready");
    const m = renderParent(s, NOW);
    expect(m.text).toBe("Video x1abc: encoding 0/3 formats (`240p` 100%, `480p` 50%, `720p` 30%)");
    const text = all(m);
    expect(text).toContain("⚙️ *Encoding* · 0/3 formats ready");
    expect(text).toContain("`240p` ▰▰▰▰▰▰▰▰▰▰ 100%");
    expect(text).toContain("`480p` ▰▰▰▰▰▱▱▱▱▱ 50%");
    expect(text).toContain("`720p` ▰▰▰▱▱▱▱▱▱▱ 30%");
    expect(text.indexOf("`240p`")).toBeLessThan(text.indexOf("`480p`"));
    expect(text).toContain(`· ${s.eventCount} events`);
  });

  it("ready presets are ticked; published and complete show their times", () => {
    const pub = renderParent(
      upTo((d) => d.type === "video.complete"),
      NOW,
    );
    expect(pub.text).toBe("Video x1abc: published");
    expect(all(pub)).toContain("✅ *Published* <!date^");
    expect(all(pub)).toContain("`240p` ▰▰▰▰▰▰▰▰▰▰ 100% · ready ✓");
    expect(all(pub)).toContain("Published <!date^");

    const done = renderParent(applyAll(ds), NOW);
    expect(done.text).toBe("Video x1abc: complete, all formats ready (`240p`, `480p`, `720p`)");
    expect(all(done)).toContain("🏁 *Complete* <!date^");
    expect(all(done)).toMatch(/Complete <!date\^\d+\^[^>]+>/);
    expect(all(done)).toContain("36 events");
  });

  it("formats ready before publication", () => {
    const s = applyAll(ds.filter((d) => d.type !== "video.published" && d.type !== "video.complete"));
    const m = renderParent(s, NOW);
    expect(m.text).toBe("Video x1abc: formats ready (3/3)");
    expect(all(m)).toContain("🎞️ *Formats ready* · 3/3 formats");
  });

  it("a failed format is flagged in the stage line and in its own line", () => {
    const s = applyAll([...ds.slice(0, 10), ev.error(at(9_999), "720p")]);
    const m = renderParent(s, NOW);
    expect(all(m)).toContain("⚠️ failed: `720p`");
    expect(all(m)).toContain("`720p` ✗ error (at 10%)");
    expect(m.text).toMatch(/; failed: `720p`$/);
  });

  it("a deleted format is marked deleted and not counted", () => {
    const s = applyAll([ev.ready(at(1), "240p"), ev.ready(at(2), "480p"), ev.formatDeleted(at(3), "480p")]);
    const m = renderParent(s, NOW);
    expect(all(m)).toContain("`480p` 🗑️ format deleted");
    expect(all(m)).toContain("1/1 format");
  });

  it("deleted: says so plainly, lists the formats as they were, no progress bars", () => {
    const s = applyAll([...ds.slice(0, 20), ev.deleted(at(12_000))]);
    const m = renderParent(s, NOW);
    expect(m.text).toBe("Video x1abc: deleted");
    expect(all(m)).toContain("🗑️ *Video deleted* <!date^");
    expect(all(m)).toContain("Formats at deletion: `240p` ready · `480p` 50% · `720p` 30%");
    expect(all(m)).not.toContain("▰");
  });

  it("an unfinished encoding with no news for a long time says so", () => {
    const s = upTo((d) => d.type === "video.format.ready");
    expect(all(renderParent(s, new Date(s.lastEventAt + 29 * 60_000)))).not.toContain("⏳");
    expect(all(renderParent(s, new Date(s.lastEventAt + 31 * 60_000)))).toContain(
      "⏳ no news for over 30 min",
    );
    expect(all(renderParent(applyAll(ds), new Date(s.lastEventAt + 99 * 60_000)))).not.toContain("⏳");
  });

  it("a state without events or video renders too", () => {
    const m = renderParent(initialState({ ...CTX, videoId: null }), NOW);
    expect(all(m)).toContain("Events without a video");
    expect(all(m)).toContain("No event yet");
    expect(assertWithinLimits(m)).toEqual([]);
  });
});

describe("renderMilestone", () => {
  const done = applyAll(lifecycle());

  it("published, complete, deleted", () => {
    const pub = renderMilestone(milestone(done, "published"), done);
    expect(pub.text).toBe("Video x1abc: published");
    expect(all(pub)).toMatch(/^✅ Published <!date\^\d+\^[^|]+\|2025-03-14 18:00 UTC>$/m);
    const complete = renderMilestone(milestone(done, "complete"), done);
    expect(texts(complete)[1]).toBe("🏁 Complete: all formats ready (`240p`, `480p`, `720p`)");
    expect(complete.text).toBe("Video x1abc: complete, all formats ready (`240p`, `480p`, `720p`)");
    const del = applyAll([ev.deleted(at(5))]);
    expect(texts(renderMilestone(milestone(del, "deleted"), del))[1]).toMatch(/^🗑️ Video deleted <!date\^/);
  });

  it('complete with a failed format: never "all formats ready", the failed one named (parent and thread)', () => {
    const s = applyAll([
      ev.created(T0),
      ev.ready(T0 + 1_000, "240p"),
      ev.ready(T0 + 2_000, "480p"),
      ev.error(T0 + 3_000, "720p"),
      ev.complete(T0 + 4_000),
    ]);
    const parent = all(renderParent(s, NOW));
    expect(parent).not.toContain("all formats ready");
    expect(parent).toContain("2/3 formats ready");
    expect(parent).toContain("failed: `720p`");
    const done = renderMilestone(milestone(s, "complete"), s);
    expect(texts(done)[1]).toBe("🏁 Complete: ready: `240p`, `480p`; failed: `720p`");
    expect(done.text).toBe("Video x1abc: complete, ready: `240p`, `480p`; failed: `720p`");
    // None failed: "all" as before.
    const fine = applyAll([ev.created(T0), ev.ready(T0 + 1_000, "240p"), ev.complete(T0 + 2_000)]);
    expect(all(renderParent(fine, NOW))).toContain("all formats ready");
  });

  it("format error (with details when the platform sends some) and format deleted", () => {
    const s = applyAll([
      ev.error(at(5), "720p", { reason: "codec <h265> & co" }),
      ev.formatDeleted(at(6), "720p"),
    ]);
    const err = renderMilestone(milestone(s, "error:720p"), s);
    expect(err.text).toBe("Video x1abc: encoding of `720p` failed");
    expect(texts(err)[1]).toBe('⚠️ Encoding of `720p` failed\n```{"reason":"codec &lt;h265&gt; &amp; co"}```');
    const plain = applyAll([ev.error(at(5), "720p")]);
    expect(texts(renderMilestone(milestone(plain, "error:720p"), plain))[1]).toBe(
      "⚠️ Encoding of `720p` failed",
    );
    const del = renderMilestone(milestone(s, "format-deleted:720p"), s);
    expect(texts(del)[1]).toBe("🗑️ Format `720p` deleted");
    expect(del.text).toBe("Video x1abc: format `720p` deleted");
  });

  it("unknown event: a short line and a compact, escaped, bounded code block of its data", () => {
    const s = applyAll([delivery("video.moderated", at(5), { video_id: VIDEO, note: "a`b```c <!channel>" })]);
    const m = renderMilestone(milestone(s, `event:video.moderated:${at(5)}`), s);
    expect(m.text).toBe("Video x1abc: event video.moderated received");
    const [line, block] = texts(m)[1]?.split("\n") ?? [];
    expect(line).toMatch(/^ℹ️ Event `video\.moderated` received <!date\^/);
    expect(block).toBe('```{"note":"a\'b\'\'\'c &lt;!channel&gt;","video_id":"x1abc"}```');
    expect(assertWithinLimits(m)).toEqual([]);
  });

  it("standalone message (no video) names the profile", () => {
    const s = applyDelivery(initialState({ ...CTX, videoId: null }), delivery("profile.updated", at(1), {}));
    const m = renderMilestone(s.milestones[0] as Milestone, s);
    expect(m.text).toBe("Event profile.updated received");
    expect(all(m)).toContain("Profile `prof1`");
  });

  it("huge data is cut and still closed", () => {
    const s = applyAll([delivery("video.huge", at(1), { video_id: VIDEO, blob: "<&>".repeat(20_000) })]);
    const m = renderMilestone(s.milestones[0] as Milestone, s);
    const text = texts(m)[1] ?? "";
    expect(text.length).toBeLessThan(1_800);
    expect(text.endsWith("```")).toBe(true);
    expect(text.split("```")).toHaveLength(3);
    expect(assertWithinLimits(m)).toEqual([]);
  });
});

const ODD = [
  "720p",
  "<!channel>",
  "a & b > c",
  "`code` *bold* _it_ ~strike~",
  "__proto__",
  "constructor",
  "line\nbreak\ttab",
  "😀".repeat(300),
  "x".repeat(500),
  "<https://evil.example|click>",
  "&amp;&lt;",
  " ",
  "\u{1F600}\uD83D",
];

function randomName(rand: () => number): string {
  switch (int(rand, 4)) {
    case 0:
      return pick(rand, ODD);
    case 1:
      return `${pick(rand, ODD)}-${int(rand, 1000)}`;
    case 2:
      return `${int(rand, 4000)}p`;
    default:
      return Array.from({ length: 1 + int(rand, 500) }, () =>
        pick(rand, ["a", "<", "&", "`", "é", "😀", " ", "*"]),
      ).join("");
  }
}

function randomState(seed: number): VideoState {
  const rand = prng(seed);
  const videoId = rand() < 0.1 ? null : rand() < 0.5 ? VIDEO : randomName(rand);
  const ref = { video_id: videoId ?? "ignored", owner_id: rand() < 0.5 ? "owner42" : randomName(rand) };
  const presets = Array.from(
    { length: rand() < 0.3 ? 60 : 1 + int(rand, 12) },
    (_, i) => `${randomName(rand)}${i}`,
  );
  let s = initialState({ ...CTX, profileId: rand() < 0.2 ? randomName(rand) : "prof1", videoId });
  if (presets.length === 60 && videoId !== null) {
    for (const [i, p] of presets.entries())
      s = applyDelivery(s, ev.processing(at(i), p, int(rand, 101), ref.video_id));
  }
  const n = 1 + int(rand, 150);
  for (let i = 0; i < n; i++) {
    const t = at(int(rand, 100_000));
    const preset = pick(rand, presets);
    const r = rand();
    let d: Delivery;
    if (videoId === null || r < 0.05) {
      const data: Record<string, unknown> = { ...(videoId === null ? {} : ref), x: randomName(rand) };
      if (rand() < 0.2) data.big = randomName(rand).repeat(50);
      d = delivery(rand() < 0.5 ? "video.moderated" : randomName(rand).slice(0, 200) || "t", t, data);
    } else if (r < 0.6)
      d = delivery("video.format.processing", t, {
        ...ref,
        preset_name: preset,
        status: "processing",
        progress: int(rand, 101),
      });
    else if (r < 0.75)
      d = delivery("video.format.ready", t, { ...ref, preset_name: preset, status: "ready" });
    else if (r < 0.82)
      d = delivery("video.format.error", t, { ...ref, preset_name: preset, why: randomName(rand) });
    else if (r < 0.86) d = delivery("video.format.deleted", t, { ...ref, preset_name: preset });
    else
      d = delivery(
        pick(rand, ["video.created", "video.published", "video.complete", "video.deleted"]),
        t,
        ref,
      );
    s = applyDelivery(s, d);
  }
  // What the video's title read said (src/notify/title.ts), a title of any foreign text.
  const r = rand();
  if (videoId !== null && r < 0.7) {
    const facts: VideoState["title"][] = [
      { title: randomName(rand).slice(0, 510) },
      { title: null },
      { notConfirmed: true },
      { unknown: "timeout" },
    ];
    s = { ...s, title: pick(rand, facts) };
  }
  return s;
}

describe("Block Kit limits whatever the data", () => {
  it("parent and every milestone of many random states stay within limits", () => {
    let withSixty = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const s = randomState(seed);
      // Capped at PRESET_CAP (50); the rest of the 60 names are only counted.
      if (Object.keys(s.presets).length >= PRESET_CAP && (s.ignoredPresets?.length ?? 0) > 0) withSixty++;
      const parent = renderParent(s, NOW);
      expect(assertWithinLimits(parent), `seed ${seed} parent`).toEqual([]);
      expect(parent.blocks.length, `seed ${seed}`).toBeLessThanOrEqual(10);
      for (const m of s.milestones) {
        const msg = renderMilestone(m, s);
        expect(assertWithinLimits(msg), `seed ${seed} ${m.key.slice(0, 40)}`).toEqual([]);
        expect(msg.text.trim(), `seed ${seed}`).not.toBe("");
      }
    }
    expect(withSixty).toBeGreaterThan(20);
  });

  it("60 presets with 500-character names: 50 kept, capped lines, 'and N more', '+10 more formats not shown'", () => {
    const names = Array.from({ length: 60 }, (_, i) => `${"<&>".repeat(166)}${i}`.slice(0, 500));
    let s = initialState({ ...CTX, videoId: "v".repeat(500), ownerId: "<o>".repeat(200) });
    names.forEach((name, i) => {
      s = applyDelivery(s, ev.processing(at(i), name, i));
    });
    s = applyDelivery(s, ev.error(at(100), names[49] ?? ""));
    expect(Object.keys(s.presets)).toHaveLength(PRESET_CAP);
    const m = renderParent(s, NOW);
    expect(assertWithinLimits(m)).toEqual([]);
    const presetLines = all(m)
      .split("\n")
      .filter((l) => l.includes("▰") || l.includes("▱") || l.includes("✗ error"));
    expect(presetLines).toHaveLength(MAX_PRESET_LINES);
    const hidden = PRESET_CAP - MAX_PRESET_LINES;
    expect(all(m)).toContain(`_and ${hidden} more (${hidden} encoding)_`);
    expect(all(m)).toContain("_+10 more formats not shown_");
    expect(m.text).toContain("(+10 more formats not shown)");
    // The failed one is among the lines shown even though it sorts last.
    expect(all(m)).toContain("✗ error");
    expect(m.text.length).toBeLessThan(2_000);
    for (const t of texts(m).slice(1)) expect(t.length).toBeLessThanOrEqual(LIMITS.sectionText);
    const complete = renderMilestone(
      { key: "complete", type: "video.complete", timestamp: at(1), data: {} },
      applyAll(names.map((n, i) => ev.ready(at(i), n))),
    );
    expect(assertWithinLimits(complete)).toEqual([]);
    expect(all(complete)).toContain(`and ${PRESET_CAP - 10} more`);
  });

  it("names cannot inject mentions, links or formatting", () => {
    const s = applyAll([ev.processing(at(1), "<!channel> `x` <https://evil.example|click>", 10)]);
    const text = all(renderParent(s, NOW));
    expect(text).not.toContain("<!channel>");
    expect(text).not.toContain("<https://evil");
    expect(text).toContain("`&lt;!channel&gt; 'x' &lt;https://evil.example|click&gt;`");
  });
});

describe("parentHash", () => {
  const s = applyAll(lifecycle().slice(0, 20));

  it("is stable for the same state, at another time, and whatever the key order", () => {
    const a = renderParent(s, NOW);
    const b = renderParent(structuredClone(s), new Date(NOW.getTime() + 5 * 60_000));
    expect(parentHash(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(parentHash(b)).toBe(parentHash(a));
    const reordered: Message = JSON.parse(JSON.stringify({ blocks: a.blocks, text: a.text }), (_k, v) =>
      v && typeof v === "object" && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).reverse()) : v,
    );
    expect(JSON.stringify(reordered)).not.toBe(JSON.stringify(a));
    expect(parentHash(reordered)).toBe(parentHash(a));
  });

  it("does not change for a duplicate delivery, changes when the rendering changes", () => {
    const d = lifecycle()[19] as Delivery;
    expect(parentHash(renderParent(applyDelivery(s, d), NOW))).toBe(parentHash(renderParent(s, NOW)));
    const next = applyDelivery(s, lifecycle()[20] as Delivery);
    expect(parentHash(renderParent(next, NOW))).not.toBe(parentHash(renderParent(s, NOW)));
    const one = renderParent(s, NOW);
    const changed: Message = { ...one, text: `${one.text}.` };
    expect(parentHash(changed)).not.toBe(parentHash(one));
  });
});

describe("preset names are inline code in blocks and fallback text", () => {
  const HOSTILE = ["*bold*", "<https://evil.example|click>", "<!channel>", "_it_ a`b ~s~"];
  /** A text with its inline code spans taken out: what Slack would format or link. */
  const outsideCode = (t: string) => t.replace(/```[\s\S]*?```/g, "").replace(/`[^`\n]*`/g, "");

  function expectOnlyAsCode(m: Message, where: string): void {
    for (const t of texts(m)) {
      const rest = outsideCode(t);
      for (const bad of ["*bold*", "evil", "channel", "_it_", "~s~", "click"]) {
        expect(rest, `${where}: ${JSON.stringify(t)}`).not.toContain(bad);
      }
      expect(t).not.toMatch(/<(https?:|!channel|!here|!everyone)/);
    }
  }

  it("in every stage, milestone and fallback, with backticks neutralised", () => {
    const processing = applyAll(HOSTILE.map((n, i) => ev.processing(at(i), n, 10 + i)));
    const failed = applyAll([
      ...HOSTILE.map((n, i) => ev.processing(at(i), n, 10)),
      ev.error(at(9), "*bold*"),
    ]);
    const complete = applyAll([...HOSTILE.map((n, i) => ev.ready(at(i), n)), ev.complete(at(20))]);
    const deleted = applyAll([...HOSTILE.map((n, i) => ev.ready(at(i), n)), ev.deleted(at(20))]);
    const formatGone = applyAll([ev.ready(at(1), "*bold*"), ev.formatDeleted(at(2), "<!channel>")]);
    for (const [name, s] of Object.entries({ processing, failed, complete, deleted, formatGone })) {
      expectOnlyAsCode(renderParent(s, NOW), `${name} parent`);
      for (const m of s.milestones) expectOnlyAsCode(renderMilestone(m, s), `${name} ${m.key}`);
    }
    expect(renderParent(processing, NOW).text).toContain("`*bold*` 10%");
    expect(renderParent(processing, NOW).text).toContain("`_it_ a'b ~s~` 13%");
    expect(renderParent(failed, NOW).text).toMatch(/; failed: `\*bold\*`$/);
    const done = renderMilestone(milestone(complete, "complete"), complete);
    expect(texts(done)[1]).toContain("`*bold*`");
    expect(done.text).toContain("`&lt;!channel&gt;`");
    expect(all(renderParent(deleted, NOW))).toContain("`*bold*` ready");
    expect(renderMilestone(milestone(failed, "error:*bold*"), failed).text).toBe(
      "Video x1abc: encoding of `*bold*` failed",
    );
  });
});

describe("video links (VIDEO_URL_TEMPLATE) and metadata", () => {
  const TEMPLATE = "https://www.dailymotion.com/video/{id}";
  const ds = lifecycle();
  const s = applyAll(ds);

  it("the parent and every milestone link the video; none without a template", () => {
    const linked = `<https://www.dailymotion.com/video/${s.videoId}|Open the video>`;
    expect(all(renderParent(s, NOW, { videoUrlTemplate: TEMPLATE }))).toContain(linked);
    expect(all(renderParent(s, NOW))).not.toContain("Open the video");
    expect(s.milestones.length).toBeGreaterThan(0);
    for (const m of s.milestones) {
      expect(all(renderMilestone(m, s, { videoUrlTemplate: TEMPLATE }))).toContain(linked);
      expect(all(renderMilestone(m, s))).not.toContain("Open the video");
    }
  });

  it("the id is URL-encoded: a hostile id cannot end the link or add one", () => {
    const id = "x1>|<https://evil.example|click> &a=b";
    const url = videoUrl(id, { videoUrlTemplate: TEMPLATE });
    expect(url).toBe(`https://www.dailymotion.com/video/${encodeURIComponent(id)}`);
    const text = all(renderParent({ ...s, videoId: id }, NOW, { videoUrlTemplate: TEMPLATE }));
    expect(text).not.toContain("<https://evil.example");
    expect(text).toContain(`<${url}|Open the video>`);
  });

  it("the parent's metadata names the video, its profile and stage", () => {
    expect(parentMetadata(s)).toEqual({
      event_type: "video_status",
      event_payload: { video_id: s.videoId, profile_id: s.profileId, stage: s.stage },
    });
    expect(parentMetadata({ ...s, videoId: null })).toBeUndefined();
  });
});

describe("the video's title (src/notify/title.ts)", () => {
  const done = applyAll(lifecycle());
  const TRICKY = "<!channel> *Breaking* & <https://evil.example|click here> 🌉";

  it("heads the parent as plain text, leads its fallback text, and is a plain-text line of each reply", () => {
    const s: VideoState = { ...done, title: { title: TRICKY } };
    const m = renderParent(s, NOW);
    expect(m.blocks[0]).toEqual({ type: "header", text: { type: "plain_text", text: TRICKY, emoji: true } });
    expect(
      m.text.startsWith("&lt;!channel&gt; *Breaking* &amp; &lt;https://evil.example|click here&gt;"),
    ).toBe(true);
    expect(m.text).toContain(`(video ${VIDEO})`);
    expect(all(m)).not.toContain("<!channel>");
    const reply = renderMilestone(milestone(s, "published"), s);
    expect(reply.text.startsWith("&lt;!channel&gt;")).toBe(true);
    expect(reply.text).not.toContain("<!channel>");
    expect(reply.blocks).toContainEqual({
      type: "context",
      elements: [{ type: "plain_text", text: TRICKY, emoji: false }],
    });
  });

  it("a 404 keeps the id and says the platform does not confirm it; other failures just keep the id", () => {
    const unconfirmed = renderParent({ ...done, title: { notConfirmed: true } }, NOW);
    expect(unconfirmed.blocks[0]?.type).toBe("section");
    expect(all(unconfirmed)).toContain("Not confirmed by the platform");
    expect(unconfirmed.text.startsWith(`Video ${VIDEO}`)).toBe(true);
    const failed = renderParent({ ...done, title: { unknown: "timeout" } }, NOW);
    expect(parentHash(failed)).toBe(parentHash(renderParent(done, NOW)));
    const untitled = renderParent({ ...done, title: { title: null } }, NOW);
    expect(parentHash(untitled)).toBe(parentHash(renderParent(done, NOW)));
  });
});
