/**
 * Acknowledgements first (src/slack/acks-first.ts), seen from outside the bot's process: 300
 * `/live status` arrive together (the bot, the real entry point in a child process, is stopped
 * while they are written, so all of them wait in its sockets when it runs again) while the
 * platform answers each livestream read in 1 s. Every one is acknowledged before the bot starts
 * the work of any: the livestream read that all of them share reaches the platform only after
 * the acks went out (before, the first command's read left right after its own ack, while 299
 * still waited for theirs). And every one is answered on its response_url.
 */
import type { ChildProcess } from "node:child_process";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { botEnvForFakes } from "../../fakes/env.js";
import { type Sandbox, SEED, startSandbox } from "../../fakes/platform/server.js";
import {
  type SlackStandin,
  sendSigned,
  signSlackRequest,
  slashCommandBody,
  startSlackStandin,
} from "../../fakes/slack/index.js";
import { AcksFirst } from "../../src/slack/acks-first.js";
import { PUBLIC_URL, waitFor } from "../support/harness.js";
import { spawnIndex } from "../support/index-process.js";

const SECRET = "acks-first-test-secret-0123456789abcd";
const COMMANDS = 300;
const CHANNEL = "C0GENERAL";
const MEASURED = SEED.livestreams.onAirAdBreak;
const TITLE = "Northwind Morning Live";

let sandbox: Sandbox;
let slack: SlackStandin;
let child: ChildProcess | undefined;

beforeAll(async () => {
  sandbox = await startSandbox();
  slack = await startSlackStandin();
});
afterAll(async () => {
  if (child?.pid !== undefined && child.exitCode === null) {
    child.kill("SIGCONT");
    child.kill("SIGKILL");
  }
  await slack.close();
  await sandbox.close();
});

interface Sent {
  /** Resolves once the whole request is in the kernel's hands. */
  written: Promise<void>;
  /** The answer's status, and when its first byte arrived (Date.now). */
  answered: Promise<{ status: number; at: number }>;
}

/** One signed POST on its own connection, written at once whether or not the bot is running. */
function post(port: number, body: string): Sent {
  const head = [
    "POST /slack/events HTTP/1.1",
    `Host: 127.0.0.1:${port}`,
    "Content-Type: application/x-www-form-urlencoded",
    ...Object.entries(signSlackRequest(body, SECRET)).map(([k, v]) => `${k}: ${v}`),
    `Content-Length: ${Buffer.byteLength(body)}`,
    "Connection: close",
    "",
    "",
  ].join("\r\n");
  const socket = connect(port, "127.0.0.1");
  const written = new Promise<void>((resolve, reject) => {
    socket.once("error", reject);
    socket.write(head + body, (err) => (err ? reject(err) : resolve()));
  });
  const answered = new Promise<{ status: number; at: number }>((resolve, reject) => {
    let at = 0;
    let text = "";
    socket.on("data", (d: Buffer) => {
      if (at === 0) at = Date.now();
      text += d.toString("latin1");
    });
    socket.once("close", () => resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), at }));
    socket.once("error", reject);
  });
  return { written, answered };
}

describe("acknowledgements first", () => {
  it("300 commands arriving together: every one acked before the work of any starts, every one answered", async () => {
    const bot = await spawnIndex({
      ...botEnvForFakes({
        sandbox,
        slack,
        publicUrl: PUBLIC_URL,
        signingSecret: SECRET,
        store: "memory://",
        logLevel: "info",
      }),
      // One user sends them all: the read budgets are not what this test is about.
      USER_READS_PER_MINUTE: "0",
      WORKSPACE_READS_PER_MINUTE: "0",
    });
    child = bot.child;
    const { port } = bot;
    await bot.listening(30_000);
    const events = `http://127.0.0.1:${port}/slack/events`;

    // Warm up (the platform token, Bolt's auth.test) on another livestream: identical reads are
    // shared for 10 s, and the measured one must be read after the burst.
    const warmUrl = slack.newResponseUrl(CHANNEL, "U0ADMIN");
    const warm = slashCommandBody({
      command: "/live",
      text: `status ${SEED.livestreams.offAir}`,
      userId: "U0ADMIN",
      teamId: slack.teamId,
      channelId: CHANNEL,
      responseUrl: warmUrl,
    });
    expect((await sendSigned(events, warm, SECRET)).status).toBe(200);
    await waitFor(() => slack.responses(warmUrl)[0], 15_000, "the warm-up answer");

    sandbox.addFault({ method: "GET", path: "/v2/livestreams/", latencyMs: 1_000 });
    const urls = Array.from({ length: COMMANDS }, () => slack.newResponseUrl(CHANNEL, "U0ADMIN"));
    // Stopped while the commands are written: when it runs again, all 300 wait to be read.
    child.kill("SIGSTOP");
    let sent: Sent[];
    try {
      sent = urls.map((responseUrl) =>
        post(
          port,
          slashCommandBody({
            command: "/live",
            text: `status ${MEASURED}`,
            userId: "U0ADMIN",
            teamId: slack.teamId,
            channelId: CHANNEL,
            responseUrl,
          }),
        ),
      );
      await Promise.all(sent.map((s) => s.written));
    } finally {
      child.kill("SIGCONT");
    }
    const acks = await Promise.all(sent.map((s) => s.answered));
    expect(acks.filter((a) => a.status !== 200)).toEqual([]);

    await waitFor(
      () => urls.every((u) => slack.responses(u).length > 0),
      60_000,
      "every command's answer on its response_url",
    );
    for (const u of urls) expect(JSON.stringify(slack.responses(u)[0])).toContain(TITLE);

    const reads = sandbox.requests.filter(
      (r) => r.method === "GET" && r.path === `/v2/livestreams/${MEASURED}`,
    );
    expect(reads.length).toBeGreaterThanOrEqual(1);
    const firstRead = Math.min(...reads.map((r) => r.at));
    // Acks that arrived after the shared read reached the platform: none, give or take the few
    // the test process may read in the same turn as the read (before: all but the first).
    const late = acks.filter((a) => a.at > firstRead).length;
    expect(late).toBeLessThanOrEqual(10);
    const ids = new Set(urls.map((u) => u.slice(u.lastIndexOf("/") + 1)));
    const answers = slack.callsTo("response_url").filter((c) => ids.has(c.responseUrlId ?? ""));
    const firstAnswer = Math.min(...answers.map((c) => c.at));
    expect(Math.max(...acks.map((a) => a.at))).toBeLessThanOrEqual(firstAnswer);
  }, 120_000);
});

describe("turns", () => {
  it("work waits while acks keep coming, at most maxWaitMs; then the work queued behind goes on", async () => {
    const turns = new AcksFirst({ maxWaitMs: 300 });
    const ack = turns.ack(async () => {});
    const order: string[] = [];
    // An ack in every iteration of the event loop, each with its own work to do afterwards.
    let acking = true;
    const flood = () => {
      if (!acking) return;
      void ack().then(() => order.push("after an ack"));
      setImmediate(flood);
    };
    const started = Date.now();
    const waited = turns.turn().then(() => {
      order.push("waiting work");
      return Date.now() - started;
    });
    flood();
    const ms = await waited;
    acking = false;
    expect(ms).toBeGreaterThanOrEqual(290);
    expect(ms).toBeLessThan(10_000);
    // First in, first out: the work that waited first went first.
    expect(order[0]).toBe("waiting work");
    await vi.waitFor(() => expect(turns.waiting).toBe(0), { timeout: 10_000 });
    expect(order.length).toBeGreaterThan(1);
  });

  it("with no ack in the way, waiting work goes on at once, in order", async () => {
    const turns = new AcksFirst({ maxWaitMs: 60_000 });
    const order: number[] = [];
    const started = Date.now();
    await Promise.all([1, 2, 3].map((i) => turns.turn().then(() => order.push(i))));
    expect(order).toEqual([1, 2, 3]);
    expect(Date.now() - started).toBeLessThan(1_000);
  });
});
