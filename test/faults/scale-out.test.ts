/**
 * Scale-out, shown: three bot replicas (processes of their own) behind one address (a round-robin
 * HTTP proxy, test/support/round-robin.ts) on one Redis (a private redis-server with AOF fsynced on
 * every write, test/support/aof-redis.ts). A burst of lifecycles (created, progress steps, ready,
 * published, complete) goes through the proxy while one replica is killed with SIGKILL and Redis
 * itself is killed and restarted. The platform's sender retries what is not answered 200 (503
 * while Redis is down, a cut connection when a replica dies), as a retrying sender does.
 *
 * What must hold at the end: every video shown exactly once (one parent message, showing its last
 * state and every delivery it got, "published" and "complete" once each in its thread), nothing
 * lost (every delivery answered 200, counted in its video's message, the outbox empty), and every
 * watched livestream read once per interval by exactly one replica (never two reads of one
 * livestream within half an interval), the one on air announced once.
 *
 * The second test is the crash window itself, made certain: the replica that posts a video's
 * message is killed while Slack holds the answer to that post (the message exists; the replica
 * never learnt its ts). The replica that takes the video over finds the message by the marker the
 * post carried and updates it, instead of posting a second one (src/notify/posted.ts).
 *
 * The burst is smaller than the bench's 10,000 deliveries (bench/suites/scale.ts) so that it fits a
 * loaded 2-core machine; the kill and the restart are the same. Redis stays down until a delivery
 * was refused 503 (the outage reached the replicas), not for a fixed time; the senders' pacing and
 * retry intervals are the platform's, the load itself, and stay fixed.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { botEnvForFakes } from "../../fakes/env.js";
import { lifecycleEvents } from "../../fakes/platform/deliver.js";
import { SEED } from "../../fakes/platform/server.js";
import { sendSigned, slashCommandBody } from "../../fakes/slack/index.js";
import { type Fakes, startFakes } from "../../fakes/stack.js";
import type { ComposeOptions } from "../../src/compose.js";
import { loadConfig } from "../../src/config.js";
import { silentLogger } from "../../src/log.js";
import { createOutbox } from "../../src/outbox/index.js";
import { openStore } from "../../src/store/index.js";
import { AofRedis } from "../support/aof-redis.js";
import { eventually, PUBLIC_URL, waitFor } from "../support/harness.js";
import { RECENT } from "../support/recent.js";
import { RoundRobinProxy } from "../support/round-robin.js";
import { knownSecrets, scanForSecrets } from "../support/secret-scan.js";
import { Replica } from "./replicas.js";
import { type Delivery, postRetrying } from "./support.js";

const SECRET = "scale-out-test-signing-secret-0123456789";
const NEWS = "C0NEWS";
const WATCHING = "C0GENERAL";
const PROFILE = SEED.profiles.newsroom;
const VIDEOS = 30;
/** created, STEPS progress steps, ready, published, complete */
const STEPS = 16;
const EVENTS = STEPS + 4;
const INTERVAL_MS = 1000;

let redis: AofRedis;
let fakes: Fakes;
const replicas: Replica[] = [];
beforeAll(async () => {
  redis = await AofRedis.create();
  await redis.start();
  fakes = await startFakes();
});
afterAll(async () => {
  await Promise.all(replicas.map((r) => r.kill9()));
  await fakes?.close();
  await redis?.cleanup();
});

function envFor(namespace: string): { env: Record<string, string>; compose: ComposeOptions } {
  const env = {
    ...botEnvForFakes({
      sandbox: fakes.sandbox,
      slack: fakes.slack,
      publicUrl: PUBLIC_URL,
      signingSecret: SECRET,
      store: redis.url,
      logLevel: "warn",
    }),
    LIVE_WATCH_INTERVAL_MS: String(INTERVAL_MS),
    // The test floods from one user on purpose.
    USER_READS_PER_MINUTE: "0",
    WORKSPACE_READS_PER_MINUTE: "0",
  };
  // Short leases, so that a killed replica's videos are taken over in seconds, not 30 s.
  const compose: ComposeOptions = {
    namespace,
    worker: { postIntervalMs: 30, coalesceMs: 200, pollMs: 20, leaseMs: 2000 },
    watch: { tickMs: 50 },
  };
  return { env, compose };
}

async function startReplicas(namespace: string, n: number): Promise<Replica[]> {
  const { env, compose } = envFor(namespace);
  const started: Replica[] = [];
  for (let i = 0; i < n; i++) {
    const r = await Replica.start(`R${i + 1}`, env, compose);
    replicas.push(r);
    started.push(r);
  }
  return started;
}

/** A signed slash command as an admin in `channel`; resolves with the first answer on its response_url. */
async function slash(base: string, command: string, text: string, channel: string) {
  const responseUrl = fakes.slack.newResponseUrl(channel, "U0ADMIN");
  const body = slashCommandBody({
    command,
    text,
    userId: "U0ADMIN",
    teamId: fakes.slack.teamId,
    channelId: channel,
    responseUrl,
  });
  const res = await sendSigned(`${base}/slack/events`, body, SECRET);
  expect(res.status).toBe(200);
  return waitFor(() => fakes.slack.responses(responseUrl)[0], 15_000, `an answer to ${command} ${text}`);
}

/** `/webhook set` through `base`; the delivery path of the callback URL. */
async function setWebhook(base: string): Promise<string> {
  const answer = await slash(base, "/webhook", `set ${PROFILE}`, NEWS);
  expect(answer.response_type).toBe("in_channel");
  const url = fakes.sandbox.state.profiles.get(PROFILE)?.webhook.callback_url ?? "";
  expect(url.startsWith(PUBLIC_URL)).toBe(true);
  return url.slice(PUBLIC_URL.length);
}

const parentsOf = (id: string) =>
  fakes.slack.messages(NEWS).filter((m) => !m.thread_ts && JSON.stringify(m.blocks ?? m.text).includes(id));

/** One parent, showing the video complete with every one of its deliveries; each milestone once in its thread. */
function shownOnce(id: string, events: number): boolean {
  const parents = parentsOf(id);
  const parent = parents[0];
  if (parents.length !== 1 || !parent) return false;
  const thread = fakes.slack.messages(NEWS).filter((m) => m.thread_ts === parent.ts);
  const shown = JSON.stringify(parent.blocks ?? []);
  return (
    /complete/i.test(parent.text) &&
    shown.includes(`${events} events`) &&
    thread.filter((m) => /published/i.test(m.text)).length === 1 &&
    thread.filter((m) => /complete/i.test(m.text)).length === 1
  );
}

/**
 * Like the platform: sent again until answered 200 (503 while Redis is down, no answer or the
 * proxy's 502 when a replica dies with the request). Every status seen, in order.
 */
async function sendRetrying(
  url: () => string,
  d: Delivery,
  onStatus?: (status: number) => void,
): Promise<number[]> {
  const seen: number[] = [];
  const deadline = Date.now() + 60_000;
  for (;;) {
    seen.push(...(await postRetrying(url, d, 100, 60_000, onStatus)));
    if (seen.at(-1) !== 502 || Date.now() > deadline) return seen;
    await sleep(100);
  }
}

async function outboxStats(namespace: string) {
  const store = await openStore({ kind: "redis", url: redis.url }, silentLogger(), { namespace });
  try {
    const outbox = await createOutbox(store, silentLogger());
    return await outbox.stats();
  } finally {
    await store.close();
  }
}

function scanLogs(rs: Replica[]): void {
  const report = scanForSecrets(
    knownSecrets({ config: loadConfig(envFor("scan").env), sandbox: fakes.sandbox, slack: fakes.slack }),
    rs.flatMap((r) => r.logs),
    fakes.slack.calls,
  );
  expect(report.leaks).toEqual([]);
}

describe("three replicas behind one address on one Redis", () => {
  it("a burst with a replica killed and Redis restarted: every video shown once, nothing lost, watches read once per interval", async () => {
    const namespace = `scale-${Date.now().toString(36)}`;
    const rs = await startReplicas(namespace, 3);
    const proxy = new RoundRobinProxy(() => rs.filter((r) => r.alive).map((r) => r.port));
    await proxy.listen();
    try {
      const path = await setWebhook(proxy.url);

      // Live watches, made through the proxy too: four livestreams, one of them on air.
      const template = fakes.sandbox.state.livestreams.get(SEED.livestreams.offAir);
      if (!template) throw new Error("no seeded off-air livestream");
      const watched = ["xscale0", "xscale1", "xscale2", "xscale3"];
      for (const id of watched) {
        const copy = structuredClone(template);
        copy.livestream_id = id;
        fakes.sandbox.state.livestreams.set(id, copy);
        const answer = await slash(proxy.url, "/live", `watch ${id}`, WATCHING);
        expect(JSON.stringify(answer)).toContain("When it goes on air");
      }
      fakes.sandbox.live("xscale0", { action: "on_air" });
      const readsFrom = Date.now() + 2 * INTERVAL_MS;

      // The burst: uploads that start one after the other and overlap (video v's event e comes
      // in turn v * 10 + e), so that new messages and thread replies are posted all along.
      const ids = Array.from({ length: VIDEOS }, (_, v) => `x7sc${String(v).padStart(2, "0")}`);
      const per = ids.map((videoId, v) =>
        lifecycleEvents(PROFILE, { videoId, presets: ["1080p"], progressSteps: STEPS }, RECENT + v * 1000),
      );
      expect(per.every((e) => e.length === EVENTS)).toBe(true);
      const deliveries = per
        .flatMap((events, v) => events.map((d, e) => ({ d: d as Delivery, turn: v * 10 + e })))
        .sort((a, b) => a.turn - b.turn)
        .map((x) => x.d);
      const statuses: number[][] = deliveries.map(() => []);
      let next = 0;
      let answered = 0;
      let refused = 0;
      let over = false;
      const count = (status: number) => {
        if (status === 503) refused++;
      };
      // Paced (about 40 deliveries/s): the burst lasts long enough for the watches to be read
      // through both faults.
      const sender = async () => {
        for (let i = next++; i < deliveries.length; i = next++) {
          const url = () => `${proxy.url}${path}`;
          statuses[i] = await sendRetrying(url, deliveries[i] as Delivery, count);
          if (statuses[i]?.at(-1) === 200) answered++;
          await sleep(150);
        }
      };
      const burst = Promise.all(Array.from({ length: 6 }, sender)).then(() => {
        over = true;
      });
      /** Slack holds the answers of the next posts: the faults below land while posts are in flight. */
      const holdPosts = async (ms: number) => {
        const from = fakes.slack.calls.length;
        fakes.slack.addFault({ method: "chat.postMessage", holdAnswerMs: ms, times: 4 });
        const held = () =>
          fakes.slack.calls.slice(from).filter((c) => c.method === "chat.postMessage" && c.status === 0)
            .length;
        await waitFor(() => held() >= 2, 5_000, "posts in flight").catch(() => undefined);
        return held();
      };

      await waitFor(() => answered >= deliveries.length * 0.25, 60_000, "a quarter of the burst");
      const killed = rs[1] as Replica;
      const heldAtKill = await holdPosts(1500);
      await killed.kill9();
      const killedAt = answered;
      await waitFor(() => answered >= deliveries.length * 0.55, 60_000, "over half of the burst");
      const heldAtRestart = await holdPosts(1000);
      const refusedBefore = refused;
      await redis.kill();
      // Down until a replica answered 503 for it (or the burst is over: nothing left to refuse).
      await waitFor(() => refused > refusedBefore || over, 15_000, "a delivery refused while Redis is down");
      await redis.start();
      const restartedAt = answered;
      await burst;
      fakes.slack.clearFaults();

      expect(statuses.every((s) => s.at(-1) === 200)).toBe(true);
      const retried = statuses.filter((s) => s.length > 1).length;

      await waitFor(() => ids.every((id) => shownOnce(id, EVENTS)), 90_000, "every video shown once").catch(
        (err: unknown) => {
          const wrong = ids
            .filter((id) => !shownOnce(id, EVENTS))
            .map(
              (id) =>
                `${id}: ${parentsOf(id).length} parent(s) ${parentsOf(id)
                  .map((p) => p.text)
                  .join(" | ")}`,
            );
          const errors = rs.flatMap((r) => r.errors().map((l) => `${r.name} ${l}`)).slice(-10);
          throw new Error(`${String(err)}\n${wrong.join("\n")}\n${errors.join("\n")}`);
        },
      );
      await eventually(
        async () => {
          const s = await outboxStats(namespace);
          return s.depth === 0 && s.scheduled === 0;
        },
        15_000,
        "an empty outbox",
      ).catch(() => undefined);
      expect(await outboxStats(namespace)).toMatchObject({ depth: 0, scheduled: 0, dead: 0 });
      const readsTo = Date.now();

      // Every video shown once; every parent at its last state (checked above); nothing doubled.
      for (const id of ids) expect(parentsOf(id)).toHaveLength(1);

      // Watches: one read per interval, by one replica at a time, through the kill and the restart.
      const gaps: number[] = [];
      let reads = 0;
      for (const id of watched) {
        const at = fakes.sandbox.requests
          .filter((r) => r.method === "GET" && r.path === `/v2/livestreams/${id}`)
          .map((r) => r.at)
          .filter((t) => t >= readsFrom && t <= readsTo);
        reads += at.length;
        const windowS = (readsTo - readsFrom) / INTERVAL_MS;
        // Not read twice in one interval (two replicas would), and read on: allowing the intervals
        // lost to the killed replica's lease and to Redis being down.
        for (let i = 1; i < at.length; i++) gaps.push((at[i] as number) - (at[i - 1] as number));
        expect(at.length).toBeGreaterThanOrEqual(Math.floor(windowS / 1.1) - 8);
        expect(at.length).toBeLessThanOrEqual(Math.ceil(windowS / 0.9) + 1);
      }
      expect(Math.min(...gaps)).toBeGreaterThanOrEqual(INTERVAL_MS / 2);
      const live = fakes.slack
        .messages(WATCHING)
        .filter((m) => !m.thread_ts && /xscale0/.test(JSON.stringify(m)) && / is live /i.test(m.text));
      expect(live).toHaveLength(1);

      scanLogs(rs);
      console.log(
        `scale-out: ${deliveries.length} deliveries over ${VIDEOS} videos through ${rs.length} replicas; ${killed.name} killed after ${killedAt} answered (${heldAtKill} posts in flight), Redis restarted after ${restartedAt} (${heldAtRestart} posts in flight); ${retried} deliveries retried; every video shown once; ${reads} watch reads, closest two ${Math.min(...gaps)} ms apart, widest gap ${Math.max(...gaps)} ms; requests per replica ${JSON.stringify([...proxy.requests.values()])}`,
      );
    } finally {
      await proxy.close();
      await Promise.all(rs.map((r) => r.close()));
    }
  }, 240_000);
});

describe("a replica killed between Slack's answer to a post and the state write", () => {
  it("the replica that takes the video over updates the message it posted instead of posting another", async () => {
    const namespace = `scale-kill-${Date.now().toString(36)}`;
    const [first] = await startReplicas(namespace, 1);
    if (!first) throw new Error("no replica");
    const path = await setWebhook(first.url);
    const [created, ...rest] = lifecycleEvents(
      PROFILE,
      { videoId: "x7crash", presets: ["1080p"], progressSteps: 2 },
      RECENT,
    );
    // Slack stores the post, then holds its answer: the replica dies without learning the ts.
    fakes.slack.addFault({ method: "chat.postMessage", holdAnswerMs: 60_000 });
    expect(await postRetrying(() => `${first.url}${path}`, created as Delivery, 100, 10_000)).toEqual([200]);
    await waitFor(() => parentsOf("x7crash").length === 1, 15_000, "the post, its answer held");
    await first.kill9();
    fakes.slack.clearFaults();

    const [second] = await startReplicas(namespace, 1);
    if (!second) throw new Error("no replica");
    for (const d of rest)
      expect(await postRetrying(() => `${second.url}${path}`, d as Delivery, 100, 10_000)).toEqual([200]);
    await waitFor(() => shownOnce("x7crash", rest.length + 1), 30_000, "the video complete").catch(
      () => undefined,
    );
    expect(parentsOf("x7crash")).toHaveLength(1);
    expect(shownOnce("x7crash", rest.length + 1)).toBe(true);
    // Found by the marker its post carried: the new replica looked in the channel's history.
    expect(fakes.slack.callsTo("conversations.history").some((c) => c.ok)).toBe(true);
    await second.close();
    scanLogs([first, second]);
  }, 120_000);
});
