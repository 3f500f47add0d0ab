/**
 * The digest's messages (src/messages/digest.ts): long lists fold into the thread, titles are
 * escaped and linked, unconfirmed videos say so, broadcasts show start, length and ads used of 24
 * per hour, the left-out count is told, an empty catch-up is one line; within Block Kit's limits.
 */
import { describe, expect, it } from "vitest";
import { type DigestEntryView, renderDigest } from "../../src/messages/index.js";
import { assertWithinLimits } from "./limits.js";

const links = { videoUrlTemplate: "https://www.dailymotion.com/video/{id}" };
const base = {
  kind: "digest" as const,
  every: "daily" as const,
  profileId: "x2vq8nw",
  profileName: "Northwind <News> & Co",
  from: Date.parse("2026-11-25T09:00:00Z"),
  end: Date.parse("2026-11-26T09:00:00Z"),
  leftOut: 0,
  links,
};
const json = (v: unknown) => JSON.stringify(v);

function published(n: number): DigestEntryView[] {
  return Array.from({ length: n }, (_, i) => ({
    kind: "published" as const,
    videoId: `x7v${i}`,
    title: `Video ${i}`,
  }));
}

describe("renderDigest", () => {
  it("folds a long list into the thread: the first lines in the message, the rest in replies", () => {
    const { parent, replies } = renderDigest({ ...base, entries: published(60) });
    const text = json(parent.blocks);
    expect(text).toContain("*✅ Published (60)*");
    expect(text).toContain("x7v7");
    expect(text).not.toContain("x7v8`");
    expect(text).toContain("…and 52 more in the thread");
    expect(replies).toHaveLength(2);
    expect(json(replies[0]?.blocks)).toContain("*✅ Published, 9–48 of 60*");
    expect(json(replies[1]?.blocks)).toContain("*✅ Published, 49–60 of 60*");
    expect(json(replies[1]?.blocks)).toContain("x7v59");
    for (const m of [parent, ...replies]) expect(assertWithinLimits(m)).toEqual([]);
  });

  it("escapes titles and names, links the video, says when the platform does not confirm it", () => {
    const { parent } = renderDigest({
      ...base,
      entries: [
        { kind: "published", videoId: "x7a", title: "<!channel> & <@U123|you>" },
        {
          kind: "format_error",
          videoId: "x7b",
          title: null,
          notConfirmed: true,
          preset: "1080p",
        },
        { kind: "format_error", videoId: "x7b", preset: "720p" },
      ],
    });
    const text = json(parent.blocks);
    expect(text).toContain(
      "<https://www.dailymotion.com/video/x7a|&lt;!channel&gt; &amp; &lt;@U123|you&gt;> `x7a`",
    );
    expect(text).not.toContain("<!channel>");
    expect(text).toContain(
      "<https://www.dailymotion.com/video/x7b|x7b>: `1080p`, `720p` _(not confirmed by the platform)_",
    );
    expect(parent.text).toContain("Daily digest of Northwind &lt;News&gt; &amp; Co (x2vq8nw)");
    expect(parent.text).toContain("1 published · 1 with format errors");
  });

  it("shows each broadcast: start, length, ads used of 24 per hour; and how many entries were left out", () => {
    const { parent } = renderDigest({
      ...base,
      every: "weekly",
      leftOut: 12,
      entries: [
        {
          kind: "broadcast",
          broadcast: {
            livestreamId: "x9live",
            title: "Morning Live",
            startedAt: Date.parse("2026-11-25T06:00:00Z"),
            endedAt: Date.parse("2026-11-25T07:05:00Z"),
            adsUsed: 5,
          },
        },
      ],
    });
    const text = json(parent.blocks);
    expect(text).toContain("📰 Weekly digest of");
    expect(text).toMatch(
      /• Morning Live `x9live` · on air from <!date\^\d+\^[^>]+> for 1 h 05 min · 5 ads used \(of 24 per hour\)/,
    );
    expect(text).toContain("12 more events were left out: the bot keeps at most 500 per digest.");
  });

  it("an empty catch-up is one line", () => {
    const { parent, replies } = renderDigest({ ...base, kind: "catch-up", entries: [], pausedBy: "U0ADMIN" });
    expect(json(parent.blocks)).toContain("Nothing arrived while this channel was paused.");
    expect(json(parent.blocks)).toContain("While this channel was paused by <@U0ADMIN>");
    expect(replies).toEqual([]);
  });
});
