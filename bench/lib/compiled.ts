/**
 * The bot's targets as the image runs the bot: compiled JavaScript under plain node, not tsx
 * compiling TypeScript on load (which adds its own memory to the process measured). Compiled once
 * per bench run with the project's TypeScript (bench/tsconfig.targets.json → bench/.dist/, not
 * committed), then forked like any target.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const CONFIG = fileURLToPath(new URL("../tsconfig.targets.json", import.meta.url));
const MAIN = fileURLToPath(new URL("../.dist/bench/targets/main.js", import.meta.url));

let compiled: string | undefined;

/** The compiled target entry (bench/targets/main.ts as JavaScript), compiled on first use. */
export function compiledMain(): string {
  if (compiled !== undefined) return compiled;
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-p", CONFIG], { stdio: "inherit" });
  compiled = MAIN;
  return compiled;
}

const DOCKERFILE = fileURLToPath(new URL("../../Dockerfile", import.meta.url));

/**
 * The node flags the image starts the bot with: the flags between `node` and the script in the
 * Dockerfile's last `CMD ["node", …, "dist/index.js"]`, so the bench runs the bot as the image does.
 */
export function imageNodeFlags(): string[] {
  const cmd = readFileSync(DOCKERFILE, "utf8")
    .split("\n")
    .filter((l) => /^CMD\s+\[/.test(l))
    .at(-1);
  if (cmd === undefined) return [];
  const args = JSON.parse(cmd.replace(/^CMD\s+/, "")) as string[];
  if (args[0] !== "node") return [];
  return args.slice(1, -1).filter((a) => a.startsWith("--"));
}
