/**
 * Concurrent watch changes lose nothing and the caps hold, over the real path: signed `/live
 * watch|unwatch` commands answered on their response_url, each watch authorized by its GET of the
 * platform sandbox.
 *  - Redis: three bot processes on one namespace (this test's bot and two child processes,
 *    test/watch/bot-process.ts), the commands spread over the three: the index, the workspace
 *    lists, the livestream lists and the schedule end exactly as expected; 150 concurrent watches in
 *    one workspace end with exactly 100; the cap in all (LIVE_WATCH_MAX) holds the same way; so do
 *    concurrent DM watches (`… dm`): one person's stop at 10, a workspace's at 100.
 *  - sqlite: the same inside one process, then a restart on the same file reads every watched
 *    livestream (and none other).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { botEnvForFakes } from "../../fakes/env.js";
import { SEED } from "../../fakes/platform/server.js";
import { sendSigned, slashCommandBody } from "../../fakes/slack/index.js";
import type { StoreUrl } from "../../src/config.js";
import { type Harness, PUBLIC_URL, SIGNING_SECRET, startHarness, waitFor } from "../support/harness.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const BOT = fileURLToPath(new URL("./bot-process.ts", import.meta.url));
const TEAMS = ["T0W1", "T0W2", "T0W3", "T0W4"];
const CHANNELS = ["C0A", "C0B", "C0C", "C0D", "C0E"];
/** The livestreams of the race (12) and of the cap in all (12 more). */
const RACE = Array.from({ length: 12 }, (_, i) => `xrace${String(i).padStart(2, "0")}`);
const MORE = Array.from({ length: 12 }, (_, i) => `xmore${String(i).padStart(2, "0")}`);
const LIVE_WATCH_MAX = 16;
/** Several workspaces under one bot token: an organization-wide install. */
const ORG = "E0ORG";
const ENV = {
  MANAGER_USER_IDS: "U0ADMIN",
  LIVE_WATCH_MAX: String(LIVE_WATCH_MAX),
  LIVE_WATCH_INTERVAL_MS: "1000",
  // A deliberate flood of /live watch from one manager: the read budgets are another test's.
  USER_READS_PER_MINUTE: "0",
  WORKSPACE_READS_PER_MINUTE: "0",
};

interface Key {
  team: string;
  channel: string;
  ls: string;
}
const keyOf = (k: Key) => `${k.team}/${k.channel}/${k.ls}`;

/** A deterministic shuffle (mulberry32), so a failure can be replayed. */
function shuffled<T>(items: readonly T[], seed: number): T[] {
  let a = seed;
  const rnd = () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

/**
 * The plan: 100 watches first (concurrently), then 200 concurrent changes: 80 of those watches
 * stopped (every watch of xrace00 among them, so it leaves the index) and 120 new watches.
 */
function plan() {
  const all: Key[] = TEAMS.flatMap((team) =>
    CHANNELS.flatMap((channel) => RACE.map((ls) => ({ team, channel, ls }))),
  );
  const mixed = shuffled(all, 18);
  const seed = mixed.slice(0, 100);
  const fresh = mixed.slice(100).filter((k) => k.ls !== RACE[0]);
  const firstOnes = seed.filter((k) => k.ls === RACE[0]);
  const stop = [...firstOnes, ...seed.filter((k) => k.ls !== RACE[0]).slice(0, 80 - firstOnes.length)];
  const watch = fresh.slice(0, 120);
  const expected = new Set([...seed, ...watch].map(keyOf));
  for (const k of stop) expected.delete(keyOf(k));
  return { seed, stop, watch, expected };
}

function addLivestreams(h: Harness, ids: readonly string[]): void {
  const template = h.sandbox.state.livestreams.get(SEED.livestreams.offAir);
  if (!template) throw new Error("no seeded off-air livestream");
  for (const id of ids)
    h.sandbox.state.livestreams.set(id, { ...structuredClone(template), livestream_id: id });
}

/** Sends `/live <text>` to the bot at `url` (as U0ADMIN unless `user`); resolves with its first answer. */
async function command(
  h: Harness,
  url: string,
  text: string,
  k: { team: string; channel: string },
  user = "U0ADMIN",
) {
  const responseUrl = h.slack.newResponseUrl(k.channel, user);
  const body = slashCommandBody({
    command: "/live",
    text,
    userId: user,
    teamId: k.team,
    channelId: k.channel,
    responseUrl,
  });
  const res = await sendSigned(`${url}/slack/events`, body, SIGNING_SECRET);
  expect(res.status).toBe(200);
  return JSON.stringify(await waitFor(() => h.slack.responses(responseUrl)[0], 30_000, `answer to ${text}`));
}

/** Runs every change at once, spread over the bots; each answer says it was done. */
async function race(
  h: Harness,
  urls: readonly string[],
  changes: Array<{ k: Key; verb: "watch" | "unwatch" }>,
) {
  const answers = await Promise.all(
    changes.map((c, i) => command(h, urls[i % urls.length] as string, `${c.verb} ${c.k.ls}`, c.k)),
  );
  for (const [i, a] of answers.entries())
    expect(a).toContain(changes[i]?.verb === "watch" ? "now watches" : "no longer watches");
}

/** What the registry holds, read back: every workspace list, every livestream list, the index. */
async function registryState(h: Harness) {
  const registry = h.built.watch?.registry;
  if (!registry) throw new Error("no watch registry");
  const byTeam = new Set<string>();
  for (const team of TEAMS)
    for (const w of await registry.listTeam(team)) byTeam.add(`${team}/${w.channelId}/${w.livestreamId}`);
  const byLivestream = new Set<string>();
  for (const ls of RACE)
    for (const w of await registry.watchers(ls)) byLivestream.add(`${w.teamId}/${w.channelId}/${ls}`);
  return { byTeam, byLivestream, index: (await registry.livestreams()).sort() };
}

async function expectExactly(h: Harness, expected: Set<string>) {
  const s = await registryState(h);
  const sorted = (x: Set<string>) => [...x].sort();
  expect(sorted(s.byTeam)).toEqual(sorted(expected));
  expect(sorted(s.byLivestream)).toEqual(sorted(expected));
  expect(s.index).toEqual([...new Set([...expected].map((k) => k.split("/")[2] ?? ""))].sort());
  return s;
}

describe("three bot processes on one Redis", () => {
  const NS = `watch-race-${process.pid}-${randomBytes(3).toString("hex")}`;
  const store: StoreUrl = { kind: "redis", url: "redis://127.0.0.1:6379" };
  let h: Harness;
  const children: ChildProcess[] = [];
  let urls: string[] = [];

  function startChild(env: Record<string, string>): Promise<string> {
    const proc = spawn(process.execPath, ["--import", "tsx", BOT, NS], {
      cwd: ROOT,
      stdio: ["pipe", "pipe", "inherit"],
    });
    children.push(proc);
    proc.stdin?.write(`${JSON.stringify(env)}\n`);
    const lines = createInterface({ input: proc.stdout as NodeJS.ReadableStream });
    return new Promise((resolve, reject) => {
      lines.once("line", (l) => resolve((JSON.parse(l) as { url: string }).url));
      proc.once("exit", (code) => reject(new Error(`bot process exited (${code})`)));
    });
  }

  beforeAll(async () => {
    h = await startHarness({ store, namespace: NS, env: ENV, watch: { manual: true }, orgWide: ORG });
    addLivestreams(h, [...RACE, ...MORE]);
    const env = {
      ...botEnvForFakes({
        sandbox: h.sandbox,
        slack: h.slack,
        publicUrl: PUBLIC_URL,
        signingSecret: SIGNING_SECRET,
        store: store.url,
      }),
      ...ENV,
    };
    urls = [h.url, ...(await Promise.all([startChild(env), startChild(env)]))];
  }, 60_000);

  afterAll(async () => {
    await Promise.all(
      children.map(
        (c) =>
          new Promise<void>((resolve) => {
            if (c.exitCode !== null) return resolve();
            const t = setTimeout(() => c.kill("SIGKILL"), 10_000);
            c.once("exit", () => {
              clearTimeout(t);
              resolve();
            });
            c.stdin?.end();
          }),
      ),
    );
    const redis = h?.store.backend.redis;
    const keys = [...((await redis?.keys(`${NS}:*`)) ?? [])];
    if (keys.length > 0) await redis?.del(keys);
    await h?.close();
  }, 30_000);

  it("200 concurrent watches and unwatches in four workspaces, over three processes, lose no entry", async () => {
    const p = plan();
    await race(
      h,
      urls,
      p.seed.map((k) => ({ k, verb: "watch" })),
    );
    await expectExactly(h, new Set(p.seed.map(keyOf)));
    const changes = shuffled(
      [
        ...p.stop.map((k) => ({ k, verb: "unwatch" as const })),
        ...p.watch.map((k) => ({ k, verb: "watch" as const })),
      ],
      7,
    );
    expect(changes).toHaveLength(200);
    await race(h, urls, changes);
    const s = await expectExactly(h, p.expected);
    expect(s.index).not.toContain(RACE[0]);
    // The schedule holds exactly the watched livestreams: each is read, none is read for nobody.
    const sched = await h.store.backend.redis?.zRange(`${NS}:watch:sched`, 0, -1);
    expect([...(sched ?? [])].sort()).toEqual(s.index);
  }, 120_000);

  it("150 concurrent /live watch in one workspace end with exactly 100 watches", async () => {
    const ls = RACE[1] as string;
    const channels = Array.from({ length: 150 }, (_, i) => `C0CAP${String(i).padStart(3, "0")}`);
    const answers = await Promise.all(
      channels.map((channel, i) =>
        command(h, urls[i % 3] as string, `watch ${ls}`, { team: "T0CAP", channel }),
      ),
    );
    expect(answers.filter((a) => a.includes("now watches"))).toHaveLength(100);
    const refused = answers.filter((a) => !a.includes("now watches"));
    expect(refused).toHaveLength(50);
    for (const a of refused) {
      expect(a).toContain("already has 100 watches, the most one workspace can have");
      expect(a).toContain('"ephemeral"');
    }
    expect(await h.built.watch?.registry.listTeam("T0CAP")).toHaveLength(100);
  }, 120_000);

  it("concurrent watches of new livestreams stop exactly at LIVE_WATCH_MAX", async () => {
    const registry = h.built.watch?.registry;
    const before = (await registry?.livestreams())?.length ?? 0;
    expect(before).toBeLessThan(LIVE_WATCH_MAX);
    const answers = await Promise.all(
      MORE.map((ls, i) =>
        command(h, urls[i % 3] as string, `watch ${ls}`, { team: "T0MORE", channel: "C0MORE" }),
      ),
    );
    const added = answers.filter((a) => a.includes("now watches"));
    expect(added).toHaveLength(LIVE_WATCH_MAX - before);
    const refused = answers.filter((a) => !a.includes("now watches"));
    for (const a of refused) {
      expect(a).toContain(`already watches ${LIVE_WATCH_MAX} livestreams in all`);
      expect(a).toContain("LIVE_WATCH_MAX");
    }
    expect(await registry?.livestreams()).toHaveLength(LIVE_WATCH_MAX);
    // A livestream watched already can still get another channel.
    expect(
      await command(h, urls[1] as string, `watch ${RACE[1]}`, { team: "T0MORE", channel: "C0MORE" }),
    ).toContain("now watches");
  }, 60_000);

  it("concurrent DM watches over the three processes stop exactly at the person's 10 and the workspace's 100", async () => {
    const registry = h.built.watch?.registry;
    // One person, 15 livestreams watched already (the cap in all is reached), at once: exactly 10.
    const watched = ((await registry?.livestreams()) ?? []).slice(0, 15);
    expect(watched).toHaveLength(15);
    const one = await Promise.all(
      watched.map((ls, i) =>
        command(h, urls[i % 3] as string, `watch ${ls} dm`, { team: "T0DM", channel: "C0DM" }, "U0MEMBER"),
      ),
    );
    expect(one.filter((a) => a.includes("You will get a DM"))).toHaveLength(10);
    for (const a of one.filter((x) => !x.includes("You will get a DM")))
      expect(a).toContain("the most one person can");
    expect((await registry?.listTeam("T0DM"))?.filter((w) => w.channelId === "@U0MEMBER")).toHaveLength(10);

    // 120 people of one workspace, one DM watch each, at once: exactly 100.
    const people = Array.from({ length: 120 }, (_, i) => `U0Q${String(i).padStart(3, "0")}`);
    for (const id of people) h.slack.addUser({ id, team_id: "T0DMCAP", name: id.toLowerCase() });
    const many = await Promise.all(
      people.map((u, i) =>
        command(h, urls[i % 3] as string, `watch ${RACE[1]} dm`, { team: "T0DMCAP", channel: "C0DM" }, u),
      ),
    );
    expect(many.filter((a) => a.includes("You will get a DM"))).toHaveLength(100);
    for (const a of many.filter((x) => !x.includes("You will get a DM")))
      expect(a).toContain("already has 100 watches");
    expect(await registry?.listTeam("T0DMCAP")).toHaveLength(100);
  }, 120_000);
});

describe("one process on a sqlite file", () => {
  const dir = mkdtempSync(join(tmpdir(), "watch-race-"));
  const store: StoreUrl = {
    kind: "sqlite",
    path: join(dir, "bot.sqlite"),
    url: `sqlite://${join(dir, "bot.sqlite")}`,
  };
  let h: Harness | undefined;
  afterAll(async () => {
    await h?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("200 concurrent changes lose nothing, the workspace cap holds, and a restart reads every watch", async () => {
    h = await startHarness({
      store,
      env: { ...ENV, LIVE_WATCH_MAX: "1000" },
      watch: { manual: true },
      orgWide: ORG,
    });
    addLivestreams(h, RACE);
    const p = plan();
    const one = [h.url];
    await race(
      h,
      one,
      p.seed.map((k) => ({ k, verb: "watch" })),
    );
    const changes = [
      ...p.stop.map((k) => ({ k, verb: "unwatch" as const })),
      ...p.watch.map((k) => ({ k, verb: "watch" as const })),
    ];
    await race(h, one, shuffled(changes, 7));
    const s = await expectExactly(h, p.expected);
    const answers = await Promise.all(
      Array.from({ length: 150 }, (_, i) =>
        command(h as Harness, h?.url ?? "", `watch ${RACE[1]}`, { team: "T0CAP", channel: `C0CAP${i}` }),
      ),
    );
    expect(answers.filter((a) => a.includes("now watches"))).toHaveLength(100);
    expect(await h.built.watch?.registry.listTeam("T0CAP")).toHaveLength(100);
    await h.close();

    // Restarted on the same file with the poller on: every watched livestream is read within about
    // one interval (first reads are spread over one), and none that nobody watches.
    h = await startHarness({ store, env: ENV, orgWide: ORG });
    addLivestreams(h, RACE);
    const read = (ls: string) =>
      h?.sandbox.requests.some((r) => r.method === "GET" && r.path === `/v2/livestreams/${ls}`);
    await waitFor(() => s.index.every(read), 8000, "a read of every watched livestream");
    expect(RACE.filter((ls) => !s.index.includes(ls)).some(read)).toBe(false);
  }, 120_000);
});
