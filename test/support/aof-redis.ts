/**
 * A private redis-server configured as an operator running replicas would: append-only file on,
 * fsynced on every write (`appendfsync always`), in a folder of its own, on its own port. Never
 * the machine's shared Redis on 6379 (other tests use it): this one is killed and restarted.
 * A restart keeps every write Redis acknowledged (docs/operations.md, "Several replicas").
 */
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { freePort, redisAnswers, waitFor } from "../store/helpers.js";

export class AofRedis {
  private child: ChildProcess | undefined;
  readonly dir = mkdtempSync(join(tmpdir(), "bot-aof-"));

  private constructor(readonly port: number) {}

  static async create(): Promise<AofRedis> {
    return new AofRedis(await freePort());
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const args = ["--port", String(this.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "yes"];
    args.push("--appendfsync", "always", "--dir", this.dir, "--daemonize", "no");
    const child = spawn("redis-server", args, { stdio: "ignore" });
    child.on("error", () => undefined);
    this.child = child;
    if (!(await waitFor(() => redisAnswers(this.port), 10_000, 50))) {
      throw new Error(`redis-server did not start on port ${this.port}`);
    }
  }

  /** kill -9: no shutdown save, no goodbye to the clients. */
  async kill(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    child.kill("SIGKILL");
    await Promise.race([exited, sleep(5000)]);
  }

  /** Every client's commands wait `ms` (CLIENT PAUSE): Redis is up but answers nothing. */
  async pauseClients(ms: number): Promise<void> {
    await promisify(execFile)("redis-cli", ["-p", String(this.port), "CLIENT", "PAUSE", String(ms), "ALL"]);
  }

  async cleanup(): Promise<void> {
    await this.kill();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
