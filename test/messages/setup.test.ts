/** The set-up and managers forms of the App Home: pure renderers and parsers. */

import { describe, expect, it } from "vitest";
import { WEBHOOK_EVENTS } from "../../src/domain/index.js";
import {
  BLOCKS,
  decodeSetupMeta,
  encodeSetupMeta,
  formMessage,
  managersModal,
  managersModalSaved,
  parseManagersSubmission,
  parseSetupSubmission,
  setupModal,
  setupModalDone,
} from "../../src/messages/index.js";
import { assertViewWithinLimits } from "./view-limits.js";

const meta = encodeSetupMeta({ teamId: "T1", kind: "setup" });
const within = <V extends Parameters<typeof assertViewWithinLimits>[0]>(v: V): V => {
  expect(assertViewWithinLimits(v)).toEqual([]);
  return v;
};

function values(o: { profile?: unknown; channel?: unknown; events?: unknown[]; url?: unknown }) {
  return {
    [BLOCKS.setupProfile]: { [BLOCKS.setupProfile]: { value: o.profile } },
    [BLOCKS.setupChannel]: { [BLOCKS.setupChannel]: { selected_conversation: o.channel } },
    [BLOCKS.setupEvents]: {
      [BLOCKS.setupEvents]: { selected_options: (o.events ?? []).map((value) => ({ value })) },
    },
    [BLOCKS.setupUrl]: { [BLOCKS.setupUrl]: { value: o.url } },
  };
}

describe("set-up form", () => {
  it("renders within Slack's limits, empty or filled, and every event is checked by default", () => {
    const empty = within(setupModal({ meta }));
    expect(JSON.stringify(empty)).toContain(`"callback_id":"webhook_setup_modal"`);
    const initial = JSON.stringify(empty).match(/"initial_options":\[(.*?)\]\}/)?.[1] ?? "";
    expect(initial.match(/"value":"/g)).toHaveLength(WEBHOOK_EVENTS.length);
    const filled = within(
      setupModal({
        meta,
        values: {
          profileId: "x".repeat(200),
          channelId: "C0NEWS",
          events: ["video.created", "nope"],
          url: "https://a.example/x",
        },
        notice: "⚠️ something",
      }),
    );
    const text = JSON.stringify(filled);
    expect(text).toContain(`"initial_value":"${"x".repeat(64)}"`);
    expect(text).toContain('"initial_conversation":"C0NEWS"');
    expect(text).toContain("⚠️ something");
    within(formMessage({ kind: "setup", meta, text: "⏳ Loading…" }));
    expect(formMessage({ kind: "managers", meta, text: "x" }).callback_id).toBe("managers_modal");
    within(
      setupModalDone({
        meta,
        profileId: "x2vq8nw",
        channelId: "C0NEWS",
        url: null,
        events: [...WEBHOOK_EVENTS],
      }),
    );
  });

  it("parses a valid submission, events in enumeration order", () => {
    const p = parseSetupSubmission(
      values({ profile: " x2vq8nw ", channel: "C0NEWS", events: ["video.published", "video.created"] }),
    );
    expect(p.errors).toEqual({});
    expect(p.values).toEqual({
      profileId: "x2vq8nw",
      channelId: "C0NEWS",
      url: null,
      events: ["video.created", "video.published"],
    });
  });

  it("names what is wrong, field by field", () => {
    expect(Object.keys(parseSetupSubmission(values({})).errors).sort()).toEqual(
      [BLOCKS.setupChannel, BLOCKS.setupEvents, BLOCKS.setupProfile].sort(),
    );
    const bad = parseSetupSubmission(
      values({ profile: "../etc", channel: "not-a-channel", events: ["video.nope"], url: "ftp://x" }),
    );
    expect(Object.keys(bad.errors).sort()).toEqual(
      [BLOCKS.setupEvents, BLOCKS.setupProfile, BLOCKS.setupUrl].sort(),
    );
    // A URL instead of a channel is fine.
    const foreign = parseSetupSubmission(
      values({ profile: "x1", events: ["video.created"], url: "https://h.example/p" }),
    );
    expect(foreign.errors).toEqual({});
    expect(foreign.values.url).toBe("https://h.example/p");
  });

  it("tolerates any shape", () => {
    for (const v of [null, 1, "x", [], { [BLOCKS.setupProfile]: 5 }]) {
      expect(Object.keys(parseSetupSubmission(v).errors).length).toBeGreaterThan(0);
    }
  });

  it("metadata round-trips and anything else is refused", () => {
    expect(decodeSetupMeta(meta)).toEqual({ teamId: "T1", kind: "setup" });
    for (const s of ["", "{", "[]", '{"teamId":""}', 5, null, "x".repeat(4000)]) {
      expect(decodeSetupMeta(s)).toBeUndefined();
    }
  });
});

describe("managers form", () => {
  const m = encodeSetupMeta({ teamId: "T1", kind: "managers" });

  it("renders within limits with the added managers preselected and the configured ones listed", () => {
    const many = Array.from({ length: 150 }, (_, i) => `U${String(i).padStart(6, "0")}`);
    const v = within(managersModal({ meta: m, configured: ["U0BOSS"], added: many }));
    const text = JSON.stringify(v);
    expect(text).toContain('"initial_users":["U000000"');
    expect(text.match(/"U0\d{5}"/g)?.length).toBe(100);
    expect(text).toContain("<@U0BOSS>");
    within(managersModal({ meta: m, configured: [], added: [] }));
    within(managersModalSaved({ meta: m, added: ["U1"], removed: many, now: many }));
  });

  it("parses the chosen users, ignoring anything that is not a user id", () => {
    const v = (users: unknown) => ({
      [BLOCKS.managersInput]: { [BLOCKS.managersInput]: { selected_users: users } },
    });
    expect(parseManagersSubmission(v(["U1AB", "U1AB", "W2CD", "C0NEWS", 5, "<@U9>"]))).toEqual([
      "U1AB",
      "W2CD",
    ]);
    expect(parseManagersSubmission(v(undefined))).toEqual([]);
    expect(parseManagersSubmission(null)).toEqual([]);
  });
});
