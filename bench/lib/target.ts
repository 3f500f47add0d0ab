/**
 * Runner side of a load target: forks bench/targets/main.ts (inheriting the runner's execArgv, so
 * tsx's loader comes along), waits for `ready`, and asks for counts or a close over IPC. Every wait
 * is bounded; a target that does not close in time is killed (its own pid only).
 */
import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { compiledMain, imageNodeFlags } from "./compiled.js";
import type { FromTarget, TargetCounts, TargetSpec, ToTarget } from "./protocol.js";

const MAIN = fileURLToPath(new URL("../targets/main.ts", import.meta.url));

export interface TargetHandle {
  url: string;
  path: string;
  ownerId: string;
  pid: number;
  counts(): Promise<TargetCounts>;
  /** Starts a CPU profile of the target (sampling every 100 µs). */
  startProfile(): Promise<void>;
  /** Stops it and has the target write it (a .cpuprofile, DevTools format) to `file`. */
  stopProfile(file: string): Promise<string>;
  /** Graceful close, then the process exits; resolves when it has exited. */
  close(): Promise<void>;
}

export interface StartTargetOptions {
  /** Extra node flags for the target process (e.g. --cpu-prof). */
  execArgv?: string[];
  readyTimeoutMs?: number;
  /**
   * Run the target compiled, under plain node with the image's node flags, as the image runs the
   * bot (bench/lib/compiled.ts), instead of under tsx: its memory is then the bot's own, not the
   * TypeScript compiler's too.
   */
  compiled?: boolean;
}

export async function startTarget(spec: TargetSpec, opts: StartTargetOptions = {}): Promise<TargetHandle> {
  const child: ChildProcess = fork(opts.compiled ? compiledMain() : MAIN, [JSON.stringify(spec)], {
    execArgv: [...(opts.compiled ? imageNodeFlags() : process.execArgv), ...(opts.execArgv ?? [])],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  let nextId = 1;
  const waiting = new Map<number, { resolve: (m: FromTarget) => void; reject: (e: Error) => void }>();
  let failure: string | undefined;
  const startedAt = Date.now();
  let lastStage = { stage: "forked", at: startedAt };
  /** How far the start-up got, for a target that is not ready in time or exits. */
  const progress = () =>
    `last stage: ${lastStage.stage} (${Date.now() - lastStage.at} ms ago, ${Date.now() - startedAt} ms after the fork)`;
  const failAll = (why: string) => {
    failure ??= why;
    for (const w of waiting.values()) w.reject(new Error(why));
    waiting.clear();
  };
  child.on("message", (m: FromTarget) => {
    if (m.type === "stage") {
      lastStage = { stage: m.stage, at: Date.now() };
      return;
    }
    if (m.type === "failed") return failAll(`target ${describe(spec)} failed: ${m.message}`);
    if ("id" in m) {
      waiting.get(m.id)?.resolve(m);
      waiting.delete(m.id);
    }
  });
  void exited.then((code) => failAll(`target ${describe(spec)} exited (code ${code})`));

  const ready = await new Promise<Extract<FromTarget, { type: "ready" }>>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(
          new Error(
            `target ${describe(spec)} not ready within ${opts.readyTimeoutMs ?? 20_000} ms; ${progress()}`,
          ),
        ),
      opts.readyTimeoutMs ?? 20_000,
    );
    child.on("message", (m: FromTarget) => {
      if (m.type === "ready") {
        clearTimeout(timer);
        resolve(m);
      } else if (m.type === "failed") {
        clearTimeout(timer);
        reject(new Error(`target ${describe(spec)} failed to start: ${m.message}`));
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(
        new Error(
          failure ?? `target ${describe(spec)} exited (code ${code}) before it was ready; ${progress()}`,
        ),
      );
    });
  }).catch(async (err: unknown) => {
    await kill(child, exited);
    throw err;
  });

  const ask = (m: DistributiveOmit<ToTarget, "id">, timeoutMs: number): Promise<FromTarget> => {
    if (failure) return Promise.reject(new Error(failure));
    const id = nextId++;
    return new Promise<FromTarget>((resolve, reject) => {
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error(`target ${describe(spec)}: no answer to ${m.type} within ${timeoutMs} ms`));
      }, timeoutMs);
      waiting.set(id, {
        resolve: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      child.send({ ...m, id } as ToTarget);
    });
  };

  let closed: Promise<void> | undefined;
  return {
    url: ready.url,
    path: ready.path,
    ownerId: ready.ownerId,
    pid: child.pid ?? 0,
    async counts() {
      const r = await ask({ type: "counts" }, 10_000);
      if (r.type !== "counts") throw new Error(`target ${describe(spec)}: unexpected answer ${r.type}`);
      return {
        stored: r.stored,
        ...(r.scheduled === undefined ? {} : { scheduled: r.scheduled }),
        rssBytes: r.rssBytes,
        maxRssBytes: r.maxRssBytes,
        peakRssBytes: r.peakRssBytes,
        logLines: r.logLines,
        cpuUs: r.cpuUs,
      };
    },
    async startProfile() {
      const r = await ask({ type: "profile", action: "start" }, 10_000);
      if (r.type !== "profiled") throw new Error(`target ${describe(spec)}: unexpected answer ${r.type}`);
    },
    async stopProfile(file: string) {
      const r = await ask({ type: "profile", action: "stop", file }, 30_000);
      if (r.type !== "profiled" || !r.file) throw new Error(`target ${describe(spec)}: no profile written`);
      return r.file;
    },
    close() {
      closed ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        try {
          await ask({ type: "close" }, 15_000);
          await withTimeout(exited, 10_000);
        } catch {
          await kill(child, exited);
        }
      })();
      return closed;
    },
  };
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export function describe(spec: TargetSpec): string {
  return spec.kind === "bot" ? `bot/${spec.store}` : spec.kind;
}

async function kill(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGKILL");
  await withTimeout(exited, 5_000).catch(() => undefined);
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(t);
        reject(e);
      },
    );
  });
}
