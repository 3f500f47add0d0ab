/**
 * Issue 5, "every change a command makes can be made from buttons": the App Home's set-up form
 * (= /webhook set) and managers form (= /webhook managers add|remove), over the real path:
 * signed block_actions and view_submission requests to the running bot, the Slack stand-in
 * recording views.open/update/publish and chat.postMessage/update/delete, the sandbox as the
 * platform.
 */

import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { eventBody, sendSigned, viewSubmissionBody } from "../../fakes/slack/index.js";
import { ACTIONS, BLOCKS, VIEWS } from "../../src/messages/index.js";
import { type Harness, PUBLIC_URL, SIGNING_SECRET, startHarness, waitFor } from "../support/harness.js";
import { RECENT } from "../support/recent.js";

let h: Harness;
const TEAM = "T0STANDIN";
const PROFILE = SEED.profiles.newsroom;
const json = (v: unknown) => JSON.stringify(v);

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});
beforeEach(async () => {
  h.sandbox.reset();
  h.sandbox.clearFaults();
  h.slack.reset();
  const s = h.built.deps.settings;
  for (const p of await s.listProfiles(TEAM)) await s.removeProfile(TEAM, p.profileId);
  for (const m of await s.listManagers(TEAM)) await s.removeManager(TEAM, m.userId);
  await s.claims.release(PROFILE, TEAM);
});

/** The first views.update after `after` whose view matches `re`. */
function viewUpdate(re: RegExp, after = 0, what = String(re)) {
  return waitFor(
    () =>
      h.slack
        .callsTo("views.update")
        .slice(after)
        .find((c) => re.test(json(c.args.view))),
    8000,
    what,
  );
}

/** Presses a Home button and waits for the form it opens; returns the view id and metadata. */
async function openForm(
  actionId: string,
  value: string,
  user = "U0ADMIN",
  input: string = BLOCKS.setupProfile,
) {
  const before = h.slack.callsTo("views.update").length;
  await h.press(actionId, value, { user, home: true });
  const opened = await waitFor(() => h.slack.callsTo("views.open").at(-1), 5000, "views.open");
  const form = await viewUpdate(new RegExp(`${input}|Only managers`), before, "the form");
  const view = form.args.view as { private_metadata: string; blocks: unknown[] };
  return { viewId: String(form.args.view_id), meta: view.private_metadata, view, opened };
}

function setupValues(o: { profile?: string; channel?: string; events?: string[]; url?: string }) {
  return {
    [BLOCKS.setupProfile]: { [BLOCKS.setupProfile]: { type: "plain_text_input", value: o.profile ?? null } },
    [BLOCKS.setupChannel]: {
      [BLOCKS.setupChannel]: { type: "conversations_select", selected_conversation: o.channel ?? null },
    },
    [BLOCKS.setupEvents]: {
      [BLOCKS.setupEvents]: {
        type: "checkboxes",
        selected_options: (o.events ?? []).map((value) => ({ value })),
      },
    },
    [BLOCKS.setupUrl]: { [BLOCKS.setupUrl]: { type: "plain_text_input", value: o.url ?? null } },
  };
}

async function submit(callbackId: string, viewId: string, meta: string, values: unknown, user = "U0ADMIN") {
  const body = viewSubmissionBody({
    callbackId,
    privateMetadata: meta,
    viewId,
    userId: user,
    teamId: TEAM,
    values: values as Record<string, Record<string, Record<string, unknown>>>,
  });
  const res = await sendSigned(h.eventsUrl, body, SIGNING_SECRET);
  expect(res.status).toBe(200);
  return res.body ? (JSON.parse(res.body) as Record<string, unknown>) : {};
}

/**
 * Opens the set-up form from the Home as an admin and submits `values` as `submitter`; returns the
 * number of views.update calls before the submission (to wait for the outcome after it).
 */
async function submitSetup(values: ReturnType<typeof setupValues>, submitter = "U0ADMIN"): Promise<number> {
  const form = await openForm(ACTIONS.webhookSetup, "");
  const before = h.slack.callsTo("views.update").length;
  const res = await submit(VIEWS.setupModal, form.viewId, form.meta, values, submitter);
  expect(res.response_action).toBe("update");
  return before;
}

/** A delivery for the newsroom profile to the route of `token`. */
function deliver(token: string | undefined, type: string, timestamp: number, videoId: string) {
  return fetch(`${h.url}/hooks/platform/${token}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: json({ type, timestamp, data: { owner_id: PROFILE, video_id: videoId } }),
  });
}

const patches = () => h.sandbox.requests.filter((r) => r.method === "PATCH");

describe("App Home: the entry points", () => {
  it("a manager's Home has Set up notifications and Managers; a member's has no button at all", async () => {
    for (const user of ["U0ADMIN", "U0MEMBER"]) {
      const res = await sendSigned(
        h.eventsUrl,
        eventBody({ teamId: TEAM, event: { type: "app_home_opened", user, channel: "D0HOME", tab: "home" } }),
        SIGNING_SECRET,
      );
      expect(res.status).toBe(200);
    }
    const home = (user: string) =>
      waitFor(
        () => h.slack.callsTo("views.publish").find((c) => c.args.user_id === user),
        5000,
        `home of ${user}`,
      );
    const admin = json((await home("U0ADMIN")).args.view);
    expect(admin).toContain(ACTIONS.webhookSetup);
    expect(admin).toContain(ACTIONS.managersEdit);
    const member = json((await home("U0MEMBER")).args.view);
    expect(member).not.toContain(ACTIONS.webhookSetup);
    expect(member).not.toContain('"type":"button"');
  });
});

describe("set-up form (= /webhook set)", () => {
  it("opens at once, then shows the form with every event checked", async () => {
    const form = await openForm(ACTIONS.webhookSetup, "");
    expect(json(form.opened.args.view)).toContain(VIEWS.setupModal);
    expect(json(form.view)).toContain(BLOCKS.setupChannel);
    const checked = json(form.view).match(/"initial_options":\[(.*?)\]\}/)?.[1] ?? "";
    expect(checked.match(/"value":"video\./g)?.length).toBeGreaterThanOrEqual(5);
  });

  it("invalid input keeps the form open with an error under each field and changes nothing", async () => {
    const form = await openForm(ACTIONS.webhookSetup, "");
    const res = await submit(
      VIEWS.setupModal,
      form.viewId,
      form.meta,
      setupValues({ profile: "not a profile!", url: "http://plain.example.org" }),
    );
    expect(res.response_action).toBe("errors");
    expect(Object.keys(res.errors as object).sort()).toEqual(
      [BLOCKS.setupEvents, BLOCKS.setupProfile, BLOCKS.setupUrl].sort(),
    );
    const noChannel = await submit(
      VIEWS.setupModal,
      form.viewId,
      form.meta,
      setupValues({ profile: PROFILE, events: ["video.created"] }),
    );
    expect(Object.keys(noChannel.errors as object)).toEqual([BLOCKS.setupChannel]);
    expect(patches()).toHaveLength(0);
    expect(await h.built.deps.settings.listProfiles(TEAM)).toEqual([]);
  });

  it("a valid form points the profile's webhook at the bot, confirms in the channel, the modal and the Home", async () => {
    const before = await submitSetup(
      setupValues({ profile: PROFILE, channel: "C0NEWS", events: ["video.created", "video.published"] }),
    );
    const done = await viewUpdate(/is set up/, before, "the outcome");
    expect(json(done.args.view)).toContain("<#C0NEWS>");
    const webhook = h.sandbox.state.profiles.get(PROFILE)?.webhook;
    expect(webhook?.callback_url).toMatch(new RegExp(`^${PUBLIC_URL}/hooks/platform/`));
    expect(webhook?.events).toEqual(["video.created", "video.published"]);
    const saved = await h.built.deps.settings.getProfile(TEAM, PROFILE);
    expect(saved).toMatchObject({ channelId: "C0NEWS", setBy: "U0ADMIN", events: webhook?.events });
    // "Setting up…" posted first, then turned into /webhook set's confirmation.
    const posted = h.slack.callsTo("chat.postMessage").find((c) => c.args.channel === "C0NEWS");
    expect(String(posted?.args.text)).toMatch(/setting up/);
    const updated = await waitFor(
      () => h.slack.callsTo("chat.update").find((c) => c.args.channel === "C0NEWS"),
      5000,
      "the confirmation",
    );
    expect(json(updated.args)).toMatch(/Webhook set for profile/);
    await waitFor(
      () => h.slack.callsTo("views.publish").find((c) => c.args.user_id === "U0ADMIN"),
      5000,
      "Home",
    );
    // The route works: a delivery to the registered callback is accepted.
    const token = String(webhook?.callback_url).split("/").at(-1);
    const delivery = await deliver(token, "video.created", RECENT, "x8home1");
    expect(delivery.status).toBe(200);
  });

  it("Change channel opens the form filled with the profile's channel and events, and moves it", async () => {
    const start = await submitSetup(
      setupValues({ profile: PROFILE, channel: "C0NEWS", events: ["video.format.ready"] }),
    );
    await viewUpdate(/is set up/, start, "the first set-up");
    const oldUrl = h.sandbox.state.profiles.get(PROFILE)?.webhook.callback_url;
    const form = await openForm(ACTIONS.webhookSetup, PROFILE);
    const text = json(form.view);
    // The profile's menu opens on it (by name).
    expect(text).toContain(
      `"initial_option":{"text":{"type":"plain_text","text":"northwind-news (${PROFILE})"},"value":"${PROFILE}"}`,
    );
    expect(text).toContain('"initial_conversation":"C0NEWS"');
    const initial = text.match(/"initial_options":\[(.*?)\]\}/)?.[1] ?? "";
    expect([...initial.matchAll(/"value":"([^"]+)"/g)].map((m) => m[1])).toEqual(["video.format.ready"]);
    const before = h.slack.callsTo("views.update").length;
    await submit(
      VIEWS.setupModal,
      form.viewId,
      form.meta,
      setupValues({ profile: PROFILE, channel: "C0GENERAL", events: ["video.format.ready"] }),
    );
    await viewUpdate(/is set up/, before, "the outcome");
    expect((await h.built.deps.settings.getProfile(TEAM, PROFILE))?.channelId).toBe("C0GENERAL");
    // The old route's token no longer accepts deliveries.
    const oldToken = String(oldUrl).split("/").at(-1);
    const res = await deliver(oldToken, "video.format.ready", RECENT + 1, "x8home2");
    expect(res.status).toBe(404);
  });

  it("a channel the bot cannot post in is refused in the form, with nothing changed", async () => {
    const before = await submitSetup(
      setupValues({ profile: PROFILE, channel: "C0PRIVATE", events: ["video.created"] }),
    );
    const shown = await viewUpdate(/Nothing was changed/, before, "the refusal");
    expect(json(shown.args.view)).toMatch(/Invite it first/);
    // The form comes back with what was chosen.
    expect(json(shown.args.view)).toContain(
      `"initial_option":{"text":{"type":"plain_text","text":"northwind-news (${PROFILE})"},"value":"${PROFILE}"}`,
    );
    expect(patches()).toHaveLength(0);
    expect(await h.built.deps.settings.listProfiles(TEAM)).toEqual([]);
  });

  it("a platform error shows in the form in plain words with the correlation id; the channel message is withdrawn", async () => {
    const form = await openForm(ACTIONS.webhookSetup, "");
    h.sandbox.addFault({ method: "PATCH", path: "/v2/profiles", status: 503 });
    const before = h.slack.callsTo("views.update").length;
    await submit(
      VIEWS.setupModal,
      form.viewId,
      form.meta,
      setupValues({ profile: PROFILE, channel: "C0NEWS", events: ["video.created"] }),
    );
    const shown = await viewUpdate(/correlation id/i, before, "the error");
    expect(json(shown.args.view)).toContain(BLOCKS.setupProfile);
    const posted = h.slack.callsTo("chat.postMessage").find((c) => c.args.channel === "C0NEWS");
    expect(posted).toBeDefined();
    await waitFor(() => h.slack.callsTo("chat.delete")[0], 5000, "the withdrawal");
    expect(h.slack.messages("C0NEWS")).toEqual([]);
    expect(await h.built.deps.settings.listProfiles(TEAM)).toEqual([]);
  });

  it("your own HTTPS URL: the platform delivers there and the bot posts nothing", async () => {
    const before = await submitSetup(
      setupValues({ profile: PROFILE, events: ["video.complete"], url: "https://hooks.example.org/video" }),
    );
    await viewUpdate(/is set up/, before, "the outcome");
    expect(h.sandbox.state.profiles.get(PROFILE)?.webhook.callback_url).toBe(
      "https://hooks.example.org/video",
    );
    expect(h.slack.callsTo("chat.postMessage")).toEqual([]);
    expect((await h.built.deps.settings.getProfile(TEAM, PROFILE))?.foreignUrl).toBe(
      "https://hooks.example.org/video",
    );
  });

  it("a member who forges the button or the submission is told why and nothing changes", async () => {
    const form = await openForm(ACTIONS.webhookSetup, "", "U0MEMBER");
    expect(json(form.view)).toMatch(/Only managers/);
    const before = await submitSetup(
      setupValues({ profile: PROFILE, channel: "C0NEWS", events: ["video.created"] }),
      "U0MEMBER",
    );
    await viewUpdate(/Only managers/, before, "the refusal");
    expect(patches()).toHaveLength(0);
    expect(h.slack.callsTo("chat.postMessage")).toEqual([]);
  });

  it("a profile another workspace manages through the bot is refused before anything is posted or sent", async () => {
    expect(await h.built.deps.settings.claims.take(PROFILE, "T0OTHER", new Date())).toBe(true);
    try {
      const form = await openForm(ACTIONS.webhookSetup, "");
      const before = h.slack.callsTo("views.update").length;
      await submit(
        VIEWS.setupModal,
        form.viewId,
        form.meta,
        setupValues({ profile: PROFILE, channel: "C0NEWS", events: ["video.created"] }),
      );
      const shown = await viewUpdate(/another Slack workspace/, before, "the refusal");
      expect(json(shown.args.view)).toContain(BLOCKS.setupProfile);
      expect(patches()).toHaveLength(0);
      expect(h.slack.callsTo("chat.postMessage")).toEqual([]);
      expect(await h.built.deps.settings.claims.owner(PROFILE)).toBe("T0OTHER");
    } finally {
      await h.built.deps.settings.claims.release(PROFILE, "T0OTHER");
    }
  });

  it("a submission carrying another workspace's metadata is refused", async () => {
    const form = await openForm(ACTIONS.webhookSetup, "");
    const before = h.slack.callsTo("views.update").length;
    await submit(
      VIEWS.setupModal,
      form.viewId,
      form.meta.replace(TEAM, "T0OTHER"),
      setupValues({ profile: PROFILE, channel: "C0NEWS", events: ["video.created"] }),
    );
    await viewUpdate(/no longer valid/, before, "the refusal");
    expect(patches()).toHaveLength(0);
  });
});

describe("managers form (= /webhook managers add|remove)", () => {
  const chosen = (users: string[]) => ({
    [BLOCKS.managersInput]: { [BLOCKS.managersInput]: { type: "multi_users_select", selected_users: users } },
  });

  it("adds and removes managers, and the new manager can then change webhooks", async () => {
    const form = await openForm(ACTIONS.managersEdit, "", "U0ADMIN", BLOCKS.managersInput);
    expect(json(form.view)).toContain("multi_users_select");
    let before = h.slack.callsTo("views.update").length;
    await submit(VIEWS.managersModal, form.viewId, form.meta, chosen(["U0MEMBER", "U0OTHER"]));
    const saved = await viewUpdate(/Managers saved/, before, "saved");
    expect(json(saved.args.view)).toContain("<@U0MEMBER>");
    expect((await h.built.deps.settings.listManagers(TEAM)).map((m) => m.userId).sort()).toEqual([
      "U0MEMBER",
      "U0OTHER",
    ]);
    // U0MEMBER is a manager now: the set-up form opens for them.
    const asMember = await openForm(ACTIONS.webhookSetup, "", "U0MEMBER");
    expect(json(asMember.view)).toContain(BLOCKS.setupChannel);
    // The form shows the added managers; removing one.
    const again = await openForm(ACTIONS.managersEdit, "", "U0ADMIN", BLOCKS.managersInput);
    expect(json(again.view)).toMatch(
      /"initial_users":\["U0MEMBER","U0OTHER"\]|"initial_users":\["U0OTHER","U0MEMBER"\]/,
    );
    before = h.slack.callsTo("views.update").length;
    await submit(VIEWS.managersModal, again.viewId, again.meta, chosen(["U0OTHER"]));
    const removed = await viewUpdate(/Managers saved/, before, "saved");
    expect(json(removed.args.view)).toMatch(/Removed:\*\s*<@U0MEMBER>/);
    expect((await h.built.deps.settings.listManagers(TEAM)).map((m) => m.userId)).toEqual(["U0OTHER"]);
  });

  it("a member cannot open it or change the managers with a forged submission", async () => {
    const form = await openForm(ACTIONS.managersEdit, "", "U0MEMBER", BLOCKS.managersInput);
    expect(json(form.view)).toMatch(/Only managers/);
    const admin = await openForm(ACTIONS.managersEdit, "", "U0ADMIN", BLOCKS.managersInput);
    const before = h.slack.callsTo("views.update").length;
    await submit(VIEWS.managersModal, admin.viewId, admin.meta, { ...chosen(["U0MEMBER"]) }, "U0MEMBER");
    await viewUpdate(/Only managers/, before, "the refusal");
    expect(await h.built.deps.settings.listManagers(TEAM)).toEqual([]);
  });
});
