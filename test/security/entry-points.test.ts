/**
 * Every entry point goes through the one authorizer (src/access) before anything reaches the
 * platform. The entry points are enumerated from the source of truth: the subcommand lists of
 * src/slack/listeners/commands/grammar.ts, every value of ACTIONS and VIEWS, and what registerListeners actually
 * registers (commands, actions, views, events, workflow steps). An entry point without a row fails the suite.
 *
 * Multi-workspace mode over real HTTP: workspace A (T0STANDIN) installs through the real OAuth
 * flow, is in ALLOWED_WORKSPACES and bound to the studio profile only; T0GONE has a stored
 * installation but is not in ALLOWED_WORKSPACES. Each row sends correctly signed requests and
 * proves, reading the sandbox's request log:
 *  (i)   A's manager on the newsroom profile (not bound to A), or on its livestream, is refused:
 *        nothing sent (profile: but the key's own list of profiles, GET /me, read to tell a
 *        profile's name from an id), or answered as a missing livestream after the one GET
 *        (livestream);
 *  (ii)  A's non-manager is refused for manager-only actions, nothing sent;
 *  (iii) a manager of T0GONE is refused for every entry point, nothing sent.
 */
import type { App } from "@slack/bolt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import {
  blockActionsBody,
  entityDetailsRequestedEvent,
  eventBody,
  linkSharedEvent,
  sendSigned,
  viewSubmissionBody,
} from "../../fakes/slack/index.js";
import { ACTIONS, BLOCKS, encodeMeta, encodeSetupMeta, VIEWS } from "../../src/messages/index.js";
import { LIVE_SUBCOMMANDS, WEBHOOK_SUBCOMMANDS } from "../../src/slack/listeners/commands/grammar.js";
import { registerListeners } from "../../src/slack/listeners/index.js";
import { type OAuthBot, SIGNING_SECRET, startOAuthBot } from "../oauth/helper.js";
import { waitFor } from "../support/harness.js";
import { completion, runStep } from "../support/steps.js";

const A = "T0STANDIN";
const GONE = "T0GONE";
const UNBOUND = SEED.profiles.newsroom;
const UNBOUND_LIVE = SEED.livestreams.onAirAdBreak;
let b: OAuthBot;

interface Who {
  team: string;
  user: string;
}
/**
 * "silent-livestream": refused with no answer at all (link previews); "pane-livestream": a Work
 * Object's details pane, answered `not_found` exactly as for a livestream the platform lacks.
 */
type Target = "profile" | "livestream" | "silent-livestream" | "pane-livestream" | "none";
interface Row {
  /** `/live status`, `action:<id>`, `view:<callback_id>`, `event:<type>`, `function:<callback_id>`. */
  entry: string;
  managerOnly: boolean;
  target: Target;
  /** Sends the request and resolves with what the person was shown (JSON). */
  run(who: Who): Promise<string>;
}

const json = (v: unknown) => JSON.stringify(v);

async function viaResponseUrl(send: Promise<{ responseUrl: string }>): Promise<string> {
  const { responseUrl } = await send;
  return json(await b.answer(responseUrl));
}

async function nextCall(method: string, before: number, viewId?: string): Promise<string> {
  const call = await waitFor(
    () =>
      b.slack
        .callsTo(method)
        .slice(before)
        .find((c) => viewId === undefined || c.args.view_id === viewId),
    8000,
    `${method} after ${before}`,
  );
  return json(call.args);
}
let submissions = 0;

const slash = (command: string, text: string) => (who: Who) =>
  viaResponseUrl(b.slash(command, text, { team: who.team, user: who.user, channel: "C0NEWS" }));
const button = (actionId: string, value: string) => (who: Who) =>
  viaResponseUrl(b.press(actionId, value, { team: who.team, user: who.user }));
/** A choice from the menu of profiles (a static select carrying the command in its block_id). */
const pick = (blockId: string, value: string) => async (who: Who) => {
  const responseUrl = b.slack.newResponseUrl("C0NEWS", who.user);
  const body = blockActionsBody({
    actionId: ACTIONS.profilePick,
    blockId,
    selectedOption: { value },
    userId: who.user,
    teamId: who.team,
    channelId: "C0NEWS",
    responseUrl,
  });
  expect((await sendSigned(b.eventsUrl, body, SIGNING_SECRET)).status).toBe(200);
  return json(await b.answer(responseUrl));
};
const viewButton = (actionId: string, value: string, home: boolean) => async (who: Who) => {
  const before = b.slack.callsTo("views.update").length;
  await b.press(actionId, value, { team: who.team, user: who.user, home });
  return nextCall("views.update", before);
};
const publishing = (send: (who: Who) => Promise<unknown>) => async (who: Who) => {
  const before = b.slack.callsTo("views.publish").length;
  await send(who);
  return nextCall("views.publish", before);
};
const submission =
  (callbackId: string, meta: (team: string) => string, values: Record<string, Record<string, unknown>>) =>
  async (who: Who) => {
    const before = b.slack.callsTo("views.update").length;
    // A view id of its own: a refusal shown on a view the stand-in does not know is retried once
    // by the error path, and that late call must not be taken for the next row's answer.
    const viewId = `V0SUBMIT${++submissions}`;
    const body = viewSubmissionBody({
      callbackId,
      viewId,
      teamId: who.team,
      userId: who.user,
      privateMetadata: meta(who.team),
      values: values as Record<string, Record<string, Record<string, unknown>>>,
    });
    expect((await sendSigned(b.eventsUrl, body, SIGNING_SECRET)).status).toBe(200);
    return nextCall("views.update", before, viewId);
  };

/** A workflow step: what its failure (or completion) says, once the stand-in has it. */
const workflowStep = (callbackId: string, id: string) => async (who: Who) => {
  const executionId = await runStep(b.slack, b.eventsUrl, callbackId, { livestream: id }, who.team);
  return json(await completion(b.slack, executionId).catch(() => ""));
};

/**
 * A link preview is refused silently (a refusal must not tell an unbound livestream from a missing
 * one): resolves with the previews made for it ("" when none), once the bot has handled the event.
 */
const linkShared = (id: string) => async (who: Who) => {
  const handled = () => b.logs.filter((l) => l.includes('"link_shared handled"')).length;
  const [before, unfurls] = [handled(), b.slack.unfurls().length];
  const url = `https://www.dailymotion.com/video/${id}`;
  const body = eventBody({ teamId: who.team, event: linkSharedEvent({ urls: [url], userId: who.user }) });
  expect((await sendSigned(b.eventsUrl, body, SIGNING_SECRET)).status).toBe(200);
  // A workspace not allowed is stopped before the listener (nothing handled): give it time.
  await waitFor(() => handled() > before, 3000, "link_shared handled").catch(() => undefined);
  const made = b.slack.unfurls().slice(unfurls);
  return made.length === 0 ? "" : json(made);
};

/**
 * A previewed link's Work Object opened: the pane the bot answered (`entity.presentDetails`), ""
 * when it answered none within 3 s.
 */
let panes = 0;
const pane = (id: string) => async (who: Who) => {
  const triggerId = `${Date.now()}.${++panes}.${"cd".repeat(16)}`;
  const event = entityDetailsRequestedEvent({
    url: `https://www.dailymotion.com/video/${id}`,
    externalRef: { id, type: "livestream" },
    userId: who.user,
    triggerId,
  });
  expect((await sendSigned(b.eventsUrl, eventBody({ teamId: who.team, event }), SIGNING_SECRET)).status).toBe(
    200,
  );
  const answered = await waitFor(
    () => b.slack.entityDetails().find((d) => d.trigger_id === triggerId),
    3000,
    "entity.presentDetails",
  ).catch(() => undefined);
  return answered === undefined ? "" : json(answered);
};

const ROWS: Row[] = [
  { entry: "/live help", managerOnly: false, target: "none", run: slash("/live", "help") },
  {
    entry: "/live status",
    managerOnly: false,
    target: "livestream",
    run: slash("/live", `status ${UNBOUND_LIVE}`),
  },
  {
    entry: "/live ingest",
    managerOnly: true,
    target: "livestream",
    run: slash("/live", `ingest ${UNBOUND_LIVE}`),
  },
  {
    entry: "/live watch",
    managerOnly: true,
    target: "livestream",
    run: slash("/live", `watch ${UNBOUND_LIVE}`),
  },
  {
    // No platform read: only this workspace's own watch of this channel can be stopped.
    entry: "/live unwatch",
    managerOnly: true,
    target: "none",
    run: slash("/live", `unwatch ${UNBOUND_LIVE}`),
  },
  {
    // A person's own DM watch: anyone who may read the livestream.
    entry: "/live watch",
    managerOnly: false,
    target: "livestream",
    run: slash("/live", `watch ${UNBOUND_LIVE} dm`),
  },
  {
    entry: "/live unwatch",
    managerOnly: false,
    target: "none",
    run: slash("/live", `unwatch ${UNBOUND_LIVE} dm`),
  },
  { entry: "/live watching", managerOnly: false, target: "none", run: slash("/live", "watching") },
  { entry: "/webhook help", managerOnly: false, target: "none", run: slash("/webhook", "help") },
  { entry: "/webhook set", managerOnly: true, target: "profile", run: slash("/webhook", `set ${UNBOUND}`) },
  {
    entry: "/webhook show",
    managerOnly: false,
    target: "profile",
    run: slash("/webhook", `show ${UNBOUND}`),
  },
  {
    entry: "/webhook events",
    managerOnly: true,
    target: "profile",
    run: slash("/webhook", `events ${UNBOUND} video.created`),
  },
  {
    entry: "/webhook events",
    managerOnly: true,
    target: "profile",
    // Without events: the editor (a modal, authorized inside).
    run: async (who) => {
      const before = b.slack.callsTo("views.update").length;
      await b.slash("/webhook", `events ${UNBOUND}`, { team: who.team, user: who.user });
      return nextCall("views.update", before);
    },
  },
  {
    entry: "/webhook remove",
    managerOnly: true,
    target: "profile",
    run: slash("/webhook", `remove ${UNBOUND}`),
  },
  { entry: "/webhook test", managerOnly: true, target: "profile", run: slash("/webhook", `test ${UNBOUND}`) },
  {
    entry: "/webhook subscribe",
    managerOnly: true,
    target: "profile",
    run: slash("/webhook", `subscribe ${UNBOUND} format.error preset=720p mention=@here`),
  },
  {
    entry: "/webhook unsubscribe",
    managerOnly: true,
    target: "profile",
    run: slash("/webhook", `unsubscribe ${UNBOUND}`),
  },
  {
    entry: "/webhook subscriptions",
    managerOnly: false,
    target: "profile",
    run: slash("/webhook", `subscriptions ${UNBOUND}`),
  },
  {
    entry: "/webhook subscribe",
    managerOnly: true,
    target: "profile",
    run: slash("/webhook", `subscribe ${UNBOUND} digest=daily at=08:00`),
  },
  {
    entry: "/webhook pause",
    managerOnly: true,
    target: "profile",
    run: slash("/webhook", `pause ${UNBOUND} 2h`),
  },
  {
    entry: "/webhook resume",
    managerOnly: true,
    target: "profile",
    run: slash("/webhook", `resume ${UNBOUND}`),
  },
  { entry: "/webhook managers", managerOnly: false, target: "none", run: slash("/webhook", "managers") },
  {
    entry: "/webhook managers",
    managerOnly: true,
    target: "none",
    run: slash("/webhook", "managers add <@U0OTHER>"),
  },
  {
    entry: `action:${ACTIONS.liveRefresh}`,
    managerOnly: false,
    target: "livestream",
    run: button(ACTIONS.liveRefresh, UNBOUND_LIVE),
  },
  {
    entry: `action:${ACTIONS.webhookEditEvents}`,
    managerOnly: true,
    target: "profile",
    run: viewButton(ACTIONS.webhookEditEvents, UNBOUND, false),
  },
  {
    entry: `action:${ACTIONS.webhookRemove}`,
    managerOnly: true,
    target: "profile",
    run: button(ACTIONS.webhookRemove, UNBOUND),
  },
  {
    entry: `action:${ACTIONS.webhookRemoveConfirm}`,
    managerOnly: true,
    target: "profile",
    run: button(ACTIONS.webhookRemoveConfirm, UNBOUND),
  },
  {
    entry: `action:${ACTIONS.webhookRemoveCancel}`,
    managerOnly: false,
    target: "none",
    run: button(ACTIONS.webhookRemoveCancel, UNBOUND),
  },
  {
    entry: `action:${ACTIONS.webhookUnsubscribe}`,
    managerOnly: true,
    target: "profile",
    run: button(ACTIONS.webhookUnsubscribe, `${UNBOUND} C0NEWS`),
  },
  {
    entry: `action:${ACTIONS.webhookTest}`,
    managerOnly: true,
    target: "profile",
    run: button(ACTIONS.webhookTest, UNBOUND),
  },
  {
    entry: `action:${ACTIONS.profilePick}`,
    managerOnly: true,
    target: "profile",
    run: pick("pick:set created", UNBOUND),
  },
  {
    entry: `action:${ACTIONS.homeRefresh}`,
    managerOnly: false,
    target: "none",
    run: publishing((who) =>
      b.press(ACTIONS.homeRefresh, "", { team: who.team, user: who.user, home: true }),
    ),
  },
  {
    entry: `action:${ACTIONS.watchUnwatch}`,
    managerOnly: true,
    target: "none",
    run: button(ACTIONS.watchUnwatch, `C0NEWS:${UNBOUND_LIVE}`),
  },
  {
    // The viewer's own DM watch: anyone (the watch is always the presser's).
    entry: `action:${ACTIONS.watchUnwatchDm}`,
    managerOnly: false,
    target: "none",
    run: button(ACTIONS.watchUnwatchDm, UNBOUND_LIVE),
  },
  {
    entry: `action:${ACTIONS.webhookSetup}`,
    managerOnly: true,
    target: "none",
    run: viewButton(ACTIONS.webhookSetup, "", true),
  },
  {
    entry: `action:${ACTIONS.managersEdit}`,
    managerOnly: true,
    target: "none",
    run: viewButton(ACTIONS.managersEdit, "", true),
  },
  {
    entry: `view:${VIEWS.eventsModal}`,
    managerOnly: true,
    target: "profile",
    run: submission(
      VIEWS.eventsModal,
      (teamId) => encodeMeta({ teamId, profileId: UNBOUND, original: null }),
      {
        [BLOCKS.events]: {
          [BLOCKS.eventsInput]: { type: "checkboxes", selected_options: [{ value: "video.created" }] },
        },
      },
    ),
  },
  {
    entry: `view:${VIEWS.setupModal}`,
    managerOnly: true,
    target: "profile",
    run: submission(VIEWS.setupModal, (teamId) => encodeSetupMeta({ teamId, kind: "setup" }), {
      [BLOCKS.setupProfile]: { [BLOCKS.setupProfile]: { type: "plain_text_input", value: UNBOUND } },
      [BLOCKS.setupChannel]: {
        [BLOCKS.setupChannel]: { type: "conversations_select", selected_conversation: "C0NEWS" },
      },
      [BLOCKS.setupEvents]: {
        [BLOCKS.setupEvents]: { type: "checkboxes", selected_options: [{ value: "video.created" }] },
      },
      [BLOCKS.setupUrl]: { [BLOCKS.setupUrl]: { type: "plain_text_input", value: null } },
    }),
  },
  {
    entry: `view:${VIEWS.managersModal}`,
    managerOnly: true,
    target: "none",
    run: submission(VIEWS.managersModal, (teamId) => encodeSetupMeta({ teamId, kind: "managers" }), {
      [BLOCKS.managersInput]: {
        [BLOCKS.managersInput]: { type: "multi_users_select", selected_users: ["U0OTHER"] },
      },
    }),
  },
  {
    entry: "event:link_shared",
    managerOnly: false,
    target: "silent-livestream",
    run: linkShared(UNBOUND_LIVE),
  },
  {
    entry: "event:entity_details_requested",
    managerOnly: false,
    target: "pane-livestream",
    run: pane(UNBOUND_LIVE),
  },
  ...(["livestream_status", "wait_until_live", "wait_until_off_air"] as const).map((id) => ({
    entry: `function:${id}`,
    managerOnly: false,
    target: "livestream" as const,
    run: workflowStep(id, UNBOUND_LIVE),
  })),
  {
    entry: "event:app_home_opened",
    managerOnly: false,
    target: "none",
    run: publishing((who) =>
      sendSigned(
        b.eventsUrl,
        eventBody({
          teamId: who.team,
          event: { type: "app_home_opened", user: who.user, channel: "D0HOME", tab: "home" },
        }),
        SIGNING_SECRET,
      ),
    ),
  },
];

/** What registerListeners registers, recorded on a stand-in for Bolt's App. */
function registered() {
  const out = {
    commands: [] as string[],
    actions: [] as string[],
    views: [] as string[],
    events: [] as string[],
    functions: [] as string[],
  };
  const record = (list: string[]) => (name: unknown) => void list.push(String(name));
  const fake = {
    command: record(out.commands),
    action: record(out.actions),
    view: record(out.views),
    event: record(out.events),
    function: record(out.functions),
  };
  registerListeners(fake as unknown as App, b.built.deps);
  return out;
}

/** Platform traffic: every request the sandbox received (token service and API). */
const platformRequests = () => b.sandbox.requests.length;
/** Platform traffic but the key's own list of profiles (GET /me, to tell a name from an id). */
const requestsButMe = () => b.sandbox.requests.filter((r) => r.path !== "/v2/me").length;
const livestreamGets = () => b.sandbox.requests.filter((r) => r.path.startsWith("/v2/livestreams/")).length;

beforeAll(async () => {
  b = await startOAuthBot({
    env: { ALLOWED_WORKSPACES: A, PROFILE_BINDINGS: `${A}=${SEED.profiles.studio}` },
  });
  expect((await b.install()).status).toBe(200);
  await b.addWorkspace(GONE);
  // What a missing livestream looks like, for the livestream rows (warms the token too).
  const missing = await b.slash("/live", "status x0nothere", { team: A });
  expect(json(await b.answer(missing.responseUrl))).toContain("The platform has no livestream");
});
afterAll(async () => {
  await b?.close();
});

describe("every entry point has a row", () => {
  const entries = new Set(ROWS.map((r) => r.entry));
  it("every subcommand of grammar.ts", () => {
    for (const s of LIVE_SUBCOMMANDS) expect(entries, `/live ${s}`).toContain(`/live ${s}`);
    for (const s of WEBHOOK_SUBCOMMANDS) expect(entries, `/webhook ${s}`).toContain(`/webhook ${s}`);
  });
  it("every ACTIONS and VIEWS value, and every registered listener", () => {
    const reg = registered();
    expect(reg.commands.sort()).toEqual(["/live", "/webhook"]);
    for (const id of new Set([...Object.values(ACTIONS), ...reg.actions]))
      expect(entries, `action ${id}`).toContain(`action:${id}`);
    for (const id of new Set([...Object.values(VIEWS), ...reg.views]))
      expect(entries, `view ${id}`).toContain(`view:${id}`);
    // Slack-signed lifecycle events forget a workspace and act on nobody's request: not entry points.
    const lifecycle: readonly string[] = ["app_uninstalled", "tokens_revoked"];
    for (const e of reg.events.filter((e) => !lifecycle.includes(e)))
      expect(entries, `event ${e}`).toContain(`event:${e}`);
    expect(reg.functions.length).toBeGreaterThan(0);
    for (const f of reg.functions) expect(entries, `workflow step ${f}`).toContain(`function:${f}`);
  });
});

describe.each(ROWS.map((r, i) => [`${r.entry} #${i}`, r] as const))("%s", (_name, row) => {
  if (row.target !== "none") {
    it("(i) A's manager, target not bound to A: refused, nothing sent to the platform", async () => {
      // Each row reads afresh (identical livestream reads within 10 s are otherwise shared).
      b.built.deps.access.sharedReads.clear();
      const [requests, gets] = [requestsButMe(), livestreamGets()];
      const shown = await row.run({ team: A, user: "U0ADMIN" });
      if (row.target === "profile") {
        expect(shown).toContain("is not bound to this Slack workspace");
        expect(requestsButMe()).toBe(requests);
      } else if (row.target === "pane-livestream") {
        // The pane of a livestream the platform lacks, after the one authorizing GET; nothing of it.
        expect(JSON.parse(shown).error).toEqual({ status: "not_found" });
        expect(shown).not.toContain("metadata");
        expect(livestreamGets()).toBe(gets + 1);
      } else if (row.target === "silent-livestream") {
        // No preview at all, after the one authorizing GET; never its ingest.
        expect(shown).toBe("");
        expect(livestreamGets()).toBe(gets + 1);
      } else {
        // Answered as a missing livestream, after the one authorizing GET; never its ingest.
        expect(shown).toContain("The platform has no livestream");
        expect(shown).not.toContain(SEED.streamKey);
        expect(livestreamGets()).toBe(gets + 1);
      }
    });
  }
  if (row.managerOnly) {
    it("(ii) A's non-manager: refused, nothing sent to the platform", async () => {
      const requests = platformRequests();
      const shown = await row.run({ team: A, user: "U0MEMBER" });
      expect(shown).toContain("Only managers");
      expect(platformRequests()).toBe(requests);
    });
  }
  it("(iii) a workspace not in ALLOWED_WORKSPACES (installed before): refused, nothing sent", async () => {
    const requests = platformRequests();
    const shown = await row.run({ team: GONE, user: "U0ADMIN" });
    if (row.target === "silent-livestream") expect(shown).toBe("");
    else expect(shown).toContain("not allowed to use this bot");
    expect(platformRequests()).toBe(requests);
  });
});
