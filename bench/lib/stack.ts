/**
 * The whole bot for the command and burst suites, split like production: the bot in its own
 * process (bench/targets/app.ts, so its CPU and memory are its own), the platform sandbox and the
 * Slack stand-in here in the runner (they are the remote services). Slack requests are signed here
 * and sent over HTTP to the bot's real Bolt receiver.
 */
import { Agent, request } from "undici";
import { botEnvForFakes } from "../../fakes/env.js";
import type { Sandbox, SandboxOptions } from "../../fakes/platform/server.js";
import { type SlackStandin, signSlackRequest, slashCommandBody } from "../../fakes/slack/index.js";
import { startFakes } from "../../fakes/stack.js";
import type { WorkerSpec } from "./protocol.js";
import { startTarget, type TargetHandle } from "./target.js";

export const BENCH_SIGNING_SECRET = "bench-signing-secret-0123456789abcdef";
export const BENCH_PUBLIC_URL = "https://bot.bench.invalid";

/** One signed Slack request, built before it is timed. */
export interface PreparedSlash {
  body: string;
  headers: Record<string, string>;
  responseUrl: string;
}

export interface SlashReply {
  status: number;
  /** From the request's start to the whole answer, milliseconds. */
  ms: number;
}

export interface Stack {
  sandbox: Sandbox;
  slack: SlackStandin;
  bot: TargetHandle;
  eventsUrl: string;
  prepareSlash(command: string, text: string, opts?: { user?: string; channel?: string }): PreparedSlash;
  send(p: PreparedSlash): Promise<SlashReply>;
  /** The n-th (1-based) answer posted to a response_url, waiting up to timeoutMs. */
  answer(responseUrl: string, n?: number, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** `/webhook set <profile>` in `channel` as an admin; the bot-side path of the callback URL. */
  setWebhook(profileId: string, channel: string): Promise<string>;
  /**
   * The idle RSS of a minimal Bolt app (bench/targets/bolt.ts, compiled like the bot, the same
   * Slack stand-in), started, left idle for a second, measured and stopped: the floor of any Bolt
   * app's memory, said beside the bot's.
   */
  boltIdleRss(): Promise<number>;
  close(): Promise<void>;
}

export async function startStack(o: {
  sandbox?: SandboxOptions;
  worker: WorkerSpec;
  /** Extra bot environment (e.g. LIVE_WATCH_INTERVAL_MS). */
  env?: Record<string, string>;
  maxWatchesPerTeam?: number;
}): Promise<Stack> {
  const fakes = await startFakes(o.sandbox ? { sandbox: o.sandbox } : {});
  const { sandbox, slack } = fakes;
  let bot: TargetHandle | undefined;
  const agent = new Agent({ connections: null, keepAliveTimeout: 30_000, pipelining: 1 });
  try {
    bot = await startTarget(
      {
        kind: "app",
        worker: o.worker,
        env: {
          ...botEnvForFakes({
            sandbox,
            slack,
            publicUrl: BENCH_PUBLIC_URL,
            signingSecret: BENCH_SIGNING_SECRET,
          }),
          // The benchmarks flood from one user on purpose: read budgets off.
          USER_READS_PER_MINUTE: "0",
          WORKSPACE_READS_PER_MINUTE: "0",
          ...o.env,
        },
        ...(o.maxWatchesPerTeam ? { maxWatchesPerTeam: o.maxWatchesPerTeam } : {}),
      },
      // As the image runs it: compiled, under plain node (its memory is the bot's own).
      { compiled: true },
    );
  } catch (err) {
    await fakes.close();
    await agent.close();
    throw err;
  }
  const target = bot;
  const eventsUrl = `${target.url}/slack/events`;

  const stack: Stack = {
    sandbox,
    slack,
    bot: target,
    eventsUrl,
    prepareSlash(command, text, p = {}) {
      const channel = p.channel ?? "C0GENERAL";
      const user = p.user ?? "U0ADMIN";
      const responseUrl = slack.newResponseUrl(channel, user);
      const body = slashCommandBody({
        command,
        text,
        userId: user,
        teamId: slack.teamId,
        channelId: channel,
        responseUrl,
      });
      return {
        body,
        responseUrl,
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          ...signSlackRequest(body, BENCH_SIGNING_SECRET),
        },
      };
    },
    async send(p) {
      const started = performance.now();
      const res = await request(eventsUrl, {
        method: "POST",
        headers: p.headers,
        body: p.body,
        dispatcher: agent,
      });
      await res.body.dump();
      return { status: res.statusCode, ms: performance.now() - started };
    },
    async answer(responseUrl, n = 1, timeoutMs = 15_000) {
      const started = Date.now();
      for (;;) {
        const got = slack.responses(responseUrl)[n - 1];
        if (got) return got;
        if (Date.now() - started > timeoutMs)
          throw new Error(`no answer ${n} on a response_url within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async boltIdleRss() {
      const bolt = await startTarget(
        {
          kind: "bolt",
          signingSecret: BENCH_SIGNING_SECRET,
          botToken: slack.botToken,
          slackApiUrl: slack.apiUrl,
        },
        { compiled: true },
      );
      try {
        await new Promise((r) => setTimeout(r, 1_000));
        return (await bolt.counts()).rssBytes;
      } finally {
        await bolt.close();
      }
    },
    async setWebhook(profileId, channel) {
      const p = stack.prepareSlash("/webhook", `set ${profileId}`, { channel });
      const r = await stack.send(p);
      if (r.status !== 200) throw new Error(`/webhook set answered HTTP ${r.status}`);
      const answer = await stack.answer(p.responseUrl);
      const callback = sandbox.state.profiles.get(profileId)?.webhook.callback_url;
      if (!callback?.startsWith(BENCH_PUBLIC_URL))
        throw new Error(`/webhook set did not set the callback URL: ${JSON.stringify(answer).slice(0, 300)}`);
      return callback.slice(BENCH_PUBLIC_URL.length);
    },
    async close() {
      // The sandbox first: requests the bot still has queued for it fail at once instead of
      // keeping the bot's connection pool (and its close) busy.
      await agent.close().catch(() => undefined);
      await sandbox.close();
      await target.close();
      await slack.close();
    },
  };
  return stack;
}
