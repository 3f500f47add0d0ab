/**
 * Token requests over 30 minutes of steady use, on a fake clock: the platform client
 * (src/platform, with its token provider) and the sandbox share a clock that the bench moves on
 * by `everyS` seconds before each livestream read (what `/live status` does after its ack), for
 * `minutes` simulated minutes. The requests themselves are real HTTP to the sandbox; only time is
 * simulated. Run once per token lifetime (the sandbox's default, 1,800 s, and a short one).
 *
 * Expected: one request, then one each time the cached token reaches its refresh point
 * (expires_in minus the provider's margin: 60 s, at most 10% of the lifetime), i.e.
 * ceil(simulated time / (expires_in - margin)).
 */

import { SEED, startSandbox } from "../../fakes/platform/server.js";
import { loadConfig } from "../../src/config.js";
import { createLogger } from "../../src/log.js";
import { LIVESTREAM_CARD_FIELDS } from "../../src/messages/index.js";
import { createPlatformClient } from "../../src/platform/index.js";

export interface TokenSimRun {
  lifetimeS: number;
  marginS: number;
  minutes: number;
  everyS: number;
  reads: number;
  failedReads: number;
  tokenRequests: number;
  expected: number;
}

export interface TokenSimResult {
  runs: TokenSimRun[];
  problems: string[];
}

async function simulate(lifetimeS: number, minutes: number, everyS: number): Promise<TokenSimRun> {
  let clock = Date.UTC(2026, 0, 1);
  const now = () => clock;
  const sandbox = await startSandbox({ now, tokenLifetimeSeconds: lifetimeS });
  const config = loadConfig({
    PUBLIC_URL: "https://bot.bench.invalid",
    SLACK_SIGNING_SECRET: "bench-signing-secret-0123456789abcdef",
    SLACK_BOT_TOKEN: "xoxb-bench",
    PLATFORM_API_URL: sandbox.apiUrl,
    PLATFORM_AUTH_URL: sandbox.url,
    PLATFORM_CLIENT_ID: sandbox.clientId,
    PLATFORM_CLIENT_SECRET: sandbox.clientSecret,
    STORE_URL: "memory://",
  });
  const logger = createLogger({ level: "warn", destination: { write: () => undefined } });
  const platform = createPlatformClient(config.platform, logger, { now });
  let reads = 0;
  let failedReads = 0;
  try {
    const end = clock + minutes * 60_000;
    for (; clock < end; clock += everyS * 1000) {
      reads += 1;
      await platform.getLivestream(SEED.livestreams.onAirAdBreak, LIVESTREAM_CARD_FIELDS).catch(() => {
        failedReads += 1;
      });
    }
  } finally {
    await platform.close();
    await sandbox.close();
  }
  const marginS = Math.min(60, lifetimeS * 0.1);
  return {
    lifetimeS,
    marginS,
    minutes,
    everyS,
    reads,
    failedReads,
    tokenRequests: sandbox.stats().tokenRequests,
    expected: Math.ceil((minutes * 60) / (lifetimeS - marginS)),
  };
}

export async function runTokenSim(
  log: (line: string) => void,
  minutes = 30,
  everyS = 2,
): Promise<TokenSimResult> {
  const runs: TokenSimRun[] = [];
  const problems: string[] = [];
  for (const lifetimeS of [1800, 300]) {
    log(`  ${minutes} simulated minutes, one read every ${everyS} s, tokens living ${lifetimeS} s…`);
    const run = await simulate(lifetimeS, minutes, everyS);
    runs.push(run);
    if (run.failedReads > 0)
      problems.push(`tokens ${lifetimeS} s: ${run.failedReads} of ${run.reads} reads failed`);
  }
  return { runs, problems };
}
