/**
 * kill -9 in the middle of a burst of deliveries, to the real entry point (`src/index.ts` as a
 * child process with its sqlite file): no graceful stop, the process vanishes between two
 * statements, with commits and WAL syncs in flight. Every delivery it had answered 200 was
 * durably stored: after a restart on the same file, sending it again answers "duplicate" (its
 * dedupe key is committed with the item), and once the platform has retried what was not
 * answered, every video is shown complete.
 */

import type { ChildProcess } from "node:child_process";
import { Agent, request } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SlackStandin } from "../../fakes/slack/index.js";
import { loadConfig } from "../../src/config.js";
import { createLogger } from "../../src/log.js";
import { type Bot, startBot, waitFor } from "../support/harness.js";
import { spawnIndex } from "../support/index-process.js";
import { RECENT } from "../support/recent.js";
import { type ChildRig, setNewsroomHook, startChildRig } from "./child-rig.js";
import { type Delivery, postRetrying, shortLifecycle } from "./support.js";

const SECRET = "kill9-test-signing-secret-0123456789ab";
const NEWS = "C0NEWS";
const VIDEOS = 60;

let slack: SlackStandin;
let env: Record<string, string>;
let rig: ChildRig;
let child: ChildProcess | undefined;
let restarted: Bot | undefined;

beforeAll(async () => {
  rig = await startChildRig("kill9", SECRET);
  ({ slack, env } = rig);
});
afterAll(async () => {
  child?.kill("SIGKILL");
  await restarted?.close();
  await rig.close();
});

/** One POST on a keep-alive pool; the status and body, or status 0 when there is no answer. */
async function send(agent: Agent, url: string, d: Delivery): Promise<{ status: number; body: string }> {
  try {
    const res = await request(url, {
      method: "POST",
      dispatcher: agent,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(d),
    });
    return { status: res.statusCode, body: await res.body.text() };
  } catch {
    return { status: 0, body: "" };
  }
}

describe("kill -9 during a burst of deliveries (sqlite)", () => {
  it("loses nothing it answered 200", async () => {
    const bot = await spawnIndex(env);
    child = bot.child;
    const { base, exited } = bot;
    await bot.listening(20_000);
    const path = await setNewsroomHook(rig, base, SECRET, NEWS);

    // 8 keep-alive senders as fast as the bot answers; SIGKILL once 60 are answered 200, so
    // requests, commits and syncs are in flight at that moment.
    const ids = Array.from({ length: VIDEOS }, (_, i) => `x7k9${String(i).padStart(2, "0")}`);
    const deliveries = ids.flatMap((id, i) => shortLifecycle(id, RECENT + i * 10));
    const statuses: number[] = [];
    const agent = new Agent({ connections: 8 });
    let next = 0;
    let killed = false;
    const sender = async () => {
      for (let i = next++; i < deliveries.length && !killed; i = next++) {
        const r = await send(agent, `${base}${path}`, deliveries[i] as Delivery);
        statuses[i] = r.status;
        if (!killed && statuses.filter((s) => s === 200).length >= 60) {
          killed = true;
          child?.kill("SIGKILL");
        }
      }
    };
    await Promise.all(Array.from({ length: 8 }, sender));
    expect((await exited).signal).toBe("SIGKILL");
    child = undefined;
    await agent.close();
    const accepted = deliveries.filter((_, i) => statuses[i] === 200);
    expect(accepted.length).toBeGreaterThanOrEqual(60);
    expect(accepted.length).toBeLessThan(deliveries.length);

    // Restart on the same file: what was answered 200 is there (sending it again: "duplicate").
    const config = { ...loadConfig(env), port: 0, host: "127.0.0.1" };
    const logger = createLogger({ level: "silent" });
    restarted = await startBot(config, logger, {
      worker: { postIntervalMs: 20, coalesceMs: 100, pollMs: 10 },
    });
    const url = `${restarted.url}${path}`;
    const plain = new Agent({ connections: 4 });
    try {
      for (const d of accepted)
        expect(await send(plain, url, d)).toEqual({ status: 200, body: '{"status":"duplicate"}' });
    } finally {
      await plain.close();
    }
    // The platform retries the rest until answered; then every video is shown complete.
    for (const [i, d] of deliveries.entries()) {
      if (statuses[i] === 200) continue;
      const seen = await postRetrying(() => url, d, 100, 5000);
      expect(seen.at(-1)).toBe(200);
    }
    const complete = (id: string) =>
      slack.messages(NEWS).some((m) => !m.thread_ts && m.text.includes(id) && /complete/i.test(m.text));
    // 60 videos at the app's pace, each with its title read: room for a loaded 2-core machine.
    await waitFor(() => ids.every(complete), 90_000, "every video shown complete");
    expect((await restarted.outbox.stats()).depth).toBe(0);
  }, 150_000);
});
