/**
 * Settings written before callback ids (profiles document version 1) kept the delivery route's token
 * in the clear. Such a document, planted in the store as the old bot wrote it, is converted and
 * rewritten at the first read: the token leaves the store, and show, deliveries, `/webhook test`
 * and remove go on working through the callback id. Over real HTTP with the memory store.
 */
import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { ACTIONS } from "../../src/messages/index.js";
import { configureProfile, memorySnapshot, post, videoMessages } from "../faults/support.js";
import { type Harness, startHarness, waitFor } from "../support/harness.js";

const NEWSROOM = SEED.profiles.newsroom;
const sha256hex = (s: string) => createHash("sha256").update(s).digest("hex");
const json = (v: unknown) => JSON.stringify(v);

describe("a version 1 profiles document (callback token in the clear)", () => {
  let h: Harness;
  let team: string;
  let key: string;

  beforeAll(async () => {
    h = await startHarness();
    team = h.slack.teamId;
    key = `team:${team}:profiles`;
  });
  afterAll(async () => {
    await h.close();
  });

  /** `/webhook set` in #C0NEWS, then the document rewritten as version 1 stored it. */
  async function plantLegacy(): Promise<{ hook: string; token: string; profile: Record<string, unknown> }> {
    const hook = await configureProfile(h, "C0NEWS");
    const token = hook.split("/").pop() ?? "";
    const doc = (await h.store.keyv.get(key)) as {
      v: number;
      profiles: Record<string, Record<string, unknown>>;
      defaultProfileId: string | null;
    };
    expect(doc.v).toBe(4);
    const { callbackId, subscriptions: _subs, ...rest } = doc.profiles[NEWSROOM] ?? {};
    expect(callbackId).toBe(sha256hex(token));
    await h.store.keyv.set(key, {
      v: 1,
      profiles: { [NEWSROOM]: { ...rest, callbackToken: token } },
      defaultProfileId: doc.defaultProfileId,
    });
    expect(storeText()).toContain(token);
    return { hook, token, profile: rest };
  }

  const storeText = () => [...memorySnapshot(h).entries()].flat().join("\n");

  it("is rewritten at the first read through SettingsRepo: the token is gone from the store", async () => {
    const { token, profile } = await plantLegacy();
    expect(await h.built.deps.settings.getProfile(team, NEWSROOM)).toEqual({
      ...profile,
      callbackId: sha256hex(token),
      // Through versions 2 and 3 to 4: the callback's channel with all its events.
      subscriptions: [
        {
          channelId: "C0NEWS",
          events: profile.events,
          presets: [],
          mention: null,
          setBy: profile.setBy,
          setAt: profile.setAt,
        },
      ],
    });
    const raw = (await h.store.keyv.get(key)) as { v: number };
    expect(raw.v).toBe(4);
    expect(json(raw)).toContain(sha256hex(token));
    expect(json(raw)).not.toContain(token);
    expect(storeText()).not.toContain(token);
    expect(h.logs.some((l) => l.includes("profiles document upgraded to version 4"))).toBe(true);
  });

  it("then show recognizes the route, deliveries and /webhook test reach the channel", async () => {
    const { hook, token } = await plantLegacy();
    // First read through a command this time.
    const show = await h.slash("/webhook", "show", { user: "U0ADMIN" });
    const shown = json(await h.answer(show.responseUrl));
    expect(shown).toContain("this bot → <#C0NEWS>");
    expect(shown).not.toContain("another address");
    expect(shown).not.toContain(token);
    expect(storeText()).not.toContain(token);

    const videoId = "x7legacy";
    const delivered = await post(hook, {
      type: "video.created",
      timestamp: Date.now(),
      data: { owner_id: NEWSROOM, video_id: videoId },
    });
    expect(delivered.status).toBe(200);
    await waitFor(
      () => videoMessages(h, "C0NEWS", videoId).parents.length === 1,
      8000,
      "the delivery posted",
    );

    const test = await h.slash("/webhook", "test", { user: "U0ADMIN" });
    const tested = json(await h.answer(test.responseUrl));
    expect(tested).toContain("Test lifecycle sent");
    const sample = /xtest[0-9a-f]{8}/.exec(tested)?.[0] ?? "";
    expect(sample).not.toBe("");
    await waitFor(() => videoMessages(h, "C0NEWS", sample).parents.length === 1, 8000, "the sample posted");
  });

  it("then remove deletes the route: the old URL gets 404 at once", async () => {
    const { hook, token } = await plantLegacy();
    expect(await h.built.deps.settings.listProfiles(team)).toHaveLength(1);
    expect(storeText()).not.toContain(token);
    const ask = await h.slash("/webhook", "remove", { user: "U0ADMIN" });
    await h.answer(ask.responseUrl);
    const press = await h.press(ACTIONS.webhookRemoveConfirm, NEWSROOM, { user: "U0ADMIN" });
    await h.answer(press.responseUrl);
    expect(h.sandbox.state.profiles.get(NEWSROOM)?.webhook.callback_url ?? null).toBeNull();
    expect(await h.built.deps.settings.getProfile(team, NEWSROOM)).toBeUndefined();
    expect(await h.built.deps.callbacks.get(token)).toBeUndefined();
    const late = await post(hook, {
      type: "video.created",
      timestamp: Date.now(),
      data: { owner_id: NEWSROOM, video_id: "x7late" },
    });
    expect(late.status).toBe(404);
    expect(storeText()).not.toContain(token);
  });
});
