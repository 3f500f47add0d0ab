/**
 * Issue 5 over the real path: signed block_actions, view_submission and app_home_opened requests
 * to the running bot; the Slack stand-in records views.open/update/publish, chat.update,
 * response_url posts; the sandbox is the platform.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { eventBody, sendSigned, viewSubmissionBody } from "../../fakes/slack/index.js";
import { ACTIONS, BLOCKS, decodeMeta, VIEWS } from "../../src/messages/index.js";
import { type Harness, PUBLIC_URL, SIGNING_SECRET, startHarness, waitFor } from "../support/harness.js";

let h: Harness;
const TEAM = "T0STANDIN";
const json = (v: unknown) => JSON.stringify(v);

beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});
beforeEach(async () => {
  h.sandbox.reset();
  h.slack.reset();
  for (const p of await h.built.deps.settings.listProfiles(TEAM))
    await h.built.deps.settings.removeProfile(TEAM, p.profileId);
  const res = await h.slash("/webhook", `set ${SEED.profiles.newsroom} created published`, {
    user: "U0ADMIN",
    channel: "C0NEWS",
  });
  await h.answer(res.responseUrl);
  h.sandbox.requests.length = 0; // count only what each test causes
});

/** The editor the bot put in the modal: its view id, metadata and checked events. */
async function editorOpened(after = 0) {
  const update = await waitFor(
    () =>
      h.slack
        .callsTo("views.update")
        .slice(after)
        .find((c) => json(c.args.view).includes(BLOCKS.eventsInput)),
    8000,
    "the editor",
  );
  const view = update.args.view as { private_metadata: string; blocks: unknown[] };
  const checked = [...json(view.blocks).matchAll(/"initial_options":\[(.*?)\]/g)].flatMap((m) =>
    [...(m[1] ?? "").matchAll(/"value":"([^"]+)"/g)].map((x) => x[1]),
  );
  return { viewId: String(update.args.view_id), meta: view.private_metadata, checked };
}

async function submit(viewId: string, meta: string, events: string[], user = "U0ADMIN") {
  const body = viewSubmissionBody({
    callbackId: VIEWS.eventsModal,
    privateMetadata: meta,
    viewId,
    userId: user,
    teamId: TEAM,
    values: {
      [BLOCKS.events]: {
        [BLOCKS.eventsInput]: { type: "checkboxes", selected_options: events.map((value) => ({ value })) },
      },
    },
  });
  return sendSigned(h.eventsUrl, body, SIGNING_SECRET);
}

describe("events editor", () => {
  it("/webhook events opens a modal at once, then fills it with the current events checked", async () => {
    await h.slash("/webhook", "events", { user: "U0ADMIN", channel: "C0NEWS" });
    const open = await waitFor(() => h.slack.callsTo("views.open")[0], 5000, "views.open");
    expect(json(open.args.view)).toContain(VIEWS.eventsModal);
    const editor = await editorOpened();
    expect(editor.checked.sort()).toEqual(["video.created", "video.published"]);
    expect(decodeMeta(editor.meta)?.profileId).toBe(SEED.profiles.newsroom);
  });

  it("saving with nothing checked keeps the modal open with an inline error and changes nothing", async () => {
    await h.press(ACTIONS.webhookEditEvents, SEED.profiles.newsroom, { user: "U0ADMIN", channel: "C0NEWS" });
    const editor = await editorOpened();
    const res = await submit(editor.viewId, editor.meta, []);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({
      response_action: "errors",
      errors: { [BLOCKS.events]: expect.any(String) },
    });
    expect(h.sandbox.requests.filter((r) => r.method === "PATCH")).toHaveLength(0);
  });

  it("a valid save updates only the events, reads back, updates the message and confirms ephemerally", async () => {
    const press = await h.press(ACTIONS.webhookEditEvents, SEED.profiles.newsroom, {
      user: "U0ADMIN",
      channel: "C0NEWS",
    });
    const editor = await editorOpened();
    const url = h.sandbox.state.profiles.get(SEED.profiles.newsroom)?.webhook.callback_url;
    const res = await submit(editor.viewId, editor.meta, ["video.complete", "video.format.error"]);
    expect(JSON.parse(res.body).response_action).toBe("update");
    await waitFor(() => h.slack.callsTo("chat.postEphemeral")[0], 8000, "the confirmation");
    expect(h.sandbox.state.profiles.get(SEED.profiles.newsroom)?.webhook).toEqual({
      callback_url: url,
      events: ["video.complete", "video.format.error"],
    });
    const patch = h.sandbox.requests.filter((r) => r.method === "PATCH");
    expect(patch).toHaveLength(1);
    const replaced = await waitFor(() => h.slack.responses(press.responseUrl)[0], 8000, "the message update");
    expect(replaced.replace_original).toBe(true);
    expect(json(replaced)).toContain("video.format.error");
    const saved = await h.built.deps.settings.getProfile(TEAM, SEED.profiles.newsroom);
    expect(saved?.events).toEqual(["video.complete", "video.format.error"]);
  });

  it("a stale view: the webhook changed elsewhere, the modal shows the current state instead of overwriting", async () => {
    await h.press(ACTIONS.webhookEditEvents, SEED.profiles.newsroom, { user: "U0ADMIN" });
    const editor = await editorOpened();
    // Someone else changes the events meanwhile.
    const current = h.sandbox.state.profiles.get(SEED.profiles.newsroom)?.webhook;
    h.sandbox.setWebhook(SEED.profiles.newsroom, {
      callback_url: current?.callback_url ?? null,
      events: ["video.deleted"],
    });
    const before = h.slack.callsTo("views.update").length;
    await submit(editor.viewId, editor.meta, ["video.complete"]);
    const again = await editorOpened(before);
    expect(again.checked).toEqual(["video.deleted"]);
    expect(json(h.slack.callsTo("views.update").at(-1)?.args.view)).toMatch(/changed elsewhere/);
    expect(h.sandbox.state.profiles.get(SEED.profiles.newsroom)?.webhook.events).toEqual(["video.deleted"]);
  });

  it("a platform error shows inside the modal in plain words with the correlation id", async () => {
    await h.press(ACTIONS.webhookEditEvents, SEED.profiles.newsroom, { user: "U0ADMIN" });
    const editor = await editorOpened();
    h.sandbox.addFault({ method: "PATCH", path: "/v2/profiles", status: 503 });
    const before = h.slack.callsTo("views.update").length;
    await submit(editor.viewId, editor.meta, ["video.complete"]);
    const shown = await waitFor(
      () =>
        h.slack
          .callsTo("views.update")
          .slice(before)
          .find((c) => /correlation id/i.test(json(c.args.view))),
      8000,
      "the error in the modal",
    );
    expect(json(shown.args.view)).toMatch(/⚠️/);
    h.sandbox.clearFaults();
  });

  it("a member's submission changes nothing and says why", async () => {
    await h.press(ACTIONS.webhookEditEvents, SEED.profiles.newsroom, { user: "U0ADMIN" });
    const editor = await editorOpened();
    const before = h.slack.callsTo("views.update").length;
    await submit(editor.viewId, editor.meta, ["video.complete"], "U0MEMBER");
    const shown = await waitFor(
      () =>
        h.slack
          .callsTo("views.update")
          .slice(before)
          .find((c) => /managers/i.test(json(c.args.view))),
      8000,
      "the refusal",
    );
    expect(shown).toBeDefined();
    expect(h.sandbox.requests.filter((r) => r.method === "PATCH")).toHaveLength(0);
  });

  it("a member pressing Edit events sees why in the modal; nothing is read or changed", async () => {
    await h.press(ACTIONS.webhookEditEvents, SEED.profiles.newsroom, { user: "U0MEMBER" });
    const shown = await waitFor(
      () => h.slack.callsTo("views.update").find((c) => /Only managers/.test(json(c.args.view))),
      8000,
      "the refusal in the modal",
    );
    expect(json(shown.args.view)).not.toContain(BLOCKS.eventsInput);
    expect(h.sandbox.requests).toHaveLength(0);
  });
});

describe("App Home", () => {
  const openHome = (user: string) =>
    sendSigned(
      h.eventsUrl,
      eventBody({ teamId: TEAM, event: { type: "app_home_opened", user, channel: "D0HOME", tab: "home" } }),
      SIGNING_SECRET,
    );

  it("shows each profile, its channel, events and health; buttons for managers only", async () => {
    expect((await openHome("U0ADMIN")).status).toBe(200);
    const admin = await waitFor(() => h.slack.homeView("U0ADMIN"), 8000, "the admin's home");
    const a = json(admin);
    expect(a).toContain(SEED.profiles.newsroom);
    expect(a).toContain("C0NEWS");
    expect(a).toContain(ACTIONS.webhookRemove);
    expect(a).not.toContain(PUBLIC_URL);
    await openHome("U0MEMBER");
    const member = await waitFor(() => h.slack.homeView("U0MEMBER"), 8000, "the member's home");
    expect(json(member)).toContain(SEED.profiles.newsroom);
    expect(json(member)).not.toContain(ACTIONS.webhookRemove);
  });

  it("Remove on the App Home removes the webhook, retires the route and re-publishes the home", async () => {
    const token =
      h.sandbox.state.profiles.get(SEED.profiles.newsroom)?.webhook.callback_url?.split("/").pop() ?? "";
    const publishes = h.slack.callsTo("views.publish").length;
    // A button on the App Home: its container is the home view, there is no response_url to use.
    await h.press(ACTIONS.webhookRemove, SEED.profiles.newsroom, { user: "U0ADMIN", home: true });
    await waitFor(
      () => h.sandbox.state.profiles.get(SEED.profiles.newsroom)?.webhook.callback_url === null,
      8000,
      "removal",
    );
    // The home is re-published after the route is retired (the platform changes first).
    await waitFor(
      () => h.slack.callsTo("views.publish").length > publishes,
      8000,
      "the home to be re-published",
    );
    const r = await fetch(`${h.url}/hooks/platform/${token}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ type: "video.created", timestamp: 1, data: { owner_id: "p", video_id: "x" } }),
    });
    expect(r.status).toBe(404);
    expect(json(h.slack.homeView("U0ADMIN"))).not.toContain(ACTIONS.webhookRemove);
  });
});
