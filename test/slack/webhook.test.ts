/**
 * `/webhook` and its buttons over the real path: signed requests to the running bot, the platform
 * sandbox, the Slack stand-in, and the settings store.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { ACTIONS } from "../../src/messages/index.js";
import { type Harness, PUBLIC_URL, startHarness, waitFor } from "../support/harness.js";

const sha256hex = (s: string) => createHash("sha256").update(s).digest("hex");

let h: Harness;
const TEAM = "T0STANDIN";

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});
beforeEach(async () => {
  h.sandbox.reset();
  for (const p of await h.built.deps.settings.listProfiles(TEAM)) {
    await h.built.deps.settings.removeProfile(TEAM, p.profileId);
  }
  for (const m of await h.built.deps.settings.listManagers(TEAM)) {
    await h.built.deps.settings.removeManager(TEAM, m.userId);
  }
});

const json = (v: unknown) => JSON.stringify(v);
const platformWebhook = (id: string) => h.sandbox.state.profiles.get(id)?.webhook;
const patches = () => h.sandbox.requests.filter((r) => r.method === "PATCH");

async function setNewsroom(
  text = `set ${SEED.profiles.newsroom} created published complete`,
  user = "U0ADMIN",
) {
  const res = await h.slash("/webhook", text, { user, channel: "C0NEWS" });
  return { res, answer: await h.answer(res.responseUrl) };
}

describe("/webhook set", () => {
  it("registers this bot's route with a fresh unguessable token and routes notifications to the channel", async () => {
    const { answer } = await setNewsroom();
    expect(answer.response_type).toBe("in_channel");
    const hook = platformWebhook(SEED.profiles.newsroom);
    expect(hook?.events).toEqual(["video.created", "video.published", "video.complete"]);
    const prefix = `${PUBLIC_URL}/hooks/platform/`;
    expect(hook?.callback_url?.startsWith(prefix)).toBe(true);
    const token = hook?.callback_url?.slice(prefix.length) ?? "";
    expect(token).toMatch(/^[A-Za-z0-9_-]{22,}$/); // at least 128 bits, URL-safe
    expect(await h.built.deps.callbacks.get(token)).toEqual({
      teamId: TEAM,
      profileId: SEED.profiles.newsroom,
      channelId: "C0NEWS",
    });
    const saved = await h.built.deps.settings.getProfile(TEAM, SEED.profiles.newsroom);
    expect(saved).toMatchObject({
      channelId: "C0NEWS",
      callbackId: sha256hex(token),
      setBy: "U0ADMIN",
      foreignUrl: null,
    });
    // The settings keep the route's id (the token's sha256), never the token.
    expect(JSON.stringify(saved)).not.toContain(token);
    // The answer shows the configuration read back, but never the route's secret token.
    expect(json(answer)).toContain("video.published");
    expect(json(answer)).not.toContain(token);
  });

  it("with no events subscribes to all of them", async () => {
    await setNewsroom(`set ${SEED.profiles.newsroom}`);
    expect(platformWebhook(SEED.profiles.newsroom)?.events).toHaveLength(8);
  });

  it("setting again rotates the token and retires the old route", async () => {
    await setNewsroom();
    const first = platformWebhook(SEED.profiles.newsroom)?.callback_url?.split("/").pop() ?? "";
    await setNewsroom();
    const second = platformWebhook(SEED.profiles.newsroom)?.callback_url?.split("/").pop() ?? "";
    expect(second).not.toBe(first);
    expect(await h.built.deps.callbacks.get(first)).toBeUndefined();
    expect(await h.built.deps.callbacks.get(second)).toBeDefined();
  });

  it("refuses an unknown event with the list of valid ones, before any platform call", async () => {
    const { answer } = await setNewsroom(`set ${SEED.profiles.newsroom} created exploded`);
    expect(answer.response_type).toBe("ephemeral");
    expect(json(answer)).toContain("exploded");
    expect(json(answer)).toContain("video.format.processing");
    expect(h.sandbox.requests).toHaveLength(0);
  });

  it("refuses an http:// url= before any platform call", async () => {
    const { answer } = await setNewsroom(`set ${SEED.profiles.newsroom} url=http://hooks.example.com/x`);
    expect(json(answer)).toMatch(/https/);
    expect(h.sandbox.requests).toHaveLength(0);
  });

  it("registers a foreign HTTPS URL and says the bot will post nothing for it", async () => {
    const { answer } = await setNewsroom(
      `set ${SEED.profiles.newsroom} url=https://hooks.example.com/mine created`,
    );
    expect(platformWebhook(SEED.profiles.newsroom)?.callback_url).toBe("https://hooks.example.com/mine");
    expect(json(answer)).toMatch(/post nothing|will not post|won't post/i);
    const saved = await h.built.deps.settings.getProfile(TEAM, SEED.profiles.newsroom);
    expect(saved).toMatchObject({
      foreignUrl: "https://hooks.example.com/mine",
      callbackId: null,
      channelId: null,
    });
  });

  it("refuses a member, says why, and sends nothing to the platform", async () => {
    const { answer } = await setNewsroom(undefined, "U0MEMBER");
    expect(answer.response_type).toBe("ephemeral");
    expect(json(answer)).toMatch(/manager/i);
    expect(h.sandbox.requests).toHaveLength(0);
  });

  it("lets a member whom a manager added change the webhook", async () => {
    const add = await h.slash("/webhook", "managers add <@U0MEMBER|member>", { user: "U0ADMIN" });
    expect(json(await h.answer(add.responseUrl))).toContain("U0MEMBER");
    const { answer } = await setNewsroom(undefined, "U0MEMBER");
    expect(answer.response_type).toBe("in_channel");
  });

  it("words the platform's 403 with the missing permissions and keeps no route", async () => {
    const res = await h.slash("/webhook", `set ${SEED.profiles.foreign}`, { user: "U0ADMIN" });
    const answer = await h.answer(res.responseUrl);
    expect(answer.response_type).toBe("ephemeral");
    expect(json(answer)).toMatch(/permission|not found/i);
    expect(json(answer)).toMatch(/correlation id/i);
    expect(await h.built.deps.settings.getProfile(TEAM, SEED.profiles.foreign)).toBeUndefined();
  });
});

describe("/webhook show, remove, test", () => {
  it("show without a configured profile offers the workspace's profiles to choose from", async () => {
    const res = await h.slash("/webhook", "show", { user: "U0MEMBER" });
    const answer = json(await h.answer(res.responseUrl));
    expect(answer).toContain(ACTIONS.profilePick);
    expect(answer).toContain(`northwind-news (${SEED.profiles.newsroom})`);
    // Nothing but the list of profiles was read (test/slack/pickers.test.ts has the rest).
    expect(h.sandbox.requests.filter((r) => r.path !== "/v2/me" && r.path !== "/v2/token")).toHaveLength(0);
  });

  it("show uses the workspace's profile, gives managers buttons and members none", async () => {
    await setNewsroom();
    const member = await h.slash("/webhook", "show", { user: "U0MEMBER" });
    const m = await h.answer(member.responseUrl);
    expect(m.response_type).toBe("ephemeral");
    expect(json(m)).toContain(SEED.profiles.newsroom);
    expect(json(m)).not.toContain(ACTIONS.webhookRemove);
    const admin = await h.slash("/webhook", "show", { user: "U0ADMIN" });
    const a = await h.answer(admin.responseUrl);
    expect(json(a)).toContain(ACTIONS.webhookRemove);
    expect(json(a)).toContain(ACTIONS.webhookEditEvents);
  });

  it("remove asks for confirmation, and the confirmation removes webhook, route and settings", async () => {
    await setNewsroom();
    const token = platformWebhook(SEED.profiles.newsroom)?.callback_url?.split("/").pop() ?? "";
    const before = patches().length;
    const res = await h.slash("/webhook", "remove", { user: "U0ADMIN" });
    const ask = await h.answer(res.responseUrl);
    expect(json(ask)).toContain(ACTIONS.webhookRemoveConfirm);
    expect(patches().length).toBe(before);
    const press = await h.press(ACTIONS.webhookRemoveConfirm, SEED.profiles.newsroom, { user: "U0ADMIN" });
    const done = await h.answer(press.responseUrl);
    expect(done.replace_original).toBe(true);
    expect(platformWebhook(SEED.profiles.newsroom)).toEqual({ callback_url: null, events: null });
    expect(await h.built.deps.callbacks.get(token)).toBeUndefined();
    expect(await h.built.deps.settings.getProfile(TEAM, SEED.profiles.newsroom)).toBeUndefined();
  });

  it("a member pressing Remove is told why and nothing changes", async () => {
    await setNewsroom();
    const press = await h.press(ACTIONS.webhookRemove, SEED.profiles.newsroom, { user: "U0MEMBER" });
    const answer = await h.answer(press.responseUrl);
    expect(json(answer)).toMatch(/manager/i);
    expect(platformWebhook(SEED.profiles.newsroom)?.callback_url).toBeTruthy();
  });

  it("cancel deletes the question", async () => {
    const press = await h.press(ACTIONS.webhookRemoveCancel, SEED.profiles.newsroom);
    expect((await h.answer(press.responseUrl)).delete_original).toBe(true);
  });

  it("test says how it will work, for managers only", async () => {
    await setNewsroom();
    const res = await h.slash("/webhook", "test", { user: "U0ADMIN" });
    expect((await h.answer(res.responseUrl)).response_type).toBe("ephemeral");
  });

  it.each(["", "help", "frobnicate", "show a b", "managers add bob"])(
    "'/webhook %s' answers with usage",
    async (text) => {
      const res = await h.slash("/webhook", text);
      const answer = await h.answer(res.responseUrl);
      expect(answer.response_type).toBe("ephemeral");
      expect(json(answer)).toContain("/webhook set");
      expect(h.sandbox.requests).toHaveLength(0);
    },
  );
});

describe("/webhook events", () => {
  it("alone opens the editor; with names it changes only the events", async () => {
    await setNewsroom();
    const url = platformWebhook(SEED.profiles.newsroom)?.callback_url;
    const opened = h.slack.callsTo("views.open").length;
    await h.slash("/webhook", "events", { user: "U0ADMIN" });
    await waitFor(() => h.slack.callsTo("views.open").length > opened, 5000, "the editor to open");

    const change = await h.slash("/webhook", "events deleted format.error", { user: "U0ADMIN" });
    const changed = await h.answer(change.responseUrl);
    expect(changed.response_type).toBe("ephemeral");
    expect(json(changed)).toContain("✅ `video.deleted`");
    expect(platformWebhook(SEED.profiles.newsroom)).toEqual({
      callback_url: url,
      events: ["video.deleted", "video.format.error"],
    });
    const saved = await h.built.deps.settings.getProfile(TEAM, SEED.profiles.newsroom);
    expect(saved?.events).toEqual(["video.deleted", "video.format.error"]);
  });

  it("refuses a member who names events; nothing changes", async () => {
    await setNewsroom();
    const member = await h.slash("/webhook", "events deleted", { user: "U0MEMBER" });
    expect(json(await h.answer(member.responseUrl))).toMatch(/manager/i);
    expect(platformWebhook(SEED.profiles.newsroom)?.events).toHaveLength(3);
  });
});

describe("a change the platform accepted but does not show yet", () => {
  it("keeps the new route and the settings, and says the change is not confirmed", async () => {
    const s = await startHarness({ sandbox: { staleReads: 10 } });
    try {
      const res = await s.slash("/webhook", `set ${SEED.profiles.newsroom}`, {
        user: "U0ADMIN",
        channel: "C0NEWS",
      });
      const answer = await s.answer(res.responseUrl);
      expect(answer.response_type).toBe("ephemeral");
      expect(json(answer)).toMatch(/accepted the change, but reading the webhook back does not show it/);
      // The platform did take it: deliveries to the new route must not be lost.
      const url = s.sandbox.state.profiles.get(SEED.profiles.newsroom)?.webhook.callback_url ?? "";
      const token = url.split("/").pop() ?? "";
      expect(await s.built.deps.callbacks.get(token)).toMatchObject({ profileId: SEED.profiles.newsroom });
      expect((await s.built.deps.settings.getProfile(TEAM, SEED.profiles.newsroom))?.callbackId).toBe(
        sha256hex(token),
      );
    } finally {
      await s.close();
    }
  });
});
