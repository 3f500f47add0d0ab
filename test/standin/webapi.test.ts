/**
 * The stand-in's Web API driven by the real @slack/web-api client (form-encoded calls with the
 * token in the Authorization header, as the bot will send them).
 */
import { request } from "undici";
import { describe, expect, it } from "vitest";
import { type SlackStandin, startSlackStandin } from "../../fakes/slack/index.js";
import { type Client, caught, clientFor, ErrorCode, section, standinForFile } from "./helpers.js";

let s: SlackStandin;
let client: Client;

standinForFile((started, c) => {
  s = started;
  client = c;
});

const TS = /^\d{10}\.\d{6}$/;

describe("auth", () => {
  it("auth.test answers the bot's identity and records the call with its token", async () => {
    expect(s.apiUrl).toBe(`${s.url}/api/`);
    const r = await client.auth.test();
    expect(r).toMatchObject({ ok: true, team_id: "T0STANDIN", user_id: "U0BOT", bot_id: "B0BOT" });
    expect(r.url).toMatch(/^https:\/\//);
    expect(s.calls).toHaveLength(1);
    expect(s.calls[0]).toMatchObject({ method: "auth.test", token: s.botToken, status: 200, ok: true });
    expect(s.calls[0]?.args).not.toHaveProperty("token");
  });

  it("refuses another token (invalid_auth) and no token (not_authed)", async () => {
    const wrong = await caught(
      clientFor(s, "xoxb-someone-else").chat.postMessage({ channel: "C0GENERAL", text: "x" }),
    );
    expect(wrong).toMatchObject({ code: ErrorCode.PlatformError, error: "invalid_auth" });
    expect(s.callsTo("chat.postMessage")[0]).toMatchObject({
      token: "xoxb-someone-else",
      ok: false,
      error: "invalid_auth",
    });
    expect(await caught(clientFor(s, null).auth.test())).toMatchObject({ error: "not_authed" });
    expect(s.messages("C0GENERAL")).toHaveLength(0);
  });

  it("honours a custom bot token and team", async () => {
    const other = await startSlackStandin({ botToken: "xoxb-custom", teamId: "T0CUSTOM" });
    try {
      expect((await clientFor(other, "xoxb-custom").auth.test()).team_id).toBe("T0CUSTOM");
      expect(await caught(clientFor(other, "xoxb-standin-0000-token").auth.test())).toMatchObject({
        error: "invalid_auth",
      });
    } finally {
      await other.close();
    }
  });
});

describe("users.info", () => {
  it("tells admins, owners and members apart", async () => {
    const admin = (await client.users.info({ user: "U0ADMIN" })).user;
    expect(admin).toMatchObject({ id: "U0ADMIN", is_admin: true, is_owner: false, team_id: "T0STANDIN" });
    const owner = (await client.users.info({ user: "U0OWNER" })).user;
    expect(owner).toMatchObject({ is_owner: true, is_primary_owner: true });
    const member = (await client.users.info({ user: "U0MEMBER" })).user;
    expect(member).toMatchObject({ is_admin: false, is_owner: false, is_bot: false, deleted: false });
    const other = (await client.users.info({ user: "U0OTHER" })).user;
    expect(other?.name).not.toBe(member?.name);
  });

  it("answers user_not_found for an unknown user, and knows users added later", async () => {
    expect(await caught(client.users.info({ user: "U0NOBODY" }))).toMatchObject({ error: "user_not_found" });
    s.addUser({ id: "U0NEW", team_id: s.teamId, name: "newbie", is_admin: true });
    expect((await client.users.info({ user: "U0NEW" })).user).toMatchObject({
      name: "newbie",
      is_admin: true,
    });
  });
});

describe("chat.postMessage", () => {
  it("posts blocks, records them JSON-decoded, and shows the message in the channel", async () => {
    const blocks = [section("*Live* now", "b1"), { type: "divider" }];
    const r = await client.chat.postMessage({ channel: "C0GENERAL", text: "Live now", blocks });
    expect(r.ok).toBe(true);
    expect(r.channel).toBe("C0GENERAL");
    expect(r.ts).toMatch(TS);
    expect(r.message).toMatchObject({ text: "Live now", blocks, bot_id: "B0BOT", user: "U0BOT" });
    const call = s.callsTo("chat.postMessage")[0];
    expect(call?.args.blocks).toEqual(blocks);
    expect(call?.args.channel).toBe("C0GENERAL");
    expect(s.messages("C0GENERAL")).toEqual([
      { ts: r.ts, text: "Live now", blocks, edits: 0, user: "U0BOT" },
    ]);
  });

  it("assigns strictly increasing ts, even with a frozen clock", async () => {
    const frozen = await startSlackStandin({ now: () => 1_700_000_000_000 });
    try {
      const c = clientFor(frozen);
      const a = await c.chat.postMessage({ channel: "C0GENERAL", text: "a" });
      const b = await c.chat.postMessage({ channel: "C0NEWS", text: "b" });
      expect(a.ts).toBe("1700000000.000000");
      expect(b.ts).toBe("1700000000.000100");
    } finally {
      await frozen.close();
    }
    const ts: string[] = [];
    for (let i = 0; i < 5; i++)
      ts.push(String((await client.chat.postMessage({ channel: "C0GENERAL", text: `${i}` })).ts));
    expect([...ts].sort()).toEqual(ts);
    expect(new Set(ts).size).toBe(5);
  });

  it("threads replies; a reply to a reply goes to the parent; an unknown thread_ts is refused", async () => {
    const parent = await client.chat.postMessage({ channel: "C0GENERAL", text: "video x1" });
    const reply = await client.chat.postMessage({
      channel: "C0GENERAL",
      text: "published",
      thread_ts: parent.ts,
    });
    expect(reply.message?.thread_ts).toBe(parent.ts);
    const nested = await client.chat.postMessage({
      channel: "C0GENERAL",
      text: "complete",
      thread_ts: reply.ts,
    });
    expect(nested.message?.thread_ts).toBe(parent.ts);
    expect(s.messages("C0GENERAL").map((m) => [m.text, m.thread_ts])).toEqual([
      ["video x1", undefined],
      ["published", parent.ts],
      ["complete", parent.ts],
    ]);
    expect(
      await caught(
        client.chat.postMessage({ channel: "C0GENERAL", text: "x", thread_ts: "1600000000.000001" }),
      ),
    ).toMatchObject({ error: "invalid_thread_ts" });
  });

  it("answers by channel: public (chat:write.public), not in channel, unknown, archived, DM", async () => {
    expect((await client.chat.postMessage({ channel: "C0PUBLICONLY", text: "hi" })).ok).toBe(true);
    expect(await caught(client.chat.postMessage({ channel: "C0PRIVATE", text: "hi" }))).toMatchObject({
      error: "not_in_channel",
    });
    expect(await caught(client.chat.postMessage({ channel: "C0NOPE", text: "hi" }))).toMatchObject({
      error: "channel_not_found",
    });
    expect(await caught(client.chat.postMessage({ channel: "C0ARCHIVED", text: "hi" }))).toMatchObject({
      error: "is_archived",
    });
    s.channels.member.add("C0PRIVATE");
    expect((await client.chat.postMessage({ channel: "C0PRIVATE", text: "invited now" })).ok).toBe(true);
    const dm = await client.chat.postMessage({ channel: "U0ADMIN", text: "psst" });
    expect(dm.channel).toBe("D0ADMIN");
    expect(s.messages("D0ADMIN").map((m) => m.text)).toEqual(["psst"]);
    expect(s.messages("C0PRIVATE").map((m) => m.text)).toEqual(["invited now"]);
  });

  it("conversations.open: one D… channel per user, posted to and updated like Slack; refusals", async () => {
    const open = await client.conversations.open({ users: "U0MEMBER" });
    expect(open.channel?.id).toBe("D0MEMBER");
    expect((await client.conversations.open({ users: "U0MEMBER" })).channel?.id).toBe("D0MEMBER");
    expect((await client.conversations.open({ users: "U0OTHER" })).channel?.id).toBe("D0OTHER");
    expect((await client.conversations.open({ channel: "D0MEMBER" })).channel?.id).toBe("D0MEMBER");
    const full = await client.conversations.open({ users: "U0MEMBER", return_im: true });
    expect(full.channel).toMatchObject({ id: "D0MEMBER", is_im: true, user: "U0MEMBER" });
    const posted = await client.chat.postMessage({ channel: "D0MEMBER", text: "on air" });
    await client.chat.update({ channel: "D0MEMBER", ts: posted.ts ?? "", text: "ended" });
    expect(s.messages("D0MEMBER")).toMatchObject([{ text: "ended", edits: 1 }]);
    expect(s.messages("D0OTHER")).toEqual([]);
    expect(await caught(client.conversations.open({ users: "U0NOBODY" }))).toMatchObject({
      error: "user_not_found",
    });
    expect(await caught(client.conversations.open({ users: "U0BOT" }))).toMatchObject({
      error: "cannot_dm_bot",
    });
    expect(await caught(client.conversations.open({ users: "" }))).toMatchObject({
      error: "users_list_not_supplied",
    });
    expect(await caught(client.conversations.open({ channel: "C0GENERAL" }))).toMatchObject({
      error: "channel_not_found",
    });
    const member = s.users.get("U0MEMBER");
    if (member) member.deleted = true;
    expect(await caught(client.conversations.open({ users: "U0MEMBER" }))).toMatchObject({
      error: "user_disabled",
    });
    expect((await client.users.info({ user: "U0MEMBER" })).user?.deleted).toBe(true);
  });

  it("validates content: no_text, invalid_blocks, msg_too_long", async () => {
    expect(await caught(client.chat.postMessage({ channel: "C0GENERAL", text: "" }))).toMatchObject({
      error: "no_text",
    });
    const many = Array.from({ length: 51 }, (_, i) => section(`b${i}`));
    expect(
      await caught(client.chat.postMessage({ channel: "C0GENERAL", text: "x", blocks: many })),
    ).toMatchObject({
      error: "invalid_blocks",
    });
    expect(
      (await client.chat.postMessage({ channel: "C0GENERAL", text: "x", blocks: many.slice(0, 50) })).ok,
    ).toBe(true);
    // blocks that are not a JSON array (sent as a plain string field)
    expect(
      await caught(client.apiCall("chat.postMessage", { channel: "C0GENERAL", blocks: "not json" })),
    ).toMatchObject({
      error: "invalid_blocks",
    });
    expect(
      await caught(client.chat.postMessage({ channel: "C0GENERAL", text: "x".repeat(40_001) })),
    ).toMatchObject({
      error: "msg_too_long",
    });
    expect((await client.chat.postMessage({ channel: "C0GENERAL", text: "x".repeat(40_000) })).ok).toBe(true);
    expect(s.messages("C0GENERAL")).toHaveLength(2);
  });

  it("checks Block Kit limits and names the offending field", async () => {
    const long = await caught(
      client.chat.postMessage({ channel: "C0GENERAL", text: "x", blocks: [section("d".repeat(3001))] }),
    );
    expect(long.error).toBe("invalid_blocks");
    expect(long.data?.errors).toEqual([
      "must be less than 3001 characters [json-pointer:/blocks/0/text/text]",
    ]);
    const dup = await caught(
      client.chat.postMessage({
        channel: "C0GENERAL",
        text: "x",
        blocks: [section("a", "same"), section("b", "same")],
      }),
    );
    expect(dup.data?.errors).toEqual(["duplicate block_id: same [json-pointer:/blocks/1/block_id]"]);
    const option = (v: string) => ({ text: { type: "plain_text", text: v }, value: v });
    const checkboxes = {
      type: "actions",
      elements: [
        {
          type: "checkboxes",
          action_id: "ev",
          options: [option("a"), option("b")],
          initial_options: [option("c")],
        },
      ],
    };
    const initial = await caught(
      client.chat.postMessage({ channel: "C0GENERAL", text: "x", blocks: [checkboxes] }),
    );
    expect(initial.data?.errors).toEqual([
      "initial option must be one of the options [json-pointer:/blocks/0/elements/0/initial_options/0]",
    ]);
    const header = { type: "header", text: { type: "plain_text", text: "h".repeat(151) } };
    expect(
      await caught(client.chat.postMessage({ channel: "C0GENERAL", text: "x", blocks: [header] })),
    ).toMatchObject({
      error: "invalid_blocks",
    });
    expect(s.messages("C0GENERAL")).toHaveLength(0);
  });
});

describe("chat.update, chat.postEphemeral, chat.delete", () => {
  it("updates in place and counts edits; blocks not given are kept", async () => {
    const blocks = [section("state: processing")];
    const p = await client.chat.postMessage({ channel: "C0GENERAL", text: "v1", blocks });
    const u = await client.chat.update({ channel: "C0GENERAL", ts: String(p.ts), text: "v2" });
    expect(u).toMatchObject({ ok: true, channel: "C0GENERAL", ts: p.ts, text: "v2" });
    const newBlocks = [section("state: ready")];
    await client.chat.update({ channel: "C0GENERAL", ts: String(p.ts), text: "v3", blocks: newBlocks });
    expect(s.messages("C0GENERAL")).toEqual([
      { ts: p.ts, text: "v3", blocks: newBlocks, edits: 2, user: "U0BOT" },
    ]);
    expect(s.callsTo("chat.update")[1]?.args.blocks).toEqual(newBlocks);
  });

  it("refuses unknown messages and invalid updates", async () => {
    const p = await client.chat.postMessage({ channel: "C0GENERAL", text: "v1" });
    expect(
      await caught(client.chat.update({ channel: "C0GENERAL", ts: "1600000000.000001", text: "x" })),
    ).toMatchObject({ error: "message_not_found" });
    expect(
      await caught(client.chat.update({ channel: "C0NEWS", ts: String(p.ts), text: "x" })),
    ).toMatchObject({
      error: "message_not_found",
    });
    expect(
      await caught(client.chat.update({ channel: "C0NOPE", ts: String(p.ts), text: "x" })),
    ).toMatchObject({
      error: "channel_not_found",
    });
    const many = Array.from({ length: 51 }, (_, i) => section(`b${i}`));
    expect(
      await caught(client.chat.update({ channel: "C0GENERAL", ts: String(p.ts), text: "x", blocks: many })),
    ).toMatchObject({ error: "invalid_blocks" });
    expect(s.messages("C0GENERAL")[0]).toMatchObject({ text: "v1", edits: 0 });
  });

  it("posts ephemeral messages seen by one user only, which cannot be updated", async () => {
    const r = await client.chat.postEphemeral({ channel: "C0GENERAL", user: "U0MEMBER", text: "only you" });
    expect(r.ok).toBe(true);
    expect(r.message_ts).toMatch(TS);
    expect(s.messages("C0GENERAL")).toEqual([
      { ts: r.message_ts, text: "only you", edits: 0, user: "U0BOT", ephemeralTo: "U0MEMBER" },
    ]);
    expect(
      await caught(client.chat.update({ channel: "C0GENERAL", ts: String(r.message_ts), text: "x" })),
    ).toMatchObject({ error: "message_not_found" });
    expect(
      await caught(client.chat.postEphemeral({ channel: "C0GENERAL", user: "U0NOBODY", text: "x" })),
    ).toMatchObject({ error: "user_not_found" });
  });

  it("deletes a message once", async () => {
    const a = await client.chat.postMessage({ channel: "C0GENERAL", text: "a" });
    const b = await client.chat.postMessage({ channel: "C0GENERAL", text: "b" });
    expect(await client.chat.delete({ channel: "C0GENERAL", ts: String(a.ts) })).toMatchObject({
      ok: true,
      ts: a.ts,
    });
    expect(s.messages("C0GENERAL").map((m) => m.ts)).toEqual([b.ts]);
    expect(await caught(client.chat.delete({ channel: "C0GENERAL", ts: String(a.ts) }))).toMatchObject({
      error: "message_not_found",
    });
  });
});

describe("conversations.history and conversations.replies", () => {
  const meta = (n: number) => ({ event_type: "video_status", event_payload: { n } });

  it("history: top-level messages newest first, oldest/latest, pages with a cursor, metadata on request", async () => {
    const ts: string[] = [];
    for (let n = 0; n < 5; n++) {
      const r = await client.chat.postMessage({ channel: "C0NEWS", text: `m${n}`, metadata: meta(n) });
      ts.push(String(r.ts));
    }
    await client.chat.postMessage({ channel: "C0NEWS", text: "reply", thread_ts: ts[0] });
    const all = await client.conversations.history({ channel: "C0NEWS" });
    expect(all.messages?.map((m) => m.text)).toEqual(["m4", "m3", "m2", "m1", "m0"]);
    expect(all.messages?.some((m) => m.metadata)).toBe(false);
    expect(all.has_more).toBe(false);

    const since = await client.conversations.history({ channel: "C0NEWS", oldest: ts[1], latest: ts[4] });
    expect(since.messages?.map((m) => m.text)).toEqual(["m3", "m2"]);
    const inclusive = await client.conversations.history({
      channel: "C0NEWS",
      oldest: ts[1],
      latest: ts[4],
      inclusive: true,
    });
    expect(inclusive.messages?.map((m) => m.text)).toEqual(["m4", "m3", "m2", "m1"]);

    const first = await client.conversations.history({
      channel: "C0NEWS",
      limit: 2,
      include_all_metadata: true,
    });
    expect(first.messages?.map((m) => [m.text, m.metadata?.event_payload])).toEqual([
      ["m4", { n: 4 }],
      ["m3", { n: 3 }],
    ]);
    expect(first.has_more).toBe(true);
    const cursor = first.response_metadata?.next_cursor;
    expect(cursor).toBeTruthy();
    const second = await client.conversations.history({ channel: "C0NEWS", limit: 2, cursor });
    const third = await client.conversations.history({
      channel: "C0NEWS",
      limit: 2,
      cursor: second.response_metadata?.next_cursor,
    });
    expect([...(second.messages ?? []), ...(third.messages ?? [])].map((m) => m.text)).toEqual([
      "m2",
      "m1",
      "m0",
    ]);
    expect(third.has_more).toBe(false);
    expect(await caught(client.conversations.history({ channel: "C0NOPE" }))).toMatchObject({
      error: "channel_not_found",
    });
  });

  it("replies: the parent, then its replies oldest first, with the same window and pages", async () => {
    const parent = await client.chat.postMessage({ channel: "C0NEWS", text: "parent" });
    const replies: string[] = [];
    for (let n = 0; n < 3; n++) {
      const r = await client.chat.postMessage({
        channel: "C0NEWS",
        text: `r${n}`,
        thread_ts: parent.ts,
        metadata: meta(n),
      });
      replies.push(String(r.ts));
    }
    await client.chat.postMessage({ channel: "C0NEWS", text: "elsewhere" });
    const thread = await client.conversations.replies({
      channel: "C0NEWS",
      ts: String(parent.ts),
      include_all_metadata: true,
    });
    expect(thread.messages?.map((m) => m.text)).toEqual(["parent", "r0", "r1", "r2"]);
    expect(thread.messages?.[2]?.metadata).toEqual(meta(1));
    // A reply's ts names the same thread; `oldest` leaves out what is older.
    const later = await client.conversations.replies({
      channel: "C0NEWS",
      ts: replies[1] ?? "",
      oldest: replies[0],
    });
    expect(later.messages?.map((m) => m.text)).toEqual(["r1", "r2"]);
    expect(
      await caught(client.conversations.replies({ channel: "C0NEWS", ts: "1600000000.000001" })),
    ).toMatchObject({ error: "thread_not_found" });
  });
});

describe("conversations.info and team.info", () => {
  it("describes membership and archival", async () => {
    const general = (await client.conversations.info({ channel: "C0GENERAL" })).channel;
    expect(general).toMatchObject({ id: "C0GENERAL", name: "general", is_member: true, is_archived: false });
    const publicOnly = (await client.conversations.info({ channel: "C0PUBLICONLY" })).channel;
    expect(publicOnly).toMatchObject({ is_member: false, is_private: false });
    expect((await client.conversations.info({ channel: "C0NEWS" })).channel).toMatchObject({
      is_member: true,
      is_private: true,
    });
    expect((await client.conversations.info({ channel: "C0ARCHIVED" })).channel?.is_archived).toBe(true);
    expect(await caught(client.conversations.info({ channel: "C0NOPE" }))).toMatchObject({
      error: "channel_not_found",
    });
  });

  it("team.info names the workspace", async () => {
    expect((await client.team.info()).team).toMatchObject({ id: "T0STANDIN", name: "Standin Workspace" });
  });
});

describe("views", () => {
  const modal = (title = "Edit events") => ({
    type: "modal" as const,
    callback_id: "edit_events",
    title: { type: "plain_text" as const, text: title },
    submit: { type: "plain_text" as const, text: "Save" },
    private_metadata: "x2vq8nw",
    blocks: [section("Pick events")],
  });

  it("opens a modal with a trigger_id, updates it by id or external_id, refuses a stale hash", async () => {
    const opened = await client.views.open({
      trigger_id: "123.456.abc",
      view: { ...modal(), external_id: "ext-1" },
    });
    const id = String(opened.view?.id);
    expect(id).toMatch(/^V/);
    expect(opened.view).toMatchObject({
      callback_id: "edit_events",
      private_metadata: "x2vq8nw",
      type: "modal",
    });
    const hash = String(opened.view?.hash);
    const updated = await client.views.update({
      view_id: id,
      hash,
      view: { ...modal("Saved"), external_id: "ext-1" },
    });
    expect(updated.view?.id).toBe(id);
    expect(updated.view?.hash).not.toBe(hash);
    expect(s.view(id)?.title).toEqual({ type: "plain_text", text: "Saved" });
    expect(await caught(client.views.update({ view_id: id, hash, view: modal() }))).toMatchObject({
      error: "hash_conflict",
    });
    const byExternal = await client.views.update({
      external_id: "ext-1",
      view: { ...modal("Again"), external_id: "ext-1" },
    });
    expect(byExternal.view?.id).toBe(id);
    expect(await caught(client.views.update({ view_id: "V404", view: modal() }))).toMatchObject({
      error: "not_found",
    });
    expect(s.callsTo("views.open")[0]?.args.view).toMatchObject({ callback_id: "edit_events" });
  });

  it("refuses views.open without trigger_id and invalid modals", async () => {
    expect(await caught(client.apiCall("views.open", { view: modal() }))).toMatchObject({
      error: "invalid_arguments",
    });
    const tooLong = await caught(client.views.open({ trigger_id: "1.2.a", view: modal("t".repeat(25)) }));
    expect(tooLong).toMatchObject({ error: "invalid_arguments" });
    expect(tooLong.data?.errors).toEqual(["must be less than 25 characters [json-pointer:/view/title/text]"]);
  });

  it("publishes an App Home per user", async () => {
    const view = { type: "home" as const, blocks: [section("Welcome")] };
    const r = await client.views.publish({ user_id: "U0ADMIN", view });
    expect(r.view).toMatchObject({ type: "home" });
    expect(s.homeView("U0ADMIN")?.blocks).toEqual(view.blocks);
    expect(s.homeView("U0MEMBER")).toBeUndefined();
    const again = await client.views.publish({ user_id: "U0ADMIN", view, hash: String(r.view?.hash) });
    expect(again.view?.id).toBe(r.view?.id);
    expect(await caught(client.views.publish({ user_id: "U0ADMIN", view, hash: "stale" }))).toMatchObject({
      error: "hash_conflict",
    });
    expect(await caught(client.views.publish({ user_id: "U0NOBODY", view }))).toMatchObject({
      error: "user_not_found",
    });
  });
});

describe("oauth.v2.access", () => {
  it("exchanges good-code for a bot token that the Web API then accepts", async () => {
    const anonymous = clientFor(s, null);
    const r = await anonymous.oauth.v2.access({
      client_id: "111.222",
      client_secret: "shh",
      code: "good-code",
    });
    expect(r).toMatchObject({
      ok: true,
      token_type: "bot",
      bot_user_id: "U0BOT",
      team: { id: "T0STANDIN" },
      enterprise: null,
      authed_user: { id: "U0ADMIN" },
    });
    expect(r.access_token).toMatch(/^xoxb-installed-/);
    expect(r.scope).toContain("chat:write");
    expect((await clientFor(s, r.access_token).auth.test()).team_id).toBe("T0STANDIN");
    expect(
      await caught(
        anonymous.oauth.v2.access({ client_id: "111.222", client_secret: "shh", code: "bad-code" }),
      ),
    ).toMatchObject({ error: "invalid_code" });
  });
});

describe("wire formats and bookkeeping", () => {
  it("answers unknown_method", async () => {
    expect(await caught(client.apiCall("nope.nothing", {}))).toMatchObject({ error: "unknown_method" });
    expect(s.callsTo("nope.nothing")[0]).toMatchObject({ ok: false, error: "unknown_method" });
  });

  it("accepts JSON bodies with a Bearer header, and the token as a form field", async () => {
    const blocks = [section("json")];
    const res = await request(`${s.apiUrl}chat.postMessage`, {
      method: "POST",
      headers: { "content-type": "application/json; charset=utf-8", authorization: `Bearer ${s.botToken}` },
      body: JSON.stringify({ channel: "C0NEWS", text: "json", blocks }),
    });
    expect(await res.body.json()).toMatchObject({ ok: true, channel: "C0NEWS" });
    expect(s.messages("C0NEWS")[0]?.blocks).toEqual(blocks);
    const tokenInJson = await request(`${s.apiUrl}auth.test`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ token: s.botToken }),
    });
    expect(await tokenInJson.body.json()).toEqual({ ok: false, error: "not_authed" });
    const form = await request(`${s.apiUrl}auth.test`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: s.botToken }).toString(),
    });
    expect(await form.body.json()).toMatchObject({ ok: true, user_id: "U0BOT" });
  });

  it("records every call in order", async () => {
    await client.auth.test();
    await client.chat.postMessage({ channel: "C0GENERAL", text: "a" });
    await caught(client.users.info({ user: "U0NOBODY" }));
    expect(s.calls.map((c) => [c.method, c.ok])).toEqual([
      ["auth.test", true],
      ["chat.postMessage", true],
      ["users.info", false],
    ]);
    expect(s.calls.every((c) => c.status === 200 && typeof c.at === "number")).toBe(true);
  });

  it("reset() clears calls and messages and re-seeds users and channels", async () => {
    await client.chat.postMessage({ channel: "C0GENERAL", text: "a" });
    s.addUser({ id: "U0TEMP", team_id: s.teamId, name: "temp" });
    s.users.delete("U0ADMIN");
    s.channels.member.delete("C0GENERAL");
    s.reset();
    expect(s.calls).toHaveLength(0);
    expect(s.messages("C0GENERAL")).toHaveLength(0);
    expect(s.users.has("U0TEMP")).toBe(false);
    expect(s.users.get("U0ADMIN")?.is_admin).toBe(true);
    expect(s.channels.member.has("C0GENERAL")).toBe(true);
  });
});
