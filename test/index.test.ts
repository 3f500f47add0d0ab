/**
 * `src/index.ts` as an operator runs it: a child process with only environment variables, the
 * sqlite store in a fresh folder, the sandbox and the Slack stand-in as its peers. It listens,
 * answers Slack, and stops cleanly on SIGTERM with exit code 0.
 */

import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { botEnvForFakes } from "../fakes/env.js";
import { type Sandbox, SEED, startSandbox } from "../fakes/platform/server.js";
import { type SlackStandin, sendSigned, slashCommandBody, startSlackStandin } from "../fakes/slack/index.js";
import { waitFor } from "./support/harness.js";
import { spawnIndex } from "./support/index-process.js";

const SECRET = "index-test-signing-secret-0123456789";

describe("the bot process", () => {
  let sandbox: Sandbox;
  let slack: SlackStandin;
  let dir: string;
  let child: ChildProcess | undefined;

  /** The bot's environment: the fakes, and a sqlite file in `dir`/`folder`. */
  const botEnv = (folder: string) =>
    botEnvForFakes({
      sandbox,
      slack,
      publicUrl: "https://bot.example.test",
      signingSecret: SECRET,
      store: `sqlite://${join(dir, folder, "bot.sqlite")}`,
      logLevel: "info",
    });

  beforeAll(async () => {
    sandbox = await startSandbox();
    slack = await startSlackStandin();
    dir = mkdtempSync(join(tmpdir(), "bot-index-"));
  });
  afterAll(async () => {
    child?.kill("SIGKILL");
    await slack.close();
    await sandbox.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("exits 1 with one line per problem when the configuration is invalid", async () => {
    const p = spawn(process.execPath, ["--import", "tsx", "src/index.ts"], {
      env: { PATH: process.env.PATH ?? "", PUBLIC_URL: "http://insecure.example" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let err = "";
    p.stderr?.on("data", (d) => {
      err += String(d);
    });
    const code = await new Promise<number | null>((r) => p.on("exit", r));
    expect(code).toBe(1);
    expect(err).toMatch(/config error: PUBLIC_URL: must start with https:\/\//);
    expect(err).toMatch(/config error: SLACK_SIGNING_SECRET: is required/);
  });

  it("starts, answers a slash command, and stops on SIGTERM with exit code 0", async () => {
    const bot = await spawnIndex(botEnv("nested"));
    child = bot.child;
    const { port } = bot;
    await bot.listening(20_000);
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);

    const responseUrl = slack.newResponseUrl("C0GENERAL", "U0MEMBER");
    const body = slashCommandBody({
      command: "/live",
      text: `status ${SEED.livestreams.onAirAdBreak}`,
      userId: "U0MEMBER",
      teamId: slack.teamId,
      channelId: "C0GENERAL",
      responseUrl,
    });
    const res = await sendSigned(`http://127.0.0.1:${port}/slack/events`, body, SECRET);
    expect(res.status).toBe(200);
    const answer = await waitFor(() => slack.responses(responseUrl)[0], 10_000, "the status card");
    expect(answer.response_type).toBe("in_channel");

    const t0 = Date.now();
    child.kill("SIGTERM");
    expect((await bot.exited).code).toBe(0);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(bot.output()).toContain("stopped");
    // The log never carries the secrets it was given.
    for (const s of [SECRET, slack.botToken, sandbox.clientSecret]) expect(bot.output()).not.toContain(s);
    child = undefined;
  }, 40_000);

  it("says once at start-up, before any request, that a key without video.read names videos by their id, and how to grant it", async () => {
    sandbox.setKeyScopes({ scopes: ["live.read", "profile.manage"], onMissing: "narrow" });
    const bot = await spawnIndex(botEnv("scopes"));
    child = bot.child;
    const { port } = bot;
    try {
      await bot.listening(20_000);
      const log = bot.output;
      // No Slack request and no /readyz: the start-up itself gets a token and says it.
      await waitFor(() => log().includes("working without video.read"), 10_000, "the scope line");
      const line =
        log()
          .split("\n")
          .find((l) => l.includes("working without video.read")) ?? "";
      expect(line).toContain("videos are named by their id");
      expect(line).toContain("grant video.read to the bot's private API key");
      // Later tokens (a readiness check) do not say it again.
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
      expect(log().split("working without video.read").length - 1).toBe(1);
    } finally {
      bot.child.kill("SIGTERM");
      await bot.exited;
      child = undefined;
      sandbox.setKeyScopes({ scopes: null, onMissing: "narrow" });
    }
  }, 40_000);
});
