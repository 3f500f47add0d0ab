/** Profiles by name in messages, and the menu of profiles: pure renderers and the limits checker. */
import { describe, expect, it } from "vitest";
import {
  type Message,
  pickBlockId,
  profileMenuProblemMessage,
  profilePickerMessage,
  profilePlain,
  profileRef,
} from "../../src/messages/index.js";
import { blockText } from "./fixtures.js";
import { assertWithinLimits } from "./limits.js";

const select = (m: Message) => {
  const actions = m.blocks.find((b) => b.type === "actions");
  return actions?.type === "actions" ? { blockId: actions.block_id, el: actions.elements[0] } : undefined;
};

describe("a profile by name", () => {
  it("its name (escaped, bounded) then its id; the id alone when the name is unknown or the id", () => {
    expect(profileRef("x2vq8nw", "Northwind News")).toBe("Northwind News (`x2vq8nw`)");
    expect(profileRef("x2vq8nw")).toBe("`x2vq8nw`");
    expect(profileRef("x2vq8nw", "x2vq8nw")).toBe("`x2vq8nw`");
    expect(profileRef("x2vq8nw", "  ")).toBe("`x2vq8nw`");
    expect(profileRef("x2vq8nw", "<!here> & <@U1>")).toBe("&lt;!here&gt; &amp; &lt;@U1&gt; (`x2vq8nw`)");
    expect(profileRef("x2vq8nw", "n".repeat(500)).length).toBeLessThan(130);
    expect(profilePlain("x2vq8nw", "Northwind\nNews")).toBe("Northwind News (x2vq8nw)");
  });
});

describe("the menu of profiles", () => {
  const profiles = Array.from({ length: 150 }, (_, i) => ({
    profileId: `x${String(i).padStart(5, "0")}`,
    name: `profile-${String(149 - i).padStart(3, "0")}`,
  }));

  it("at most 100 options, by name, the command in its block_id, within Slack's limits", () => {
    const m = profilePickerMessage({ carry: "set created published", profiles });
    expect(assertWithinLimits(m)).toEqual([]);
    const s = select(m);
    expect(s?.blockId).toBe("pick:set created published");
    expect(s?.el?.type).toBe("static_select");
    const options = s?.el?.type === "static_select" ? (s.el.options ?? []) : [];
    expect(options).toHaveLength(100);
    expect(options[0]).toEqual({
      text: { type: "plain_text", text: "profile-000 (x00149)" },
      value: "x00149",
    });
    expect(blockText(m)).toContain("The first 100 are listed (50 more)");
    expect(blockText(m)).toContain("/webhook set profile-000 created published");
  });

  it("a command too long for a block_id: the profiles listed, to name one", () => {
    const carry = `set url=https://hooks.example.com/${"a".repeat(300)}`;
    expect(pickBlockId(carry)).toBeUndefined();
    const m = profilePickerMessage({ carry, profiles: profiles.slice(0, 2) });
    expect(select(m)).toBeUndefined();
    expect(assertWithinLimits(m)).toEqual([]);
    expect(blockText(m)).toContain("again with one of this workspace's profiles");
    expect(blockText(m)).toContain("profile-148 (x00001)");
  });

  it("why there is no menu, in plain words", () => {
    for (const p of ["no_profile", "unavailable", "none_bound"] as const) {
      const m = profileMenuProblemMessage(p, { carry: "set created", detail: "(correlation id: abc)" });
      expect(assertWithinLimits(m)).toEqual([]);
    }
    expect(blockText(profileMenuProblemMessage("unavailable", { carry: "set created" }))).toContain(
      "/webhook set <profile_id> created",
    );
  });

  it("the limits checker reads a static select: too many options, long values, a stray initial option", () => {
    const bad: Message = {
      text: "x",
      blocks: [
        {
          type: "actions",
          elements: [
            {
              type: "static_select",
              action_id: "a",
              placeholder: { type: "plain_text", text: "Choose" },
              options: [{ text: { type: "plain_text", text: "one" }, value: "v".repeat(151) }],
              initial_option: { text: { type: "plain_text", text: "two" }, value: "two" },
            },
          ],
        },
      ],
    };
    const problems = assertWithinLimits(bad).join("\n");
    expect(problems).toContain("options[0].value: 151 > 150");
    expect(problems).toContain("initial_option: not one of the options");
  });
});
