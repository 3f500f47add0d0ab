/**
 * Workspaces and profiles (trust), multi-workspace mode, over real HTTP with a real sqlite file.
 * Workspaces A (T0STANDIN, bound to the newsroom profile) and B (T0BETA, bound to the studio
 * profile) both install through the real OAuth flow (the Slack stand-in issues each its token).
 *  - B cannot read A's livestream: `/live status`, `/live ingest` and Refresh answer exactly as
 *    for a livestream that does not exist, after exactly one GET, never the stream key;
 *  - B cannot show, set, change the events of, remove or test A's profile: nothing is sent;
 *  - a third workspace not in ALLOWED_WORKSPACES is refused on the redirect page, nothing stored;
 *  - B's stored installation, once B is removed from ALLOWED_WORKSPACES (restart with the same
 *    store), is refused at request time.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { ACTIONS } from "../../src/messages/index.js";
import { type OAuthBot, startOAuthBot } from "../oauth/helper.js";

const A = "T0STANDIN";
const B = "T0BETA";
const EVIL = "T0EVIL";
const A_ADMIN = { team: A, user: "U0ADMIN", channel: "C0NEWS" };
const B_ADMIN = { team: B, user: "U0BETAADM", channel: "C0GENERAL" };
const A_PROFILE = SEED.profiles.newsroom;
const A_LIVE = SEED.livestreams.onAirAdBreak; // newsroom's, on air, with a stream key
const B_PROFILE = SEED.profiles.studio;
const dir = mkdtempSync(join(tmpdir(), "bot-workspaces-"));
const store = {
  kind: "sqlite" as const,
  path: join(dir, "bot.sqlite"),
  url: `sqlite://${join(dir, "bot.sqlite")}`,
};
const env = (allowed: string) => ({
  ALLOWED_WORKSPACES: allowed,
  PROFILE_BINDINGS: `${A}=${A_PROFILE};${B}=${B_PROFILE}`,
});
let b: OAuthBot;

const json = (v: unknown) => JSON.stringify(v);
/** The answer with the livestream id masked (neither carries a correlation id). */
const masked = (answer: string, id: string) => answer.replaceAll(id, "<id>");
const gets = () => b.sandbox.requests.filter((r) => r.path.startsWith("/v2/livestreams/")).length;
const apiRequests = () => b.sandbox.requests.filter((r) => r.path !== "/v2/token").length;
/**
 * API requests but the key's own list of profiles (GET /me): a word that is no profile of the
 * workspace may be a profile's name, looked up there before the binding is checked.
 */
const notMe = (r: { path: string }) => r.path !== "/v2/token" && r.path !== "/v2/me";
const apiRequestsButMe = () => b.sandbox.requests.filter(notMe).length;

async function rawRows(): Promise<string> {
  const rows = (await b.store.backend.sqlite?.query("SELECT key, value FROM keyv")) as
    | Array<{ key: string; value: string }>
    | undefined;
  return JSON.stringify(rows ?? []);
}

beforeAll(async () => {
  b = await startOAuthBot({ env: env(`${A},${B}`), store });
  expect((await b.install()).status).toBe(200);
  expect((await b.install(B)).status).toBe(200);
  b.slack.addUser({ id: B_ADMIN.user, team_id: B, name: "beta-admin", is_admin: true });
  expect(await b.installations.find({ teamId: B })).toBeDefined();
});
afterAll(async () => {
  await b?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("B and A's livestream: answered exactly as a missing one, one GET", () => {
  /** What `who` sees for `text` on `command`, and how many GETs it cost. */
  async function ask(send: () => Promise<{ responseUrl: string }>) {
    // Each read goes to the platform (identical reads within 10 s are otherwise shared).
    b.built.deps.access.sharedReads.clear();
    const before = gets();
    const r = await send();
    const answer = json(await b.answer(r.responseUrl));
    return { answer, gets: gets() - before };
  }

  it("A itself reads it (the binding lets its own workspace through)", async () => {
    const own = await ask(() => b.slash("/live", `status ${A_LIVE}`, A_ADMIN));
    expect(own.answer).toContain('"in_channel"');
    expect(own.gets).toBe(1);
  });

  it.each([
    ["/live status", (id: string) => b.slash("/live", `status ${id}`, B_ADMIN)],
    ["/live ingest", (id: string) => b.slash("/live", `ingest ${id}`, B_ADMIN)],
    ["Refresh", (id: string) => b.press(ACTIONS.liveRefresh, id, B_ADMIN)],
  ])("%s", async (_name, send) => {
    const theirs = await ask(() => send(A_LIVE));
    const missing = await ask(() => send("x0nothere"));
    expect(theirs.gets).toBe(1);
    expect(missing.gets).toBe(1);
    expect(masked(theirs.answer, A_LIVE)).toBe(masked(missing.answer, "x0nothere"));
    expect(missing.answer).not.toMatch(/correlation/i);
    expect(theirs.answer).not.toContain(SEED.streamKey);
    expect(theirs.answer).not.toMatch(/rtmp|srt:\/\//i);
  });
});

describe("B and A's profile: refused, nothing sent to the platform", () => {
  it.each([
    ["show", `show ${A_PROFILE}`],
    ["set", `set ${A_PROFILE}`],
    ["events with events (finding 2)", `events ${A_PROFILE} video.created`],
    ["remove", `remove ${A_PROFILE}`],
    ["test", `test ${A_PROFILE}`],
  ])("/webhook %s", async (_name, text) => {
    const before = apiRequestsButMe();
    const r = await b.slash("/webhook", text, B_ADMIN);
    const answer = json(await b.answer(r.responseUrl));
    expect(answer).toContain("is not bound to this Slack workspace");
    expect(answer).toContain("ephemeral");
    expect(apiRequestsButMe()).toBe(before);
  });

  it("while B sets its own profile", async () => {
    const r = await b.slash("/webhook", `set ${B_PROFILE}`, B_ADMIN);
    expect(json(await b.answer(r.responseUrl))).toContain('"in_channel"');
  });
});

describe("installing", () => {
  it("a workspace not in ALLOWED_WORKSPACES is refused on the redirect page, nothing stored", async () => {
    const page = await b.install(EVIL);
    expect(page.status).toBe(403);
    expect(page.body).toContain(EVIL);
    expect(page.body).toContain("ALLOWED_WORKSPACES");
    expect(page.body).toMatch(/Nothing was stored/);
    expect(await b.installations.find({ teamId: EVIL })).toBeUndefined();
    const raw = await rawRows();
    expect(raw).toContain(A); // the raw store holds the allowed installations...
    expect(raw).not.toContain(EVIL); // ...and nothing of the refused one
    expect(raw).not.toContain(`xoxb-installed-${EVIL}`);
    // The token Slack issued before the refusal is revoked, not left valid and unkept.
    const revokes = b.slack.callsTo("auth.revoke").filter((c) => c.token?.includes(EVIL));
    expect(revokes.length).toBeGreaterThan(0);
    expect(b.slack.issuedTokens().some((t) => t.includes(EVIL))).toBe(false);
  });
});

describe("a workspace removed from ALLOWED_WORKSPACES after it installed", () => {
  it("is refused at request time (same store, restarted without it); A still works", async () => {
    await b.close();
    b = await startOAuthBot({ env: env(A), store });
    expect(await b.installations.find({ teamId: B })).toBeDefined();
    b.slack.addUser({ id: B_ADMIN.user, team_id: B, name: "beta-admin", is_admin: true });
    const before = apiRequests();
    for (const text of [`show ${B_PROFILE}`, `remove ${B_PROFILE}`]) {
      const r = await b.slash("/webhook", text, B_ADMIN);
      expect(json(await b.answer(r.responseUrl))).toContain("not allowed to use this bot");
    }
    const s = await b.slash("/live", `status ${SEED.livestreams.offAir}`, B_ADMIN);
    expect(json(await b.answer(s.responseUrl))).toContain("not allowed to use this bot");
    expect(apiRequests()).toBe(before);
    const a = await b.slash("/live", `status ${A_LIVE}`, A_ADMIN);
    expect(json(await b.answer(a.responseUrl))).toContain('"in_channel"');
  });
});

describe("ALLOWED_WORKSPACES=*", () => {
  it("is warned about at start-up; any workspace installs, but acts on no profile without a binding", async () => {
    const star = await startOAuthBot({
      env: { ALLOWED_WORKSPACES: "*", PROFILE_BINDINGS: `${A}=${A_PROFILE}` },
    });
    try {
      expect(star.logs.join("")).toMatch(/ALLOWED_WORKSPACES is \*/);
      expect((await star.install(EVIL)).status).toBe(200);
      const before = star.sandbox.requests.filter(notMe).length;
      const r = await star.slash("/webhook", `show ${A_PROFILE}`, { team: EVIL, user: "U0ADMIN" });
      expect(json(await star.answer(r.responseUrl))).toContain("is not bound to this Slack workspace");
      expect(star.sandbox.requests.filter(notMe).length).toBe(before);
    } finally {
      await star.close();
    }
  });
});
