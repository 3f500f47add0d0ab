/**
 * Issue 19 on the Slack side, over the real path (signed Slack requests to the running bot, the
 * platform sandbox, the Slack stand-in): profiles named by their name, a menu of the workspace's
 * profiles when none is given, profiles shown by their display name, a `GET /me` that fails or
 * lists nothing answered in plain words, and the App Home's menu and scope advice.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { blockActionsBody, eventBody, sendSigned, viewSubmissionBody } from "../../fakes/slack/index.js";
import { ACTIONS, BLOCKS, VIEWS } from "../../src/messages/index.js";
import { type Harness, PUBLIC_URL, SIGNING_SECRET, startHarness, waitFor } from "../support/harness.js";

const TEAM = "T0STANDIN";
const NEWSROOM = SEED.profiles.newsroom;
const STUDIO = SEED.profiles.studio;
const json = (v: unknown) => JSON.stringify(v);

/** Back to a workspace with nothing set up, and a bot that remembers no name. */
async function clean(h: Harness): Promise<void> {
  h.sandbox.reset();
  h.sandbox.clearFaults();
  h.slack.reset();
  h.built.deps.names.forget();
  const s = h.built.deps.settings;
  for (const p of await s.listProfiles(TEAM)) await s.removeProfile(TEAM, p.profileId);
  for (const m of await s.listManagers(TEAM)) await s.removeManager(TEAM, m.userId);
  for (const id of [NEWSROOM, STUDIO]) await s.claims.release(id, TEAM);
}

async function slash(h: Harness, text: string, o: { user?: string; channel?: string } = {}) {
  const res = await h.slash("/webhook", text, { user: o.user ?? "U0ADMIN", channel: o.channel ?? "C0NEWS" });
  return { responseUrl: res.responseUrl, answer: await h.answer(res.responseUrl) };
}

/** The menu in an answer: its block_id and its options (text, value). */
function menuOf(answer: Record<string, unknown>): { blockId: string; options: string[]; values: string[] } {
  const blocks = (answer.blocks ?? []) as Array<Record<string, unknown>>;
  const menu = blocks.find((b) => b.type === "actions");
  const select = ((menu?.elements ?? []) as Array<Record<string, unknown>>)[0];
  expect(select?.type).toBe("static_select");
  expect(select?.action_id).toBe(ACTIONS.profilePick);
  const options = (select?.options ?? []) as Array<{ text: { text: string }; value: string }>;
  return {
    blockId: String(menu?.block_id),
    options: options.map((o) => o.text.text),
    values: options.map((o) => o.value),
  };
}

/** Chooses `value` in the menu `blockId` (a signed block_actions of a static_select). */
async function choose(
  h: Harness,
  blockId: string,
  value: string,
  o: { user?: string; channel?: string } = {},
): Promise<string> {
  const channel = o.channel ?? "C0NEWS";
  const user = o.user ?? "U0ADMIN";
  // The interaction comes from the menu's (ephemeral) message, when there is one.
  const menu = h.slack
    .messages(channel)
    .filter((m) => m.ephemeralTo === user && json(m.blocks).includes(ACTIONS.profilePick))
    .at(-1);
  const responseUrl = h.slack.newResponseUrl(channel, user, menu?.ts);
  const body = blockActionsBody({
    actionId: ACTIONS.profilePick,
    blockId,
    selectedOption: { value },
    userId: user,
    teamId: TEAM,
    channelId: channel,
    responseUrl,
    ...(menu ? { messageTs: menu.ts } : {}),
  });
  expect((await sendSigned(h.eventsUrl, body, SIGNING_SECRET)).status).toBe(200);
  return responseUrl;
}

/** Every mrkdwn text object under `v`. */
function mrkdwnTexts(v: unknown): string[] {
  if (Array.isArray(v)) return v.flatMap(mrkdwnTexts);
  if (typeof v !== "object" || v === null) return [];
  const o = v as Record<string, unknown>;
  const own = o.type === "mrkdwn" && typeof o.text === "string" ? [o.text] : [];
  return [...own, ...Object.values(o).flatMap(mrkdwnTexts)];
}

const patches = (h: Harness) => h.sandbox.requests.filter((r) => r.method === "PATCH");
const meReads = (h: Harness) => h.sandbox.requests.filter((r) => r.path === "/v2/me");

async function home(h: Harness, user = "U0ADMIN"): Promise<string> {
  const before = h.slack.callsTo("views.publish").length;
  const body = eventBody({
    teamId: TEAM,
    event: { type: "app_home_opened", user, channel: "D0HOME", tab: "home" },
  });
  expect((await sendSigned(h.eventsUrl, body, SIGNING_SECRET)).status).toBe(200);
  const call = await waitFor(
    () =>
      h.slack
        .callsTo("views.publish")
        .slice(before)
        .find((c) => c.args.user_id === user),
    8000,
    "the App Home",
  );
  return json(call.args.view);
}

describe("one workspace, every profile of the key bound to it", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });
  beforeEach(async () => {
    await clean(h);
  });

  describe("/webhook without a profile: a menu of the workspace's profiles", () => {
    it("set, with none set up: the profiles by name; choosing one sets it up with the rest of the command", async () => {
      const { answer } = await slash(h, "set created published");
      expect(answer.response_type).toBe("ephemeral");
      const menu = menuOf(answer);
      expect(menu.options).toEqual([`northwind-news (${NEWSROOM})`, `northwind-studio (${STUDIO})`]);
      expect(menu.values).toEqual([NEWSROOM, STUDIO]);
      expect(menu.blockId).toBe("pick:set created published");
      expect(patches(h)).toHaveLength(0);

      const picked = await choose(h, menu.blockId, NEWSROOM);
      // The menu goes, then the channel gets the confirmation.
      expect((await h.answer(picked)).delete_original).toBe(true);
      const done = await h.answer(picked, 2);
      expect(done.response_type).toBe("in_channel");
      expect(json(done)).toContain("Webhook set for profile Northwind News (`x2vq8nw`)");
      expect(json(h.slack.messages("C0NEWS"))).not.toContain(ACTIONS.profilePick);
      const hook = h.sandbox.state.profiles.get(NEWSROOM)?.webhook;
      expect(hook?.callback_url?.startsWith(`${PUBLIC_URL}/hooks/platform/`)).toBe(true);
      expect(hook?.events).toEqual(["video.created", "video.published"]);
      expect(await h.built.deps.settings.getProfile(TEAM, NEWSROOM)).toMatchObject({ channelId: "C0NEWS" });
      const shown = h.slack.messages("C0NEWS").filter((m) => m.ephemeralTo === undefined);
      expect(json(shown)).toContain("Northwind News");
      // The studio profile was offered, never touched.
      expect(h.sandbox.state.profiles.get(STUDIO)?.webhook.callback_url).toBe(
        SEED.studioWebhook.callback_url,
      );
    });

    it("show, with two set up: the menu, and the choice answers in its place", async () => {
      await h.configureProfile({ channel: "C0NEWS", profileId: NEWSROOM });
      await h.configureProfile({ channel: "C0GENERAL", profileId: STUDIO });
      const { answer } = await slash(h, "show", { user: "U0MEMBER" });
      const menu = menuOf(answer);
      expect(menu.blockId).toBe("pick:show");
      const picked = await choose(h, menu.blockId, STUDIO, { user: "U0MEMBER" });
      const shown = await h.answer(picked);
      expect(shown.replace_original).toBe(true);
      expect(shown.response_type).toBe("ephemeral");
      expect(json(shown)).toContain("Webhook of profile Northwind Studio (`x2vq8st`)");
      expect(json(shown)).not.toContain(ACTIONS.webhookRemove);
    });

    it("subscribe carries its events, formats and mention through the menu", async () => {
      await h.configureProfile({ channel: "C0NEWS", profileId: NEWSROOM });
      await h.configureProfile({ channel: "C0GENERAL", profileId: STUDIO });
      const { answer } = await slash(h, "subscribe format.error preset=720p mention=@here", {
        channel: "C0GENERAL",
      });
      const menu = menuOf(answer);
      expect(menu.blockId).toBe("pick:subscribe format.error preset=720p mention=@here");
      const picked = await choose(h, menu.blockId, NEWSROOM, { channel: "C0GENERAL" });
      expect(json(await h.answer(picked, 2))).toContain(
        "also receives the notifications of profile Northwind News",
      );
      const saved = await h.built.deps.settings.getProfile(TEAM, NEWSROOM);
      expect(saved?.subscriptions.find((s) => s.channelId === "C0GENERAL")).toMatchObject({
        events: ["video.format.error"],
        presets: ["720p"],
        mention: "here",
      });
    });

    it("events, with two set up: choosing one opens its editor, by name", async () => {
      await h.configureProfile({ channel: "C0NEWS", profileId: NEWSROOM });
      await h.configureProfile({ channel: "C0GENERAL", profileId: STUDIO });
      const { answer } = await slash(h, "events");
      const menu = menuOf(answer);
      expect(menu.blockId).toBe("pick:events");
      const opened = h.slack.callsTo("views.open").length;
      await choose(h, menu.blockId, NEWSROOM);
      await waitFor(() => h.slack.callsTo("views.open").length > opened, 8000, "the editor to open");
      const filled = await waitFor(
        () => h.slack.callsTo("views.update").find((c) => json(c.args.view).includes("Choose the events")),
        8000,
        "the editor",
      );
      expect(json(filled.args.view)).toContain("for profile Northwind News (`x2vq8nw`)");
    });

    it("a changed choice (block_id or value) is answered plainly and changes nothing", async () => {
      for (const [blockId, value] of [
        ["pick:set", "../x2vq8nw"],
        ["pick:set exploded", NEWSROOM],
        ["pick:managers add <@U0MEMBER>", NEWSROOM],
        ["pick:unsubscribe", NEWSROOM],
        ["pick:set x2vq8st", NEWSROOM],
        ["actions", NEWSROOM],
        [`pick:set url=https://evil.example.org/${"a".repeat(300)}`, NEWSROOM],
      ] as const) {
        const answer = await h.answer(await choose(h, blockId, value));
        expect(json(answer), blockId).toContain("This menu no longer matches a command");
      }
      expect(patches(h)).toHaveLength(0);
      expect(await h.built.deps.settings.listProfiles(TEAM)).toEqual([]);
      expect(await h.built.deps.settings.listManagers(TEAM)).toEqual([]);
    });

    it("a member is refused before the platform is asked, for the menu and for a forged choice", async () => {
      for (const text of [
        "set",
        "remove",
        "events",
        "events created",
        "test",
        "subscribe",
        "set acme-news",
      ]) {
        const { answer } = await slash(h, text, { user: "U0MEMBER" });
        expect(json(answer), text).toContain("Only managers");
        expect(json(answer), text).not.toContain(ACTIONS.profilePick);
      }
      expect(h.sandbox.requests).toHaveLength(0);
      const forged = await h.answer(await choose(h, "pick:set", NEWSROOM, { user: "U0MEMBER" }));
      expect(json(forged)).toContain("Only managers");
      expect(h.sandbox.requests).toHaveLength(0);
    });
  });

  describe("profiles by name", () => {
    it("set, show and subscriptions take the profile's name (any case), and show its display name", async () => {
      const set = await slash(h, "set Northwind-News published");
      expect(set.answer.response_type).toBe("in_channel");
      expect(json(set.answer)).toContain("Webhook set for profile Northwind News (`x2vq8nw`)");
      expect(h.sandbox.state.profiles.get(NEWSROOM)?.webhook.events).toEqual(["video.published"]);
      const show = await slash(h, "show northwind-news", { user: "U0MEMBER" });
      expect(json(show.answer)).toContain("*Webhook of profile Northwind News (`x2vq8nw`)*");
      expect(show.answer.text).toContain("Webhook of profile Northwind News (x2vq8nw)");
      const subs = await slash(h, "subscriptions northwind-news", { user: "U0MEMBER" });
      expect(json(subs.answer)).toContain("notifications of profile Northwind News (`x2vq8nw`)");
      const events = await slash(h, "events northwind-news published complete");
      expect(json(events.answer)).toContain("changed the events of profile Northwind News (`x2vq8nw`)");
      const test = await slash(h, "test northwind-news");
      expect(json(test.answer)).toContain(
        "through the delivery route for profile Northwind News (`x2vq8nw`)",
      );
    });

    it("an id works without GET /me: it is not even asked for a profile set up here, and a failing one changes nothing", async () => {
      h.sandbox.addFault({ path: "/v2/me", status: 503 });
      const set = await slash(h, `set ${NEWSROOM}`);
      expect(set.answer.response_type).toBe("in_channel");
      expect(h.sandbox.state.profiles.get(NEWSROOM)?.webhook.callback_url).toMatch(
        /^https:\/\/bot\.example\.test\//,
      );
      h.sandbox.clearFaults();
      const before = meReads(h).length;
      const show = await slash(h, `show ${NEWSROOM}`);
      expect(json(show.answer)).toContain("Northwind News");
      expect(meReads(h).length).toBe(before);
    });

    it("a profile's name is escaped: no mention, no link", async () => {
      const p = h.sandbox.state.profiles.get(NEWSROOM);
      if (p) p.display_name = "<!channel> News <https://evil.example|click>";
      const { answer } = await slash(h, `set ${NEWSROOM}`);
      // What Slack reads as mrkdwn: the message's text and every mrkdwn block text.
      const texts = [String(answer.text), ...mrkdwnTexts(answer.blocks)];
      expect(texts.join("\n")).toContain("&lt;!channel&gt; News &lt;https://evil.example|click&gt;");
      for (const t of texts) {
        expect(t).not.toContain("<!channel>");
        expect(t).not.toContain("<https://evil.example");
      }
    });
  });

  describe("when the list of profiles cannot be had", () => {
    it("GET /me fails: plain words, what to do instead, and the platform's correlation id", async () => {
      h.sandbox.addFault({ path: "/v2/me", status: 500 });
      const { answer } = await slash(h, "set created");
      const text = json(answer);
      expect(answer.response_type).toBe("ephemeral");
      expect(text).toContain("Could not ask the platform which profiles the bot manages");
      expect(text).toContain("/webhook set &lt;profile_id&gt; created");
      expect(text).toContain("correlation id");
      expect(patches(h)).toHaveLength(0);
    });

    it("a key that manages no profile: said plainly", async () => {
      for (const id of [NEWSROOM, STUDIO]) {
        const p = h.sandbox.state.profiles.get(id);
        if (p) p.owner_client_id = "someone-else";
      }
      const { answer } = await slash(h, "show");
      expect(json(answer)).toContain("The bot's platform key manages no profile");
      expect(json(answer)).not.toContain(ACTIONS.profilePick);
    });
  });

  describe("App Home", () => {
    it("the set-up form offers the menu; choosing one sets it up, shown by name", async () => {
      const before = h.slack.callsTo("views.update").length;
      await h.press(ACTIONS.webhookSetup, "", { home: true });
      const form = await waitFor(
        () =>
          h.slack
            .callsTo("views.update")
            .slice(before)
            .find((c) => json(c.args.view).includes(BLOCKS.setupChannel)),
        8000,
        "the form",
      );
      const view = form.args.view as { private_metadata: string };
      const text = json(view);
      expect(text).toContain('"type":"static_select","action_id":"setup_profile"');
      expect(text).toContain(`"text":"northwind-news (${NEWSROOM})"`);
      expect(text).toContain(`"text":"northwind-studio (${STUDIO})"`);
      expect(text).not.toContain('plain_text_input","action_id":"setup_profile');
      const after = h.slack.callsTo("views.update").length;
      const body = viewSubmissionBody({
        callbackId: VIEWS.setupModal,
        privateMetadata: view.private_metadata,
        viewId: String(form.args.view_id),
        userId: "U0ADMIN",
        teamId: TEAM,
        values: {
          [BLOCKS.setupProfile]: {
            [BLOCKS.setupProfile]: { type: "static_select", selected_option: { value: NEWSROOM } },
          },
          [BLOCKS.setupChannel]: {
            [BLOCKS.setupChannel]: { type: "conversations_select", selected_conversation: "C0NEWS" },
          },
          [BLOCKS.setupEvents]: {
            [BLOCKS.setupEvents]: { type: "checkboxes", selected_options: [{ value: "video.published" }] },
          },
          [BLOCKS.setupUrl]: { [BLOCKS.setupUrl]: { type: "plain_text_input", value: null } },
        },
      });
      expect((await sendSigned(h.eventsUrl, body, SIGNING_SECRET)).status).toBe(200);
      const done = await waitFor(
        () =>
          h.slack
            .callsTo("views.update")
            .slice(after)
            .find((c) => json(c.args.view).includes("is set up")),
        8000,
        "the outcome",
      );
      expect(json(done.args.view)).toContain("Profile Northwind News (`x2vq8nw`) is set up");
      expect(h.sandbox.state.profiles.get(NEWSROOM)?.webhook.events).toEqual(["video.published"]);
      const shown = await home(h);
      expect(shown).toContain("*Profile Northwind News (`x2vq8nw`)*");
      // With every scope, nothing about titles.
      expect(shown).not.toContain("Video titles are off");
    });

    it("the set-up form without the list: a text field and why; with a key that manages no profile, why alone", async () => {
      h.sandbox.addFault({ path: "/v2/me", status: 500 });
      const open = async () => {
        const before = h.slack.callsTo("views.update").length;
        await h.press(ACTIONS.webhookSetup, "", { home: true });
        const form = await waitFor(
          () => h.slack.callsTo("views.update").slice(before).at(0),
          8000,
          "the form",
        );
        return json(form.args.view);
      };
      const failing = await open();
      expect(failing).toContain("Could not ask the platform which profiles the bot manages");
      expect(failing).toContain('"type":"plain_text_input","action_id":"setup_profile"');
      h.sandbox.clearFaults();
      // A failed GET /me is remembered as long as an answer would be (5 minutes): the same form again.
      expect(await open()).toContain("Could not ask the platform which profiles the bot manages");
      expect(h.sandbox.requests.filter((r) => r.path === "/v2/me").length).toBeGreaterThan(0);
      const meReads = h.sandbox.requests.filter((r) => r.path === "/v2/me").length;
      expect(await open()).toContain("Could not ask the platform");
      expect(h.sandbox.requests.filter((r) => r.path === "/v2/me")).toHaveLength(meReads);
      // Five minutes later (forgotten here), it is asked again.
      h.built.deps.names.forget();
      for (const id of [NEWSROOM, STUDIO]) {
        const p = h.sandbox.state.profiles.get(id);
        if (p) p.owner_client_id = "someone-else";
      }
      const none = await open();
      expect(none).toContain("The bot's platform key manages no profile");
      expect(none).not.toContain(BLOCKS.setupChannel);
    });
  });
});

describe("a workspace bound to one profile (PROFILE_BINDINGS)", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ env: { PROFILE_BINDINGS: `${TEAM}=${STUDIO}` } });
  });
  afterAll(async () => {
    await h.close();
  });
  beforeEach(async () => {
    await clean(h);
  });

  it("the menu offers only the bound profile", async () => {
    const { answer } = await slash(h, "set");
    expect(menuOf(answer).options).toEqual([`northwind-studio (${STUDIO})`]);
    expect(json(answer)).not.toContain(NEWSROOM);
    expect(json(answer)).not.toContain("northwind-news");
  });

  it("an unbound profile's name answers exactly like an unknown name; a bound one works", async () => {
    const unbound = await slash(h, "set northwind-news");
    const unknown = await slash(h, "set no-such-profile");
    const strip = (a: Record<string, unknown>, word: string) => json(a).replaceAll(word, "WORD");
    expect(strip(unbound.answer, "northwind-news")).toBe(strip(unknown.answer, "no-such-profile"));
    expect(json(unbound.answer)).not.toContain(NEWSROOM);
    expect(json(unbound.answer)).not.toContain("Northwind News");
    // Nothing about either profile was asked or sent: only the list of the key's profiles.
    expect(h.sandbox.requests.filter((r) => r.path.startsWith("/v2/profiles"))).toHaveLength(0);
    const bound = await slash(h, "set northwind-studio");
    expect(bound.answer.response_type).toBe("in_channel");
    expect(json(bound.answer)).toContain("Northwind Studio (`x2vq8st`)");
  });

  it("choosing an unbound profile from a forged menu is refused, nothing sent", async () => {
    const answer = await h.answer(await choose(h, "pick:set", NEWSROOM));
    expect(json(answer)).toContain("is not bound to this Slack workspace");
    expect(h.sandbox.requests.filter((r) => r.path.startsWith("/v2/profiles"))).toHaveLength(0);
  });

  it("the App Home's set-up form lists only the bound profile", async () => {
    const before = h.slack.callsTo("views.update").length;
    await h.press(ACTIONS.webhookSetup, "", { home: true });
    const form = await waitFor(() => h.slack.callsTo("views.update").slice(before).at(0), 8000, "the form");
    const text = json(form.args.view);
    expect(text).toContain(`"value":"${STUDIO}"`);
    expect(text).not.toContain(NEWSROOM);
  });
});

describe("a key without video.read", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      sandbox: { keyScopes: { scopes: ["live.read", "profile.manage"], onMissing: "narrow" } },
    });
  });
  afterAll(async () => {
    await h.close();
  });

  it("the App Home says titles are off and how to grant video.read", async () => {
    const view = await home(h);
    expect(view).toContain("Video titles are off");
    expect(view).toContain("`video.read`");
    expect(view).toContain("grant video.read to the bot's private API key (management console");
    // Everything else is there.
    expect(view).toContain(ACTIONS.webhookSetup);
  });
});
