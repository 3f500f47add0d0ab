/**
 * The set-up the sandbox tests of PlatformClient share: one sandbox for the file, reset before
 * each test, and clients of it that are closed after each test.
 */
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest";
import { type Sandbox, startSandbox } from "../../fakes/platform/server.js";
import { silentLogger } from "../../src/log.js";
import { PlatformClient, type PlatformClientOptions } from "../../src/platform/index.js";

export const TIMEOUTS = { connectMs: 2000, headersMs: 2000, bodyMs: 2000 };

export interface SandboxClients {
  /** A client of `target` with `scopes`, closed after the test; silent, never sleeps, unless `extra` says. */
  client(target: Sandbox, scopes: string[], extra?: Partial<PlatformClientOptions>): PlatformClient;
  /** Closes `c` after the test. */
  track(c: PlatformClient): PlatformClient;
}

/**
 * Registers the hooks: `started` gets the file's sandbox once it listens; `reset` runs before each
 * test, after the sandbox's own reset.
 */
export function sandboxClients(opts: { started: (sb: Sandbox) => void; reset?: () => void }): SandboxClients {
  let sb: Sandbox | undefined;
  const clients: PlatformClient[] = [];
  beforeAll(async () => {
    sb = await startSandbox();
    opts.started(sb);
  });
  afterAll(async () => {
    await sb?.close();
  });
  beforeEach(() => {
    sb?.reset();
    opts.reset?.();
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });
  const track = (c: PlatformClient) => {
    clients.push(c);
    return c;
  };
  return {
    track,
    client: (target, scopes, extra = {}) =>
      track(
        new PlatformClient({
          apiUrl: target.apiUrl,
          authUrl: target.url,
          clientId: target.clientId,
          clientSecret: target.clientSecret,
          scopes,
          timeouts: TIMEOUTS,
          logger: silentLogger(),
          sleep: async () => undefined,
          ...extra,
        }),
      ),
  };
}
