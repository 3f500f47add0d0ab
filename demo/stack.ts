/**
 * The whole bot on 127.0.0.1 for the demo: the platform sandbox, the Slack stand-in and the bot
 * (composed by src/compose.ts through fakes/stack.ts, with the embedded sqlite store in a temporary folder), each on a free port.
 * The configuration is built from explicit values; nothing is read from the environment.
 */
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  entityDetailsRequestedEvent,
  eventBody,
  functionExecutedEvent,
  linkSharedEvent,
  sendSigned,
  slashCommandBody,
} from "../fakes/slack/index.js";
import { type FakesAndBotParts, startFakesStack } from "../fakes/stack.js";

/** The address the platform is told to call; deliveries are re-routed to the local bot. */
export const DEMO_PUBLIC_URL = "https://bot.example.com";

export interface StackOptions {
  /** Worker tuning: short, so that the coalesced progress edits are visible in a few seconds. */
  worker?: { coalesceMs?: number; postIntervalMs?: number; pollMs?: number };
  /** DIGEST_PERIOD (default 10s). */
  digestPeriod?: string;
  /** Live watch: read interval and off-air grace, short so that a whole broadcast fits in seconds. */
  live?: { intervalMs: number; graceMs: number };
}

export interface Stack extends FakesAndBotParts {
  /** http://127.0.0.1:PORT of the bot */
  url: string;
  /** the sqlite file of the embedded store */
  storeFile: string;
  /** log lines of the bot (JSON), kept in memory: shown only when something goes wrong */
  logs: string[];
  /** Sends a signed slash command as `user` in `channel`; returns the response_url to watch. */
  slash(
    command: string,
    text: string,
    o: { user: string; channel: string },
  ): Promise<{ status: number; ms: number; responseUrl: string }>;
  /** Slack's `link_shared` event for `url` pasted by `user` in `channel` (signed, to the bot). */
  shareLink(url: string, o: { user: string; channel: string }): Promise<{ status: number }>;
  /**
   * `user` opens the Work Object of a previewed link (Slack's signed `entity_details_requested`);
   * the trigger id the bot's `entity.presentDetails` answers.
   */
  openDetails(
    url: string,
    externalRef: { id: string; type?: string },
    o: { user: string; channel: string },
  ): Promise<{ status: number; triggerId: string }>;
  /** A workflow reaches the app's step `callbackId`: Slack's signed `function_executed`; its execution id. */
  runStep(
    callbackId: string,
    inputs: Record<string, unknown>,
  ): Promise<{ status: number; executionId: string }>;
  /** Stops the bot (worker first), the store, the stand-in and the sandbox; removes the temp folder. */
  close(): Promise<void>;
}

export async function startStack(opts: StackOptions = {}): Promise<Stack> {
  const dir = await mkdtemp(join(tmpdir(), "platform-slack-bot-demo-"));
  const storeFile = join(dir, "bot.sqlite");
  const signingSecret = randomBytes(24).toString("hex");
  const cleanups: Array<() => Promise<void>> = [() => rm(dir, { recursive: true, force: true })];
  const closeAll = async () => {
    for (const c of cleanups.splice(0).reverse()) await c().catch(() => undefined);
  };

  try {
    const stack = await startFakesStack({
      publicUrl: DEMO_PUBLIC_URL,
      signingSecret,
      store: `sqlite://${storeFile}`,
      logLevel: "info",
      env: {
        LIVE_WATCH_INTERVAL_MS: String(opts.live?.intervalMs ?? 1000),
        LIVE_OFFAIR_GRACE_MS: String(opts.live?.graceMs ?? 1500),
        // Digests every few seconds instead of every 24 h, so that one fires during the demo.
        DIGEST_PERIOD: opts.digestPeriod ?? "10s",
      },
      compose: { worker: { coalesceMs: 300, postIntervalMs: 100, pollMs: 20, ...opts.worker } },
    });
    cleanups.push(() => stack.close());
    const { sandbox, slack, bot, config, logs } = stack;
    const { store, outbox, platform, built, url } = bot;
    const eventsUrl = `${url}/slack/events`;

    return {
      sandbox,
      slack,
      store,
      outbox,
      platform,
      built,
      config,
      url,
      storeFile,
      logs,
      async slash(command, text, o) {
        const responseUrl = slack.newResponseUrl(o.channel, o.user);
        const body = slashCommandBody({
          command,
          text,
          userId: o.user,
          teamId: slack.teamId,
          channelId: o.channel,
          responseUrl,
        });
        const res = await sendSigned(eventsUrl, body, signingSecret);
        return { status: res.status, ms: res.ms, responseUrl };
      },
      async shareLink(link, o) {
        const event = linkSharedEvent({ urls: [link], channelId: o.channel, userId: o.user });
        const res = await sendSigned(eventsUrl, eventBody({ event, teamId: slack.teamId }), signingSecret);
        return { status: res.status };
      },
      async openDetails(url, externalRef, o) {
        const triggerId = `${Date.now()}.${randomBytes(4).readUInt32BE()}.${randomBytes(16).toString("hex")}`;
        const event = entityDetailsRequestedEvent({
          url,
          externalRef,
          userId: o.user,
          channelId: o.channel,
          triggerId,
        });
        const res = await sendSigned(eventsUrl, eventBody({ event, teamId: slack.teamId }), signingSecret);
        return { status: res.status, triggerId };
      },
      async runStep(callbackId, inputs) {
        const { executionId, token } = slack.startExecution();
        const event = functionExecutedEvent({ callbackId, inputs, executionId, token });
        const res = await sendSigned(eventsUrl, eventBody({ event, teamId: slack.teamId }), signingSecret);
        return { status: res.status, executionId };
      },
      close: closeAll,
    };
  } catch (err) {
    await closeAll();
    throw err;
  }
}
