/**
 * The platform failing in every way the client knows, under the three commands that call it:
 * `/live status`, `/webhook show` and `/webhook set`. For each fault the user sees, within Slack's
 * 3 s and in a few milliseconds, an acknowledgement; then one answer only they see (ephemeral)
 * saying what happened in plain words; and nothing stored is lost:
 * - a clean refusal (429, 5xx, the token service down) changes nothing in the store;
 * - a write with no clean answer (timeout, broken body, connection lost) may have been applied:
 *   the bot says it is not confirmed and keeps the new route as well as the old one, so whatever
 *   the platform now points at still accepts deliveries (checked by delivering after each case).
 * The platform is reached through a relay that can refuse connections (platform down).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Fault, SEED } from "../../fakes/platform/server.js";
import { type Harness, startHarness, waitFor } from "../support/harness.js";
import { changedKeys, configureProfile, memorySnapshot, Relay } from "./support.js";

const NEWS = "C0NEWS";
const TIMEOUTS = { connectMs: 300, headersMs: 400, bodyMs: 400 };
/** Slack allows 3 s; the bot acks in milliseconds. Generous for a loaded 2-core machine. */
const ACK_MS = 1500;

interface Case {
  /** what happens to the platform */
  fault: string;
  /** what the user sees, for every command */
  sees: RegExp;
  /** what the user sees for /webhook set when it differs (a write with no clean answer) */
  setSees?: RegExp;
  faults?: Fault[];
  before?: (h: Harness, relay: Relay) => Promise<void> | void;
  after?: (h: Harness, relay: Relay) => Promise<void> | void;
}

const NOT_CONFIRMED = /does not show it yet|not confirmed|may or may not/i;
/** The write got no answer: the user is told it may or may not have been applied. */
const MAY_OR_MAY_NOT = /got no answer from the platform.*may or may not have been applied/i;
/** The write was answered 200, the read-back failed. */
const READ_BACK_FAILED = /accepted the change, but reading the webhook back failed/i;
const everything = (f: Omit<Fault, "path">): Fault[] => [
  { ...f, path: "/v2/livestreams" },
  { ...f, path: "/v2/profiles" },
];

const CASES: Case[] = [
  {
    fault: "down: connection refused",
    // Nothing left the machine, so even the write is a clean failure (not "not confirmed").
    sees: /could not reach the platform \(`ECONNREFUSED`\)/i,
    before: (_h, relay) => relay.down(),
    after: (_h, relay) => relay.up(),
  },
  {
    fault: "slow: no answer within the headers timeout",
    sees: /did not answer within 400 ms/i,
    setSees: MAY_OR_MAY_NOT,
    faults: everything({ latencyMs: 1500 }),
  },
  {
    fault: "slow: body trickles past the body timeout",
    sees: /did not (finish its answer|answer) within/i,
    setSees: MAY_OR_MAY_NOT,
    faults: everything({ slowBody: { chunks: 4, intervalMs: 600 } }),
  },
  {
    fault: "429 with Retry-After longer than the bot waits",
    sees: /limiting requests right now: try again in 60 s/i,
    faults: everything({ status: 429, retryAfterSeconds: 60 }),
  },
  {
    fault: "429 without Retry-After",
    sees: /limiting requests right now: try again in a minute/i,
    faults: everything({ status: 429, retryAfterHeader: null, detailsRetryAfter: null }),
  },
  {
    fault: "503 with the error envelope",
    sees: /problem on its side \(503\)/i,
    faults: everything({ status: 503 }),
  },
  {
    fault: "502 as a gateway's HTML page",
    sees: /problem on its side \(502\)/i,
    faults: everything({ status: 502, envelope: "html" }),
  },
  {
    fault: "200 with a body that does not match the schema",
    sees: /could not be understood/i,
    setSees: READ_BACK_FAILED,
    faults: everything({ body: "schema-mismatch" }),
  },
  {
    fault: "200 with a body that is not JSON",
    sees: /could not be understood/i,
    setSees: READ_BACK_FAILED,
    faults: everything({ body: "invalid-json" }),
  },
  {
    fault: "token service down (503) and the token expired",
    sees: /token service is unavailable/i,
    before: (h) => h.sandbox.expireAllTokens(),
    faults: [{ path: "/v2/token", status: 503 }],
  },
];

let h: Harness;
const relay = new Relay();
const acks: number[] = [];

beforeAll(async () => {
  await relay.up();
  h = await startHarness({
    env: { PLATFORM_API_URL: `${relay.url}/v2`, PLATFORM_AUTH_URL: relay.url },
    platformTimeouts: TIMEOUTS,
  });
  relay.target = Number(new URL(h.sandbox.url).port);
  await configureProfile(h, NEWS);
});
afterAll(async () => {
  console.log(`ack under platform faults: worst ${Math.max(...acks).toFixed(1)} ms of ${acks.length}`);
  await h.close();
  await relay.down();
});

const text = (v: unknown) => JSON.stringify(v);
/** Messages everyone sees in the notification channel, except the notifications this file causes. */
const visible = () => h.slack.messages(NEWS).filter((m) => !m.ephemeralTo && !/x7f\d/.test(m.text));

describe.each(CASES)("platform $fault", (c) => {
  it("each command is acked at once and answered ephemerally in plain words; nothing stored is lost", async () => {
    const before = memorySnapshot(h);
    const videoId = `x7f${CASES.indexOf(c)}`;
    await c.before?.(h, relay);
    for (const f of c.faults ?? []) h.sandbox.addFault(f);
    const messagesBefore = visible().length;

    const [status, show, set] = await Promise.all([
      h.slash("/live", `status ${SEED.livestreams.onAirAdBreak}`, { user: "U0MEMBER", channel: "C0GENERAL" }),
      h.slash("/webhook", "show", { user: "U0ADMIN", channel: NEWS }),
      h.slash("/webhook", `set ${SEED.profiles.newsroom}`, { user: "U0ADMIN", channel: "C0RANDOM" }),
    ]);
    const answers = await Promise.all([status, show, set].map((r) => h.answer(r.responseUrl)));
    h.sandbox.clearFaults();
    await c.after?.(h, relay);

    for (const [i, r] of [status, show, set].entries()) {
      expect(r.status, `ack ${i}`).toBe(200);
      expect(r.ms, `ack ${i}`).toBeLessThan(ACK_MS);
      acks.push(r.ms);
    }
    const [statusAnswer, showAnswer, setAnswer] = answers;
    for (const a of [statusAnswer, showAnswer]) {
      expect(a?.response_type).toBe("ephemeral");
      expect(text(a)).toMatch(c.sees);
    }
    expect(setAnswer?.response_type).toBe("ephemeral");
    expect(text(setAnswer)).toMatch(c.setSees ?? c.sees);
    // Only that one answer each, and nothing in the channels.
    for (const r of [status, show, set]) expect(h.slack.responses(r.responseUrl)).toHaveLength(1);
    expect(visible()).toHaveLength(messagesBefore);

    // Let writes the platform was still handling land before looking at it.
    await waitFor(() => h.sandbox.pendingRequests() === 0, 8000, "the sandbox to finish");
    // Activity counters move with the notifications of earlier cases; commands never write them.
    const changed = changedKeys(before, memorySnapshot(h)).filter((k) => !k.includes(":activity:"));
    if (process.env.SHOW_ANSWERS)
      console.log(
        c.fault,
        answers.map((a) => String(a?.text)),
      );
    if (NOT_CONFIRMED.test(text(setAnswer))) {
      // Kept: the new route and the settings naming it; the old route stays too.
      expect(changed.every((k) => /(^|:)(route|settings|profiles?|team)[:/]|claim/.test(k))).toBe(true);
    } else {
      expect(changed).toEqual([]);
    }
    // Whatever the platform points at now accepts deliveries: nothing sent to it is lost.
    const delivered = await h.sandbox.deliver(
      SEED.profiles.newsroom,
      { type: "video.created", data: { owner_id: SEED.profiles.newsroom, video_id: videoId } },
      { deliverTo: h.url, force: true },
    );
    expect(delivered.status).toBe(200);
  });
});
