/**
 * Tests that race several processes over one store: the parent runs a script under tsx and reads
 * one JSON object per stdout line from it; the child says `{ ready: true }` once set up.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { StoreUrl } from "../../src/config.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export type Line = Record<string, unknown>;

export interface LinesChild {
  proc: ChildProcess;
  /** Resolves on the child's `{ ready: true }`. */
  ready: Promise<void>;
}

/** Runs `script` from the repository's root, its stderr shown; every other line goes to `onLine`. */
export function spawnJsonLines(script: string, args: string[], onLine: (line: Line) => void): LinesChild {
  const proc = spawn(process.execPath, ["--import", "tsx", script, ...args], {
    cwd: ROOT,
    stdio: ["pipe", "pipe", "inherit"],
  });
  let buffer = "";
  let onReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => {
    onReady = resolve;
  });
  proc.stdout?.on("data", (chunk: Buffer) => {
    buffer += chunk.toString("utf8");
    for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
      const line = JSON.parse(buffer.slice(0, nl)) as Line;
      buffer = buffer.slice(nl + 1);
      if (line.ready === true) onReady();
      else onLine(line);
    }
  });
  return { proc, ready };
}

/** In the child: one line to the parent. */
export const writeLine = (line: Line): void => {
  process.stdout.write(`${JSON.stringify(line)}\n`);
};

/** In the child: the store the parent names by a redis:// URL or a sqlite file's path. */
export function storeUrlOf(where: string): StoreUrl {
  return where.startsWith("redis://")
    ? { kind: "redis", url: where }
    : { kind: "sqlite", path: where, url: `sqlite://${where}` };
}
