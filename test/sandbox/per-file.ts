/**
 * The set-up the sandbox's own tests share: one sandbox per file on a free port, reset before each
 * test and closed after the file; optionally a webhook Receiver beside it, cleared before each test.
 */
import { afterAll, beforeAll, beforeEach } from "vitest";
import { type Sandbox, type SandboxOptions, startSandbox } from "../../fakes/platform/server.js";
import { Receiver } from "./receiver.js";

function register(
  withReceiver: boolean,
  started: (sb: Sandbox, rx: Receiver | undefined) => void | Promise<void>,
  options: SandboxOptions,
): void {
  let sb: Sandbox | undefined;
  let rx: Receiver | undefined;
  beforeAll(async () => {
    if (withReceiver) rx = await new Receiver().start();
    sb = await startSandbox({ port: 0, ...options });
    await started(sb, rx);
  });
  afterAll(async () => {
    await sb?.close();
    await rx?.close();
  });
  beforeEach(() => {
    sb?.reset();
    rx?.clear();
  });
}

/** `started` gets the sandbox once it listens (before any test). */
export function sandboxForFile(
  started: (sb: Sandbox) => void | Promise<void>,
  options: SandboxOptions = {},
): void {
  register(false, (sb) => started(sb), options);
}

/** The same, with a Receiver started before the sandbox and closed after it. */
export function sandboxWithReceiver(
  started: (sb: Sandbox, rx: Receiver) => void | Promise<void>,
  options: SandboxOptions = {},
): void {
  register(true, (sb, rx) => started(sb, rx as Receiver), options);
}
