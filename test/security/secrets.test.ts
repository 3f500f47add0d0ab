/**
 * No secret in a log line or a channel message. Every harness checks it when it closes
 * (test/support/secret-scan.ts); this file proves the check looks at what it should and can fail:
 * a broad scenario at debug level passes it having seen every kind of secret, and planted leaks
 * (a log line, an in-channel message, an ingest address outside an ephemeral answer) are caught,
 * named by kind and place without printing the value.
 */
import { WebClient } from "@slack/web-api";
import { describe, expect, it } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import type { RecordedCall } from "../../fakes/slack/index.js";
import { type Harness, startHarness, waitFor } from "../support/harness.js";
import { type KnownSecret, SecretLeakError, scanForSecrets } from "../support/secret-scan.js";

const CHANNEL = "C0NEWS";

/** Everything that handles secrets: tokens (issued, expired, refreshed), ingest, routes, failures. */
async function broadScenario(h: Harness): Promise<void> {
  const status = await h.slash("/live", `status ${SEED.livestreams.onAirAdBreak}`, { user: "U0MEMBER" });
  expect((await h.answer(status.responseUrl)).response_type).toBe("in_channel");

  const ingest = await h.slash("/live", `ingest ${SEED.livestreams.onAirAdBreak}`, { user: "U0ADMIN" });
  const ingestAnswer = await h.answer(ingest.responseUrl);
  expect(ingestAnswer.response_type).toBe("ephemeral");
  // The exemption is exercised: the stream key really is in that ephemeral answer.
  expect(JSON.stringify(ingestAnswer)).toContain(SEED.streamKey);

  const set = await h.slash("/webhook", `set ${SEED.profiles.newsroom}`, { channel: CHANNEL });
  expect((await h.answer(set.responseUrl)).response_type).toBe("in_channel");

  // A refreshed token (the first one expires), a 5xx and a 401 on the way.
  h.sandbox.expireAllTokens();
  h.sandbox.addFault({ path: "/v2/profiles", method: "GET", status: 503, times: 1 });
  const show = await h.slash("/webhook", "show", { user: "U0ADMIN", channel: CHANNEL });
  expect(JSON.stringify(await h.answer(show.responseUrl))).toContain(SEED.profiles.newsroom);

  const delivered = await h.sandbox.deliverLifecycle(SEED.profiles.newsroom, {
    videoId: "x7secret",
    deliverTo: h.url,
    force: true,
    progressSteps: 2,
  });
  expect(delivered.every((d) => d.status === 200)).toBe(true);
  await waitFor(
    () => h.slack.messages(CHANNEL).some((m) => m.text.includes("x7secret") && /complete/i.test(m.text)),
    15_000,
    "the video to complete",
  );

  // Failures of every kind get worded for Slack and logged.
  h.sandbox.revokeAllTokens();
  h.sandbox.addFault({ path: "/v2/token", status: 500, times: 2 });
  const failed = await h.slash("/live", `status ${SEED.livestreams.offAir}`);
  expect((await h.answer(failed.responseUrl)).response_type).toBe("ephemeral");
  const unknown = await h.slash("/live", "ingest x0nothere", { user: "U0ADMIN" });
  await h.answer(unknown.responseUrl);
}

describe("the leak check run by every harness", () => {
  it("passes a broad scenario at debug level, having looked at every kind of secret", async () => {
    const h = await startHarness({ env: { STORE_ENCRYPTION_KEY: "k".repeat(44) } });
    try {
      await broadScenario(h);
    } finally {
      await h.close();
    }
    const scan = h.secretScan;
    expect(scan).toBeDefined();
    expect(scan?.leaks).toEqual([]);
    expect(scan?.kinds).toEqual(
      expect.arrayContaining([
        "delivery callback token",
        "ingest URL",
        "platform access token",
        "platform client secret",
        "Slack bot token",
        "Slack signing secret",
        "store encryption key",
        "stream key",
      ]),
    );
    // Several tokens were issued (expired, then revoked) and all were checked.
    expect(h.sandbox.issuedTokens().length).toBeGreaterThanOrEqual(2);
    expect(scan?.logLines).toBeGreaterThan(20);
    expect(scan?.messages).toBeGreaterThan(5);
  }, 30_000);

  it("fails close() on a planted log line and an in-channel message, naming kinds, not values", async () => {
    const h = await startHarness();
    let failure: unknown;
    try {
      const status = await h.slash("/live", `status ${SEED.livestreams.offAir}`);
      await h.answer(status.responseUrl);
      const token = h.sandbox.issuedTokens()[0] ?? "";
      expect(token).not.toBe("");
      // A line the logger's scrubbing would have caught, written past it.
      h.logs.push(JSON.stringify({ level: 20, msg: `calling the API with ${token}` }));
      // The bot's token posting a stream key in a channel.
      const web = new WebClient(h.slack.botToken, { slackApiUrl: h.slack.apiUrl });
      await web.chat.postMessage({ channel: CHANNEL, text: `ingest: rtmp://x/live/${SEED.streamKey}` });
    } finally {
      failure = await h.close().then(
        () => undefined,
        (err: unknown) => err,
      );
    }
    expect(failure).toBeInstanceOf(SecretLeakError);
    const message = (failure as Error).message;
    expect(message).toMatch(/platform access token in log line \d+/);
    expect(message).toMatch(/stream key in Slack call #\d+ chat\.postMessage to C0NEWS \(visible\)/);
    expect(message).not.toContain(SEED.streamKey);
    for (const token of h.sandbox.issuedTokens()) expect(message).not.toContain(token);
  });
});

describe("scanForSecrets: where each kind may appear", () => {
  const secrets: KnownSecret[] = [
    { kind: "platform client secret", value: "client-secret-value" },
    { kind: "stream key", value: "sk_live_abcdef123", ephemeralOk: true },
  ];
  const call = (method: string, args: Record<string, unknown>): RecordedCall => ({
    method,
    args,
    at: 0,
    status: 200,
    ok: true,
  });
  const kinds = (calls: RecordedCall[], logs: string[] = []) =>
    scanForSecrets(secrets, logs, calls).leaks.map((l) => `${l.kind} @ ${l.where}`);

  it("a stream key is allowed only in an ephemeral answer", () => {
    const key = "rtmp://h/live/sk_live_abcdef123";
    expect(kinds([call("response_url", { response_type: "ephemeral", text: key })])).toEqual([]);
    expect(kinds([call("response_url", { text: key })])).toEqual([]);
    expect(kinds([call("chat.postEphemeral", { channel: "C1", user: "U1", text: key })])).toEqual([]);
    expect(kinds([call("response_url", { response_type: "in_channel", text: key })])).toEqual([
      "stream key @ Slack call #1 response_url (visible)",
    ]);
    expect(kinds([call("response_url", { replace_original: true, text: key })])).toHaveLength(1);
    expect(kinds([call("chat.update", { channel: "C1", blocks: [{ text: key }] })])).toHaveLength(1);
    expect(kinds([call("views.publish", { view: { blocks: [{ text: key }] } })])).toEqual([
      "stream key @ Slack call #1 views.publish (view)",
    ]);
    expect(kinds([], [`{"msg":"${key}"}`])).toEqual(["stream key @ log line 1"]);
  });

  it("a credential is allowed nowhere people look; API arguments are not messages", () => {
    expect(kinds([call("response_url", { text: "client-secret-value" })])).toEqual([
      "platform client secret @ Slack call #1 response_url (ephemeral)",
    ]);
    // oauth.v2.access legitimately carries the app's client secret to Slack.
    expect(kinds([call("oauth.v2.access", { client_secret: "client-secret-value" })])).toEqual([]);
    expect(kinds([], ["a", "b", "x client-secret-value"])).toEqual(["platform client secret @ log line 3"]);
  });
});
