/**
 * Fuzzing `/live` and `/webhook` over the real path: correctly signed slash commands with random
 * text to the running bot. Every command is acknowledged with a 200, every answer on its
 * response_url is a Block Kit message within the limits that pings nobody, and nothing changes
 * (settings, managers, the platform's webhooks, the outbox) for a non-manager or invalid input.
 */
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { SEED } from "../../fakes/platform/server.js";
import type { Message, ModalView } from "../../src/messages/index.js";
import { parseLive, parseWebhook } from "../../src/slack/listeners/commands/grammar.js";
import { assertWithinLimits } from "../messages/limits.js";
import { assertViewWithinLimits } from "../messages/view-limits.js";
import { type Harness, waitFor } from "../support/harness.js";
import { FRAGMENTS, FUZZ_TIMEOUT, longText, nastyText, runs } from "./arbitraries.js";
import { fuzzedBotForFile, stateOf } from "./bot.js";
import { blockKitProblems, injectionProblems } from "./checks.js";

vi.setConfig({ testTimeout: FUZZ_TIMEOUT });

const TEAM = "T0STANDIN";
let h: Harness;
const guard = fuzzedBotForFile((started) => {
  h = started;
});

/** Everything a request could change. */
const snapshot = () => stateOf(h, TEAM);

const SEEN_IDS = ["U0ADMIN", "U0MEMBER", "U0OWNER", "U0OTHER", "C0GENERAL", "C0NEWS"];

function checkMessage(a: Record<string, unknown>, allowed: readonly string[]): void {
  const msg = { text: a.text, blocks: a.blocks } as Message;
  expect(blockKitProblems(msg)).toEqual([]);
  expect(assertWithinLimits(msg)).toEqual([]);
  expect(injectionProblems(msg, allowed)).toEqual([]);
}

/**
 * Sends the command, waits for its answers (on the response_url, or a modal opened with the
 * trigger: `/webhook events <id>` opens the editor), and checks each of them.
 */
async function run(command: "/live" | "/webhook", text: string, user: string): Promise<void> {
  const views = () => h.slack.calls.filter((c) => c.method === "views.open" || c.method === "views.update");
  const viewsBefore = views().length;
  const res = await h.slash(command, text, { user, channel: "C0NEWS" });
  expect(res.status).toBe(200);
  await waitFor(
    () => h.slack.responses(res.responseUrl).length > 0 || views().length > viewsBefore,
    5000,
    `answer to ${command} ${JSON.stringify(text.slice(0, 80))}`,
  );
  // Let a handler that answers more than once finish.
  await new Promise((r) => setTimeout(r, 20));
  // Mentions the answer may carry: seeded people and channels, what was typed, who is stored.
  const typed = [...text.matchAll(/<[@#]([A-Z0-9]+)/g)].map((m) => m[1] ?? "");
  const stored = (await h.built.deps.settings.listManagers(TEAM)).flatMap((m) => [m.userId, m.addedBy]);
  const allowed = [...SEEN_IDS, ...typed, ...stored];
  for (const a of h.slack.responses(res.responseUrl)) {
    expect(["ephemeral", "in_channel"]).toContain(a.response_type);
    checkMessage(a, allowed);
  }
  for (const call of views().slice(viewsBefore)) {
    const view = call.args.view as ModalView;
    expect(assertViewWithinLimits(view)).toEqual([]);
    expect(blockKitProblems({ blocks: view.blocks }, 100)).toEqual([]);
    expect(injectionProblems({ blocks: view.blocks }, allowed)).toEqual([]);
  }
}

const space = fc.constantFrom(" ", "  ", "\t", "\n", "\u00a0", " \u200b ");
const join = (words: fc.Arbitrary<string[]>) =>
  fc
    .tuple(words, fc.array(space, { minLength: 12, maxLength: 12 }))
    .map(([ws, sp]) => ws.map((w, i) => (i === 0 ? w : `${sp[i % sp.length]}${w}`)).join(""));

const slackEscaped = fc.constantFrom(
  "<@U0OWNER>",
  "<@U0OTHER|otto>",
  "<@U123|name>",
  "<@W0ABC|x>",
  "<@U0ADMIN>",
  "<#C123|name>",
  "<#C0NEWS|news>",
  "<https://x|y>",
  "<https://www.dailymotion.com/video/x9b2k4m|the stream>",
  "<https://example.com/hook?a=1&amp;b=2>",
  "<mailto:a@b.c|a>",
  "<!channel>",
  "<!here>",
  "<!subteam^S0123|@team>",
);
const idLike = fc.oneof(
  fc.constantFrom(...Object.values(SEED.profiles), ...Object.values(SEED.livestreams), "x0nothere"),
  fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9_-]{0,70}$/),
);
const word = fc.oneof(
  { weight: 3, arbitrary: idLike },
  { weight: 3, arbitrary: slackEscaped },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "created",
      "published",
      "all",
      "video.complete",
      "format.ready",
      "bogus",
      "video.",
      ",",
      "help",
    ),
  },
  { weight: 2, arbitrary: nastyText },
  { weight: 1, arbitrary: fc.constantFrom(...FRAGMENTS) },
  { weight: 1, arbitrary: fc.webUrl() },
);
const words = (max: number) => fc.array(word, { maxLength: max });
const SUBCOMMANDS = {
  "/live": ["status", "ingest", "help", "STATUS", "live", ""],
  "/webhook": ["set", "show", "remove", "test", "events", "managers", "help", "SET", "delete", ""],
} as const;

const profileRef = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...Object.values(SEED.profiles), "x0nothere") },
  { weight: 1, arbitrary: idLike },
);
const livestreamRef = fc.oneof(
  fc.constantFrom(...Object.values(SEED.livestreams), "x0nothere"),
  fc.constantFrom(...Object.values(SEED.livestreams)).map((id) => `https://www.dailymotion.com/video/${id}`),
  fc
    .constantFrom(...Object.values(SEED.livestreams))
    .map((id) => `<https://geo.dailymotion.com/player.html?video=${id}|x>`),
  idLike,
);
const eventWords = fc.array(
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc.constantFrom(
        "created",
        "published",
        "complete",
        "video.deleted",
        "format.ready",
        "format.error",
        "all",
        "CREATED",
      ),
    },
    { weight: 1, arbitrary: word },
  ),
  { maxLength: 4 },
);
const mentionRef = fc.oneof(
  fc.constantFrom("<@U0OTHER>", "<@U0OTHER|otto>", "U0OTHER", "<@W0NEW01|new>"),
  word,
);

/** Commands the grammar mostly accepts, with odd ids, case and spacing. */
function validish(command: "/live" | "/webhook"): fc.Arbitrary<string[]> {
  if (command === "/live") {
    return fc.tuple(fc.constantFrom("status", "ingest", "Status"), livestreamRef).map(([s, r]) => [s, r]);
  }
  return fc.oneof(
    fc.tuple(profileRef, eventWords).map(([p, ev]) => ["set", p, ...ev]),
    fc
      .tuple(
        profileRef,
        fc.constantFrom("https://hooks.example.com/in", "<https://hooks.example.com/x?a=1&amp;b=2>"),
        eventWords,
      )
      .map(([p, u, ev]) => ["set", p, u, ...ev]),
    fc
      .tuple(fc.constantFrom("show", "remove", "test", "Show"), fc.option(profileRef, { nil: undefined }))
      .map(([s, p]) => (p ? [s, p] : [s])),
    fc.tuple(profileRef, eventWords).map(([p, ev]) => ["events", p, ...ev]),
    fc.tuple(fc.constantFrom("add", "remove"), mentionRef).map(([a, m]) => ["managers", a, m]),
    fc.constant<string[]>(["managers"]),
  );
}

function textArb(command: "/live" | "/webhook"): fc.Arbitrary<string> {
  const managers = fc
    .tuple(fc.constantFrom("", "add", "remove", "list", "ADD"), words(2))
    .map(([a, ws]) => ["managers", a, ...ws].filter(Boolean));
  const sub = fc.tuple(fc.constantFrom(...SUBCOMMANDS[command]), words(6)).map(([s, ws]) => [s, ...ws]);
  const structured = command === "/webhook" ? fc.oneof(sub, managers) : sub;
  return fc.oneof(
    { weight: 6, arbitrary: join(validish(command)) },
    { weight: 3, arbitrary: join(structured) },
    { weight: 1, arbitrary: join(words(8)) },
    { weight: 1, arbitrary: nastyText },
    { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 200 }) },
    { weight: 1, arbitrary: longText(12_000) },
  );
}

describe("slash commands, fuzzed", () => {
  for (const command of ["/live", "/webhook"] as const) {
    const parse = command === "/live" ? parseLive : parseWebhook;

    it(`${command}: a non-manager changes nothing, and every answer is valid Block Kit`, async () => {
      await fc.assert(
        fc.asyncProperty(textArb(command), async (text) => {
          // No generated command makes the member a manager (so this property means something).
          expect((await h.built.deps.settings.listManagers(TEAM)).map((m) => m.userId)).not.toContain(
            "U0MEMBER",
          );
          const before = await snapshot();
          await run(command, text, "U0MEMBER");
          expect(await snapshot()).toBe(before);
        }),
        { numRuns: runs(60), endOnFailure: true },
      );
      guard.check();
    });

    it(`${command}: a manager's invalid command changes nothing; any command gets a valid answer`, async () => {
      await fc.assert(
        fc.asyncProperty(textArb(command), async (text) => {
          const invalid = !parse(text).ok;
          const before = await snapshot();
          await run(command, text, "U0ADMIN");
          if (invalid) expect(await snapshot()).toBe(before);
        }),
        { numRuns: runs(60), endOnFailure: true },
      );
      guard.check();
    });
  }
});
