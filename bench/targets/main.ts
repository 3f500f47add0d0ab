/**
 * Entry of a load-target process (forked by bench/lib/target.ts): starts the target named by the
 * TargetSpec in argv[2], reports `ready`, then serves `counts` and `close` over IPC. If the
 * runner goes away (IPC disconnect), the target closes itself, so no server outlives a bench.
 */
import { writeFile } from "node:fs/promises";
import { Session } from "node:inspector/promises";
import type { FromTarget, TargetSpec, ToTarget } from "../lib/protocol.js";
import { stage } from "./stage.js";
import type { RunningTarget } from "./types.js";

function send(message: FromTarget): void {
  process.send?.(message);
}

/** Imported on demand: the bare process must not load the bot's modules (its RSS is reported). */
async function start(spec: TargetSpec): Promise<RunningTarget> {
  stage(`loading the ${spec.kind} target's modules`);
  switch (spec.kind) {
    case "bare":
      return (await import("./bare.js")).startBare();
    case "fastify":
      return (await import("./fastify.js")).startFastify();
    case "floor":
      return (await import("./floor.js")).startFloor(spec);
    case "memory-floor":
      return (await import("./floor.js")).startMemoryFloor();
    case "redis-floor":
      return (await import("./floor.js")).startRedisFloor(spec);
    case "bot":
      return (await import("./bot.js")).startBotTarget(spec);
    case "app":
      return (await import("./app.js")).startAppTarget(spec);
    case "bolt":
      return (await import("./bolt.js")).startBoltTarget(spec);
  }
}

async function main(): Promise<void> {
  if (!process.send) throw new Error("bench/targets/main.ts runs as a child of the bench runner (IPC)");
  const spec = JSON.parse(process.argv[2] ?? "null") as TargetSpec | null;
  if (!spec) throw new Error("no target spec given");
  const target = await start(spec);
  stage("started; reporting ready");
  let profiler: Session | undefined;
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= target.close();
    return closing;
  };

  process.on("message", (m: ToTarget) => {
    void (async () => {
      try {
        if (m.type === "counts") {
          const c = await target.counts();
          const cpu = process.cpuUsage();
          send({
            type: "counts",
            id: m.id,
            ...c,
            rssBytes: process.memoryUsage.rss(),
            maxRssBytes: process.resourceUsage().maxRSS * 1024,
            peakRssBytes: Math.max(peakRss, process.memoryUsage.rss()),
            cpuUs: cpu.user + cpu.system,
          });
        } else if (m.type === "profile" && m.action === "start") {
          profiler = new Session();
          profiler.connect();
          await profiler.post("Profiler.enable");
          await profiler.post("Profiler.setSamplingInterval", { interval: 100 });
          await profiler.post("Profiler.start");
          send({ type: "profiled", id: m.id, file: null });
        } else if (m.type === "profile" && m.action === "stop") {
          if (!profiler) throw new Error("profile stop without start");
          const { profile } = await profiler.post("Profiler.stop");
          profiler.disconnect();
          profiler = undefined;
          await writeFile(m.file, JSON.stringify(profile));
          send({ type: "profiled", id: m.id, file: m.file });
        } else if (m.type === "close") {
          await close();
          send({ type: "closed", id: m.id });
          // Let the reply go, then leave: the disconnect handler exits.
          process.disconnect();
        }
      } catch (err) {
        send({ type: "failed", message: err instanceof Error ? err.message : String(err) });
      }
    })();
  });
  process.on("disconnect", () => {
    void close().finally(() => process.exit(0));
  });
  // Peak RSS from here on: start-up (loading and compiling the sources) is not the target's load.
  let peakRss = process.memoryUsage.rss();
  setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
  }, 100).unref();
  send({ type: "ready", url: target.url, path: target.path, ownerId: target.ownerId });
}

main().catch((err: unknown) => {
  const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
  send({ type: "failed", message });
  process.exitCode = 1;
  setTimeout(() => process.exit(1), 100).unref();
});
