/**
 * Runs a Lua script on Redis by its SHA1 (EVALSHA); when Redis does not know it (first use, a
 * restart, SCRIPT FLUSH: NOSCRIPT) it is sent whole with EVAL, which also loads it for next time.
 * Every Redis script in src/ goes through `runScript`.
 */
import { createHash } from "node:crypto";
import type { RedisClient } from "../redis-client.js";

export interface Script {
  lua: string;
  sha: string;
}

export const script = (lua: string): Script => ({ lua, sha: createHash("sha1").update(lua).digest("hex") });

/** True for Redis's NOSCRIPT reply (the script is not in its cache). */
export const isNoScript = (err: unknown): boolean => err instanceof Error && err.message.includes("NOSCRIPT");

/** EVALSHA, then EVAL on NOSCRIPT; any other error is thrown as is. */
export async function runScript(
  client: RedisClient,
  s: Script,
  keys: string[],
  args: string[],
): Promise<unknown> {
  try {
    return await client.evalSha(s.sha, { keys, arguments: args });
  } catch (err) {
    if (!isNoScript(err)) throw err;
    return client.eval(s.lua, { keys, arguments: args });
  }
}
