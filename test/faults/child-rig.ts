/**
 * For the fault tests that run `src/index.ts` as a child process on a sqlite file: the sandbox and
 * the Slack stand-in as its peers, a fresh folder for the file, the environment that points the
 * bot at them; and the newsroom profile's webhook set over a signed `/webhook set`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { botEnvForFakes } from "../../fakes/env.js";
import { type Sandbox, SEED, startSandbox } from "../../fakes/platform/server.js";
import {
  type SlackStandin,
  sendSigned,
  slashCommandBody,
  startSlackStandin,
} from "../../fakes/slack/index.js";
import { PUBLIC_URL, waitFor } from "../support/harness.js";

export interface ChildRig {
  sandbox: Sandbox;
  slack: SlackStandin;
  /** The bot's environment: the fakes, `secret`, and `sqlite://<a fresh folder>/bot.sqlite`. */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** The folder is named `bot-<name>-…`. */
export async function startChildRig(name: string, secret: string): Promise<ChildRig> {
  const sandbox = await startSandbox();
  const slack = await startSlackStandin();
  const dir = mkdtempSync(join(tmpdir(), `bot-${name}-`));
  const env = botEnvForFakes({
    sandbox,
    slack,
    publicUrl: PUBLIC_URL,
    signingSecret: secret,
    store: `sqlite://${join(dir, "bot.sqlite")}`,
    logLevel: "info",
  });
  return {
    sandbox,
    slack,
    env,
    close: async () => {
      await slack.close();
      await sandbox.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `/webhook set <newsroom>` in `channel`, signed with `secret`, to the bot at `base`; the hook's path. */
export async function setNewsroomHook(rig: ChildRig, base: string, secret: string, channel: string) {
  const { sandbox, slack } = rig;
  const responseUrl = slack.newResponseUrl(channel, "U0ADMIN");
  const body = slashCommandBody({
    command: "/webhook",
    text: `set ${SEED.profiles.newsroom}`,
    userId: "U0ADMIN",
    teamId: slack.teamId,
    channelId: channel,
    responseUrl,
  });
  expect((await sendSigned(`${base}/slack/events`, body, secret)).status).toBe(200);
  await waitFor(() => slack.responses(responseUrl)[0], 10_000, "webhook set");
  const path = (sandbox.state.profiles.get(SEED.profiles.newsroom)?.webhook.callback_url ?? "").slice(
    PUBLIC_URL.length,
  );
  expect(path).toMatch(/^\/hooks\/platform\//);
  return path;
}
