/**
 * Access decided again whenever the bot acts: a restart of the bot on the same store with new
 * PROFILE_BINDINGS or ALLOWED_WORKSPACES, over real HTTP (signed Slack requests, the platform
 * sandbox, the bot's delivery route, a real sqlite file).
 *  - Deliveries on the old workspace's route are dead letters with the reason; nothing is posted
 *    in its channel; one warn line for the route, not one per delivery.
 *  - The claim of a workspace that may no longer act on the profile does not block the workspace
 *    now bound: its `/webhook set` takes the profile over (the platform points at its route, the
 *    claim is its); the old holder's `/webhook remove` is refused as not bound.
 *  - A claim's holder bound through its organization (PROFILE_BINDINGS by enterprise id) still
 *    counts: its enterprise is read from its installation.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { sendSigned, slashCommandBody } from "../../fakes/slack/index.js";
import type { Config, StoreUrl } from "../../src/config.js";
import { type OAuthBot, startOAuthBot } from "../oauth/helper.js";
import {
  type Bot,
  eventually,
  type Harness,
  PUBLIC_URL,
  SIGNING_SECRET,
  startBot,
  startHarness,
  waitFor,
} from "../support/harness.js";

const A = "T0STANDIN";
const B = "T0BETA";
const A_ADMIN = { team: A, user: "U0ADMIN", channel: "C0NEWS" };
const B_ADMIN = { team: B, user: "U0BETAADM", channel: "C0GENERAL" };
const PROFILE = SEED.profiles.newsroom;
const OTHER = SEED.profiles.studio;
const WORKER = { postIntervalMs: 20, coalesceMs: 100, pollMs: 20 };
const dirs: string[] = [];

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function sqliteStore(): StoreUrl {
  const dir = mkdtempSync(join(tmpdir(), "bot-revoke-"));
  dirs.push(dir);
  const path = join(dir, "bot.sqlite");
  return { kind: "sqlite", path, url: `sqlite://${path}` };
}

const json = (v: unknown) => JSON.stringify(v);

/** A signed `/webhook` command to `bot`; resolves with its first answer. */
async function webhook(h: Harness, bot: { url: string }, text: string, who: typeof A_ADMIN) {
  const responseUrl = h.slack.newResponseUrl(who.channel, who.user);
  const body = slashCommandBody({
    command: "/webhook",
    text,
    userId: who.user,
    teamId: who.team,
    channelId: who.channel,
    responseUrl,
  });
  const res = await sendSigned(`${bot.url}/slack/events`, body, SIGNING_SECRET);
  expect(res.status).toBe(200);
  return h.answer(responseUrl);
}

/** The profile's callback URL on the platform, and the route it names in the store. */
async function platformRoute(h: Harness, bot: Bot | Harness) {
  const url = h.sandbox.state.profiles.get(PROFILE)?.webhook.callback_url ?? "";
  const token = url.split("/").pop() ?? "";
  return { url, route: await bot.built.deps.callbacks.get(token) };
}

/** Delivers `video.created` for `videoId` to the platform's callback of the profile, on `bot`. */
async function deliver(bot: { url: string }, callbackUrl: string, videoId: string) {
  const res = await fetch(`${bot.url}${callbackUrl.slice(PUBLIC_URL.length)}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      type: "video.created",
      timestamp: Date.now(),
      data: { owner_id: PROFILE, video_id: videoId },
    }),
  });
  expect(res.status).toBe(200);
}

const postsMentioning = (h: Harness, channel: string, text: string) =>
  h.slack
    .callsTo("chat.postMessage")
    .filter((c) => c.args.channel === channel && json(c.args).includes(text));

const revokedLines = (h: Harness, reason: string) =>
  h.logs.filter((l) => l.includes("may no longer get this profile") && l.includes(`"reason":"${reason}"`));

/**
 * After the restart (`second`): A's deliveries are dead letters with `reason`, nothing posted in
 * A's channel, one line for the route; B's `/webhook set` takes the profile over.
 */
async function checkRevokedThenTakeover(h: Harness, second: Bot, reason: string) {
  const before = await platformRoute(h, second);
  expect(before.route?.teamId).toBe(A);
  for (const v of ["x7gone1", "x7gone2", "x7gone3"]) await deliver(second, before.url, v);
  await waitFor(() => revokedLines(h, reason).length > 0, 8000, "the revocation line");
  const letters = await eventually(
    async () => {
      const l = await second.outbox.listDead(A, 10);
      return l.length >= 3 && l;
    },
    8000,
    "three dead letters",
  );
  expect(letters.map((l) => l.reason)).toEqual([reason, reason, reason]);
  expect(letters.map((l) => l.item.delivery.data.video_id).sort()).toEqual(["x7gone1", "x7gone2", "x7gone3"]);
  expect(postsMentioning(h, A_ADMIN.channel, "x7gone")).toEqual([]);
  expect(revokedLines(h, reason)).toHaveLength(1);
  // Counted once each dead letter's write is durable (it may be read back a moment before).
  const counted = `bot_deliveries_total{stage="failed",result="${reason}"} 3`;
  await eventually(
    async () => (await second.metrics.registry.metrics()).includes(counted) || undefined,
    8000,
    "the three failures counted",
  );

  // B, now bound, takes the profile over.
  const set = await webhook(h, second, `set ${PROFILE}`, B_ADMIN);
  expect(set.response_type).toBe("in_channel");
  const after = await platformRoute(h, second);
  expect(after.route?.teamId).toBe(B);
  expect(after.route?.channelId).toBe(B_ADMIN.channel);
  expect(await second.built.deps.settings.claims.owner(PROFILE)).toBe(B);
  expect(h.logs.some((l) => l.includes("profile taken over"))).toBe(true);

  // Its deliveries reach B's channel.
  await deliver(second, after.url, "x7mine");
  await waitFor(() => postsMentioning(h, B_ADMIN.channel, "x7mine").length > 0, 8000, "B's post");
}

describe("restart with the profile moved from workspace A to B (PROFILE_BINDINGS)", () => {
  it("A's deliveries are dead-lettered, B takes the profile over, A's remove is refused as not bound", async () => {
    const store = sqliteStore();
    const h = await startHarness({
      store,
      worker: WORKER,
      env: { PROFILE_BINDINGS: `${A}=${PROFILE};${B}=${OTHER}` },
      // One bot token for two workspaces: an organization-wide install.
      orgWide: "E0ORG",
    });
    h.slack.addUser({ id: B_ADMIN.user, team_id: B, name: "beta-admin", is_admin: true });
    let second: Bot | undefined;
    try {
      await h.configureProfile({ channel: A_ADMIN.channel });
      // Before the move, B cannot set the profile (not bound).
      expect(json(await webhook(h, h, `set ${PROFILE}`, B_ADMIN))).toContain("not bound");
      await h.built.stop();

      const moved: Config = {
        ...h.config,
        access: { ...h.config.access, profileBindings: { [A]: [OTHER], [B]: [PROFILE] } },
      };
      second = await startBot(moved, h.logger, { store, worker: WORKER });
      await checkRevokedThenTakeover(h, second, "profile_not_bound");

      // A, no longer bound, cannot remove it.
      const removed = await webhook(h, second, `remove ${PROFILE}`, A_ADMIN);
      expect(json(removed)).toContain("not bound");
      expect(await second.built.deps.settings.claims.owner(PROFILE)).toBe(B);
    } finally {
      await second?.close();
      await h.close();
    }
  }, 60_000);
});

describe("restart with workspace A removed from ALLOWED_WORKSPACES (multi-workspace mode)", () => {
  it("A's deliveries are dead-lettered, B (bound too) takes the profile over", async () => {
    const store = sqliteStore();
    const b: OAuthBot = await startOAuthBot({ store });
    let second: Bot | undefined;
    try {
      expect((await b.install()).status).toBe(200);
      expect((await b.install(B)).status).toBe(200);
      b.slack.addUser({ id: B_ADMIN.user, team_id: B, name: "beta-admin", is_admin: true });
      expect((await webhook(b, b, `set ${PROFILE}`, A_ADMIN)).response_type).toBe("in_channel");
      // Both are bound (OAUTH_ENV): A's claim blocks B while A is allowed.
      expect(json(await webhook(b, b, `set ${PROFILE}`, B_ADMIN))).toContain("managed from another");
      await b.built.stop();

      second = await startBot(
        { ...b.config, access: { ...b.config.access, allowedWorkspaces: [B] } },
        b.logger,
        {
          store,
          worker: WORKER,
        },
      );
      await checkRevokedThenTakeover(b, second, "workspace_not_allowed");
    } finally {
      await second?.close();
      await b.close();
    }
  }, 60_000);
});

describe("a claim's holder bound through its organization (PROFILE_BINDINGS by enterprise id)", () => {
  it("still counts while the organization is bound; the claim moves once it is not", async () => {
    const store = sqliteStore();
    const b: OAuthBot = await startOAuthBot({
      store,
      env: { ALLOWED_WORKSPACES: `${A},${B}`, PROFILE_BINDINGS: `E0ACME=${PROFILE};${B}=${PROFILE}` },
    });
    let second: Bot | undefined;
    try {
      expect((await b.install()).status).toBe(200);
      expect((await b.install(B)).status).toBe(200);
      b.slack.addUser({ id: B_ADMIN.user, team_id: B, name: "beta-admin", is_admin: true });
      // A belongs to the organization E0ACME (its installation says so).
      const own = await b.installations.find({ teamId: A });
      if (!own) throw new Error("A is not installed");
      await b.installations.storeInstallation({ ...own, enterprise: { id: "E0ACME", name: "Acme" } });

      expect((await webhook(b, b, `set ${PROFILE}`, A_ADMIN)).response_type).toBe("in_channel");
      expect(await b.built.deps.settings.claims.owner(PROFILE)).toBe(A);
      // A is bound through E0ACME: its claim counts, B is refused and nothing changes.
      const refused = await webhook(b, b, `set ${PROFILE}`, B_ADMIN);
      expect(json(refused)).toContain("managed from another");
      expect((await platformRoute(b, b)).route?.teamId).toBe(A);
      await b.built.stop();

      second = await startBot(
        { ...b.config, access: { ...b.config.access, profileBindings: { [B]: [PROFILE] } } },
        b.logger,
        {
          store,
          worker: WORKER,
        },
      );
      expect((await webhook(b, second, `set ${PROFILE}`, B_ADMIN)).response_type).toBe("in_channel");
      expect(await second.built.deps.settings.claims.owner(PROFILE)).toBe(B);
      expect((await platformRoute(b, second)).route?.teamId).toBe(B);
    } finally {
      await second?.close();
      await b.close();
    }
  }, 60_000);
});
