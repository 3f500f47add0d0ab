import { describe, expect, it } from "vitest";
import { WEBHOOK_EVENTS } from "../../src/domain/index.js";
import { LIVE_HELP, liveHelp, usageError, WEBHOOK_HELP, webhookHelp } from "../../src/messages/index.js";
import { blockText } from "./fixtures.js";
import { assertWithinLimits } from "./limits.js";

describe("liveHelp", () => {
  const msg = liveHelp();
  const text = blockText(msg);

  it("is within limits", () => {
    expect(assertWithinLimits(msg)).toEqual([]);
  });

  it("follows the contract's grammar for every subcommand", () => {
    expect(text).toContain("`/live status <id or livestream URL>`");
    expect(text).toContain("`/live ingest <id or URL>`");
    expect(text).toContain("`/live help`");
    expect(text).toMatch(/\/live ingest <id or URL>`\* \(managers\)/);
    expect(text).toMatch(/\/live watch <id or URL> dm`\* \(anyone\)/);
    expect(text).toMatch(/\/live unwatch <id or URL> dm`\* \(anyone\)/);
  });

  it("gives one example per subcommand", () => {
    for (const e of LIVE_HELP) {
      const sub = e.usage.split(" ")[1] ?? "";
      expect(e.example.startsWith(`/live ${sub}`), e.usage).toBe(true);
      expect(text).toContain(`Example: \`${e.example}\``);
    }
    expect(LIVE_HELP.map((e) => e.usage.split(" ")[1])).toEqual([
      "status",
      "ingest",
      "watch",
      "watch",
      "unwatch",
      "unwatch",
      "watching",
      "help",
    ]);
  });

  it("has a fallback text naming the commands", () => {
    expect(msg.text).toContain("/live status &lt;id or livestream URL&gt;");
  });
});

describe("webhookHelp", () => {
  const msg = webhookHelp();
  const text = blockText(msg);

  it("is within limits", () => {
    expect(assertWithinLimits(msg)).toEqual([]);
  });

  it("follows the contract's grammar for every subcommand, plus managers", () => {
    for (const usage of [
      "/webhook set <profile_id> [event ...]",
      "/webhook set <profile_id> url=<https URL> [event ...]",
      "/webhook show [profile_id]",
      "/webhook events [profile_id] [event ...]",
      "/webhook remove [profile_id]",
      "/webhook test [profile_id]",
      "/webhook managers [add|remove <@user>]",
      "/webhook subscribe <profile_id> [event ...] [preset=<name,...>] [mention=<@user or @here>]",
      "/webhook unsubscribe <profile_id>",
      "/webhook subscriptions [profile_id]",
      "/webhook subscribe <profile_id> digest=daily|weekly [at=HH:MM]",
      "/webhook pause <profile_id> <duration>",
      "/webhook resume <profile_id>",
      "/webhook help",
    ]) {
      expect(text, usage).toContain(`\`${usage}\``);
    }
    const subs = new Set(WEBHOOK_HELP.map((e) => e.usage.split(" ")[1]));
    expect([...subs].sort()).toEqual([
      "events",
      "help",
      "managers",
      "pause",
      "remove",
      "resume",
      "set",
      "show",
      "subscribe",
      "subscriptions",
      "test",
      "unsubscribe",
    ]);
    // Changing a filter: subscribe again.
    expect(text).toContain("Run it again to change this channel's filter");
  });

  it("gives one example per entry and says who may use it", () => {
    for (const e of WEBHOOK_HELP) {
      const sub = e.usage.split(" ")[1] ?? "";
      expect(e.example.startsWith(`/webhook ${sub}`), e.usage).toBe(true);
      expect(text).toContain(`Example: \`${e.example}\``);
    }
    expect(text).toMatch(/`\/webhook show \[profile_id\]`\* \(anyone\)/);
    expect(text).toMatch(/`\/webhook remove \[profile_id\]`\* \(managers\)/);
    expect(text).toContain("url=https://");
  });

  it("names every known event and the optional profile id", () => {
    for (const e of WEBHOOK_EVENTS) expect(text).toContain(e);
    expect(text).toContain("may be left out once this workspace has one configured profile");
  });
});

describe("usageError", () => {
  it("puts the problem first, then the right help", () => {
    const msg = usageError("/webhook", 'Unknown subcommand "frobnicate".');
    expect(assertWithinLimits(msg)).toEqual([]);
    const first = msg.blocks[0];
    expect(first?.type === "section" && first.text?.text).toBe('⚠️ Unknown subcommand "frobnicate".');
    expect(blockText(msg)).toContain("/webhook set <profile_id> [event ...]");
    expect(blockText(msg)).not.toContain("/live status");
    expect(msg.text).toContain("Unknown subcommand");
    expect(msg.text).toContain("/webhook help");

    const live = usageError("/live", "`/live status` needs a livestream id or URL.");
    expect(blockText(live)).toContain("/live status <id or livestream URL>");
    expect(blockText(live)).not.toContain("/webhook set");
  });

  it("escapes an echoed problem", () => {
    const msg = usageError("/live", '"<!channel>" is not a livestream id or livestream URL.');
    expect(assertWithinLimits(msg)).toEqual([]);
    expect(JSON.stringify(msg)).not.toContain("<!channel>");
  });
});
