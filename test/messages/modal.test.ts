import type { InputBlock } from "@slack/types";
import { describe, expect, it } from "vitest";
import { WEBHOOK_EVENT_DESCRIPTIONS, WEBHOOK_EVENTS } from "../../src/domain/index.js";
import {
  BLOCKS,
  decodeMeta,
  encodeMeta,
  escapeMrkdwn,
  eventsModal,
  eventsModalError,
  eventsModalLoading,
  eventsModalSaved,
  eventsModalSaving,
  type KnownBlock,
  type ModalView,
  parseEventsSubmission,
  VIEW_LIMITS,
  VIEWS,
} from "../../src/messages/index.js";
import { blockText, Gen, prng } from "./fixtures.js";
import { assertViewWithinLimits } from "./view-limits.js";

const META = encodeMeta({
  teamId: "T0TEAM",
  profileId: "x1abc2",
  channelId: "C0NEWS",
  responseUrl: "https://hooks.slack.com/actions/T0TEAM/123/abc",
  original: ["video.published", "video.format.error"],
});

function checked(view: ModalView): ModalView {
  expect(assertViewWithinLimits(view)).toEqual([]);
  return view;
}

function text(view: ModalView): string {
  return blockText({ text: "", blocks: view.blocks as KnownBlock[] });
}

interface CheckboxOption {
  text: { type: string; text: string };
  value: string;
  description?: { type: string; text: string };
}

function checkboxes(view: ModalView): { options: CheckboxOption[]; initial?: CheckboxOption[] } | undefined {
  for (const b of view.blocks) {
    if (b.type === "input" && "element" in b && b.element.type === "checkboxes") {
      const el = b.element as { options: CheckboxOption[]; initial_options?: CheckboxOption[] };
      return { options: el.options, initial: el.initial_options };
    }
  }
  return undefined;
}

/** What Slack sends back in `view.state.values` for these checked values. */
function state(values: readonly string[]): unknown {
  return {
    [BLOCKS.events]: {
      [BLOCKS.eventsInput]: {
        type: "checkboxes",
        selected_options: values.map((v) => ({ text: { type: "mrkdwn", text: `\`${v}\`` }, value: v })),
      },
    },
  };
}

describe("eventsModalLoading", () => {
  it("is a cancellable modal without submit, carrying the metadata", () => {
    const v = checked(eventsModalLoading(META, "x1abc2"));
    expect(v.type).toBe("modal");
    expect(v.callback_id).toBe(VIEWS.eventsModal);
    expect(v.private_metadata).toBe(META);
    expect(v.title.text).toBe("Webhook events");
    expect(v.close?.text).toBe("Cancel");
    expect(v.submit).toBeUndefined();
    expect(text(v)).toContain("Loading the webhook of profile `x1abc2`…");
  });

  it("escapes a hostile profile id and drops metadata over 3000 characters", () => {
    const v = checked(eventsModalLoading("m".repeat(3001), "<!channel>&`x`"));
    expect(v.private_metadata).toBeUndefined();
    expect(JSON.stringify(v.blocks)).not.toContain("<!channel>");
    expect(checked(eventsModalLoading("m".repeat(3000), "x")).private_metadata).toHaveLength(3000);
  });
});

describe("eventsModal", () => {
  it("has one checkbox per event, in enumeration order, with the current ones checked", () => {
    const v = checked(
      eventsModal({ meta: META, profileId: "x1abc2", current: ["video.format.error", "video.published"] }),
    );
    expect(v.submit?.text).toBe("Save");
    expect(v.close?.text).toBe("Cancel");
    expect(v.private_metadata).toBe(META);
    const cb = checkboxes(v);
    expect(cb?.options.map((o) => o.value)).toEqual([...WEBHOOK_EVENTS]);
    expect(cb?.options.map((o) => o.text)).toEqual(
      WEBHOOK_EVENTS.map((e) => ({ type: "mrkdwn", text: `\`${e}\`` })),
    );
    expect(cb?.initial?.map((o) => o.value)).toEqual(["video.published", "video.format.error"]);
    // Slack requires each initial option to be identical to one of the options.
    for (const o of cb?.initial ?? []) expect(cb?.options).toContainEqual(o);
    const input = v.blocks.find((b) => b.type === "input");
    expect(input).toMatchObject({
      block_id: BLOCKS.events,
      element: { type: "checkboxes", action_id: BLOCKS.eventsInput },
    });
    expect(input && "optional" in input ? input.optional : undefined).not.toBe(true);
    expect(text(v)).toContain("Saving changes only the events; the callback URL stays.");
    expect(text(v)).not.toContain("dropped on save");
  });

  it("describes each event in one line of at most 75 characters", () => {
    const cb = checkboxes(eventsModal({ meta: META, profileId: "p", current: [] }));
    for (const o of cb?.options ?? []) {
      const full = WEBHOOK_EVENT_DESCRIPTIONS[o.value as (typeof WEBHOOK_EVENTS)[number]];
      const d = o.description?.text ?? "";
      expect(d.length).toBeLessThanOrEqual(75);
      if (full.length <= 75) expect(d).toBe(full);
      else {
        expect(d.endsWith("…")).toBe(true);
        expect(full.startsWith(d.slice(0, -1))).toBe(true);
      }
    }
    // The published description is longer than 75: it must have been cut.
    expect(cb?.options.find((o) => o.value === "video.published")?.description?.text).toMatch(/…$/);
  });

  it("leaves initial_options out when nothing known is checked", () => {
    const v = checked(eventsModal({ meta: META, profileId: "p", current: [] }));
    expect(checkboxes(v)?.initial).toBeUndefined();
    const only = checked(eventsModal({ meta: META, profileId: "p", current: ["video.exploded"] }));
    expect(checkboxes(only)?.initial).toBeUndefined();
  });

  it("checks all eight when all are current, duplicates included once", () => {
    const v = checked(
      eventsModal({ meta: META, profileId: "p", current: [...WEBHOOK_EVENTS, ...WEBHOOK_EVENTS] }),
    );
    expect(checkboxes(v)?.initial).toHaveLength(8);
  });

  it("names unknown current events as dropped on save, escaped and bounded", () => {
    const unknown = Array.from({ length: 15 }, (_, i) => `video.<b>&${i}`);
    const v = checked(eventsModal({ meta: META, profileId: "p", current: ["video.created", ...unknown] }));
    const t = text(v);
    expect(t).toContain("Not known to this bot, dropped on save: `video.<b>&0`");
    expect(t).toContain("and 5 more");
    expect(checkboxes(v)?.initial?.map((o) => o.value)).toEqual(["video.created"]);
  });

  it("shows a notice above the editor", () => {
    const v = checked(
      eventsModal({
        meta: META,
        profileId: "p",
        current: ["video.created"],
        notice: "⚠️ These events were changed elsewhere since you opened this editor.",
      }),
    );
    expect(v.blocks[0]).toMatchObject({
      type: "section",
      text: { text: expect.stringContaining("changed elsewhere") },
    });
    expect(v.blocks.findIndex((b) => b.type === "input")).toBeGreaterThan(0);
    const none = eventsModal({ meta: META, profileId: "p", current: [], notice: "  " });
    expect(text(none)).not.toContain("⚠️");
  });

  it("stays within limits for random profile ids and event lists", () => {
    const g = new Gen(prng(5));
    for (let i = 0; i < 200; i++) {
      const current = Array.from({ length: g.int(0, 30) }, () =>
        g.bool() ? g.pick(WEBHOOK_EVENTS) : g.text(200),
      );
      const profileId = g.text(300) || "p";
      // notice and message are mrkdwn, escaped by the caller.
      const notice = g.maybe(() => escapeMrkdwn(g.text(4000)));
      checked(eventsModal({ meta: META, profileId, current, notice }));
      checked(eventsModalError({ meta: META, profileId, message: escapeMrkdwn(g.text(5000)), current }));
    }
  });
});

describe("eventsModalSaving / eventsModalSaved", () => {
  it("saving: no submit, metadata kept", () => {
    const v = checked(eventsModalSaving(META, "x1abc2"));
    expect(v.submit).toBeUndefined();
    expect(v.private_metadata).toBe(META);
    expect(v.callback_id).toBe(VIEWS.eventsModal);
    expect(text(v)).toContain("Saving the events of profile `x1abc2`");
  });

  it("saved: the events read back, closed with Done", () => {
    const v = checked(eventsModalSaved({ profileId: "x1abc2", events: ["video.published", "video.custom"] }));
    expect(v.submit).toBeUndefined();
    expect(v.close?.text).toBe("Done");
    const t = text(v);
    expect(t).toContain("Events of profile `x1abc2` saved");
    expect(t).toContain("these 2 events");
    expect(t).toContain(`\`video.published\` — ${WEBHOOK_EVENT_DESCRIPTIONS["video.published"]}`);
    expect(t).toContain("`video.custom` — not an event this bot knows");
    expect(t).toContain("callback URL is unchanged");
  });

  it("saved: one event, none, and very many", () => {
    expect(text(checked(eventsModalSaved({ profileId: "p", events: ["video.created"] })))).toContain(
      "this event:",
    );
    expect(text(checked(eventsModalSaved({ profileId: "p", events: [] })))).toContain("sends no events.");
    const many = Array.from({ length: 500 }, (_, i) => `video.e${i}.${"z".repeat(100)}`);
    expect(text(checked(eventsModalSaved({ profileId: "p", events: many })))).toContain("and 480 more");
  });
});

describe("eventsModalError", () => {
  const message =
    "The platform had a problem on its side (503). Try again in a moment. (correlation id: abc-123)";

  it("without current: the error alone, no submit", () => {
    const v = checked(eventsModalError({ meta: META, profileId: "x1abc2", message }));
    expect(v.submit).toBeUndefined();
    expect(v.blocks).toHaveLength(1);
    expect(v.blocks[0]).toMatchObject({ type: "section", text: { text: `⚠️ ${message}` } });
    expect(v.private_metadata).toBe(META);
  });

  it("with current: the error on top, then the editor to retry", () => {
    const v = checked(
      eventsModalError({ meta: META, profileId: "x1abc2", message, current: ["video.deleted"] }),
    );
    expect(v.submit?.text).toBe("Save");
    expect(v.blocks[0]).toMatchObject({
      type: "section",
      text: { text: expect.stringContaining("abc-123") },
    });
    expect(checkboxes(v)?.initial?.map((o) => o.value)).toEqual(["video.deleted"]);
  });

  it("an empty or huge message still renders within limits", () => {
    expect(text(checked(eventsModalError({ meta: META, profileId: "p", message: " " })))).toContain(
      "Something went wrong",
    );
    const v = checked(
      eventsModalError({ meta: META, profileId: "p", message: "é".repeat(10_000), current: [] }),
    );
    expect(checkboxes(v)).toBeDefined();
  });
});

describe("parseEventsSubmission", () => {
  it("reads the checked events, known only, deduplicated, in enumeration order", () => {
    expect(parseEventsSubmission(state(["video.format.error", "video.created"]))).toEqual([
      "video.created",
      "video.format.error",
    ]);
    expect(
      parseEventsSubmission(state(["video.deleted", "video.deleted", "video.exploded", "", "VIDEO.CREATED"])),
    ).toEqual(["video.deleted"]);
    expect(parseEventsSubmission(state([...WEBHOOK_EVENTS].reverse()))).toEqual([...WEBHOOK_EVENTS]);
  });

  it("reads back what the editor checked", () => {
    const v = eventsModal({ meta: META, profileId: "p", current: ["video.complete", "video.published"] });
    const initial = checkboxes(v)?.initial?.map((o) => o.value) ?? [];
    expect(parseEventsSubmission(state(initial))).toEqual(["video.published", "video.complete"]);
  });

  it("gives [] for nothing checked and for any other shape", () => {
    const bad: unknown[] = [
      undefined,
      null,
      "video.created",
      42,
      [],
      [state(["video.created"])],
      {},
      { [BLOCKS.events]: null },
      { [BLOCKS.events]: { other_action: { selected_options: [{ value: "video.created" }] } } },
      { other_block: { [BLOCKS.eventsInput]: { selected_options: [{ value: "video.created" }] } } },
      { [BLOCKS.events]: { [BLOCKS.eventsInput]: null } },
      { [BLOCKS.events]: { [BLOCKS.eventsInput]: { selected_options: null } } },
      { [BLOCKS.events]: { [BLOCKS.eventsInput]: { selected_options: "video.created" } } },
      { [BLOCKS.events]: { [BLOCKS.eventsInput]: { selected_options: { value: "video.created" } } } },
      { [BLOCKS.events]: { [BLOCKS.eventsInput]: { selected_option: { value: "video.created" } } } },
      state([]),
    ];
    for (const v of bad) expect(parseEventsSubmission(v)).toEqual([]);
  });

  it("skips malformed items but keeps the good ones", () => {
    const values = {
      [BLOCKS.events]: {
        [BLOCKS.eventsInput]: {
          selected_options: [
            null,
            3,
            "video.created",
            { value: 7 },
            { text: "x" },
            [],
            { value: "video.complete" },
          ],
        },
      },
    };
    expect(parseEventsSubmission(values)).toEqual(["video.complete"]);
  });
});

describe("encodeMeta / decodeMeta", () => {
  it("round-trips every field", () => {
    expect(decodeMeta(META)).toEqual({
      teamId: "T0TEAM",
      profileId: "x1abc2",
      channelId: "C0NEWS",
      responseUrl: "https://hooks.slack.com/actions/T0TEAM/123/abc",
      original: ["video.published", "video.format.error"],
    });
  });

  it("round-trips without the optional fields and with original null", () => {
    const s = encodeMeta({ teamId: "T1", profileId: "p-1_x", channelId: undefined, original: null });
    expect(JSON.parse(s)).toEqual({ teamId: "T1", profileId: "p-1_x", original: null });
    expect(decodeMeta(s)).toEqual({ teamId: "T1", profileId: "p-1_x", original: null });
  });

  it("keeps quotes and unicode intact (JSON)", () => {
    const m = { teamId: "T1", profileId: 'a"b\\c\u2028é', original: ['"x"', "🔴"] };
    expect(decodeMeta(encodeMeta(m))).toEqual(m);
  });

  it("drops responseUrl first, then channelId, to stay within 3000 characters", () => {
    const base = { teamId: "T1", profileId: "p", channelId: "C1", original: [] as string[] };
    const long = `https://hooks.slack.com/${"a".repeat(2950)}`;
    const s1 = encodeMeta({ ...base, responseUrl: long });
    expect(s1.length).toBeLessThanOrEqual(3000);
    expect(decodeMeta(s1)).toEqual(base);

    const events = Array.from({ length: 120 }, (_, i) => `video.event.${String(i).padStart(4, "0")}`);
    const tight = { ...base, channelId: `C${"X".repeat(800)}`, original: events };
    expect(JSON.stringify({ teamId: "T1", profileId: "p", original: events }).length).toBeLessThanOrEqual(
      3000,
    );
    expect(JSON.stringify(tight).length).toBeGreaterThan(3000);
    const s2 = encodeMeta({ ...tight, responseUrl: "https://hooks.slack.com/x" });
    expect(s2.length).toBeLessThanOrEqual(3000);
    expect(decodeMeta(s2)).toEqual({ teamId: "T1", profileId: "p", original: events });
  });

  it('fits exactly at 3000 and gives up ("") when nothing fits', () => {
    const prefix = JSON.stringify({ teamId: "T1", profileId: "", original: null });
    const exact = encodeMeta({ teamId: "T1", profileId: "p".repeat(3000 - prefix.length), original: null });
    expect(exact).toHaveLength(3000);
    expect(decodeMeta(exact)?.profileId).toHaveLength(3000 - prefix.length);
    const none = encodeMeta({ teamId: "T1", profileId: "p".repeat(3001), original: null });
    expect(none).toBe("");
    expect(decodeMeta(none)).toBeUndefined();
  });

  it("refuses anything that is not its own output", () => {
    const bad = [
      "",
      "{",
      "null",
      "[]",
      '"x"',
      "42",
      JSON.stringify({ profileId: "p", original: null }),
      JSON.stringify({ teamId: "", profileId: "p", original: null }),
      JSON.stringify({ teamId: "T", profileId: "p" }),
      JSON.stringify({ teamId: "T", profileId: "p", original: "video.created" }),
      JSON.stringify({ teamId: "T", profileId: "p", original: [1] }),
      JSON.stringify({ teamId: "T", profileId: "p", original: null, channelId: 5 }),
      JSON.stringify({ teamId: "T", profileId: "p", original: null, responseUrl: "javascript:alert(1)" }),
      JSON.stringify({ teamId: "T", profileId: "p".repeat(3000), original: null }),
    ];
    for (const s of bad) expect(decodeMeta(s)).toBeUndefined();
  });
});

describe("assertViewWithinLimits", () => {
  const good = (): ModalView => eventsModal({ meta: META, profileId: "p", current: ["video.created"] });

  it("passes the editor", () => {
    expect(assertViewWithinLimits(good())).toEqual([]);
  });

  it("catches title, submit, close, metadata and callback id over their limits", () => {
    const v = good();
    v.title = { type: "plain_text", text: "t".repeat(25) };
    v.submit = { type: "plain_text", text: "s".repeat(25) };
    v.close = { type: "plain_text", text: "" };
    v.private_metadata = "m".repeat(3001);
    v.callback_id = "c".repeat(256);
    const p = assertViewWithinLimits(v).join("\n");
    for (const w of ["title:", "submit:", "close:", "private_metadata:", "callback_id:"])
      expect(p).toContain(w);
  });

  it("catches too many blocks, an input without submit, and a duplicate block id", () => {
    const v = good();
    delete v.submit;
    v.blocks = [...v.blocks, ...Array.from({ length: 100 }, () => ({ type: "divider" as const }))];
    v.blocks.push({ type: "section", block_id: BLOCKS.events, text: { type: "mrkdwn", text: "x" } });
    const p = assertViewWithinLimits(v).join("\n");
    expect(p).toContain(`blocks: ${v.blocks.length} > ${VIEW_LIMITS.blocksPerView}`);
    expect(p).toContain("submit: required");
    expect(p).toContain(`duplicate ${BLOCKS.events}`);
  });

  it("catches bad checkbox options", () => {
    const v = good();
    const input = v.blocks.find((b): b is InputBlock => b.type === "input");
    if (input?.element.type !== "checkboxes") throw new Error("no input");
    const opts = input.element.options;
    opts.push(
      { text: { type: "mrkdwn", text: "x".repeat(76) }, value: "a" },
      {
        text: { type: "mrkdwn", text: "<b>" },
        value: "b",
        description: { type: "plain_text", text: "d".repeat(76) },
      },
      { text: { type: "plain_text", text: "ok" }, value: "a" },
    );
    input.element.initial_options = [{ text: { type: "plain_text", text: "nope" }, value: "zzz" }];
    const p = assertViewWithinLimits(v).join("\n");
    expect(p).toContain("options: 11 items");
    expect(p).toContain("options[8].text: 76 > 75");
    expect(p).toContain("options[9].text: unescaped");
    expect(p).toContain("options[9].description: 76 > 75");
    expect(p).toContain("options[10].value: duplicate a");
    expect(p).toContain("initial_options[0]: not one of the options");
  });

  it("reports problems of ordinary blocks with their index in the view", () => {
    const v = good();
    v.blocks.push({ type: "section", text: { type: "mrkdwn", text: "a <b> c" } });
    expect(assertViewWithinLimits(v).join("\n")).toContain(`blocks[${v.blocks.length - 1}] (section).text`);
  });
});
