/**
 * Who is asking is the workspace Slack authorized the request for, never a `team_id` the payload
 * also carries (src/slack/context.ts `subjectOf`). In a shared channel a person of workspace A acts
 * on workspace B's app: the payload's `team_id` / `team.id` / `user.team_id` name A, while Slack
 * authorized the request for B (`authorizations[0]` of an event, `view.app_installed_team_id` of a
 * modal submission) and Bolt found B's installation. Multi-workspace mode over real HTTP: A and B
 * install through the OAuth flow; only B is bound to the newsroom profile.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { eventPayload, linkSharedEvent, sendSigned, viewSubmissionPayload } from "../../fakes/slack/index.js";
import { BLOCKS, encodeSetupMeta, VIEWS } from "../../src/messages/index.js";
import { type OAuthBot, startOAuthBot } from "../oauth/helper.js";
import { eventually, SIGNING_SECRET, waitFor } from "../support/harness.js";

const A = "T0STANDIN";
const B = "T0BETA";
const PROFILE = SEED.profiles.newsroom;
const LIVE = SEED.livestreams.onAirAdBreak; // newsroom's
/** A person of A, a manager through MANAGER_USER_IDS (so the manager rule does not decide). */
const PERSON = "U0MEMBER";
let b: OAuthBot;

/** An Events API body whose envelope names A and whose authorization is B's. */
function sharedEvent(event: Record<string, unknown>): string {
  const p = eventPayload({ event, teamId: A });
  const auth = (p.authorizations as Array<Record<string, unknown>>)[0];
  if (auth) auth.team_id = B;
  return JSON.stringify(p);
}

const tokenOf = async (team: string) => (await b.installations.find({ teamId: team }))?.bot?.token;

beforeAll(async () => {
  b = await startOAuthBot({
    env: { ALLOWED_WORKSPACES: `${A},${B}`, PROFILE_BINDINGS: `${B}=${PROFILE}`, MANAGER_USER_IDS: PERSON },
  });
  expect((await b.install()).status).toBe(200);
  expect((await b.install(B)).status).toBe(200);
  expect(await tokenOf(B)).not.toBe(await tokenOf(A));
});
afterAll(async () => {
  await b?.close();
});

describe("a request from a shared channel is decided for the workspace Slack authorized", () => {
  it("link_shared: previewed for B (bound), with B's token, though the envelope names A (not bound)", async () => {
    const url = `https://www.dailymotion.com/video/${LIVE}`;
    const before = b.slack.unfurls().length;
    const event = linkSharedEvent({ urls: [url], userId: PERSON, channelId: "C0GENERAL" });
    const res = await sendSigned(b.eventsUrl, sharedEvent(event), SIGNING_SECRET);
    expect(res.status).toBe(200);
    await eventually(
      async () => b.logs.some((l) => l.includes('"link_shared handled"')),
      8000,
      "link_shared handled",
    );
    const made = b.slack.unfurls().slice(before);
    expect(made).toHaveLength(1);
    expect(JSON.stringify(made[0]?.unfurls[url])).toContain("On air");
    const call = b.slack.callsTo("chat.unfurl").at(-1);
    expect(call?.token).toBe(await tokenOf(B));
  });

  it("a modal submission: B's set-up form submitted by A's person sets B's webhook (view.app_installed_team_id)", async () => {
    const payload = viewSubmissionPayload({
      callbackId: VIEWS.setupModal,
      privateMetadata: encodeSetupMeta({ teamId: B, kind: "setup" }),
      userId: PERSON,
      teamId: A,
      values: {
        [BLOCKS.setupProfile]: { [BLOCKS.setupProfile]: { type: "plain_text_input", value: PROFILE } },
        [BLOCKS.setupChannel]: {
          [BLOCKS.setupChannel]: { type: "conversations_select", selected_conversation: "C0NEWS" },
        },
        [BLOCKS.setupEvents]: {
          [BLOCKS.setupEvents]: { type: "checkboxes", selected_options: [{ value: "video.published" }] },
        },
        [BLOCKS.setupUrl]: { [BLOCKS.setupUrl]: { type: "plain_text_input", value: null } },
      },
    });
    (payload.view as Record<string, unknown>).app_installed_team_id = B;
    expect((payload.team as { id: string }).id).toBe(A);
    expect((payload.user as { team_id: string }).team_id).toBe(A);
    const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    const res = await sendSigned(b.eventsUrl, body, SIGNING_SECRET);
    expect(res.status).toBe(200);
    const deps = b.built.deps;
    await eventually(
      async () => (await deps.settings.getProfile(B, PROFILE)) !== undefined,
      8000,
      "B's profile settings",
    );
    expect(await deps.settings.claims.owner(PROFILE)).toBe(B);
    expect(await deps.settings.getProfile(A, PROFILE)).toBeUndefined();
    const hook = b.sandbox.state.profiles.get(PROFILE)?.webhook.callback_url ?? "";
    const route = await deps.callbacks.get(hook.split("/").pop() ?? "");
    expect(route?.teamId).toBe(B);
  });

  it("app_home_opened: B's App Home (with B's profile) is published with B's token, not A's", async () => {
    // Another person of A than the one who set it up (whose Home the set-up re-publishes).
    const person = "U0OTHER";
    const published = () => b.slack.callsTo("views.publish").filter((c) => c.args.user_id === person);
    const event = { type: "app_home_opened", user: person, channel: "D0HOME", tab: "home" };
    const res = await sendSigned(b.eventsUrl, sharedEvent(event), SIGNING_SECRET);
    expect(res.status).toBe(200);
    await waitFor(() => published().length > 0, 8000, "views.publish");
    const call = published()[0];
    expect(call?.token).toBe(await tokenOf(B));
    // B's profile (set up just before) is on it; A has none.
    expect(JSON.stringify(call?.args.view)).toContain(PROFILE);
  });
});
