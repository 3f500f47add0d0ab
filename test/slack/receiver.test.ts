/**
 * The receiver's guard and the stores behind the commands: bad signatures and stale timestamps are
 * rejected; the commands work the same on sqlite (a real file) and Redis (a real server); a store
 * that cannot be reached gets a plain answer and nothing reaches the platform.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { sendSigned, slackSignature, slashCommandBody } from "../../fakes/slack/index.js";
import { type Harness, SIGNING_SECRET, startHarness } from "../support/harness.js";

describe("request verification", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  const body = () =>
    slashCommandBody({
      command: "/live",
      text: `status ${SEED.livestreams.offAir}`,
      userId: "U0ADMIN",
      teamId: h.slack.teamId,
      channelId: "C0GENERAL",
      responseUrl: h.slack.newResponseUrl("C0GENERAL"),
    });

  it("rejects a wrong signature and calls nothing", async () => {
    const res = await sendSigned(h.eventsUrl, body(), "not-the-signing-secret");
    expect(res.status).toBe(401);
    await new Promise((r) => setTimeout(r, 200));
    expect(h.sandbox.requests).toHaveLength(0);
  });

  it("rejects a timestamp older than five minutes", async () => {
    const stale = Math.floor(Date.now() / 1000) - 6 * 60;
    const res = await sendSigned(h.eventsUrl, body(), SIGNING_SECRET, { timestamp: stale });
    expect(res.status).toBe(401);
  });

  it("rejects a body altered after signing", async () => {
    const signed = body();
    const ts = Math.floor(Date.now() / 1000);
    const signature = slackSignature(signed, SIGNING_SECRET, ts);
    const altered = signed.replace(SEED.livestreams.offAir, SEED.livestreams.onAirAdBreak);
    const res = await sendSigned(h.eventsUrl, altered, SIGNING_SECRET, { timestamp: ts, signature });
    expect(res.status).toBe(401);
  });

  it("serves /healthz", async () => {
    const res = await fetch(`${h.url}/healthz`);
    expect(res.status).toBe(200);
  });
});

describe.each([
  [
    "sqlite",
    () => ({
      kind: "sqlite" as const,
      path: join(mkdtempSync(join(tmpdir(), "bot-")), "s", "bot.sqlite"),
      url: "",
    }),
  ],
  ["redis", () => ({ kind: "redis" as const, url: "redis://127.0.0.1:6379/5" })],
])("commands on the %s store", (_name, storeUrl) => {
  let h: Harness;
  const store = storeUrl();
  beforeAll(async () => {
    h = await startHarness({
      store: store.kind === "sqlite" ? { ...store, url: `sqlite://${store.path}` } : store,
    });
  });
  afterAll(async () => {
    await h.built.deps.settings.removeProfile(h.slack.teamId, SEED.profiles.newsroom).catch(() => undefined);
    await h.close();
    if (store.kind === "sqlite") rmSync(join(store.path, "..", ".."), { recursive: true, force: true });
  });

  it("set then show reads the saved profile back", async () => {
    const set = await h.slash("/webhook", `set ${SEED.profiles.newsroom} created`, { channel: "C0NEWS" });
    expect((await h.answer(set.responseUrl)).response_type).toBe("in_channel");
    const show = await h.slash("/webhook", "show");
    const answer = await h.answer(show.responseUrl);
    expect(JSON.stringify(answer)).toContain(SEED.profiles.newsroom);
    expect(JSON.stringify(answer)).toContain("C0NEWS");
  });
});

describe("a store that cannot be reached", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ store: { kind: "redis", url: "redis://127.0.0.1:6390" } });
  });
  afterAll(async () => {
    await h.close();
  });

  it("answers that settings are unavailable, and nothing reaches the platform", async () => {
    const res = await h.slash("/webhook", `set ${SEED.profiles.newsroom}`, { user: "U0MEMBER" });
    expect(res.status).toBe(200);
    const answer = await h.answer(res.responseUrl);
    expect(answer.response_type).toBe("ephemeral");
    expect(JSON.stringify(answer)).toMatch(/settings are unavailable/i);
    expect(h.sandbox.requests.filter((r) => r.method === "PATCH")).toHaveLength(0);
  });
});
