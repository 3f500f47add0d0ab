/**
 * Single-workspace mode (one bot token): every request is decided for the token's own workspace
 * (auth.test), never for the `team_id` the payload carries. In a shared channel the payload names
 * the person's own workspace; before, an admin of that other organization counted as a manager
 * there: `/live ingest` showed them the stream key, `/webhook managers add` stored managers for a
 * workspace the bot is not in, and `/webhook set` could point a profile at their own URL.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { type Harness, startHarness } from "../support/harness.js";

const OURS = "T0STANDIN";
const THEIRS = "T0EXT";
/** An admin of the other organization, in one of our channels shared with it. */
const OUTSIDER = "U0EXTADMIN";
let h: Harness;

const text = (a: Record<string, unknown>) => JSON.stringify(a);

beforeAll(async () => {
  h = await startHarness();
  expect(h.slack.teamId).toBe(OURS);
  h.slack.addUser({ id: OUTSIDER, team_id: THEIRS, name: "eve", real_name: "Eve External", is_admin: true });
});
afterAll(async () => {
  await h?.close();
});

describe("single-workspace mode: a payload's team_id does not choose the workspace", () => {
  it("/live ingest by another organization's admin: refused as a member, no stream key", async () => {
    const res = await h.slash("/live", `ingest ${SEED.livestreams.onAirAdBreak}`, {
      user: OUTSIDER,
      team: THEIRS,
    });
    expect(res.status).toBe(200);
    const answer = await h.answer(res.responseUrl);
    expect(answer.response_type).toBe("ephemeral");
    expect(text(answer)).toMatch(/[Oo]nly managers/);
    expect(text(answer)).not.toContain(SEED.streamKey);
  });

  it("/webhook managers add by them: refused, no manager stored for either workspace", async () => {
    const res = await h.slash("/webhook", `managers add <@${OUTSIDER}>`, { user: OUTSIDER, team: THEIRS });
    const answer = await h.answer(res.responseUrl);
    expect(answer.response_type).toBe("ephemeral");
    expect(text(answer)).toMatch(/[Oo]nly managers/);
    const settings = h.built.deps.settings;
    expect(await settings.listManagers(THEIRS)).toEqual([]);
    expect((await settings.listManagers(OURS)).map((m) => m.userId)).not.toContain(OUTSIDER);
  });

  it("/webhook set by them: refused, the profile's webhook unchanged", async () => {
    const before = h.sandbox.state.profiles.get(SEED.profiles.studio)?.webhook.callback_url;
    const res = await h.slash("/webhook", `set ${SEED.profiles.studio} url=https://evil.example/steal`, {
      user: OUTSIDER,
      team: THEIRS,
    });
    const answer = await h.answer(res.responseUrl);
    expect(answer.response_type).toBe("ephemeral");
    expect(text(answer)).toMatch(/[Oo]nly managers/);
    expect(h.sandbox.state.profiles.get(SEED.profiles.studio)?.webhook.callback_url).toBe(before);
    expect(await h.built.deps.settings.claims.owner(SEED.profiles.studio)).toBeUndefined();
  });

  it("our own admin is decided for our workspace whatever team_id the payload names", async () => {
    const res = await h.slash("/live", `ingest ${SEED.livestreams.onAirAdBreak}`, {
      user: "U0ADMIN",
      team: THEIRS,
    });
    const answer = await h.answer(res.responseUrl);
    expect(text(answer)).toContain(SEED.streamKey);
  });
});
