/**
 * PlatformNames against the sandbox over real HTTP: profile labels (cached an hour, failures
 * briefly), the managed profiles (`GET /me`, cached 5 minutes, two plain failures), profiles by
 * id or name, and video titles (one shared read, three outcomes), every cache bounded.
 */
import { describe, expect, it } from "vitest";
import { type Sandbox, SEED, startSandbox } from "../../fakes/platform/server.js";
import {
  ManagedProfilesError,
  type NamesOptions,
  type PlatformClientOptions,
  PlatformNames,
  resolveProfile,
} from "../../src/platform/index.js";
import { sandboxClients } from "./sandbox-clients.js";

const P = SEED.profiles;
const V = SEED.videos;
let sb: Sandbox;
let clock = 0;
const sandbox = sandboxClients({
  started: (s) => {
    sb = s;
  },
  reset: () => {
    clock = 1_700_000_000_000;
  },
});

function names(
  extra: Partial<NamesOptions> = {},
  clientExtra: Partial<PlatformClientOptions> = {},
  target = sb,
) {
  const client = sandbox.client(target, ["live.read", "profile.manage", "video.read"], clientExtra);
  return new PlatformNames({ client, now: () => clock, ...extra });
}

const reads = (prefix: string) =>
  sb.requests.filter((r) => r.method === "GET" && r.path.startsWith(prefix)).length;
const MINUTE = 60_000;

describe("profileName", () => {
  it("shows display_name, else name, else the id", async () => {
    const n = names();
    expect(await n.profileName(P.newsroom)).toBe("Northwind News");
    const studio = sb.state.profiles.get(P.studio);
    if (studio === undefined) throw new Error("seed");
    studio.display_name = null;
    expect(await n.profileName(P.studio)).toBe("northwind-studio");
    expect(await n.profile(P.studio)).toEqual({
      profileId: P.studio,
      name: "northwind-studio",
      label: "northwind-studio",
      known: true,
    });
    // Another owner's profile is not visible (404): its id.
    expect(await n.profileName(P.foreign)).toBe(P.foreign);
  });

  it("is read once an hour, however many callers, concurrent or not", async () => {
    const n = names();
    const all = await Promise.all(Array.from({ length: 20 }, () => n.profileName(P.newsroom)));
    expect(new Set(all)).toEqual(new Set(["Northwind News"]));
    expect(reads("/v2/profiles/")).toBe(1);
    clock += 59 * MINUTE;
    await n.profileName(P.newsroom);
    expect(reads("/v2/profiles/")).toBe(1);
    clock += 2 * MINUTE;
    const newsroom = sb.state.profiles.get(P.newsroom);
    if (newsroom === undefined) throw new Error("seed");
    newsroom.display_name = "Northwind News 24";
    expect(await n.profileName(P.newsroom)).toBe("Northwind News 24");
    expect(reads("/v2/profiles/")).toBe(2);
  });

  it("a failing platform shows the id, remembered as long as a label (an hour)", async () => {
    const n = names();
    sb.addFault({ path: "/v2/profiles", status: 503 });
    expect(await n.profile(P.newsroom)).toEqual({ profileId: P.newsroom, label: P.newsroom, known: false });
    const afterFailure = reads("/v2/profiles/");
    expect(afterFailure).toBe(3); // the transport's three attempts
    sb.clearFaults();
    expect(await n.profileName(P.newsroom)).toBe(P.newsroom);
    expect(reads("/v2/profiles/")).toBe(afterFailure);
    clock += MINUTE + 1;
    expect(await n.profileName(P.newsroom)).toBe(P.newsroom);
    expect(reads("/v2/profiles/")).toBe(afterFailure);
    clock += 59 * MINUTE;
    expect(await n.profileName(P.newsroom)).toBe("Northwind News");
  });

  it("a read to make is charged first; refused, the id is shown and nothing is kept", async () => {
    const n = names();
    let allow = false;
    const charge = async () => allow;
    expect(await n.profile(P.newsroom, { charge })).toEqual({
      profileId: P.newsroom,
      label: P.newsroom,
      known: false,
    });
    expect(reads("/v2/profiles/")).toBe(0);
    allow = true;
    expect(await n.profileName(P.newsroom, { charge })).toBe("Northwind News");
    expect(reads("/v2/profiles/")).toBe(1);
    // Cached: no charge asked, no read.
    allow = false;
    expect(await n.profileName(P.newsroom, { charge })).toBe("Northwind News");
    expect(reads("/v2/profiles/")).toBe(1);
  });

  it("keeps at most maxProfiles labels, dropping the oldest", async () => {
    const n = names({ maxProfiles: 1 });
    await n.profileName(P.newsroom);
    await n.profileName(P.studio);
    await n.profileName(P.studio);
    expect(reads("/v2/profiles/")).toBe(2);
    await n.profileName(P.newsroom);
    expect(reads("/v2/profiles/")).toBe(3);
  });

  it("a caller whose signal aborts gets the id at once; the read goes on for the others", async () => {
    const n = names();
    // A slow read (2 s): "at once" is judged against it, not in milliseconds.
    sb.addFault({ path: "/v2/profiles", latencyMs: 2000, times: 1 });
    const other = n.profileName(P.newsroom);
    let otherAnswered = false;
    void other.then(() => {
      otherAnswered = true;
    });
    expect(await n.profileName(P.newsroom, { signal: AbortSignal.timeout(50) })).toBe(P.newsroom);
    // The aborted caller did not wait for the read: it is still in flight, unanswered.
    expect(otherAnswered).toBe(false);
    expect(sb.requests.filter((r) => r.path.startsWith("/v2/profiles/")).map((r) => r.status)).toEqual([0]);
    expect(await other).toBe("Northwind News");
    expect(reads("/v2/profiles/")).toBe(1);
  });
});

describe("managedProfiles", () => {
  it("lists the key's profiles from GET /me, cached 5 minutes", async () => {
    const n = names();
    const expected = [
      { profileId: P.newsroom, name: "northwind-news" },
      { profileId: P.studio, name: "northwind-studio" },
    ];
    expect(await n.managedProfiles()).toEqual(expected);
    await Promise.all([n.managedProfiles(), n.managedProfiles()]);
    clock += 4 * MINUTE;
    expect(await n.managedProfiles()).toEqual(expected);
    expect(reads("/v2/me")).toBe(1);
    clock += 2 * MINUTE;
    await n.managedProfiles();
    expect(reads("/v2/me")).toBe(2);
  });

  it('a key that manages none is the "no_profile" problem', async () => {
    const n = names(
      {},
      { clientId: SEED.clients.reader.clientId, clientSecret: SEED.clients.reader.clientSecret },
    );
    const err = await n.managedProfiles().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ManagedProfilesError);
    expect(err).toMatchObject({ problem: "no_profile", message: "The platform key manages no profile" });
  });

  it('a failing platform is the "unavailable" problem with its error, remembered as long as a list', async () => {
    const n = names();
    sb.addFault({ path: "/v2/me", status: 502 });
    const err = await n.managedProfiles().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ManagedProfilesError);
    expect((err as ManagedProfilesError).problem).toBe("unavailable");
    expect((err as ManagedProfilesError).platformError?.status).toBe(502);
    sb.clearFaults();
    const again = await n.managedProfiles().catch((e: unknown) => e);
    expect((again as ManagedProfilesError).problem).toBe("unavailable");
    expect(reads("/v2/me")).toBe(3); // the first read's three attempts, nothing since
    clock += 5 * MINUTE + 1;
    expect(await n.managedProfiles()).toHaveLength(2);
  });
});

describe("resolveProfile", () => {
  const candidates = [
    { profileId: P.newsroom, name: "northwind-news" },
    { profileId: P.studio, name: "northwind-studio" },
  ];
  it("takes an id or a name, case-insensitive, over the candidates", () => {
    expect(resolveProfile(P.studio, candidates)?.profileId).toBe(P.studio);
    expect(resolveProfile("  NorthWind-News ", candidates)?.profileId).toBe(P.newsroom);
    expect(names().resolveProfile("northwind-studio", candidates)?.profileId).toBe(P.studio);
    expect(resolveProfile("northwind", candidates)).toBeUndefined();
    expect(resolveProfile(P.foreign, candidates)).toBeUndefined();
    expect(resolveProfile("", candidates)).toBeUndefined();
  });
  it("an id wins over a name that looks like it", () => {
    const tricky = [
      { profileId: "x1", name: "x2" },
      { profileId: "x2", name: "other" },
    ];
    expect(resolveProfile("x2", tricky)?.profileId).toBe("x2");
  });
});

describe("videoTitle", () => {
  it("reads the title with one sparse GET, shared by concurrent callers", async () => {
    const n = names();
    const all = await Promise.all(Array.from({ length: 20 }, () => n.videoTitle(V.published)));
    expect(all.every((t) => "title" in t && t.title === SEED.videoTitles.published)).toBe(true);
    const videoReads = sb.requests.filter((r) => r.path.startsWith("/v2/videos/"));
    expect(videoReads.map((r) => `${r.path} ${r.query.fields}`)).toEqual([
      `/v2/videos/${V.published} title,profile.profile_id`,
    ]);
    // No caching beyond the read in flight: the video's state keeps the title.
    await n.videoTitle(V.published);
    expect(reads("/v2/videos/")).toBe(2);
    expect(await n.videoTitle(V.tricky)).toEqual({ title: SEED.videoTitles.tricky });
  });

  it("404 is notConfirmed; a title that is not a string is a confirmed video without title", async () => {
    const n = names();
    expect(await n.videoTitle("x0nothere")).toEqual({ notConfirmed: true });
    sb.addFault({ path: "/v2/videos", body: "schema-mismatch", times: 1 });
    expect(await n.videoTitle(V.published)).toEqual({ title: null });
  });

  it("403, 422, 5xx and timeouts are unknown, with the reason", async () => {
    const n = names();
    sb.addFault({ path: "/v2/videos", status: 503 });
    expect(await n.videoTitle(V.published)).toMatchObject({ unknown: "unavailable", error: { status: 503 } });
    sb.clearFaults();
    sb.addFault({ path: "/v2/videos", latencyMs: 1500, times: 1 });
    const slow = names({}, { timeouts: { connectMs: 1000, headersMs: 300, bodyMs: 300 }, maxAttempts: 1 });
    expect(await slow.videoTitle(V.published)).toMatchObject({ unknown: "timeout" });
    sb.clearFaults();
    expect(await n.videoTitle("bad/id")).toMatchObject({ unknown: "invalid" });
    expect(await n.videoTitle(V.studio)).toEqual({ title: SEED.videoTitles.studio });
  });

  it("a token whose scope claims to cover video.read but is refused (403) pauses title reads", async () => {
    const odd = await startSandbox({ grantScope: () => "live.read profile.manage bundle.custom" });
    try {
      const n = names({ forbiddenPauseMs: 10 * MINUTE }, {}, odd);
      expect(await n.videoTitle(V.published)).toMatchObject({ unknown: "forbidden", error: { status: 403 } });
      expect(await n.videoTitle(V.studio)).toEqual({ unknown: "forbidden" });
      expect(odd.requests.filter((r) => r.path.startsWith("/v2/videos/"))).toHaveLength(1);
      clock += 10 * MINUTE + 1;
      await n.videoTitle(V.studio);
      expect(odd.requests.filter((r) => r.path.startsWith("/v2/videos/"))).toHaveLength(2);
    } finally {
      await odd.close();
    }
  });

  it("without video.read nothing is asked: unknown no_scope", async () => {
    sb.setKeyScopes({ scopes: ["live.read", "profile.manage"], onMissing: "refuse" });
    const n = names();
    expect(await n.videoTitle(V.published)).toEqual({ unknown: "no_scope" });
    expect(await n.videoTitle(V.studio)).toEqual({ unknown: "no_scope" });
    expect(reads("/v2/videos/")).toBe(0);
  });

  it("cuts a title longer than the platform's 255 characters", async () => {
    sb.putVideo({ video_id: "x7long", profile_id: P.newsroom, title: "é".repeat(300) });
    const t = await names().videoTitle("x7long");
    expect("title" in t && t.title !== null && [...t.title].length).toBe(255);
    expect("title" in t && t.title?.endsWith("…")).toBe(true);
  });

  it("a caller's signal stops its wait only; past maxTitleReads in flight a title is busy", async () => {
    const n = names({ maxTitleReads: 1 });
    sb.addFault({ path: "/v2/videos", latencyMs: 400, times: 1 });
    const shared = n.videoTitle(V.published);
    expect(await n.videoTitle(V.published, { signal: AbortSignal.timeout(30) })).toEqual({
      unknown: "cancelled",
    });
    expect(await n.videoTitle(V.studio)).toEqual({ unknown: "busy" });
    expect(await shared).toEqual({ title: SEED.videoTitles.published });
    expect(await n.videoTitle(V.studio)).toEqual({ title: SEED.videoTitles.studio });
  });
});
