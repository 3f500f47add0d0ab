import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { WEBHOOK_EVENT_DESCRIPTIONS, WEBHOOK_EVENTS } from "../../src/domain/index.js";
import {
  ACTIONS,
  displayUrl,
  type Message,
  managersMessage,
  removeConfirmMessage,
  testResultMessage,
  type WebhookConfigOptions,
  webhookConfigMessage,
  webhookRemovedMessage,
  webhookSetMessage,
} from "../../src/messages/index.js";
import { blockText, buttons, Gen, MIN, NOW, prng } from "./fixtures.js";
import { assertWithinLimits } from "./limits.js";

const TOKEN = "Zk3vQ9pL2mXw8RtY6uN4bC1dE7fG5hJ0";
const PREFIX = "https://bot.example.com/hooks/platform/";
const OUR_URL = `${PREFIX}${TOKEN}`;
const FOREIGN = "https://hooks.example.org/video-events?team=42";

function checked(msg: Message): Message {
  expect(assertWithinLimits(msg)).toEqual([]);
  return msg;
}

function ours(over: Partial<WebhookConfigOptions> = {}): WebhookConfigOptions {
  return {
    profileId: "x1abc2",
    webhook: { callback_url: OUR_URL, events: ["video.published", "video.format.error"] },
    callback: {
      channelId: "C0NEWS",
      foreignUrl: null,
      setBy: "U0ALICE",
      setAt: new Date(NOW.getTime() - 30 * MIN).toISOString(),
    },
    ownsCallback: true,
    isManager: false,
    now: NOW,
    ...over,
  };
}

function actionIds(msg: Message): string[] {
  return buttons(msg).map((b) => b.action_id ?? "");
}

describe("webhookConfigMessage", () => {
  it("our route: 'this bot → #channel', never the token", () => {
    const msg = checked(webhookConfigMessage(ours()));
    const json = JSON.stringify(msg);
    expect(json).not.toContain(TOKEN);
    expect(json).not.toContain("/hooks/platform/");
    const text = blockText(msg);
    expect(text).toContain("*Sends to:* this bot → <#C0NEWS>");
    expect(text).toContain("Configured");
    expect(text).toContain("x1abc2");
    expect(text).toMatch(/Set from Slack by <@U0ALICE> <!date[^>]+> \(30 min ago\)/);
    expect(msg.text).toBe("Webhook of profile x1abc2: configured, 2 events → this bot");
  });

  it("lists the events as bullets with their descriptions; unknown ones are flagged", () => {
    const msg = checked(
      webhookConfigMessage(
        ours({ webhook: { callback_url: OUR_URL, events: ["video.published", "video.exploded"] } }),
      ),
    );
    const text = blockText(msg);
    expect(text).toContain(`• \`video.published\` — ${WEBHOOK_EVENT_DESCRIPTIONS["video.published"]}`);
    expect(text).toContain("• `video.exploded` — not an event this bot knows");
    expect(text).toContain("*Events (2):*");
  });

  it("buttons only for managers: Edit events, Send test, Remove with a confirm dialog", () => {
    expect(actionIds(checked(webhookConfigMessage(ours({ isManager: false }))))).toEqual([]);
    expect(webhookConfigMessage(ours()).blocks.some((b) => b.type === "actions")).toBe(false);
    const msg = checked(webhookConfigMessage(ours({ isManager: true })));
    expect(actionIds(msg)).toEqual([ACTIONS.webhookEditEvents, ACTIONS.webhookTest, ACTIONS.webhookRemove]);
    for (const b of buttons(msg)) expect(b.value).toBe("x1abc2");
    const remove = buttons(msg).find((b) => b.action_id === ACTIONS.webhookRemove);
    expect(remove?.style).toBe("danger");
    expect(remove?.confirm).toMatchObject({
      title: { type: "plain_text", text: "Remove the webhook?" },
      confirm: { text: "Remove" },
      deny: { text: "Cancel" },
      style: "danger",
    });
    expect(JSON.stringify(remove?.confirm)).toContain("x1abc2");
  });

  it("a foreign URL is shown by scheme and host only, and the bot says it posts nothing", () => {
    const msg = checked(
      webhookConfigMessage(
        ours({
          webhook: { callback_url: FOREIGN, events: ["video.created"] },
          callback: { channelId: null, foreignUrl: FOREIGN, setBy: "U0BOB", setAt: NOW.toISOString() },
          ownsCallback: false,
          isManager: true,
        }),
      ),
    );
    const text = blockText(msg);
    expect(text).toContain(`\`${displayUrl(FOREIGN)}\``);
    expect(text).not.toContain(FOREIGN);
    expect(text).toContain("This bot posts nothing for this profile");
    expect(text).not.toContain("⚠️");
    // No channel to test: Edit events and Remove only.
    expect(actionIds(msg)).toEqual([ACTIONS.webhookEditEvents, ACTIONS.webhookRemove]);
  });

  it("a password in a foreign URL is masked", () => {
    const msg = webhookConfigMessage(
      ours({
        webhook: { callback_url: "https://user:hunter2@hooks.example.org/x", events: ["video.created"] },
        ownsCallback: false,
      }),
    );
    expect(JSON.stringify(msg)).not.toContain("hunter2");
    expect(blockText(msg)).toContain("https://hooks.example.org/…");
  });

  it("warns when the platform points elsewhere than our route", () => {
    const msg = checked(
      webhookConfigMessage(
        ours({ webhook: { callback_url: FOREIGN, events: ["video.created"] }, ownsCallback: false }),
      ),
    );
    const text = blockText(msg);
    expect(text).toMatch(
      /⚠️ This workspace routes the profile's notifications to <#C0NEWS>, but the platform sends its events to another address/,
    );
    expect(text).toContain("/webhook set x1abc2");
  });

  it("warns when the platform has no webhook although this workspace routes one", () => {
    const msg = checked(
      webhookConfigMessage(ours({ webhook: { callback_url: null, events: null }, ownsCallback: false })),
    );
    const text = blockText(msg);
    expect(text).toContain("No webhook");
    expect(text).toContain("sends its events to nowhere");
  });

  it("another address of this bot keeps its token hidden when the prefix is known", () => {
    const other = `${PREFIX}OtherWorkspaceToken00000000000000`;
    const msg = checked(
      webhookConfigMessage(
        ours({
          webhook: { callback_url: other, events: ["video.created"] },
          ownsCallback: false,
          botHookPrefix: PREFIX,
        }),
      ),
    );
    expect(JSON.stringify(msg)).not.toContain("OtherWorkspaceToken");
    expect(blockText(msg)).toContain("another address of this bot");
  });

  it("no webhook: state none, no buttons, a hint for managers", () => {
    const msg = checked(
      webhookConfigMessage({
        profileId: "x1abc2",
        webhook: { callback_url: null, events: null },
        ownsCallback: false,
        isManager: true,
        now: NOW,
      }),
    );
    expect(blockText(msg)).toContain("No webhook: the platform sends no events for this profile.");
    expect(actionIds(msg)).toEqual([]);
    expect(blockText(msg)).toContain("/webhook set x1abc2");
    expect(msg.text).toBe("Webhook of profile x1abc2: no webhook");
  });

  it("partial state: warned, Remove offered, Edit events not (events alone need a complete webhook)", () => {
    const msg = checked(
      webhookConfigMessage({
        profileId: "x1abc2",
        webhook: { callback_url: FOREIGN, events: [] },
        ownsCallback: false,
        isManager: true,
        now: NOW,
      }),
    );
    expect(blockText(msg)).toMatch(/⚠️ The webhook is incomplete \(a callback URL without events\)/);
    expect(actionIds(msg)).toEqual([ACTIONS.webhookRemove]);
  });

  it("accepts stored settings in place of route, without rendering their callback id", () => {
    const callbackId = createHash("sha256").update(TOKEN).digest("hex");
    const settings = {
      profileId: "x1abc2",
      channelId: "C0NEWS",
      callbackId,
      foreignUrl: null,
      events: ["video.published"],
      setBy: "U0ALICE",
      setAt: NOW.toISOString(),
    };
    const { callback: _callback, ...rest } = ours();
    const msg = checked(webhookConfigMessage({ ...rest, settings }));
    expect(JSON.stringify(msg)).not.toContain(TOKEN);
    expect(JSON.stringify(msg)).not.toContain(callbackId);
    expect(blockText(msg)).toContain("this bot → <#C0NEWS>");
  });

  it("random configurations stay within limits and never show our token", () => {
    const g = new Gen(prng(99));
    for (let i = 0; i < 300; i++) {
      const owns = g.bool();
      const events = g.pick([
        null,
        [],
        [...WEBHOOK_EVENTS],
        ["video.created", "<bad>&", "x".repeat(500)],
        Array(80).fill("video.created"),
      ]);
      const url = owns
        ? OUR_URL
        : g.pick([null, "", FOREIGN, `https://h.example/${"p".repeat(2500)}`, "<!channel>"]);
      const msg = webhookConfigMessage({
        profileId: g.pick(["x1abc2", "p".repeat(128), "<id>&"]),
        webhook: { callback_url: url, events },
        callback: g.bool()
          ? {
              channelId: g.pick([null, "C0NEWS", "#general"]),
              foreignUrl: g.pick([null, FOREIGN]),
              setBy: g.pick(["U1", "nobody"]),
              setAt: g.pick([NOW.toISOString(), "garbage"]),
            }
          : undefined,
        ownsCallback: owns,
        isManager: g.bool(),
        now: NOW,
      });
      expect(assertWithinLimits(msg), `config #${i}`).toEqual([]);
      expect(JSON.stringify(msg)).not.toContain(TOKEN);
    }
  });
});

describe("webhookSetMessage", () => {
  it("our route: a first line, then the configuration with manager buttons", () => {
    // As the /webhook set listener calls it: no isManager (setting is for managers).
    const { isManager: _isManager, ...view } = ours();
    const msg = checked(webhookSetMessage({ ...view, byUser: "U0ALICE" }));
    const first = msg.blocks[0];
    expect(first?.type === "section" && first.text?.text).toMatch(
      /^✅ Webhook set for profile `x1abc2` by <@U0ALICE>: its events now come to <#C0NEWS>\.$/,
    );
    expect(JSON.stringify(msg)).not.toContain(TOKEN);
    expect(actionIds(msg)).toContain(ACTIONS.webhookRemove);
    expect(msg.text).toContain("Webhook set for profile x1abc2");
  });

  it("a foreign URL: says the bot will post nothing for the profile", () => {
    const msg = checked(
      webhookSetMessage({
        ...ours({ webhook: { callback_url: FOREIGN, events: ["video.created"] }, ownsCallback: false }),
        callback: { channelId: null, foreignUrl: FOREIGN, setBy: "U0ALICE", setAt: NOW.toISOString() },
      }),
    );
    const text = blockText(msg);
    expect(text).toContain(
      `the platform sends its events to \`${displayUrl(FOREIGN)}\`. This bot will post nothing for this profile.`,
    );
    expect(msg.text).toContain("this bot posts nothing");
  });
});

describe("remove messages", () => {
  it("removeConfirmMessage asks, with Remove (danger) and Cancel", () => {
    const msg = checked(removeConfirmMessage("x1abc2"));
    expect(blockText(msg)).toContain("Remove the webhook of profile `x1abc2`?");
    expect(buttons(msg)).toEqual([
      expect.objectContaining({ action_id: ACTIONS.webhookRemoveConfirm, value: "x1abc2", style: "danger" }),
      expect.objectContaining({ action_id: ACTIONS.webhookRemoveCancel, value: "x1abc2" }),
    ]);
    expect(buttons(msg)[1]?.style).toBeUndefined();
  });

  it("webhookRemovedMessage says who and when", () => {
    const msg = checked(webhookRemovedMessage("x1abc2", "U0ALICE", NOW));
    expect(blockText(msg)).toMatch(
      /Webhook of profile `x1abc2` removed by <@U0ALICE> <!date\^1741978800\^[^|]+\|2025-03-14 19:00 UTC>/,
    );
    expect(msg.text).toBe("Webhook of profile x1abc2 removed");
  });
});

describe("other webhook messages", () => {
  it("managersMessage lists the three kinds of managers", () => {
    const msg = checked(
      managersMessage({
        configured: ["U0CONF"],
        added: [{ userId: "U0ADDED", addedBy: "U0CONF", addedAt: NOW.toISOString() }],
      }),
    );
    const text = blockText(msg);
    expect(text).toContain("Workspace admins and owners");
    expect(text).toContain("MANAGER_USER_IDS setting: <@U0CONF>");
    expect(text).toMatch(/<@U0ADDED> \(added by <@U0CONF> <!date/);
    expect(blockText(checked(managersMessage({ configured: [], added: [] })))).toContain(
      "Added here by a manager: nobody",
    );
  });

  it("testResultMessage", () => {
    const foreign = checked(testResultMessage("x1abc2", { kind: "foreign", url: "https://a.example" }));
    expect(blockText(foreign)).toContain(
      "No test event sent for profile `x1abc2`: its webhook points at another URL",
    );
    const none = checked(testResultMessage("x1abc2", { kind: "not-configured" }));
    expect(blockText(none)).toContain("run `/webhook set` first");
    const sent = checked(
      testResultMessage("x1abc2", { kind: "sent", videoId: "xtest1", events: 20, channelId: "C1" }),
    );
    expect(blockText(sent)).toContain("shows up in C1");
  });
});
