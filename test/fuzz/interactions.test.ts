/**
 * Fuzzing Slack interactions over the real path: signed block_actions and view_submission
 * payloads with random action ids, values, state and private_metadata, and malformed `payload`
 * fields, sent to the running bot. Never a 5xx, never an unhandled rejection, every message or
 * view the bot sends back fits Block Kit, and garbage (or a non-manager) changes nothing.
 */
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import { blockActionsBody, sendSigned, viewSubmissionBody } from "../../fakes/slack/index.js";
import { ACTIONS, BLOCKS, VIEWS } from "../../src/messages/ids.js";
import type { Message, ModalView } from "../../src/messages/index.js";
import { assertWithinLimits } from "../messages/limits.js";
import { assertViewWithinLimits } from "../messages/view-limits.js";
import { type Harness, SIGNING_SECRET } from "../support/harness.js";
import { FUZZ_TIMEOUT, nastyText, runs } from "./arbitraries.js";
import { fuzzedBotForFile, stateOf } from "./bot.js";
import { blockKitProblems, injectionProblems } from "./checks.js";

vi.setConfig({ testTimeout: FUZZ_TIMEOUT });

const TEAM = "T0STANDIN";
let h: Harness;
const guard = fuzzedBotForFile(async (started) => {
  h = started;
  // Something to lose: a configured profile and an added manager.
  await h.configureProfile();
  await h.built.deps.settings.addManager(TEAM, "U0OTHER", "U0ADMIN", new Date());
});

/** Everything a request could change. */
const snapshot = () => stateOf(h, TEAM);

/** Waits until the bot has stopped calling Slack and the platform for a moment (max 3 s). */
async function quiet(): Promise<void> {
  const count = () => h.slack.calls.length + h.sandbox.requests.length;
  let last = count();
  let stableSince = Date.now();
  const started = Date.now();
  while (Date.now() - stableSince < 40 && Date.now() - started < 3000) {
    await new Promise((r) => setTimeout(r, 10));
    if (count() !== last) {
      last = count();
      stableSince = Date.now();
    }
  }
}

const ALLOWED = ["U0ADMIN", "U0MEMBER", "U0OWNER", "U0OTHER", "W0NEW01", "C0GENERAL", "C0NEWS"];

/** Every message and view the bot sent to Slack since call `from` is within the limits. */
function checkSent(from: number): void {
  for (const call of h.slack.calls.slice(from)) {
    const a = call.args;
    if (call.method.startsWith("views.")) {
      const view = a.view as ModalView;
      expect(assertViewWithinLimits(view)).toEqual([]);
      expect(blockKitProblems({ blocks: view.blocks }, 100)).toEqual([]);
      expect(injectionProblems({ blocks: view.blocks }, ALLOWED)).toEqual([]);
    } else if (a.blocks !== undefined) {
      const msg = { text: a.text, blocks: a.blocks } as Message;
      expect(assertWithinLimits(msg)).toEqual([]);
      expect(blockKitProblems(msg)).toEqual([]);
      expect(injectionProblems(msg, ALLOWED)).toEqual([]);
    }
  }
}

/** Sends a signed interaction body; checks the HTTP answer (never 5xx) and what followed. */
async function send(body: string, contentType?: string): Promise<{ status: number; body: string }> {
  const from = h.slack.calls.length;
  const res = await sendSigned(h.eventsUrl, body, SIGNING_SECRET, contentType ? { contentType } : {});
  expect(res.status).toBeLessThan(500);
  if (res.status === 200 && res.body.trim().startsWith("{")) {
    const ack = JSON.parse(res.body) as { response_action?: string; view?: ModalView };
    if (ack.view) expect(assertViewWithinLimits(ack.view)).toEqual([]);
  }
  await quiet();
  checkSent(from);
  guard.check();
  return res;
}

/** The action ids the bot handles (the Home's Refresh button is never rendered, so not handled). */
const KNOWN_ACTIONS = Object.values(ACTIONS).filter((id) => id !== ACTIONS.homeRefresh);
const KNOWN_VIEWS = Object.values(VIEWS);
const userArb = fc.constantFrom("U0ADMIN", "U0MEMBER");
const valueArb = fc.oneof(
  { weight: 2, arbitrary: nastyText },
  {
    weight: 1,
    arbitrary: fc.constantFrom("", " ", "x0nothere", SEED.livestreams.onAirAdBreak, "__proto__", "../x"),
  },
  { weight: 1, arbitrary: fc.nat({ max: 3000 }).map((n) => "x".repeat(n)) },
);
/** A value that is not a configured profile (so a manager's button cannot legitimately act). */
const PROFILE_IDS: readonly string[] = Object.values(SEED.profiles);
const garbageValue = valueArb.filter((v) => !PROFILE_IDS.includes(v.trim()));

const actionArb = fc.record({
  // Only handled ids: Bolt answers an unhandled one with a 404 after 3 s (too slow to fuzz).
  actionId: fc.constantFrom(...KNOWN_ACTIONS),
  value: fc.option(garbageValue, { nil: undefined }),
  user: userArb,
  home: fc.boolean(),
  blockId: fc.option(nastyText, { nil: undefined }),
});

type ActionCase = typeof actionArb extends fc.Arbitrary<infer T> ? T : never;

function actionBody(a: ActionCase): string {
  const responseUrl = h.slack.newResponseUrl("C0GENERAL", a.user);
  return blockActionsBody({
    actionId: a.actionId,
    ...(a.value === undefined ? {} : { value: a.value }),
    ...(a.blockId === undefined ? {} : { blockId: a.blockId }),
    userId: a.user,
    teamId: TEAM,
    channelId: "C0GENERAL",
    responseUrl,
    ...(a.home
      ? {
          container: { type: "view", view_id: "V0HOME" },
          view: { id: "V0HOME", type: "home", team_id: TEAM, blocks: [] },
        }
      : {}),
  });
}

const jsonish = fc.jsonValue({ maxDepth: 3 });
const stateArb = fc.oneof(
  fc.dictionary(nastyText, fc.dictionary(nastyText, jsonish, { maxKeys: 3 }), { maxKeys: 3 }),
  fc.record({
    [BLOCKS.events]: fc.record({
      [BLOCKS.eventsInput]: fc.record({
        type: fc.constant("checkboxes"),
        selected_options: fc.oneof(
          fc.array(
            fc.record({ value: fc.oneof(nastyText, fc.constantFrom("video.created", "video.published")) }),
            { maxLength: 12 },
          ),
          jsonish,
        ),
      }),
    }),
  }),
  fc.record({
    [BLOCKS.setupProfile]: fc.record({
      [BLOCKS.setupProfile]: fc.record({ value: fc.oneof(nastyText, jsonish) }),
    }),
    [BLOCKS.setupChannel]: fc.record({
      [BLOCKS.setupChannel]: fc.record({
        selected_conversation: fc.oneof(fc.constant("C0NEWS"), nastyText, jsonish),
      }),
    }),
    [BLOCKS.setupUrl]: fc.record({
      [BLOCKS.setupUrl]: fc.record({ value: fc.oneof(nastyText, fc.webUrl(), jsonish) }),
    }),
  }),
  fc.record({
    [BLOCKS.managersInput]: fc.record({
      [BLOCKS.managersInput]: fc.record({
        selected_users: fc.oneof(
          fc.array(fc.oneof(fc.constantFrom("U0OTHER", "W0NEW01"), nastyText)),
          jsonish,
        ),
      }),
    }),
  }),
);
// private_metadata comes back from a view the bot built: at most 3000 characters.
const metaArb = fc.oneof(
  nastyText.map((m) => m.slice(0, 3000)),
  fc.constantFrom("", "{}", "null", "[]", '{"teamId":"T0STANDIN"}'),
  fc
    .record({ teamId: fc.constantFrom(TEAM, "TOTHER", ""), kind: fc.constantFrom("setup", "managers", "x") })
    .map((m) => JSON.stringify(m)),
  fc
    .record({
      teamId: fc.constantFrom(TEAM),
      profileId: nastyText,
      original: fc.option(fc.array(nastyText, { maxLength: 5 }), { nil: null }),
    })
    .map((m) => JSON.stringify(m))
    .filter((m) => m.length <= 3000),
);
const viewArb = fc.record({
  callbackId: fc.constantFrom(...KNOWN_VIEWS),
  meta: metaArb,
  values: stateArb,
  user: userArb,
});

describe("interactions, fuzzed", () => {
  it("block_actions with every handled action id and garbage values: 200, no change", async () => {
    await fc.assert(
      fc.asyncProperty(actionArb, async (a) => {
        const before = await snapshot();
        const res = await send(actionBody(a));
        expect(res.status).toBe(200);
        expect(await snapshot()).toBe(before);
      }),
      { numRuns: runs(70), endOnFailure: true },
    );
  });

  it("view_submission with random state and private_metadata: 200; a non-manager changes nothing", async () => {
    await fc.assert(
      fc.asyncProperty(viewArb, async (v) => {
        const before = await snapshot();
        const body = viewSubmissionBody({
          callbackId: v.callbackId,
          privateMetadata: v.meta,
          values: v.values as Record<string, Record<string, unknown>>,
          userId: v.user,
          teamId: TEAM,
        });
        const res = await send(body);
        expect(res.status).toBe(200);
        if (v.user === "U0MEMBER") {
          // The member must still be one (no generated submission makes them a manager).
          expect((await h.built.deps.settings.listManagers(TEAM)).map((m) => m.userId)).not.toContain(
            "U0MEMBER",
          );
          expect(await snapshot()).toBe(before);
        }
      }),
      { numRuns: runs(70), endOnFailure: true },
    );
  });

  it("a payload field that is not JSON is a 400, and changes nothing", async () => {
    // Payloads that are JSON but not shaped like Slack's (no `view`, `actions: []`, a number...)
    // are left out: only Slack can sign a request, it never sends them, and Bolt answers them
    // itself (500 or, after 3 s, 404) before any listener of this app runs.
    const notJson = fc
      .oneof(
        nastyText,
        fc.constantFrom(
          "{",
          '{"type":"block_actions"',
          "{'type':'block_actions'}",
          "undefined",
          "NaN",
          "payload",
        ),
        fc.jsonValue({ maxDepth: 2 }).map((v) => `${JSON.stringify(v)}}`),
      )
      .filter((p) => {
        try {
          JSON.parse(p);
          return false;
        } catch {
          return true;
        }
      });
    const bodyArb = fc.oneof(
      notJson.map((p) => new URLSearchParams({ payload: p }).toString()),
      fc.constantFrom("payload=", "payload=%7B", "payload=%zz", "payload=%7B%22type%22%3A"),
    );
    await fc.assert(
      fc.asyncProperty(bodyArb, async (body) => {
        const before = await snapshot();
        const res = await send(body, "application/x-www-form-urlencoded");
        expect(res.status).toBe(400);
        expect(await snapshot()).toBe(before);
      }),
      { numRuns: runs(80), endOnFailure: true },
    );
  });
});
