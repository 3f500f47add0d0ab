/**
 * CPU of one Slack Web API call, through the bot's transport (src/posting/transport.ts,
 * `slackFetch`) and through the global fetch, side by side: two WebClients with the worker's
 * options (src/install/oauth.ts `workerClientOptions`), one of them given `fetch: globalThis.fetch`,
 * calling chat.postMessage (a parent message's blocks) against the Slack stand-in, which runs in a
 * child process so that only the client's CPU is counted (process.cpuUsage of this process).
 * Rounds alternate which client goes first; each round's figure is µs of CPU per call, the
 * median of the rounds is printed with each round.
 *
 *   npx tsx bench/scripts/slack-transport.ts [--calls 400] [--rounds 5]
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { WebClient } from "@slack/web-api";
import { workerClientOptions } from "../../src/install/oauth.js";

const { values } = parseArgs({
  options: {
    calls: { type: "string", default: "400" },
    rounds: { type: "string", default: "5" },
    // Internal: run as the stand-in's process.
    standin: { type: "boolean", default: false },
  },
});

if (values.standin) {
  const { startSlackStandin } = await import("../../fakes/slack/index.js");
  const slack = await startSlackStandin();
  process.stdout.write(`${JSON.stringify({ apiUrl: slack.apiUrl, token: slack.botToken })}\n`);
} else {
  await main();
}

async function startStandin(): Promise<{ child: ChildProcess; apiUrl: string; token: string }> {
  const child = spawn(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), "--standin"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const line = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("the Slack stand-in did not start within 30 s")), 30_000);
    child.once("exit", (code) => reject(new Error(`the Slack stand-in exited (${code})`)));
    child.stdout?.once("data", (d: Buffer) => {
      clearTimeout(timer);
      resolve(String(d));
    });
  });
  return { child, ...(JSON.parse(line) as { apiUrl: string; token: string }) };
}

async function main(): Promise<void> {
  const calls = Math.max(1, Number(values.calls));
  const rounds = Math.max(1, Number(values.rounds));
  const { child, apiUrl, token } = await startStandin();
  try {
    const options = workerClientOptions(apiUrl);
    const clients = {
      "bot's transport (undici request)": new WebClient(token, options),
      "global fetch": new WebClient(token, { ...options, fetch: globalThis.fetch }),
    };
    const blocks = [
      { type: "section", text: { type: "mrkdwn", text: "*Launch keynote* is ready: 3 formats, 12:04" } },
      { type: "context", elements: [{ type: "mrkdwn", text: "x7launch · published · 1080p, 720p, 480p" }] },
    ];
    const call = (c: WebClient) =>
      c.chat.postMessage({ channel: "C0GENERAL", text: "Launch keynote", blocks });
    const perCall = async (c: WebClient): Promise<number> => {
      const before = process.cpuUsage();
      for (let i = 0; i < calls; i++) await call(c);
      const d = process.cpuUsage(before);
      return (d.user + d.system) / calls;
    };
    const names = Object.keys(clients) as Array<keyof typeof clients>;
    // Warm-up: both clients' code compiled, their connections open.
    for (const name of names) for (let i = 0; i < 200; i++) await call(clients[name]);
    const figures = new Map<string, number[]>(names.map((n) => [n, []]));
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? names : [...names].reverse();
      for (const name of order) figures.get(name)?.push(await perCall(clients[name]));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
    console.log(`CPU per chat.postMessage against the Slack stand-in, ${rounds} rounds of ${calls} calls`);
    for (const [name, xs] of figures) {
      console.log(
        `  ${name.padEnd(34)} ${median(xs).toFixed(0).padStart(5)} µs   (${xs.map((x) => x.toFixed(0)).join(", ")})`,
      );
    }
    const [ours, theirs] = names.map((n) => median(figures.get(n) ?? []));
    console.log(`  ratio: ${((ours ?? 0) / (theirs ?? 1)).toFixed(2)}×`);
  } finally {
    child.kill();
  }
}
