import { describe, expect, it } from "vitest";
import {
  escapeMrkdwn,
  escapeTruncate,
  htmlToText,
  type KnownBlock,
  LIMITS,
  type Message,
  relative,
  slackDate,
  truncate,
  truncateMrkdwn,
  utcText,
} from "../../src/messages/index.js";
import { HOUR, MIN, NOW } from "./fixtures.js";
import { assertWithinLimits } from "./limits.js";

describe("truncate", () => {
  it("keeps short strings and cuts long ones with an ellipsis, within max", () => {
    expect(truncate("hello", 5)).toBe("hello");
    expect(truncate("hello world", 8)).toBe("hello w…");
    expect(truncate("hello world", 8)).toHaveLength(8);
    expect(truncate("abc", 1)).toBe("…");
    expect(truncate("abc", 0)).toBe("");
  });

  it("never splits a surrogate pair", () => {
    const s = "ab🔴🔴🔴";
    for (let max = 1; max < s.length; max++) {
      const t = truncate(s, max);
      expect(t.length).toBeLessThanOrEqual(max);
      // A lone high surrogate before the ellipsis would be a broken character.
      expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/.test(t)).toBe(false);
      expect(t.endsWith("…")).toBe(true);
    }
  });
});

describe("escaping", () => {
  it("escapes &, < and > the way Slack wants", () => {
    expect(escapeMrkdwn("a & b <c> &amp;")).toBe("a &amp; b &lt;c&gt; &amp;amp;");
  });

  it("escapeTruncate fits the escaped text and never cuts an entity", () => {
    const s = "&".repeat(100);
    const t = escapeTruncate(s, 23);
    expect(t.length).toBeLessThanOrEqual(23);
    expect(t).toMatch(/^(&amp;)+…$/);
    expect(escapeTruncate("<ok>", 10)).toBe("&lt;ok&gt;");
  });

  it("truncateMrkdwn does not leave half a link or entity", () => {
    const s = `${"x".repeat(20)} <https://example.com/long/path|a link> and more`;
    for (let max = 20; max < s.length; max++) {
      const t = truncateMrkdwn(s, max);
      expect(t.length).toBeLessThanOrEqual(max);
      expect(
        assertWithinLimits({ text: "t", blocks: [{ type: "section", text: { type: "mrkdwn", text: t } }] }),
      ).toEqual([]);
    }
    expect(truncateMrkdwn("abc &amp; def", 8)).toBe("abc…");
  });

  it("truncateMrkdwn closes a cut code block", () => {
    const t = truncateMrkdwn(`\`\`\`${"k".repeat(100)}\`\`\``, 50);
    expect(t.length).toBeLessThanOrEqual(50);
    expect(t.split("```").length - 1).toBe(2);
  });
});

describe("htmlToText", () => {
  it("strips tags, decodes entities once and collapses whitespace", () => {
    expect(
      htmlToText("<p>Tonight&rsquo;s <b>headlines</b> &amp; weather</p>\n\n<p>Then &lt;sport&gt;</p>"),
    ).toBe("Tonight’s headlines & weather Then <sport>");
    expect(htmlToText("&amp;lt;")).toBe("&lt;");
    expect(htmlToText("caf&eacute; &#233; &#xE9; &nbsp;x")).toBe("café é é x");
  });

  it("drops scripts, styles and comments but keeps a lone <", () => {
    expect(htmlToText("<script>alert(1)</script><style>p{}</style><!-- hidden -->a < b")).toBe("a < b");
  });

  it("separates block elements and keeps inline words together", () => {
    expect(htmlToText("<p>one</p><p>two</p><br>three<em>four</em>")).toBe("one two threefour");
  });

  it("turns invalid numeric entities into the replacement character and keeps unknown names", () => {
    expect(htmlToText("&#0; &#xD800; &#99999999; &bogus;")).toBe("\uFFFD \uFFFD \uFFFD &bogus;");
  });
});

describe("dates", () => {
  it("slackDate renders a date token with an escaped fallback", () => {
    expect(slackDate(new Date("2025-03-14T18:40:00Z"), "18:40 <UTC>")).toBe(
      "<!date^1741977600^{date_short_pretty} {time}|18:40 &lt;UTC&gt;>",
    );
    expect(slackDate("2025-03-14T18:40:00Z", "x", "{time}")).toBe("<!date^1741977600^{time}|x>");
    expect(slackDate("not a date", "fallback")).toBe("fallback");
  });

  it("utcText is readable UTC", () => {
    expect(utcText("2025-03-14T18:40:59Z")).toBe("2025-03-14 18:40 UTC");
    expect(utcText("nope")).toBe("unknown time");
  });

  it("relative says how long ago or how soon", () => {
    expect(relative(new Date(NOW.getTime() - 20 * MIN), NOW)).toBe("20 min ago");
    expect(relative(new Date(NOW.getTime() + 2 * HOUR), NOW)).toBe("in 2 h");
    expect(relative(new Date(NOW.getTime() - 3 * 24 * HOUR), NOW)).toBe("3 d ago");
    expect(relative(new Date(NOW.getTime() - 10_000), NOW)).toBe("just now");
    expect(relative(new Date(NOW.getTime() + 10_000), NOW)).toBe("in less than a minute");
    expect(relative(new Date(NOW.getTime() + 800 * 24 * HOUR), NOW)).toBe("in 2 y");
    expect(relative(new Date(Number.NaN), NOW)).toBe("at an unknown time");
  });
});

describe("assertWithinLimits", () => {
  const ok: Message = {
    text: "fine",
    blocks: [
      { type: "header", text: { type: "plain_text", text: "Title" } },
      { type: "section", text: { type: "mrkdwn", text: "<https://a.example|a> <@U123> <#C123> &amp;" } },
      { type: "divider" },
    ],
  };

  it("accepts a valid message", () => {
    expect(assertWithinLimits(ok)).toEqual([]);
  });

  const cases: Array<[string, Message, RegExp]> = [
    ["empty fallback text", { text: "  ", blocks: [] }, /text: empty/],
    ["too long fallback text", { text: "x".repeat(LIMITS.messageText + 1), blocks: [] }, /text: 40001/],
    [
      "too many blocks",
      { text: "t", blocks: Array.from({ length: 51 }, (): KnownBlock => ({ type: "divider" })) },
      /blocks: 51 > 50/,
    ],
    [
      "long header",
      { text: "t", blocks: [{ type: "header", text: { type: "plain_text", text: "h".repeat(151) } }] },
      /151 > 150/,
    ],
    [
      "long section",
      { text: "t", blocks: [{ type: "section", text: { type: "mrkdwn", text: "s".repeat(3001) } }] },
      /3001 > 3000/,
    ],
    [
      "empty section text",
      { text: "t", blocks: [{ type: "section", text: { type: "mrkdwn", text: "" } }] },
      /empty text/,
    ],
    [
      "unescaped <",
      { text: "t", blocks: [{ type: "section", text: { type: "mrkdwn", text: "a <b> c" } }] },
      /unescaped or malformed "<"/,
    ],
    [
      "unescaped &",
      { text: "t", blocks: [{ type: "section", text: { type: "mrkdwn", text: "a & c" } }] },
      /unescaped "&"/,
    ],
    [
      "11 fields",
      {
        text: "t",
        blocks: [
          {
            type: "section",
            fields: Array.from({ length: 11 }, () => ({ type: "mrkdwn" as const, text: "f" })),
          },
        ],
      },
      /fields: 11 > 10/,
    ],
    [
      "long field",
      { text: "t", blocks: [{ type: "section", fields: [{ type: "mrkdwn", text: "f".repeat(2001) }] }] },
      /2001 > 2000/,
    ],
    [
      "11 context elements",
      {
        text: "t",
        blocks: [
          {
            type: "context",
            elements: Array.from({ length: 11 }, () => ({ type: "mrkdwn" as const, text: "c" })),
          },
        ],
      },
      /11 items/,
    ],
    [
      "long button text",
      {
        text: "t",
        blocks: [
          {
            type: "actions",
            elements: [
              { type: "button", action_id: "a", text: { type: "plain_text", text: "b".repeat(76) } },
            ],
          },
        ],
      },
      /76 > 75/,
    ],
    [
      "long button value",
      {
        text: "t",
        blocks: [
          {
            type: "actions",
            elements: [
              {
                type: "button",
                action_id: "a",
                value: "v".repeat(2001),
                text: { type: "plain_text", text: "b" },
              },
            ],
          },
        ],
      },
      /value: 2001 > 2000/,
    ],
    [
      "long action_id",
      {
        text: "t",
        blocks: [
          {
            type: "actions",
            elements: [
              { type: "button", action_id: "a".repeat(256), text: { type: "plain_text", text: "b" } },
            ],
          },
        ],
      },
      /action_id: 256 > 255/,
    ],
    [
      "duplicate action ids",
      {
        text: "t",
        blocks: [
          {
            type: "actions",
            elements: [
              { type: "button", action_id: "a", text: { type: "plain_text", text: "b" } },
              { type: "button", action_id: "a", text: { type: "plain_text", text: "c" } },
            ],
          },
        ],
      },
      /duplicate a/,
    ],
    [
      "long confirm text",
      {
        text: "t",
        blocks: [
          {
            type: "actions",
            elements: [
              {
                type: "button",
                action_id: "a",
                text: { type: "plain_text", text: "b" },
                confirm: {
                  title: { type: "plain_text", text: "t" },
                  text: { type: "plain_text", text: "c".repeat(301) },
                },
              },
            ],
          },
        ],
      },
      /confirm.text: 301 > 300/,
    ],
    [
      "bad image url",
      {
        text: "t",
        blocks: [
          {
            type: "section",
            text: { type: "mrkdwn", text: "s" },
            accessory: { type: "image", image_url: "not a url", alt_text: "x" },
          },
        ],
      },
      /image_url: not an http\(s\) URL/,
    ],
    [
      "long alt text",
      {
        text: "t",
        blocks: [
          {
            type: "section",
            text: { type: "mrkdwn", text: "s" },
            accessory: { type: "image", image_url: "https://a.example/i.png", alt_text: "x".repeat(2001) },
          },
        ],
      },
      /alt_text: 2001 > 2000/,
    ],
    [
      "unchecked block type",
      { text: "t", blocks: [{ type: "markdown", text: "x" }] },
      /block type markdown is not checked/,
    ],
    [
      "duplicate block ids",
      {
        text: "t",
        blocks: [
          { type: "divider", block_id: "b" },
          { type: "divider", block_id: "b" },
        ],
      },
      /duplicate b/,
    ],
  ];

  for (const [name, msg, re] of cases) {
    it(`flags ${name}`, () => {
      const v = assertWithinLimits(msg);
      expect(v.length).toBeGreaterThan(0);
      expect(v.join("\n")).toMatch(re);
    });
  }

  it("flags a header that is not plain_text", () => {
    const msg = JSON.parse(
      '{"text":"t","blocks":[{"type":"header","text":{"type":"mrkdwn","text":"h"}}]}',
    ) as Message;
    const v = assertWithinLimits(msg);
    expect(v.join("\n")).toMatch(/must be plain_text/);
  });
});
