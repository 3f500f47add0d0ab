import { WebClient } from "@slack/web-api";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { workerClientOptions } from "../../src/install/oauth.js";
import { openStore, type Store } from "../../src/store/index.js";
import { WatchService, type WatchServiceOptions } from "../../src/watch/service.js";
import { type Harness, startHarness, waitFor } from "../support/harness.js";
import { afterPolls, getsWithin, nextReadAnswered, untilElapsed } from "../support/polls.js";

const INTERVAL = 200;
const GRACE = 600;
const A = SEED.livestreams.offAir;
const B = SEED.livestreams.geoRestricted;
const CH1 = "C0GENERAL";
const CH2 = "C0NEWS";

let h: Harness;
const services: WatchService[] = [];
const extraStores: Store[] = [];
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});
let store: Store;
beforeEach(async () => {
  h.sandbox.reset();
  h.slack.reset();
  store = await openStore({ kind: "memory", url: "memory://" }, h.logger);
  extraStores.push(store);
});
afterEach(async () => {
  for (const s of services.splice(0)) await s.stop();
  for (const s of extraStores.splice(0)) await s.close();
});

function service(o: Partial<WatchServiceOptions> = {}): WatchService {
  const slack = new WebClient(h.slack.botToken, workerClientOptions(h.slack.apiUrl));
  const s = new WatchService({
    store,
    logger: h.logger,
    platform: h.platform,
    slackFor: async () => slack,
    access: h.built.deps.access,
    intervalMs: INTERVAL,
    graceMs: GRACE,
    ...o,
  });
  services.push(s);
  return s;
}

const team = () => h.slack.teamId;
const parents = (ch: string) =>
  h.slack.messages(ch).filter((m) => m.thread_ts === undefined || m.thread_ts === m.ts);
const replies = (ch: string) =>
  h.slack.messages(ch).filter((m) => m.thread_ts !== undefined && m.thread_ts !== m.ts);
const gets = (id: string) =>
  h.sandbox.requests.filter((r) => r.method === "GET" && r.path === `/v2/livestreams/${id}`);

describe("live watch", () => {
  it("announces go-live within one interval, updates in place, ends after the grace with a summary", async () => {
    const s = service();
    await s.watch({ teamId: team(), channelId: CH1, livestreamId: A, by: "U0ADMIN" });
    await s.watch({ teamId: team(), channelId: CH2, livestreamId: A, by: "U0ADMIN" });
    await s.start();
    await afterPolls(h, A, 2); // two polls of the off-air livestream handled
    expect(parents(CH1)).toHaveLength(0);
    const t0 = Date.now();
    h.sandbox.live(A, { action: "on_air" });
    await waitFor(() => parents(CH1).length === 1 && parents(CH2).length === 1, 10_000, "announcement");
    // Within one interval, counted in polls rather than milliseconds (a loaded machine delays
    // timers, not the order of things): the first poll that went out after the go-live announced
    // it, so at most one GET of the livestream started between the go-live and the announcement.
    const announced = h.slack
      .callsTo("chat.postMessage")
      .find((c) => c.args.channel === CH1 && String(c.args.text).includes("is live"));
    expect(announced).toBeDefined();
    const pollsBefore = gets(A).filter((r) => r.at >= t0 && r.at <= (announced?.at ?? 0));
    expect(pollsBefore.length, "polls between the go-live and its announcement").toBeLessThanOrEqual(1);
    expect(parents(CH1)[0]?.text).toContain("is live");
    h.sandbox.live(A, { action: "recording", status: "started" });
    await waitFor(() => replies(CH1).some((m) => m.text.includes("Recording started")), 3000, "milestone");
    h.sandbox.live(A, { action: "off_air" });
    await waitFor(() => parents(CH1)[0]?.text.includes("ended"), 4000, "ended in place");
    await waitFor(() => replies(CH1).some((m) => m.text.includes("Ended after")), 3000, "summary");
    expect(parents(CH1)).toHaveLength(1);
    expect(parents(CH2)).toHaveLength(1);
    expect((await s.list(team())).map((w) => w.state)).toEqual(["off_air", "off_air"]);
  });

  it("polls each livestream once per interval however many channels watch it", async () => {
    const s = service();
    for (const ch of [CH1, CH2, "C0PUBLICONLY"]) {
      await s.watch({ teamId: team(), channelId: ch, livestreamId: A, by: "U0ADMIN" });
    }
    await s.start();
    await afterPolls(h, A, 1); // past the start's spread
    // A rate: the reads that started in 2 s of wall time, as the schedule measures it.
    const n = await getsWithin(h, A, 2000);
    // 2000 / 200 = 10 intervals (±10 % jitter): one GET each, not three.
    expect(n).toBeGreaterThanOrEqual(7);
    expect(n).toBeLessThanOrEqual(12);
  });

  it("a flap inside the grace and a restart on the same store keep one message", async () => {
    let s = service();
    await s.watch({ teamId: team(), channelId: CH1, livestreamId: A, by: "U0ADMIN" });
    await s.start();
    h.sandbox.live(A, { action: "on_air", at: new Date(Date.now() - 60_000).toISOString() });
    await waitFor(() => parents(CH1).length === 1, 3000, "announcement");
    h.sandbox.live(A, { action: "off_air" });
    await nextReadAnswered(h, A); // the poller saw it off air: the grace runs
    h.sandbox.live(A, { action: "on_air" }); // reconnect: airing_at moves (a new second)
    // The grace (measured in wall time by the poller) passed twice over, six polls handled (as
    // many as GRACE * 2 holds), and one more poll handled after that.
    const onAgain = Date.now();
    await Promise.all([untilElapsed(onAgain, GRACE * 2), afterPolls(h, A, 6)]);
    await afterPolls(h, A, 1);
    expect(parents(CH1)).toHaveLength(1);
    expect(parents(CH1)[0]?.text).toContain("is live");
    await s.stop();
    // "Restart": a new service on the same store. The memory registry lives in its service, not
    // in the store (src/watch/registry-for.ts), so it is handed over as a persistent store keeps it;
    // without it the new service watches nothing and no poll would ever come to count.
    s = service({ registry: s.registry });
    await s.start();
    await afterPolls(h, A, 5);
    expect(parents(CH1)).toHaveLength(1);
  });

  it("the off-air grace runs on the service's clock: the default 60 s, passed by moving the clock, not by waiting", async () => {
    let offset = 0;
    const s = service({ graceMs: 60_000, now: () => Date.now() + offset });
    await s.watch({ teamId: team(), channelId: CH1, livestreamId: A, by: "U0ADMIN" });
    await s.start();
    h.sandbox.live(A, { action: "on_air" });
    await waitFor(() => parents(CH1).length === 1, 10_000, "announcement");
    h.sandbox.live(A, { action: "off_air" });
    await afterPolls(h, A, 1); // a poll saw it off air: the grace runs from there
    // Ten seconds short of the grace: the wall time these polls take on a loaded machine (a few
    // hundred ms, seconds at worst) runs on top of the moved clock.
    offset += 50_000;
    await afterPolls(h, A, 2);
    expect(parents(CH1)[0]?.text).toContain("is live");
    expect(parents(CH1)[0]?.text).not.toContain("ended");
    offset += 20_000; // past it
    await afterPolls(h, A, 2);
    expect(parents(CH1)[0]?.text).toContain("ended");
    expect(parents(CH1)).toHaveLength(1);
  });

  it("a broadcast that started while the bot was down is announced as live since its real start", async () => {
    const real = new Date(Date.now() - 30 * 60_000).toISOString();
    h.sandbox.live(A, { action: "on_air", at: real });
    const s = service();
    await s.watch({ teamId: team(), channelId: CH1, livestreamId: A, by: "U0ADMIN" });
    await s.start();
    await waitFor(() => parents(CH1).length === 1, 3000, "announcement");
    expect(JSON.stringify(parents(CH1)[0]?.blocks)).toContain("for 30 min");
  });

  it("a 429 on one livestream does not slow another", async () => {
    const s = service();
    await s.watch({ teamId: team(), channelId: CH1, livestreamId: A, by: "U0ADMIN" });
    await s.watch({ teamId: team(), channelId: CH1, livestreamId: B, by: "U0ADMIN" });
    h.sandbox.addFault({ path: `/v2/livestreams/${A}`, status: 429, retryAfterSeconds: 30 });
    await s.start();
    await afterPolls(h, B, 1);
    expect(await getsWithin(h, B, 2000)).toBeGreaterThanOrEqual(7);
    expect(s.health().failing.map((f) => f.livestreamId)).toEqual([A]);
  });
});

describe("live watch on one Redis, two replicas", () => {
  it("exactly one replica polls each livestream and one message is posted", async () => {
    const ns = `watch-test-${process.pid}-${Date.now()}`;
    const url = { kind: "redis" as const, url: "redis://127.0.0.1:6379" };
    const s1 = await openStore(url, h.logger, { namespace: ns });
    const s2 = await openStore(url, h.logger, { namespace: ns });
    extraStores.push(s1, s2);
    const r1 = service({ store: s1 });
    const r2 = service({ store: s2 });
    await r1.watch({ teamId: team(), channelId: CH1, livestreamId: A, by: "U0ADMIN" });
    await r2.watch({ teamId: team(), channelId: CH2, livestreamId: A, by: "U0ADMIN" });
    await Promise.all([r1.start(), r2.start()]);
    await afterPolls(h, A, 1);
    h.sandbox.live(A, { action: "on_air" });
    const n = await getsWithin(h, A, 2000);
    // About 10 polls in 2 s at a 200 ms interval; a loaded machine may manage fewer, never twice as many.
    expect(n).toBeGreaterThanOrEqual(4);
    expect(n).toBeLessThanOrEqual(12); // not twice as many
    expect(parents(CH1)).toHaveLength(1);
    expect(parents(CH2)).toHaveLength(1);
    // The holder stops: the other replica takes over within two intervals.
    await r1.stop();
    await r2.stop();
    const r3 = service({ store: s2 });
    await r3.start();
    const t = gets(A).length;
    await waitFor(() => gets(A).length > t, 2 * INTERVAL + 400, "takeover");
    expect(parents(CH1)).toHaveLength(1);
    await s1.backend.redis?.sendCommand([
      "EVAL",
      "for _,k in ipairs(redis.call('KEYS', ARGV[1])) do redis.call('DEL', k) end",
      "0",
      `${ns}*`,
    ]);
  });
});
