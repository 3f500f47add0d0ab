import { type ChildProcess, spawn } from "node:child_process";
import { createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { at, call, form } from "./helpers.js";

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const address = s.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      s.close(() => resolve(port));
    });
  });

let child: ChildProcess | undefined;
afterEach(() => {
  if (child?.exitCode === null) child.kill("SIGKILL");
  child = undefined;
});

function run(env: Record<string, string>) {
  const proc = spawn(process.execPath, ["--import", "tsx", "fakes/platform/cli.ts"], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  child = proc;
  let out = "";
  let err = "";
  proc.stdout.on("data", (c: Buffer) => {
    out += c.toString();
  });
  proc.stderr.on("data", (c: Buffer) => {
    err += c.toString();
  });
  const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)));
  const output = async (pattern: RegExp) => {
    for (let i = 0; i < 200 && !pattern.test(out); i++) await new Promise((r) => setTimeout(r, 50));
    return out;
  };
  return { proc, exited, output, stderr: () => err };
}

describe("npm run sandbox (cli.ts)", () => {
  it("prints what it serves, answers, and closes on SIGTERM", async () => {
    const port = await freePort();
    const cli = run({
      SANDBOX_PORT: String(port),
      PLATFORM_CLIENT_ID: "my-key",
      PLATFORM_CLIENT_SECRET: "my-secret",
    });
    const out = await cli.output(/Ctrl\+C/);
    expect(out).toContain(`PLATFORM_AUTH_URL=http://127.0.0.1:${port}`);
    expect(out).toContain(`PLATFORM_API_URL=http://127.0.0.1:${port}/v2`);
    expect(out).toContain("PLATFORM_CLIENT_ID=my-key");
    for (const id of [...Object.values(SEED.profiles), ...Object.values(SEED.livestreams)])
      expect(out).toContain(id);
    expect(out).toContain("/_sandbox/deliver");
    const r = await call(
      "POST",
      `http://127.0.0.1:${port}/v2/token`,
      form({
        grant_type: "client_credentials",
        client_id: "my-key",
        client_secret: "my-secret",
        scope: "live.read",
      }),
    );
    expect(at(r.json, "token_type")).toBe("Bearer");
    cli.proc.kill("SIGTERM");
    expect(await cli.exited).toBe(0);
  });

  it("exits 1 naming the variable when the configuration is invalid", async () => {
    const cli = run({ SANDBOX_PORT: "http" });
    expect(await cli.exited).toBe(1);
    expect(cli.stderr()).toMatch(/SANDBOX_PORT/);
  });
});
