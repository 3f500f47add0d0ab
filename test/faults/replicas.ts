/**
 * Bot replicas as processes of their own (test/faults/replica.ts), for the scale-out tests: start
 * one with an environment and compose options, kill it with SIGKILL (a crash: no graceful stop,
 * no lease handed back), or close it gracefully. Their log lines are kept for the secret scan and
 * for the failure message.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { ComposeOptions } from "../../src/compose.js";
import { waitFor } from "../support/harness.js";

const REPLICA = fileURLToPath(new URL("./replica.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../../", import.meta.url));

export class Replica {
  readonly logs: string[] = [];
  url = "";
  private readonly exited: Promise<void>;

  private constructor(
    readonly name: string,
    private readonly proc: ChildProcess,
  ) {
    this.exited = new Promise<void>((resolve) => proc.once("exit", () => resolve()));
  }

  get port(): number {
    return Number(new URL(this.url).port);
  }

  get alive(): boolean {
    return this.proc.exitCode === null && this.proc.signalCode === null;
  }

  static async start(name: string, env: Record<string, string>, compose: ComposeOptions): Promise<Replica> {
    const proc = spawn(process.execPath, ["--import", "tsx", REPLICA], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const r = new Replica(name, proc);
    let out = "";
    proc.stdout?.on("data", (d: Buffer) => {
      out += d.toString("utf8");
      const line = out.split("\n").find((l) => l.startsWith("{"));
      if (line && !r.url) r.url = String((JSON.parse(line) as { url: string }).url);
    });
    let err = "";
    proc.stderr?.on("data", (d: Buffer) => {
      err += d.toString("utf8");
      const parts = err.split("\n");
      err = parts.pop() ?? "";
      r.logs.push(...parts.filter(Boolean));
    });
    proc.stdin?.write(`${JSON.stringify({ env, compose })}\n`);
    try {
      await waitFor(() => r.url !== "" || !r.alive, 60_000, `replica ${name} to listen`);
    } catch (e) {
      r.kill9();
      throw e;
    }
    if (!r.url) throw new Error(`replica ${name} exited before listening: ${r.logs.slice(-5).join("\n")}`);
    return r;
  }

  /** A crash: SIGKILL, nothing handed back. */
  kill9(): Promise<void> {
    if (this.alive) this.proc.kill("SIGKILL");
    return this.exited;
  }

  /** Graceful stop (stdin ends: the bot closes), SIGKILL after 15 s. */
  async close(): Promise<void> {
    if (!this.alive) return;
    this.proc.stdin?.end();
    const timer = setTimeout(() => this.proc.kill("SIGKILL"), 15_000);
    await this.exited;
    clearTimeout(timer);
  }

  /** Log lines at warn or above that are not expected during the faults (for the failure message). */
  errors(): string[] {
    return this.logs.filter((l) => /"level":"(error|fatal)"/.test(l)).map((l) => l.slice(0, 300));
  }
}
