/**
 * The token's granted `scope` decides what the bot tries, against the sandbox over real HTTP:
 * a key with `video.read`, a key granted without it, and a token service that refuses the request
 * because of it (`invalid_scope`: asked again without it, said once in the log). Nothing else
 * breaks.
 */
import { describe, expect, it } from "vitest";
import { type Sandbox, SEED, startSandbox } from "../../fakes/platform/server.js";
import { createLogger } from "../../src/log.js";
import { PlatformClient, type PlatformClientOptions, PlatformError } from "../../src/platform/index.js";
import { sandboxClients, TIMEOUTS } from "./sandbox-clients.js";

const DEFAULT_SCOPES = ["live.read", "profile.manage", "video.read"];
const WITHOUT_VIDEO = ["live.read", "profile.manage"];
let sb: Sandbox;
let lines: Array<Record<string, unknown>> = [];
const sandbox = sandboxClients({
  started: (s) => {
    sb = s;
  },
  reset: () => {
    lines = [];
  },
});

function client(extra: Partial<PlatformClientOptions> = {}): PlatformClient {
  return sandbox.client(sb, DEFAULT_SCOPES, {
    logger: createLogger({
      level: "debug",
      destination: { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) },
      secrets: [sb.clientSecret],
    }),
    ...extra,
  });
}

const tokenForms = () => sb.requests.filter((r) => r.path === "/v2/token");
const warnings = () => lines.filter((l) => l.level === "warn").map((l) => String(l.msg));
const errors = () => lines.filter((l) => l.level === "error");

/** Everything but titles: a livestream read, the webhook read and write, the profile list. */
async function everythingElseWorks(c: PlatformClient): Promise<void> {
  expect((await c.getLivestream(SEED.livestreams.offAir, ["title"])).title).toBe(
    "Studio Session: Late Night Acoustic",
  );
  const set = await c.setWebhook(SEED.profiles.newsroom, {
    callback_url: "https://bot.example.com/hooks/platform/abc",
    events: ["video.created"],
  });
  expect(set.events).toEqual(["video.created"]);
  expect((await c.getMe()).profiles).toHaveLength(2);
  expect((await c.getProfile(SEED.profiles.studio, ["display_name"])).display_name).toBe("Northwind Studio");
}

describe("a key with video.read", () => {
  it("asks for it, is granted it, and reads titles; nothing is said about it", async () => {
    const c = client();
    expect(await c.can("video.read")).toBe(true);
    expect(c.grantedScopes()).toEqual(DEFAULT_SCOPES);
    expect(c.withheldScopes()).toEqual([]);
    expect(tokenForms()).toHaveLength(1);
    expect((await c.getVideo(SEED.videos.published, ["title"])).title).toBe(SEED.videoTitles.published);
    expect(warnings()).toEqual([]);
  });

  it("a bundle grant is taken to cover video.read", async () => {
    const bundle = await startSandbox({ grantScope: () => "bundle.publisher" });
    try {
      const c = new PlatformClient({
        apiUrl: bundle.apiUrl,
        authUrl: bundle.url,
        clientId: bundle.clientId,
        clientSecret: bundle.clientSecret,
        scopes: DEFAULT_SCOPES,
        timeouts: TIMEOUTS,
        logger: createLogger({ level: "silent" }),
      });
      sandbox.track(c);
      expect(await c.can("video.read")).toBe(true);
      expect(c.withheldScopes()).toEqual([]);
    } finally {
      await bundle.close();
    }
  });
});

describe("a key granted without video.read (the token's scope leaves it out)", () => {
  it("can('video.read') is false, it is said once with how to grant it, and nothing else breaks", async () => {
    sb.setKeyScopes({ scopes: WITHOUT_VIDEO, onMissing: "narrow" });
    const c = client();
    expect(await c.can("video.read")).toBe(false);
    expect(await c.can("live.read")).toBe(true);
    expect(c.grantedScopes()).toEqual(WITHOUT_VIDEO);
    expect(c.withheldScopes()).toEqual([{ scope: "video.read", reason: "not_granted" }]);
    await everythingElseWorks(c);
    // A new token (expiry) is asked for with video.read again, granted without it again: not said twice.
    sb.expireAllTokens();
    await c.getLivestream(SEED.livestreams.offAir, ["title"]);
    expect(tokenForms()).toHaveLength(2);
    const said = warnings().filter((w) => w.includes("video.read"));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain("videos are named by their id");
    expect(said[0]).toContain("management console");
    expect(errors()).toEqual([]);
  });
});

describe("a token service that refuses video.read (invalid_scope)", () => {
  it("asks again without it, says so once, and nothing else breaks", async () => {
    sb.setKeyScopes({ scopes: WITHOUT_VIDEO, onMissing: "refuse" });
    const c = client();
    expect(await c.can("video.read")).toBe(false);
    expect(tokenForms().map((r) => r.status)).toEqual([400, 200]);
    expect(c.tokens.requestedScopes).toEqual(WITHOUT_VIDEO);
    expect(c.withheldScopes()).toEqual([{ scope: "video.read", reason: "refused" }]);
    await everythingElseWorks(c);
    // Later tokens are asked for without video.read straight away: one request each, nothing said.
    sb.expireAllTokens();
    await c.getLivestream(SEED.livestreams.offAir, ["title"]);
    expect(tokenForms().map((r) => r.status)).toEqual([400, 200, 200]);
    const said = warnings().filter((w) => w.includes("video.read"));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain("refused");
    expect(said[0]).toContain("management console");
    expect(errors()).toEqual([]);
    expect(JSON.stringify(lines)).not.toContain(sb.clientSecret);
  });

  it("a refusal that stands without video.read, or has nothing to drop, is reported (one error line)", async () => {
    sb.setKeyScopes({ scopes: ["live.read"], onMissing: "refuse" });
    const refused = async (c: PlatformClient) => {
      const err = await c.checkToken().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(PlatformError);
      expect((err as PlatformError).code).toBe("invalid_scope");
    };
    await refused(client());
    expect(tokenForms().map((r) => r.status)).toEqual([400, 400]);
    expect(errors()).toHaveLength(1);
    // Without video.read among the scopes there is nothing to drop: one request.
    sb.reset();
    lines = [];
    await refused(client({ scopes: ["live.read", "live.write"] }));
    expect(tokenForms()).toHaveLength(1);
    expect(errors()).toHaveLength(1);
  });
});

describe("video.read not asked for", () => {
  it("is said once, pointing at PLATFORM_SCOPES", async () => {
    const c = client({ scopes: WITHOUT_VIDEO });
    expect(await c.can("video.read")).toBe(false);
    expect(c.withheldScopes()).toEqual([{ scope: "video.read", reason: "not_requested" }]);
    const said = warnings().filter((w) => w.includes("video.read"));
    expect(said).toHaveLength(1);
    expect(said[0]).toContain("PLATFORM_SCOPES");
  });
});
