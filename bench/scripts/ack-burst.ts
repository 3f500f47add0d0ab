/**
 * Where a burst of slash commands spends the bot's time: `count` `/live status` at once to the bot
 * (its own process, the platform at normal speed) and to the minimal Bolt app, `rounds` pairs, the
 * ack p50/p99 of each; with `--profile <dir>`, a CPU profile of each during the last pair's burst,
 * from the first send to the last ack, summarized (the files are kept).
 *
 *   npx tsx bench/scripts/ack-burst.ts --rounds 3 --count 1000 --profile /tmp/acks
 *   npx tsx bench/scripts/ack-burst.ts --store sqlite
 */
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { SEED } from "../../fakes/platform/server.js";
import { summarize } from "../lib/load.js";
import { summarizeProfile } from "../lib/profile.js";
import { sendFromClient } from "../lib/slash-client.js";
import { BENCH_SIGNING_SECRET, startStack } from "../lib/stack.js";
import { startTarget } from "../lib/target.js";

const { values } = parseArgs({
  options: {
    rounds: { type: "string", default: "3" },
    count: { type: "string", default: "1000" },
    profile: { type: "string" },
    store: { type: "string", default: "memory" },
  },
});
const rounds = Number(values.rounds);
const count = Number(values.count);
const LIVESTREAM = SEED.livestreams.onAirAdBreak;

const env: Record<string, string> = {};
let tmp: string | undefined;
if (values.store === "sqlite") {
  tmp = await mkdtemp(path.join(os.tmpdir(), "ack-burst-"));
  env.STORE_URL = `sqlite://${path.join(tmp, "bot.sqlite")}`;
}
const stack = await startStack({ worker: { manual: true }, env });
const bolt = await startTarget({
  kind: "bolt",
  signingSecret: BENCH_SIGNING_SECRET,
  botToken: stack.slack.botToken,
  slackApiUrl: stack.slack.apiUrl,
});
const latency = (ms: number[]) => {
  const a = Float64Array.from(ms);
  return summarize(a, a.length);
};
try {
  const warm = stack.prepareSlash("/live", `status ${LIVESTREAM}`);
  await stack.send(warm);
  await stack.answer(warm.responseUrl);
  const once = async (who: "bot" | "bolt", profileFile?: string) => {
    const prepared = Array.from({ length: count }, () => stack.prepareSlash("/live", `status ${LIVESTREAM}`));
    const target = who === "bot" ? stack.bot : bolt;
    if (profileFile) await target.startProfile();
    const started = Date.now();
    const { replies } = await sendFromClient({
      url: who === "bot" ? stack.eventsUrl : `${bolt.url}/slack/events`,
      requests: prepared.map((p) => ({ body: p.body, headers: p.headers })),
      rate: 0,
    });
    // Stopped at the last ack: the CPU that stood between the first request and the last ack.
    if (profileFile) await target.stopProfile(profileFile);
    let lastAnswer = 0;
    if (who === "bot") {
      for (const p of prepared) await stack.answer(p.responseUrl, 1, 60_000);
      for (const c of stack.slack.callsTo("response_url")) lastAnswer = Math.max(lastAnswer, c.at);
    }
    const bad = replies.filter((r) => r.status !== 200).length;
    const s = latency(replies.filter((r) => r.status === 200).map((r) => r.ms));
    const answers = who === "bot" ? `, last answer ${lastAnswer - started} ms after the first send` : "";
    console.log(
      `${who}: ack p50 ${s.p50.toFixed(0)} ms, p99 ${s.p99.toFixed(0)} ms, max ${s.max.toFixed(0)} ms${bad ? `, ${bad} not 200` : ""}${answers}`,
    );
    await new Promise((r) => setTimeout(r, 500));
    return s.p99;
  };
  await once("bolt");
  const ratios: number[] = [];
  let dir: string | undefined;
  if (values.profile) {
    dir = values.profile;
    await mkdir(dir, { recursive: true });
  }
  for (let i = 0; i < rounds; i++) {
    const file = dir && i === rounds - 1 ? path.join(dir, `bot-burst-${Date.now()}.cpuprofile`) : undefined;
    const b = i % 2 === 0 ? await once("bot", file) : 0;
    const o = await once("bolt", file?.replace("bot-burst", "bolt-burst"));
    const b2 = i % 2 === 1 ? await once("bot", file) : b;
    ratios.push(b2 / o);
    console.log(`  pair ${i + 1}: ${(b2 / o).toFixed(2)}×`);
    for (const f of file ? [file, file.replace("bot-burst", "bolt-burst")] : []) {
      const s = await summarizeProfile(f, count, 25);
      console.log(`profile ${f}: busy ${s.busyMs.toFixed(0)} ms of ${s.wallMs.toFixed(0)} ms`);
      for (const [title, rows] of [
        ["by origin", s.byOrigin],
        ["by function (self)", s.byFunction],
        ["project code, inclusive", s.inclusive],
      ] as const) {
        console.log(`  ${title}:`);
        for (const r of rows)
          console.log(
            `    ${(r.share * 100).toFixed(1).padStart(5)} %  ${r.ms.toFixed(0).padStart(6)} ms  ${r.name}`,
          );
      }
    }
  }
  ratios.sort((a, b) => a - b);
  console.log(`median ratio ${ratios[Math.floor(ratios.length / 2)]?.toFixed(2)}×`);
} finally {
  await bolt.close();
  await stack.close();
  if (tmp) await rm(tmp, { recursive: true, force: true });
}
