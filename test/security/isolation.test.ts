/**
 * Cross-workspace isolation in multi-workspace mode, over real HTTP. Workspace A installs through
 * OAuth (its own token from the stand-in); workspace B's installation uses the stand-in's default
 * bot token. B configures a profile first; then:
 *  - deliveries: A's route posts only in A's channel with A's token, B's only with B's;
 *  - A's manager cannot set, remove or edit B's profile (command, forged button values, forged
 *    modal metadata): a clear ephemeral answer, and the platform is never written.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { sendSigned, viewSubmissionBody } from "../../fakes/slack/index.js";
import { ACTIONS, BLOCKS, encodeMeta, VIEWS } from "../../src/messages/index.js";
import { deliverCreated, type OAuthBot, SIGNING_SECRET, startOAuthBot } from "../oauth/helper.js";
import { eventually, waitFor } from "../support/harness.js";

const A = "T0STANDIN";
const B = "T0BETA";
const A_ADMIN = { team: A, user: "U0ADMIN", channel: "C0NEWS" };
const B_ADMIN = { team: B, user: "U0BETAADM", channel: "C0GENERAL" };
const B_PROFILE = SEED.profiles.newsroom;
const A_PROFILE = SEED.profiles.studio;
let b: OAuthBot;
let aToken: string;
let bToken: string;

const patches = () => b.sandbox.requests.filter((r) => r.method === "PATCH").length;
const hookOf = (profileId: string) => b.sandbox.state.profiles.get(profileId)?.webhook;
const text = (answer: Record<string, unknown>) => JSON.stringify(answer);

const deliver = (profileId: string, videoId: string) => deliverCreated(b, profileId, videoId);

beforeAll(async () => {
  // Both workspaces may use both profiles (PROFILE_BINDINGS), so the claims decide between them;
  // A may also try the foreign profile (the platform refuses it).
  const P = SEED.profiles;
  b = await startOAuthBot({
    env: {
      PROFILE_BINDINGS: `${A}=${P.newsroom},${P.studio},${P.foreign};${B}=${P.newsroom},${P.studio}`,
    },
  });
  expect((await b.install()).status).toBe(200);
  await b.addWorkspace(B);
  b.slack.addUser({ id: B_ADMIN.user, team_id: B, name: "beta-admin", is_admin: true });
  aToken = (await b.installations.find({ teamId: A }))?.bot?.token ?? "";
  bToken = b.slack.botToken;
  expect(aToken).not.toBe(bToken);
  // B configures its profile first, in its channel.
  const r = await b.slash("/webhook", `set ${B_PROFILE}`, B_ADMIN);
  expect(text(await b.answer(r.responseUrl))).not.toContain("⚠️");
  expect(await b.built.deps.settings.claims.owner(B_PROFILE)).toBe(B);
  // A configures another profile in its channel.
  const ra = await b.slash("/webhook", `set ${A_PROFILE}`, A_ADMIN);
  expect(text(await b.answer(ra.responseUrl))).not.toContain("⚠️");
});
afterAll(async () => {
  await b?.close();
});

describe("deliveries", () => {
  it("A's route posts only in A's channel with A's token; B's only in B's with B's token", async () => {
    expect(await deliver(A_PROFILE, "x7isoa")).toBe(200);
    expect(await deliver(B_PROFILE, "x7isob")).toBe(200);
    const posts = await waitFor(
      () => {
        const p = b.slack.callsTo("chat.postMessage").filter((c) => c.ok);
        return p.length >= 2 ? p : undefined;
      },
      8000,
      "both notifications",
    );
    const byVideo = (id: string) => posts.filter((c) => JSON.stringify(c.args).includes(id));
    expect(byVideo("x7isoa").map((c) => [c.args.channel, c.token])).toEqual([["C0NEWS", aToken]]);
    expect(byVideo("x7isob").map((c) => [c.args.channel, c.token])).toEqual([["C0GENERAL", bToken]]);
    // Nothing of A's went with B's token or into B's channel, and the other way round.
    for (const c of posts) expect(c.args.channel === "C0NEWS" ? aToken : bToken).toBe(c.token);
  });
});

describe("A's manager and B's profile", () => {
  it("cannot repoint it with /webhook set: refused in words, the platform untouched", async () => {
    const before = { hook: structuredClone(hookOf(B_PROFILE)), patches: patches() };
    const r = await b.slash("/webhook", `set ${B_PROFILE} created`, A_ADMIN);
    const answer = await b.answer(r.responseUrl);
    expect(answer.response_type).toBe("ephemeral");
    expect(text(answer)).toContain("managed from another Slack workspace");
    expect(text(answer)).not.toContain(B);
    expect(patches()).toBe(before.patches);
    expect(hookOf(B_PROFILE)).toEqual(before.hook);
    expect(await b.built.deps.settings.getProfile(A, B_PROFILE)).toBeUndefined();
    expect(await b.built.deps.settings.claims.owner(B_PROFILE)).toBe(B);
  });

  it("cannot change its events with `/webhook events <profile> <event>` (no modal): refused, nothing sent", async () => {
    const before = { hook: structuredClone(hookOf(B_PROFILE)), requests: b.sandbox.requests.length };
    const r = await b.slash("/webhook", `events ${B_PROFILE} video.created`, A_ADMIN);
    const answer = await b.answer(r.responseUrl);
    expect(answer.response_type).toBe("ephemeral");
    expect(text(answer)).toContain("managed from another Slack workspace");
    expect(b.sandbox.requests.length).toBe(before.requests);
    expect(hookOf(B_PROFILE)).toEqual(before.hook);
  });

  it("cannot remove it with a forged button value", async () => {
    const before = { hook: structuredClone(hookOf(B_PROFILE)), patches: patches() };
    for (const action of [ACTIONS.webhookRemoveConfirm, ACTIONS.webhookRemove]) {
      const r = await b.press(action, B_PROFILE, A_ADMIN);
      expect(text(await b.answer(r.responseUrl))).toContain("managed from another Slack workspace");
    }
    expect(patches()).toBe(before.patches);
    expect(hookOf(B_PROFILE)).toEqual(before.hook);
    expect(await b.built.deps.settings.getProfile(B, B_PROFILE)).toBeDefined();
  });

  it("cannot send a test through it: the Test button only knows A's own profiles", async () => {
    const items = b.slack.callsTo("chat.postMessage").length;
    const r = await b.press(ACTIONS.webhookTest, B_PROFILE, A_ADMIN);
    const answer = text(await b.answer(r.responseUrl));
    expect(answer).toMatch(/not (set up|configured)|no webhook/i);
    await b.built.worker.drain();
    expect(b.slack.callsTo("chat.postMessage").length).toBe(items);
  });

  it("cannot change its events: the editor refuses when opened and when a forged submission names it", async () => {
    const before = patches();
    const r = await b.press(ACTIONS.webhookEditEvents, B_PROFILE, A_ADMIN);
    expect(r.status).toBe(200);
    const update = await eventually(
      async () =>
        b.slack
          .callsTo("views.update")
          .find((c) => JSON.stringify(c.args).includes("another Slack workspace")),
      8000,
      "the editor's refusal",
    );
    const viewId = String(update.args.view_id);
    // A submission of that modal with metadata naming B's profile (A's team, so it decodes).
    const body = viewSubmissionBody({
      callbackId: VIEWS.eventsModal,
      teamId: A,
      userId: A_ADMIN.user,
      viewId,
      privateMetadata: encodeMeta({
        teamId: A,
        profileId: B_PROFILE,
        original: hookOf(B_PROFILE)?.events ?? [],
      }),
      values: {
        [BLOCKS.events]: {
          [BLOCKS.eventsInput]: { type: "checkboxes", selected_options: [{ value: "video.deleted" }] },
        },
      },
    });
    const updates = b.slack.callsTo("views.update").length;
    expect((await sendSigned(`${b.url}/slack/events`, body, SIGNING_SECRET)).status).toBe(200);
    await eventually(
      async () => b.slack.callsTo("views.update").length > updates,
      8000,
      "the modal's answer",
    );
    expect(JSON.stringify(b.slack.callsTo("views.update").at(-1)?.args)).toContain("another Slack workspace");
    expect(patches()).toBe(before);
  });

  it("B can still change and remove it, which frees it for A", async () => {
    const r = await b.press(ACTIONS.webhookRemoveConfirm, B_PROFILE, B_ADMIN);
    expect(text(await b.answer(r.responseUrl))).not.toContain("another Slack workspace");
    expect(hookOf(B_PROFILE)?.callback_url ?? null).toBeNull();
    expect(await b.built.deps.settings.claims.owner(B_PROFILE)).toBeUndefined();
    const ra = await b.slash("/webhook", `set ${B_PROFILE}`, A_ADMIN);
    expect(text(await b.answer(ra.responseUrl))).not.toContain("⚠️");
    expect(await b.built.deps.settings.claims.owner(B_PROFILE)).toBe(A);
  });

  it("a set the platform refuses does not keep the claim", async () => {
    const r = await b.slash("/webhook", `set ${SEED.profiles.foreign}`, A_ADMIN);
    expect(text(await b.answer(r.responseUrl))).toContain("⚠️");
    expect(await b.built.deps.settings.claims.owner(SEED.profiles.foreign)).toBeUndefined();
  });
});
