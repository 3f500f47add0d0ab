/**
 * The slash-command baseline: a minimal Bolt app (the bot's Bolt version and receiver, HTTPReceiver
 * with signature verification, the same Web API stand-in) whose only listener acknowledges every
 * command and does nothing else. Same signed requests as the bot: the difference in ack latency is
 * the bot's own cost (its middleware, its work after the ack), not Bolt's or HTTP's.
 */
import type { AddressInfo } from "node:net";
import { App, HTTPReceiver, LogLevel } from "@slack/bolt";
import type { TargetSpec } from "../lib/protocol.js";
import type { RunningTarget } from "./types.js";

export async function startBoltTarget(spec: Extract<TargetSpec, { kind: "bolt" }>): Promise<RunningTarget> {
  let acked = 0;
  const receiver = new HTTPReceiver({
    signingSecret: spec.signingSecret,
    endpoints: "/slack/events",
    processBeforeResponse: false,
    logLevel: LogLevel.ERROR,
  });
  const app = new App({
    receiver,
    token: spec.botToken,
    logLevel: LogLevel.ERROR,
    clientOptions: { slackApiUrl: spec.slackApiUrl },
  });
  app.command(/.*/, async ({ ack }) => {
    await ack();
    acked += 1;
  });
  const server = await receiver.start({ port: 0, host: "127.0.0.1" });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    path: "/slack/events",
    ownerId: "",
    counts: async () => ({ stored: acked, logLines: 0 }),
    close: () => receiver.stop(),
  };
}
