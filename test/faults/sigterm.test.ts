/**
 * SIGTERM in the middle of a burst of deliveries, to the real entry point (`src/index.ts` as a
 * child process with its sqlite file). What the platform sees: every request the bot had accepted
 * is answered (200, stored), later ones are refused at connect (the sender retries them); the bot
 * exits 0 within its 10 s limit, in well under a second: keep-alive connections are closed after
 * the request they carry, so a sender that keeps its connections busy cannot hold the bot open. What the user sees: after a restart on the same file, every video
 * shows once, with nothing answered 200 missing (the restart here is the same app in-process, with
 * a fast worker pace, so the channel drains in seconds instead of at one post per second).
 */

import type { ChildProcess } from "node:child_process";
import { setTimeout as sleep } from "node:timers/promises";
import { Agent, request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sandbox } from "../../fakes/platform/server.js";
import type { SlackStandin } from "../../fakes/slack/index.js";
import { loadConfig } from "../../src/config.js";
import { createLogger } from "../../src/log.js";
import { type Bot, startBot, waitFor } from "../support/harness.js";
import { spawnIndex } from "../support/index-process.js";
import { RECENT } from "../support/recent.js";
import { type ChildRig, setNewsroomHook, startChildRig } from "./child-rig.js";
import { type Delivery, postRetrying, shortLifecycle } from "./support.js";

const SECRET = "sigterm-test-signing-secret-0123456789";
const NEWS = "C0NEWS";
const VIDEOS = 40;

let sandbox: Sandbox;
let slack: SlackStandin;
let env: Record<string, string>;
let rig: ChildRig;
let child: ChildProcess | undefined;
let restarted: Bot | undefined;

beforeAll(async () => {
  rig = await startChildRig("sigterm", SECRET);
  ({ sandbox, slack, env } = rig);
});
afterAll(async () => {
  child?.kill("SIGKILL");
  await restarted?.close();
  await rig.close();
});

interface Outcome {
  status: number;
  error?: string;
}

/** One POST on a keep-alive pool, as a platform sends; the error code when there is no answer. */
async function send(agent: Agent, url: string, d: Delivery): Promise<Outcome> {
  try {
    const res = await request(url, {
      method: "POST",
      dispatcher: agent,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(d),
    });
    await res.body.text();
    return { status: res.statusCode };
  } catch (err) {
    const e = err as { code?: string; cause?: { code?: string } };
    return { status: 0, error: e.cause?.code ?? e.code ?? "unknown" };
  }
}

const parentsOf = (id: string) => slack.messages(NEWS).filter((m) => !m.thread_ts && m.text.includes(id));
function shownOnce(id: string): boolean {
  const parents = parentsOf(id);
  const thread = slack.messages(NEWS).filter((m) => m.thread_ts === parents[0]?.ts);
  return (
    parents.length === 1 &&
    /complete/i.test(parents[0]?.text ?? "") &&
    thread.filter((m) => /published/i.test(m.text)).length === 1 &&
    thread.filter((m) => /complete/i.test(m.text)).length === 1
  );
}

describe("SIGTERM during a burst of deliveries", () => {
  it("answers what it accepted, exits 0 within 10 s, and loses nothing answered 200", async () => {
    const bot = await spawnIndex(env);
    child = bot.child;
    const { base, exited } = bot;
    await bot.listening(20_000);
    const path = await setNewsroomHook(rig, base, SECRET, NEWS);

    // The burst: 8 keep-alive senders through every video's created → published → complete.
    const ids = Array.from({ length: VIDEOS }, (_, i) => `x7tm${String(i).padStart(2, "0")}`);
    const deliveries = ids.flatMap((id, i) => shortLifecycle(id, RECENT + i * 10));
    const outcomes: Outcome[] = [];
    const agent = new Agent({ connections: 8 });
    let next = 0;
    let termAt = 0;
    let exitAt = 0;
    let lastAcceptedAt = 0;
    void exited.then(() => {
      exitAt = Date.now();
    });
    // Each sender paces itself, and goes on until the bot is gone (a few refusals after its exit).
    const sender = async () => {
      for (let i = next++; i < deliveries.length; i = next++) {
        const o = await send(agent, `${base}${path}`, deliveries[i] as Delivery);
        outcomes[i] = o;
        if (o.status === 200) lastAcceptedAt = Date.now();
        if (termAt === 0 && outcomes.filter((x) => x?.status === 200).length >= 40) {
          termAt = Date.now();
          child?.kill("SIGTERM");
        }
        if (exitAt !== 0 && Date.now() - exitAt > 200) return;
        await sleep(15);
      }
    };
    await Promise.all(Array.from({ length: 8 }, sender));
    const { code } = await exited;
    const exitMs = exitAt - termAt;
    child = undefined;
    await agent.close();

    expect(termAt).toBeGreaterThan(0);
    expect(code).toBe(0);
    expect(exitMs).toBeLessThan(10_000);
    expect(bot.output()).toContain("stopped");
    for (const s of [SECRET, slack.botToken, sandbox.clientSecret]) expect(bot.output()).not.toContain(s);

    const sent = outcomes.filter((o) => o !== undefined);
    const accepted = sent.filter((o) => o.status === 200).length;
    const refused = sent.filter((o) => o.error === "ECONNREFUSED").length;
    const other = sent.filter((o) => o.status !== 200 && o.error !== "ECONNREFUSED");
    console.log(
      `SIGTERM mid-burst: ${accepted} answered 200 (the last ${lastAcceptedAt - termAt} ms after SIGTERM), ${refused} refused at connect, ${other.length} other (${[...new Set(other.map((o) => o.error ?? o.status))].join(", ")}); exit 0 ${exitMs} ms after SIGTERM`,
    );
    // Mid-burst indeed: some accepted after the signal was sent, some refused once it closed.
    expect(accepted).toBeGreaterThanOrEqual(40);
    expect(refused).toBeGreaterThan(0);
    // What it accepted it answered: no HTTP answer but 200. A request written to a keep-alive
    // connection at the moment the server closes it idle is reset (HTTP/1.1's own race; it was not
    // answered, so the sender retries it): at most one per connection.
    expect(sent.filter((o) => o.status !== 200 && o.status !== 0)).toEqual([]);
    expect(other.every((o) => o.error === "ECONNRESET" || o.error === "UND_ERR_SOCKET")).toBe(true);
    expect(other.length).toBeLessThanOrEqual(8);

    // Restart on the same sqlite file; the platform retries what was not answered 200.
    const logs: string[] = [];
    const config = { ...loadConfig(env), port: 0, host: "127.0.0.1" };
    const logger = createLogger({ level: "info", destination: { write: (s: string) => void logs.push(s) } });
    restarted = await startBot(config, logger, {
      worker: { postIntervalMs: 20, coalesceMs: 100, pollMs: 10 },
    });
    const again = deliveries.filter((_, i) => outcomes[i]?.status !== 200);
    for (const d of again) {
      const seen = await postRetrying(() => `${restarted?.url}${path}`, d, 100, 5000);
      expect(seen.at(-1)).toBe(200);
    }
    const drained = await waitFor(() => ids.every(shownOnce), 25_000, "every video shown once").catch(
      () => false,
    );
    if (!drained) {
      const wrong = ids.filter((id) => !shownOnce(id));
      const detail = wrong.map((id) => `${id}: ${parentsOf(id).length} parents`).join(", ");
      throw new Error(`not shown exactly once: ${detail}`);
    }
    expect((await restarted.outbox.stats()).depth).toBe(0);
  }, 45_000);
});
