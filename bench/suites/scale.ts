/**
 * Scale-out: the burst (`videos` × `perVideo` deliveries, 10,000 by default: created, progress
 * steps, ready, published, complete) into bot replicas behind one address, on one Redis. The
 * uploads overlap (about ten at a time), so messages are being posted when the faults land.
 *
 *   one replica     the baseline, in the same run: one bot process behind the same proxy, no fault
 *   three replicas  three bot processes; one killed with SIGKILL once a quarter of the burst is
 *                   answered, Redis killed and started again once over half is
 *
 * Each run has its own redis-server (test/support/aof-redis.ts: appendonly yes, appendfsync
 * always, as docs/operations.md asks of replicas), its own platform sandbox and Slack stand-in here
 * in the runner, and each replica is a process of its own (bench/targets/app.ts, configured from
 * the environment like production) behind a round-robin HTTP proxy (test/support/round-robin.ts).
 * The sender retries what is not answered 200 (503 while Redis is down, a cut connection when a
 * replica dies) every 100 ms, as the platform retries.
 *
 * The worker runs at the app's settings except its channel pace: 50 ms between new posts instead
 * of 1 s, in both runs. The stand-in does not rate-limit, and the pace is per replica: at 1 s the
 * drain would measure the pace (three replicas posting three times as fast), not the bot.
 *
 * Measured: send time and rate (deliveries answered 200 per second through the proxy), time until
 * every video's one parent message shows its last event and the outbox is empty, and the total
 * rate (deliveries / that time); per replica its CPU time, the deliveries it answered 200 (its
 * `bot_deliveries_total{stage="received",result="200"}`), and CPU per delivery it answered; for
 * the run, all replicas' CPU per delivery. A killed replica's figures are read just before the kill.
 * Checks: every delivery answered 200 in the end, every video shown once at its last event, the
 * outbox empty.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { createClient } from "@keyv/redis";
import { Agent, request } from "undici";
import { botEnvForFakes } from "../../fakes/env.js";
import { lifecycleEvents } from "../../fakes/platform/deliver.js";
import { SEED } from "../../fakes/platform/server.js";
import { signSlackRequest, slashCommandBody } from "../../fakes/slack/index.js";
import { type Fakes, startFakes } from "../../fakes/stack.js";
import { silentLogger } from "../../src/log.js";
import { createOutbox } from "../../src/outbox/index.js";
import { openStore, type RedisClient } from "../../src/store/index.js";
import { AofRedis } from "../../test/support/aof-redis.js";
import { RoundRobinProxy } from "../../test/support/round-robin.js";
import { BENCH_PUBLIC_URL, BENCH_SIGNING_SECRET } from "../lib/stack.js";
import { startTarget, type TargetHandle } from "../lib/target.js";

const CHANNEL = "C0NEWS";
const PROFILE = SEED.profiles.newsroom;
const POST_INTERVAL_MS = 50;

export interface ScaleOptions {
  videos: number;
  perVideo: number;
  connections: number;
  timeoutMs: number;
  log: (line: string) => void;
}

export interface ReplicaFigures {
  name: string;
  killed: boolean;
  /** CPU time during the run (until its kill for a killed one), ms. */
  cpuMs: number;
  /** Deliveries it answered 200. */
  answered: number;
  /** cpuMs / answered, µs. */
  usPerDelivery: number | null;
}

export interface ScaleRun {
  replicas: number;
  faults: boolean;
  deliveries: number;
  /** Requests answered other than 200 (or not at all) and sent again. */
  retries: number;
  sendMs: number;
  /** Deliveries answered 200 per second through the proxy while sending. */
  sendRate: number;
  /** From the first delivery sent until every video shows its last event once and the outbox is empty. */
  drainMs: number | null;
  /** deliveries / drainMs, per second. */
  totalRate: number | null;
  complete: number;
  duplicated: number;
  perReplica: ReplicaFigures[];
  /** All replicas' CPU / deliveries, µs. */
  usPerDelivery: number;
  /** Commands Redis processed during the run (INFO total_commands_processed), per delivery. */
  redisCommandsPerDelivery: number;
  problems: string[];
}

export interface ScaleResult {
  videos: number;
  deliveries: number;
  baseline: ScaleRun | null;
  scaled: ScaleRun | null;
  problems: string[];
}

export async function runScale(o: ScaleOptions): Promise<ScaleResult> {
  const result: ScaleResult = {
    videos: o.videos,
    deliveries: o.videos * o.perVideo,
    baseline: null,
    scaled: null,
    problems: [],
  };
  for (const [replicas, faults] of [
    [1, false],
    [3, true],
  ] as const) {
    const label = replicas === 1 ? "one replica (baseline)" : "three replicas, one killed, Redis restarted";
    o.log(`  ${label}…`);
    try {
      const run = await runOnce(o, replicas, faults);
      if (replicas === 1) result.baseline = run;
      else result.scaled = run;
      for (const p of run.problems) result.problems.push(`${label}: ${p}`);
    } catch (err) {
      result.problems.push(`${label}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  return result;
}

async function runOnce(o: ScaleOptions, n: number, faults: boolean): Promise<ScaleRun> {
  const problems: string[] = [];
  const redis = await AofRedis.create();
  await redis.start();
  let fakes: Fakes | undefined;
  const targets: TargetHandle[] = [];
  /** Indexes of the killed replicas: the proxy leaves them out. */
  const dead = new Set<number>();
  const proxy = new RoundRobinProxy(() =>
    targets.filter((_, i) => !dead.has(i)).map((t) => Number(new URL(t.url).port)),
  );
  const agent = new Agent({ connections: o.connections, keepAliveTimeout: 30_000 });
  try {
    fakes = await startFakes();
    const env = {
      ...botEnvForFakes({
        sandbox: fakes.sandbox,
        slack: fakes.slack,
        publicUrl: BENCH_PUBLIC_URL,
        signingSecret: BENCH_SIGNING_SECRET,
        store: redis.url,
      }),
      USER_READS_PER_MINUTE: "0",
      WORKSPACE_READS_PER_MINUTE: "0",
    };
    for (let i = 0; i < n; i++) {
      targets.push(
        await startTarget(
          { kind: "app", env, worker: { postIntervalMs: POST_INTERVAL_MS } },
          { readyTimeoutMs: 60_000 },
        ),
      );
    }
    await proxy.listen();
    const path = await setWebhook(fakes, proxy.url);
    const url = `${proxy.url}${path}`;

    const tag = Date.now().toString(36);
    const ids = Array.from({ length: o.videos }, (_, v) => `xscale${tag}v${String(v).padStart(4, "0")}`);
    const base = Date.now() - 60_000;
    const perVideo = ids.map((videoId, v) =>
      lifecycleEvents(
        PROFILE,
        { videoId, presets: ["1080p"], progressSteps: Math.max(1, o.perVideo - 4) },
        base + v * 1_000,
      ),
    );
    // Uploads that start one after the other and overlap (video v's event e in turn 10 v + e):
    // new messages and thread replies are posted all along, the faults land among them.
    const bodies = perVideo
      .flatMap((evs, v) => evs.map((ev, e) => ({ body: JSON.stringify(ev), turn: v * 10 + e })))
      .sort((a, b) => a.turn - b.turn)
      .map((x) => x.body);
    const events = perVideo.map((e) => e.length);

    const before = await Promise.all(targets.map((t) => figures(t)));
    const at: Array<{ cpuUs: number; answered: number } | undefined> = targets.map(() => undefined);
    let next = 0;
    let answered = 0;
    let retries = 0;
    const started = performance.now();
    const sending = Promise.all(
      Array.from({ length: o.connections }, async () => {
        for (let i = next++; i < bodies.length; i = next++) {
          for (;;) {
            const status = await post(agent, url, bodies[i] as string);
            if (status === 200) break;
            retries++;
            await sleep(100);
          }
          answered++;
        }
      }),
    );
    let kill: Promise<void> = Promise.resolve();
    /** Redis's command count restarts with it: what it had counted before the restart. */
    let commandsBeforeRestart = 0;
    const commandsAtStart = await redisCommands(redis.url);
    if (faults) {
      kill = (async () => {
        await until(() => answered >= bodies.length * 0.25, o.timeoutMs);
        const victim = targets[1] as TargetHandle;
        at[1] = await figures(victim);
        dead.add(1);
        process.kill(victim.pid, "SIGKILL");
        o.log(`    replica 2 killed (SIGKILL) after ${answered} deliveries answered`);
        await until(() => answered >= bodies.length * 0.55, o.timeoutMs);
        commandsBeforeRestart = await redisCommands(redis.url);
        await redis.kill();
        await sleep(700);
        await redis.start();
        o.log(`    Redis killed and started again after ${answered} deliveries answered`);
      })();
    }
    await Promise.all([sending, kill]);
    const sendMs = performance.now() - started;
    o.log(
      `    sent in ${(sendMs / 1000).toFixed(1)} s (${retries} requests sent again); waiting for every video…`,
    );

    const view = () => {
      const parents = (fakes as Fakes).slack.messages(CHANNEL).filter((m) => !m.thread_ts);
      let complete = 0;
      let duplicated = 0;
      for (const [v, id] of ids.entries()) {
        const mine = parents.filter((m) => JSON.stringify(m.blocks ?? m.text).includes(id));
        if (mine.length > 1) duplicated += 1;
        const shown = JSON.stringify(mine[0]?.blocks ?? []);
        if (
          mine.length === 1 &&
          /complete/i.test(mine[0]?.text ?? "") &&
          shown.includes(`${events[v]} events`)
        )
          complete += 1;
      }
      return { complete, duplicated };
    };
    let drainMs: number | null = null;
    for (;;) {
      const v = view();
      if (v.complete === o.videos && (await outboxEmpty(redis.url))) {
        drainMs = performance.now() - started;
        break;
      }
      if (performance.now() - started > o.timeoutMs) {
        problems.push(
          `not drained after ${Math.round(o.timeoutMs / 1000)} s: ${v.complete} of ${o.videos} videos shown`,
        );
        break;
      }
      await sleep(250);
    }
    const final = view();
    if (final.duplicated > 0) problems.push(`${final.duplicated} videos have more than one parent message`);
    if (final.complete < o.videos)
      problems.push(`${o.videos - final.complete} videos do not show their last event`);

    const after = await Promise.all(targets.map((t, i) => (dead.has(i) ? at[i] : figures(t))));
    const perReplica: ReplicaFigures[] = targets.map((_, i) => {
      const b = before[i] as { cpuUs: number; answered: number };
      const a = after[i] ?? b;
      const cpuMs = (a.cpuUs - b.cpuUs) / 1000;
      const got = a.answered - b.answered;
      return {
        name: `replica ${i + 1}`,
        killed: dead.has(i),
        cpuMs,
        answered: got,
        usPerDelivery: got > 0 ? (cpuMs * 1000) / got : null,
      };
    });
    const cpuMs = perReplica.reduce((s, r) => s + r.cpuMs, 0);
    const commands = commandsBeforeRestart + (await redisCommands(redis.url)) - commandsAtStart;
    return {
      replicas: n,
      faults,
      deliveries: bodies.length,
      retries,
      sendMs,
      sendRate: bodies.length / (sendMs / 1000),
      drainMs,
      totalRate: drainMs === null ? null : bodies.length / (drainMs / 1000),
      complete: final.complete,
      duplicated: final.duplicated,
      perReplica,
      usPerDelivery: (cpuMs * 1000) / bodies.length,
      redisCommandsPerDelivery: commands / bodies.length,
      problems,
    };
  } finally {
    await agent.close().catch(() => undefined);
    await proxy.close();
    await fakes?.sandbox.close();
    await Promise.all(targets.map((t) => t.close().catch(() => undefined)));
    await fakes?.slack.close();
    await redis.cleanup();
  }
}

async function until(check: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > deadline) throw new Error("the burst did not get that far");
    await sleep(20);
  }
}

/** One delivery: its HTTP status, 0 when there was no answer (a cut connection). */
async function post(agent: Agent, url: string, body: string): Promise<number> {
  try {
    const res = await request(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
      dispatcher: agent,
    });
    await res.body.dump();
    return res.statusCode;
  } catch {
    return 0;
  }
}

/** A replica's CPU so far and the deliveries it answered 200 (its own metrics). */
async function figures(t: TargetHandle): Promise<{ cpuUs: number; answered: number }> {
  const { cpuUs } = await t.counts();
  const res = await request(`${t.url}/metrics`);
  const text = await res.body.text();
  const m = /^bot_deliveries_total\{(?=[^}]*stage="received")(?=[^}]*result="200")[^}]*\} (\d+)/m.exec(text);
  return { cpuUs, answered: Number(m?.[1] ?? 0) };
}

/** INFO's total_commands_processed (since Redis started). */
async function redisCommands(url: string): Promise<number> {
  const client: RedisClient = createClient({
    url,
    socket: { connectTimeout: 2_000, reconnectStrategy: false },
  });
  client.on("error", () => {});
  await client.connect();
  try {
    const info = await client.info("stats");
    return Number(/total_commands_processed:(\d+)/.exec(info)?.[1] ?? 0);
  } finally {
    await client.close().catch(() => client.destroy());
  }
}

async function outboxEmpty(url: string): Promise<boolean> {
  const store = await openStore({ kind: "redis", url }, silentLogger());
  try {
    const s = await (await createOutbox(store, silentLogger())).stats();
    return s.depth === 0 && s.scheduled === 0;
  } catch {
    return false;
  } finally {
    await store.close();
  }
}

/** `/webhook set` in the channel through the proxy; the path of the callback URL. */
async function setWebhook(fakes: Fakes, base: string): Promise<string> {
  const responseUrl = fakes.slack.newResponseUrl(CHANNEL, "U0ADMIN");
  const body = slashCommandBody({
    command: "/webhook",
    text: `set ${PROFILE}`,
    userId: "U0ADMIN",
    teamId: fakes.slack.teamId,
    channelId: CHANNEL,
    responseUrl,
  });
  const res = await request(`${base}/slack/events`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      ...signSlackRequest(body, BENCH_SIGNING_SECRET),
    },
    body,
  });
  await res.body.dump();
  if (res.statusCode !== 200) throw new Error(`/webhook set answered HTTP ${res.statusCode}`);
  await until(() => fakes.slack.responses(responseUrl).length > 0, 15_000);
  const callback = fakes.sandbox.state.profiles.get(PROFILE)?.webhook.callback_url;
  if (!callback?.startsWith(BENCH_PUBLIC_URL)) throw new Error("/webhook set did not set the callback URL");
  return callback.slice(BENCH_PUBLIC_URL.length);
}
