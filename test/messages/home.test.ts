import { describe, expect, it } from "vitest";
import { WEBHOOK_EVENTS } from "../../src/domain/index.js";
import {
  ACTIONS,
  type HomeProfile,
  type HomeView,
  type HomeViewOptions,
  homeView,
  type KnownBlock,
  type Message,
  VIEW_LIMITS,
} from "../../src/messages/index.js";
import { blockText, buttons, Gen, HOUR, MIN, mrkdwnTexts, NOW, prng } from "./fixtures.js";
import { assertViewWithinLimits } from "./view-limits.js";

function checked(view: HomeView): HomeView {
  expect(view.type).toBe("home");
  expect(assertViewWithinLimits(view)).toEqual([]);
  return view;
}

function msg(view: HomeView): Message {
  return { text: "home", blocks: view.blocks as KnownBlock[] };
}

function profile(over: Partial<HomeProfile> = {}): HomeProfile {
  return {
    profileId: "x1abc2",
    channelId: "C0NEWS",
    foreignUrl: null,
    events: ["video.published", "video.format.error"],
    setBy: "U0ALICE",
    setAt: new Date(NOW.getTime() - 3 * HOUR).toISOString(),
    lastDeliveryAt: NOW.getTime() - 20 * MIN,
    posted24h: 12,
    failed24h: 1,
    received24h: 14,
    ...over,
  };
}

function opts(over: Partial<HomeViewOptions> = {}): HomeViewOptions {
  return {
    now: NOW,
    isManager: true,
    platform: { ok: true, grantedScopes: ["live.read", "profile.manage"] },
    profiles: [profile()],
    managers: { configured: ["U0BOSS"], added: ["U0CAROL"] },
    ...over,
  };
}

const many = (n: number): HomeProfile[] =>
  Array.from({ length: n }, (_, i) => profile({ profileId: `x${String(i).padStart(5, "0")}` }));

describe("homeView: a configured profile", () => {
  it("shows channel, events, last delivery, 24 h counts and who set it", () => {
    const v = checked(homeView(opts()));
    const t = blockText(msg(v));
    const raw = mrkdwnTexts(msg(v));
    expect(v.blocks[0]?.type).toBe("header");
    expect(t).toContain("Profile `x1abc2`");
    expect(raw).toContain("*Channel:* <#C0NEWS>");
    expect(t).toContain("*Events (2):* published, format.error");
    const lastAt = Math.floor((NOW.getTime() - 20 * MIN) / 1000);
    expect(raw).toMatch(new RegExp(`\\*Last delivery:\\* <!date\\^${lastAt}\\^[^>]+> \\(20 min ago\\)`));
    expect(t).toContain("*Last 24 h:* 14 received · 12 posted · 1 failed");
    expect(raw).toContain("Set by <@U0ALICE>");
    expect(t).toContain("(3 h ago)");
    expect(raw).toContain(`Updated <!date^${Math.floor(NOW.getTime() / 1000)}^`);
  });

  it("a profile without deliveries, events or a channel says so", () => {
    const v = checked(
      homeView(
        opts({ profiles: [profile({ lastDeliveryAt: null, events: [], channelId: null, setAt: "bad" })] }),
      ),
    );
    const t = blockText(msg(v));
    expect(t).toContain("*Last delivery:* none yet");
    expect(t).toContain("*Events (0):* none");
    expect(t).toContain("*Channel:* none set — run `/webhook set x1abc2`");
    expect(t).toContain("Set by <@U0ALICE>\n"); // no date for an unparsable setAt
  });

  it("names unknown events, bounded, and nonsense counts as 0", () => {
    const events = ["video.created", "video.zzz", ...Array.from({ length: 30 }, (_, i) => `e${i}`)];
    const v = checked(
      homeView(
        opts({ profiles: [profile({ events, received24h: Number.NaN, posted24h: -3, failed24h: 2.7 })] }),
      ),
    );
    const t = blockText(msg(v));
    expect(t).toContain("*Events (32):* created, zzz (not known to this bot)");
    expect(t).toContain("and 20 more");
    expect(t).toContain("0 received · 0 posted · 2 failed");
  });

  it("a foreign URL: the bot posts nothing, and only its scheme and host are shown", () => {
    const url = "https://ops:s3cr3t@hooks.example.org/video-events?team=42&x=<1>";
    const v = checked(homeView(opts({ profiles: [profile({ channelId: null, foreignUrl: url })] })));
    const t = blockText(msg(v));
    expect(t).toContain("a foreign URL, the bot posts nothing");
    expect(t).toContain("https://hooks.example.org/…");
    expect(JSON.stringify(v)).not.toContain("s3cr3t");
    expect(JSON.stringify(v)).not.toContain("team=42");
    // Not routed to a channel: no Send test.
    expect(buttons(msg(v)).map((b) => b.action_id)).toEqual([
      ACTIONS.webhookSetup,
      ACTIONS.managersEdit,
      ACTIONS.webhookEditEvents,
      ACTIONS.webhookSetup,
      ACTIONS.webhookRemove,
    ]);
  });

  it("a foreign value that is not a URL is not repeated", () => {
    const v = checked(
      homeView(opts({ profiles: [profile({ channelId: null, foreignUrl: "not a url <!channel>" })] })),
    );
    expect(blockText(msg(v))).toContain("(not a valid URL)");
    expect(mrkdwnTexts(msg(v))).not.toContain("<!channel>");
  });
});

describe("homeView: buttons", () => {
  it("managers get Set up and Managers, then Edit events, Change channel, Send test and Remove (danger, confirmed) per profile", () => {
    const v = checked(homeView(opts({ profiles: [profile(), profile({ profileId: "x9zz" })] })));
    const b = buttons(msg(v));
    expect(b.map((x) => [x.action_id, x.value])).toEqual([
      [ACTIONS.webhookSetup, undefined],
      [ACTIONS.managersEdit, undefined],
      [ACTIONS.webhookEditEvents, "x1abc2"],
      [ACTIONS.webhookSetup, "x1abc2"],
      [ACTIONS.webhookTest, "x1abc2"],
      [ACTIONS.webhookRemove, "x1abc2"],
      [ACTIONS.webhookEditEvents, "x9zz"],
      [ACTIONS.webhookSetup, "x9zz"],
      [ACTIONS.webhookTest, "x9zz"],
      [ACTIONS.webhookRemove, "x9zz"],
    ]);
    expect(b[0]?.style).toBe("primary");
    const remove = b.find((x) => x.action_id === ACTIONS.webhookRemove);
    expect(remove?.style).toBe("danger");
    expect(remove?.confirm).toMatchObject({
      title: { text: "Remove the webhook?" },
      text: { text: expect.stringContaining("x1abc2") },
      confirm: { text: "Remove" },
      deny: { text: "Cancel" },
      style: "danger",
    });
    expect(blockText(msg(v))).not.toContain("buttons that change a webhook are for managers");
  });

  it("non-managers see the same information without any button", () => {
    const asManager = homeView(opts());
    const asMember = checked(homeView(opts({ isManager: false })));
    expect(buttons(msg(asMember))).toEqual([]);
    expect(asMember.blocks.some((b) => b.type === "actions")).toBe(false);
    const info = (v: HomeView) => v.blocks.filter((b) => b.type === "section");
    expect(info(asMember)).toEqual(info(asManager));
    expect(blockText(msg(asMember))).toContain("the buttons that change a webhook are for managers");
  });

  it("a Refresh button only when asked for", () => {
    expect(buttons(msg(homeView(opts({ isManager: false })))).length).toBe(0);
    const v = checked(homeView(opts({ isManager: false, showRefresh: true })));
    expect(buttons(msg(v)).map((b) => b.action_id)).toEqual([ACTIONS.homeRefresh]);
  });
});

describe("homeView: platform health", () => {
  it("connected: token obtainable, with the scopes", () => {
    const t = blockText(msg(checked(homeView(opts()))));
    expect(t).toContain(
      "✅ *Platform:* connected, an access token can be obtained (scopes: `live.read`, `profile.manage`)",
    );
  });

  it("connected without scopes reported", () => {
    const t = blockText(msg(checked(homeView(opts({ platform: { ok: true, grantedScopes: [] } })))));
    expect(t).toContain("scopes: none reported");
  });

  it("failing: the message in plain words", () => {
    const message =
      "The platform's token service refused the bot's credentials: ask an admin to check PLATFORM_CLIENT_ID/PLATFORM_CLIENT_SECRET (correlation id: c-77)";
    const t = blockText(msg(checked(homeView(opts({ platform: { ok: false, message } })))));
    expect(t).toContain(`⚠️ *Platform:* the bot cannot get an access token: ${message}`);
    expect(t).not.toContain("✅ *Platform:*");
    const empty = blockText(msg(checked(homeView(opts({ platform: { ok: false, message: " " } })))));
    expect(empty).toContain("cannot get an access token: the token service failed");
    checked(homeView(opts({ platform: { ok: false, message: "x".repeat(10_000) } })));
  });
});

describe("homeView: newcomers", () => {
  it("with no profile: first steps with both commands and who the managers are", () => {
    const v = checked(homeView(opts({ profiles: [] })));
    const t = blockText(msg(v));
    expect(t).toContain("No profile is set up yet");
    expect(t).toMatch(
      /1\. A manager presses \*➕ Set up notifications\* above, or runs `\/webhook set <profile_id>` in the channel/,
    );
    expect(t).toMatch(/2\. .*`\/live status <id or livestream URL>`/);
    expect(t).toMatch(/3\. Managers are workspace admins and owners, and /);
    expect(mrkdwnTexts(msg(v))).toContain("<@U0BOSS>, <@U0CAROL>");
    expect(buttons(msg(v)).map((b) => b.action_id)).toEqual([ACTIONS.webhookSetup, ACTIONS.managersEdit]);
    expect(t).not.toContain("Configured profiles");
  });

  it("always has a How to use section with both commands", () => {
    for (const o of [opts(), opts({ profiles: [] }), opts({ isManager: false })]) {
      const t = blockText(msg(homeView(o)));
      expect(t).toContain("*How to use*");
      expect(t).toContain("/live status");
      expect(t).toContain("/webhook show [profile_id]");
    }
  });

  it("managers listed once each, bounded", () => {
    const ids = Array.from({ length: 50 }, (_, i) => `U0M${String(i).padStart(3, "0")}`);
    const v = checked(
      homeView(opts({ profiles: [], managers: { configured: ids, added: ids.slice(0, 10) } })),
    );
    const raw = mrkdwnTexts(msg(v));
    expect(raw.split("<@U0M000>").length - 1).toBe(2); // first steps + How to use
    expect(raw).toContain("and 30 more");
    const none = blockText(msg(homeView(opts({ profiles: [], managers: { configured: [], added: [] } }))));
    expect(none).toContain("Managers are workspace admins and owners;");
  });
});

describe("homeView: many profiles", () => {
  it("60 profiles for a manager stay within 100 blocks, the rest named", () => {
    const v = checked(homeView(opts({ profiles: many(60) })));
    expect(v.blocks.length).toBeLessThanOrEqual(VIEW_LIMITS.blocksPerView);
    const shown = buttons(msg(v)).filter((b) => b.action_id === ACTIONS.webhookEditEvents).length;
    expect(shown).toBeGreaterThan(40);
    const t = blockText(msg(v));
    expect(t).toContain(`…and ${60 - shown} more: \`x${String(shown).padStart(5, "0")}\``);
    expect(t).toContain("`x00059`");
    expect(t).toContain("use `/webhook show <profile_id>`");
    expect(t).toContain("*Configured profiles (60)*");
  });

  it("every count from 0 to 300, both roles: within limits, every profile shown or named", () => {
    for (const isManager of [true, false]) {
      for (let n = 0; n <= 300; n += n < 120 ? 1 : 37) {
        const v = homeView(opts({ isManager, profiles: many(n) }));
        expect(assertViewWithinLimits(v)).toEqual([]);
        const t = blockText(msg(v));
        const sections = t.match(/\*Profile `x\d{5}`\*/g)?.length ?? 0;
        const more = /…and (\d+) more/.exec(t);
        expect(sections + Number(more?.[1] ?? 0)).toBe(n);
        if (more) expect(v.blocks.length).toBeGreaterThanOrEqual(VIEW_LIMITS.blocksPerView - 1);
      }
    }
  });

  it("random profiles stay within limits", () => {
    const g = new Gen(prng(11));
    for (let i = 0; i < 150; i++) {
      const profiles = Array.from({ length: g.int(0, 70) }, () =>
        profile({
          profileId: g.text(300) || "p",
          channelId: g.bool() ? g.pick(["C0NEWS", "G0PRIV", "not a channel <!here>"]) : null,
          foreignUrl: g.bool() ? g.url() : null,
          events: Array.from({ length: g.int(0, 20) }, () =>
            g.bool() ? g.pick(WEBHOOK_EVENTS) : g.text(100),
          ),
          setBy: g.pick(["U0ALICE", "W0BOB", g.text(100)]),
          setAt: g.timestamp(),
          lastDeliveryAt: g.bool(0.8) ? NOW.getTime() - g.int(0, 400 * 24) * HOUR : null,
          received24h: g.int(0, 1e9),
        }),
      );
      checked(
        homeView(
          opts({
            isManager: g.bool(),
            showRefresh: g.bool(),
            profiles,
            managers: { configured: [g.text(50)], added: ["U0X", g.text(30)] },
          }),
        ),
      );
    }
  });
});
