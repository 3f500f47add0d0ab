/**
 * The one door to the platform (src/access/door.ts) against the platform sandbox over real HTTP:
 *  - every read method charges its cause before its request leaves: a person's read takes from
 *    their budget and their workspace's, a workspace's from the workspace's alone, a watch's from
 *    neither (the schedule pays it);
 *  - a cause over budget sends nothing: the read fails with the budget refusal (names: the id, or
 *    "unavailable"), and the refusals are counted;
 *  - a read paid for by `charge` is spent once; a livestream port without a cause sends nothing;
 *  - writes and the token check are not budgeted.
 */
import { describe, expect, it } from "vitest";
import { type Sandbox, SEED } from "../../fakes/platform/server.js";
import {
  type BudgetName,
  type BudgetSizes,
  type Cause,
  MemoryReadBudget,
  PlatformDoor,
  ReadRefusedError,
} from "../../src/access/index.js";
import { ManagedProfilesError, PlatformNames } from "../../src/platform/index.js";
import { sandboxClients } from "../platform/sandbox-clients.js";

let sb: Sandbox;
const sandbox = sandboxClients({
  started: (s) => {
    sb = s;
  },
});

const TEAM = "T0DOOR";
const USER = { user: { teamId: TEAM, userId: "U0DOOR" } } satisfies Cause;
const WORKSPACE = { workspace: TEAM } satisfies Cause;
const LIVE = SEED.livestreams.onAirAdBreak;
const PROFILE = SEED.profiles.newsroom;
const VIDEO = SEED.videos.published;

/** The API requests that reached the sandbox (the token service left out). */
const apiRequests = () => sb.requests.filter((r) => r.path.startsWith("/v2/") && r.path !== "/v2/token");

/** A door on the sandbox with budgets of `sizes` on a stopped clock: each take, and the requests sent by then. */
function door(sizes: BudgetSizes) {
  const client = sandbox.client(sb, ["live.read", "profile.manage", "video.read"]);
  const names = new PlatformNames({ client });
  const budget = new MemoryReadBudget(sizes, { now: () => 1_700_000_000_000 });
  const takes: Array<{ teamId: string; userId: string | undefined; sentBefore: number }> = [];
  const counted = {
    sizes,
    take: (teamId: string, userId?: string) => {
      takes.push({ teamId, userId, sentBefore: apiRequests().length });
      return budget.take(teamId, userId);
    },
  };
  const refused: BudgetName[] = [];
  const d = new PlatformDoor({ client, names, budget: counted, onBudgetRefused: (b) => refused.push(b) });
  return { door: d, takes, refused };
}

type Door = PlatformDoor;
/** Every read method of the door, for one cause. */
const READS: Array<[string, (d: Door, c: Cause) => Promise<unknown>]> = [
  ["getLivestream", (d, c) => d.getLivestream(c, LIVE, ["title", "profile.profile_id"])],
  ["getProfileWebhook", (d, c) => d.getProfileWebhook(c, PROFILE)],
  ["profile", (d, c) => d.profile(c, PROFILE)],
  ["managedProfiles", (d, c) => d.managedProfiles(c)],
];

describe("every read is charged to its cause before it is sent", () => {
  it.each(READS)("%s: a person's read takes their budget and their workspace's, first", async (_, read) => {
    const t = door({ perUserPerMinute: 5, perWorkspacePerMinute: 5 });
    await read(t.door, USER);
    expect(t.takes).toEqual([{ teamId: TEAM, userId: "U0DOOR", sentBefore: 0 }]);
    expect(apiRequests()).toHaveLength(1);
  });

  it.each(READS)("%s: a workspace's read takes the workspace's budget alone, first", async (_, read) => {
    const t = door({ perUserPerMinute: 5, perWorkspacePerMinute: 5 });
    await read(t.door, WORKSPACE);
    expect(t.takes).toEqual([{ teamId: TEAM, userId: undefined, sentBefore: 0 }]);
    expect(apiRequests()).toHaveLength(1);
  });

  it("a video title is charged to the workspace whose delivery named it, first", async () => {
    const t = door({ perUserPerMinute: 5, perWorkspacePerMinute: 5 });
    expect(await t.door.videoTitle(WORKSPACE, VIDEO, { profileId: PROFILE })).toEqual({
      title: SEED.videoTitles.published,
    });
    expect(t.takes).toEqual([{ teamId: TEAM, userId: undefined, sentBefore: 0 }]);
  });

  it("a watch's read takes no budget (the schedule pays it), even with the workspace's used up", async () => {
    const t = door({ perUserPerMinute: 1, perWorkspacePerMinute: 1 });
    await t.door.getLivestream(WORKSPACE, LIVE, ["title"]);
    const watch = t.door.livestreams((id) => ({ watch: id }));
    await watch.getLivestream(LIVE, ["title"]);
    await watch.getLivestream(LIVE, ["title"]);
    expect(t.takes).toHaveLength(1);
    expect(apiRequests()).toHaveLength(3);
  });
});

describe("a cause over budget sends nothing", () => {
  it("getLivestream, getProfileWebhook, videoTitle: the budget refusal, no request", async () => {
    const t = door({ perUserPerMinute: 1, perWorkspacePerMinute: 100 });
    await t.door.getLivestream(USER, LIVE, ["title"]);
    const sent = apiRequests().length;
    for (const read of [
      () => t.door.getLivestream(USER, LIVE, ["title"]),
      () => t.door.getProfileWebhook(USER, PROFILE),
    ]) {
      const err = await read().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ReadRefusedError);
      expect((err as ReadRefusedError).refusal).toMatchObject({ reason: "read_budget", budget: "user" });
    }
    const w = door({ perUserPerMinute: 100, perWorkspacePerMinute: 1 });
    await w.door.getProfileWebhook(WORKSPACE, PROFILE);
    const title = await w.door.videoTitle(WORKSPACE, VIDEO).catch((e: unknown) => e);
    expect((title as ReadRefusedError).refusal).toMatchObject({ reason: "read_budget", budget: "workspace" });
    expect(apiRequests()).toHaveLength(sent + 1);
    expect([...t.refused, ...w.refused]).toEqual(["user", "user", "workspace"]);
  });

  it("names: a profile shows its id, the managed profiles are unavailable; no request", async () => {
    const t = door({ perUserPerMinute: 1, perWorkspacePerMinute: 100 });
    await t.door.getProfileWebhook(USER, PROFILE);
    const sent = apiRequests().length;
    expect(await t.door.profile(USER, PROFILE)).toEqual({ profileId: PROFILE, label: PROFILE, known: false });
    const err = await t.door.managedProfiles(USER).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ManagedProfilesError);
    expect((err as ManagedProfilesError).problem).toBe("unavailable");
    expect(apiRequests()).toHaveLength(sent);
  });
});

describe("paid reads, ports, writes", () => {
  it("a read paid for by charge is made once; a refused charge pays for nothing", async () => {
    const t = door({ perUserPerMinute: 1, perWorkspacePerMinute: 100 });
    const c = await t.door.charge(USER);
    if (!c.ok) throw new Error("the first charge is refused");
    const port = t.door.livestreams();
    await port.getLivestream(LIVE, ["title"], { paid: c.paid });
    await expect(port.getLivestream(LIVE, ["title"], { paid: c.paid })).rejects.toThrow(TypeError);
    // Without a paid read or a cause, the port sends nothing.
    await expect(port.getLivestream(LIVE, ["title"])).rejects.toThrow(TypeError);
    expect(await t.door.charge(USER)).toMatchObject({ ok: false, budget: "user" });
    expect(apiRequests()).toHaveLength(1);
  });

  it("writes and the token check are not budgeted", async () => {
    const t = door({ perUserPerMinute: 1, perWorkspacePerMinute: 1 });
    await t.door.getProfileWebhook(WORKSPACE, PROFILE);
    await t.door.checkToken();
    const set = await t.door.setWebhook(PROFILE, {
      callback_url: "https://hooks.example.com/door",
      events: ["video.published"],
    });
    expect(set.events).toEqual(["video.published"]);
    expect((await t.door.updateWebhookEvents(PROFILE, ["video.created"])).events).toEqual(["video.created"]);
    expect((await t.door.removeWebhook(PROFILE)).callback_url).toBeNull();
    expect(t.takes).toHaveLength(1);
    expect(t.door.grantedScopes().length).toBeGreaterThan(0);
  });
});
