/**
 * Access decided again when a digest is built: a workspace whose profile is no longer bound to it
 * (a restart with new PROFILE_BINDINGS, on the same sqlite file) gets no digest of what was
 * recorded before; the recorded entries are dropped, with one log line saying why. Real path:
 * signed slash commands, the sandbox's deliveries to the bot's route, the Slack stand-in.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import type { Config, StoreUrl } from "../../src/config.js";
import { digestKeyOf } from "../../src/domain/index.js";
import { type Bot, eventually, startBot, startHarness, waitFor } from "../support/harness.js";

const A = "T0STANDIN";
const PROFILE = SEED.profiles.newsroom;
const OTHER = SEED.profiles.studio;
const DIGEST = "C0GENERAL";
const WORKER = { coalesceMs: 200, postIntervalMs: 10, pollMs: 10 };
const dirs: string[] = [];

afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

it("a workspace no longer bound to the profile gets no digest of what was recorded", async () => {
  const dir = mkdtempSync(join(tmpdir(), "bot-digest-revoke-"));
  dirs.push(dir);
  const path = join(dir, "bot.sqlite");
  const store: StoreUrl = { kind: "sqlite", path, url: `sqlite://${path}` };
  const h = await startHarness({
    store,
    env: { DIGEST_PERIOD: "2s", PROFILE_BINDINGS: `${A}=${PROFILE},${OTHER}` },
    worker: { ...WORKER, manual: true },
  });
  let second: Bot | undefined;
  try {
    await h.configureProfile({ channel: "C0NEWS" });
    const res = await h.slash("/webhook", `subscribe ${PROFILE} digest=daily`, {
      user: "U0ADMIN",
      channel: DIGEST,
    });
    expect((await h.answer(res.responseUrl)).response_type).toBe("in_channel");
    for (const r of await h.sandbox.deliverLifecycle(PROFILE, {
      videoId: "x7revdg",
      presets: ["240p", "480p"],
      progressSteps: 2,
      deliverTo: h.url,
    }))
      expect(r.status).toBe(200);
    const key = digestKeyOf(A, PROFILE, DIGEST);
    await eventually(
      async () => {
        await h.built.worker.drain();
        return (await h.built.digests.log.read(key)).entries.length >= 2;
      },
      15_000,
      "the digest's entries",
    );
    await h.built.stop();

    // The operator moves the profile away from the workspace; the digest comes due meanwhile.
    const moved: Config = { ...h.config, access: { ...h.config.access, profileBindings: { [A]: [OTHER] } } };
    second = await startBot(moved, h.logger, { store, worker: WORKER });
    const dropped = await waitFor(
      () =>
        h.logs.find(
          (l) => l.includes("what was recorded for a digest is dropped") && l.includes("profile_not_bound"),
        ),
      10_000,
      "the drop line",
    );
    expect(dropped).toContain(key);
    const log = second.built.digests.log;
    await eventually(async () => (await log.read(key)).entries.length === 0, 5000, "the entries dropped");
    await new Promise((r) => setTimeout(r, 2500));
    const posted = h.slack
      .callsTo("chat.postMessage")
      .filter((c) => c.args.channel === DIGEST && JSON.stringify(c.args).includes("x7revdg"));
    expect(posted).toEqual([]);
    expect(h.slack.messages(DIGEST).filter((m) => m.metadata?.event_type === "video_digest")).toEqual([]);
  } finally {
    await second?.close();
    await h.close();
  }
}, 60_000);
