/** response_url posts: recording, channel view, replace/delete original, validation, use limits. */
import { describe, expect, it } from "vitest";
import { type SlackStandin, startSlackStandin } from "../../fakes/slack/index.js";
import { type Client, postJson, section, standinForFile } from "./helpers.js";

let s: SlackStandin;
let client: Client;

standinForFile((started, c) => {
  s = started;
  client = c;
});

describe("response_url", () => {
  it("gives unique URLs under the stand-in and records what is posted", async () => {
    const a = s.newResponseUrl();
    const b = s.newResponseUrl();
    expect(a).not.toBe(b);
    expect(a.startsWith(`${s.url}/response/`)).toBe(true);
    const body = { text: "Usage: /live status <id>", blocks: [section("usage")] };
    const res = await postJson(a, body);
    expect(res).toMatchObject({ status: 200, json: { ok: true } });
    expect(s.responses(a)).toEqual([body]);
    expect(s.responses(b)).toEqual([]);
    const call = s.callsTo("response_url")[0];
    expect(call).toMatchObject({ method: "response_url", args: body, status: 200, ok: true });
    expect(a.endsWith(String(call?.responseUrlId))).toBe(true);
    // unbound: nothing shows in any channel
    expect(s.messages("C0GENERAL")).toEqual([]);
  });

  it("shows in_channel responses in the bound channel and ephemeral ones to the user", async () => {
    const url = s.newResponseUrl("C0NEWS", "U0MEMBER");
    await postJson(url, { text: "for you" });
    await postJson(url, { response_type: "in_channel", text: "for all" });
    const shown = s.messages("C0NEWS");
    expect(shown.map((m) => [m.text, m.ephemeralTo])).toEqual([
      ["for you", "U0MEMBER"],
      ["for all", undefined],
    ]);
    expect(shown.every((m) => m.edits === 0)).toBe(true);
  });

  it("replace_original edits the last message of the URL in place; responses() stays raw", async () => {
    const url = s.newResponseUrl("C0GENERAL", "U0ADMIN");
    await postJson(url, { response_type: "in_channel", text: "Loading…" });
    const blocks = [section("On air")];
    await postJson(url, { replace_original: true, text: "On air", blocks });
    await postJson(url, { replace_original: "true", text: "On air (refreshed)" });
    const shown = s.messages("C0GENERAL");
    expect(shown).toHaveLength(1);
    expect(shown[0]).toMatchObject({ text: "On air (refreshed)", blocks, edits: 2 });
    expect(shown[0]?.ephemeralTo).toBeUndefined();
    expect(s.responses(url).map((r) => r.text)).toEqual(["Loading…", "On air", "On air (refreshed)"]);
  });

  it("an interaction's URL acts on the message it came from; delete_original removes it", async () => {
    const card = await client.chat.postMessage({ channel: "C0GENERAL", text: "status card" });
    const refresh = s.newResponseUrl("C0GENERAL", "U0MEMBER", String(card.ts));
    await postJson(refresh, { replace_original: true, text: "status card v2" });
    expect(s.messages("C0GENERAL")).toEqual([
      { ts: card.ts, text: "status card v2", edits: 1, user: "U0BOT" },
    ]);
    const remove = s.newResponseUrl("C0GENERAL", "U0MEMBER", String(card.ts));
    expect((await postJson(remove, { delete_original: true })).status).toBe(200);
    expect(s.messages("C0GENERAL")).toEqual([]);
  });

  it("validates like Slack: blocks array of at most 50, some text unless deleting, JSON", async () => {
    const url = s.newResponseUrl("C0GENERAL", "U0ADMIN");
    const many = Array.from({ length: 51 }, (_, i) => section(`b${i}`));
    expect(await postJson(url, { text: "x", blocks: many })).toMatchObject({
      status: 400,
      json: { ok: false, error: "invalid_blocks" },
    });
    expect(await postJson(url, { text: "x", blocks: { type: "section" } })).toMatchObject({
      status: 400,
      json: { error: "invalid_blocks" },
    });
    expect(await postJson(url, { response_type: "in_channel" })).toMatchObject({
      status: 400,
      json: { error: "no_text" },
    });
    expect(await postJson(url, "not json")).toMatchObject({
      status: 400,
      json: { error: "invalid_payload" },
    });
    expect(s.responses(url)).toEqual([]);
    expect(s.callsTo("response_url").map((c) => c.error)).toEqual([
      "invalid_blocks",
      "invalid_blocks",
      "no_text",
      "invalid_payload",
    ]);
    expect((await postJson(url, { text: "x", blocks: many.slice(0, 50) })).status).toBe(200);
  });

  it("can be used five times; unknown ids are expired", async () => {
    const url = s.newResponseUrl();
    for (let i = 0; i < 5; i++) expect((await postJson(url, { text: `${i}` })).status).toBe(200);
    expect(await postJson(url, { text: "6th" })).toMatchObject({ status: 404, json: { error: "used_url" } });
    expect(s.responses(url)).toHaveLength(5);
    expect(await postJson(`${s.url}/response/000000nothing`, { text: "x" })).toMatchObject({
      status: 404,
      json: { error: "expired_url" },
    });
  });

  it("expires after 30 minutes on the stand-in's clock", async () => {
    let clock = 1_700_000_000_000;
    const timed = await startSlackStandin({ now: () => clock });
    try {
      const url = timed.newResponseUrl();
      clock += 29 * 60 * 1000;
      expect((await postJson(url, { text: "in time" })).status).toBe(200);
      clock += 2 * 60 * 1000;
      expect(await postJson(url, { text: "late" })).toMatchObject({
        status: 404,
        json: { error: "expired_url" },
      });
    } finally {
      await timed.close();
    }
  });

  it("reset() forgets the URLs", async () => {
    const url = s.newResponseUrl();
    await postJson(url, { text: "x" });
    s.reset();
    expect(s.responses(url)).toEqual([]);
    expect((await postJson(url, { text: "x" })).status).toBe(404);
  });
});
