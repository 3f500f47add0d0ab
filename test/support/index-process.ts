/**
 * `src/index.ts` as a child process, as an operator runs it: only PATH, PORT (a free one), HOST
 * and the environment given; its stdout and stderr collected together. Keep `child` where the
 * test's afterAll can kill it before awaiting `listening`.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { freePort } from "../store/helpers.js";
import { waitFor } from "./harness.js";

export interface IndexProcess {
  child: ChildProcess;
  port: number;
  /** `http://127.0.0.1:<port>` */
  base: string;
  /** Everything it wrote so far, stdout and stderr. */
  output(): string;
  /** Its exit: the code, or the signal that ended it. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves once it logs "bot listening", or rejects after `timeoutMs`. */
  listening(timeoutMs: number): Promise<void>;
}

export async function spawnIndex(env: Record<string, string>): Promise<IndexProcess> {
  const port = await freePort();
  let out = "";
  const child = spawn(process.execPath, ["--import", "tsx", "src/index.ts"], {
    env: { PATH: process.env.PATH ?? "", PORT: String(port), HOST: "127.0.0.1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.on("data", (d) => {
    out += String(d);
  });
  child.stderr?.on("data", (d) => {
    out += String(d);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return {
    child,
    port,
    base: `http://127.0.0.1:${port}`,
    output: () => out,
    exited,
    listening: async (timeoutMs) => {
      await waitFor(() => out.includes("bot listening"), timeoutMs, "the bot to listen");
    },
  };
}
