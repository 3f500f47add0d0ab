/**
 * Handlers called directly, without the app: a request object built here (`requestOf`, with the
 * decisions bound to who is asking), run as the wrapper runs them (authorized as each declares,
 * then the handler: `handleCommand`, `handleAction`), the real authorizer and
 * manager policy (src/access), and small stand-ins for what sits beyond the machine (the platform,
 * Slack's users.info, the settings store). Also the request wrapper itself, with Bolt's arguments
 * faked: it acks first and answers a failure once, counted.
 */
import type { ButtonAction, RespondArguments } from "@slack/bolt";
import type { WebClient } from "@slack/web-api";
import pino from "pino";
import { describe, expect, it, vi } from "vitest";
import { Authorizer, type AuthorizerOptions, ManagerPolicy } from "../../src/access/index.js";
import type { BotDeps } from "../../src/deps.js";
import type { Asker } from "../../src/slack/context.js";
import { liveRefresh } from "../../src/slack/listeners/actions/refresh.js";
import { ingest } from "../../src/slack/listeners/commands/live/ingest.js";
import { unwatch } from "../../src/slack/listeners/commands/live/unwatch.js";
import {
  blockAction,
  type CommandRequest,
  handleAction,
  handleCommand,
  requestOf,
} from "../../src/slack/request.js";

const LIVESTREAM = {
  livestream_id: "x1live",
  title: "Morning show",
  ingest: { rtmp_url: "rtmp://ingest.example/live/SECRETKEY", srt_url: null, available_servers: {} },
  profile: { profile_id: "p1prof" },
};

function setup(opts: { platformFails?: boolean } = {}) {
  const reads: Array<{ id: string; fields: readonly string[] }> = [];
  const platform = {
    getLivestream: async (id: string, fields: readonly string[]) => {
      reads.push({ id, fields });
      if (opts.platformFails) throw new Error("connection reset");
      return LIVESTREAM;
    },
  } as unknown as AuthorizerOptions["platform"];
  const logger = pino({ level: "silent" });
  const settings = { listManagers: async () => [] } as unknown as ConstructorParameters<
    typeof ManagerPolicy
  >[0]["settings"];
  const managers = new ManagerPolicy({ managerUserIds: ["U0BOSS"], settings, logger });
  const access = new Authorizer({
    config: { slack: { mode: "single-workspace" }, access: { allowedWorkspaces: [], profileBindings: {} } },
    managers,
    claims: { owner: async () => undefined } as unknown as AuthorizerOptions["claims"],
    platform,
  });
  const failures: unknown[] = [];
  const metrics = { commandFailures: { inc: (labels: unknown) => failures.push(labels) } };
  const deps = {
    access,
    logger,
    now: () => new Date("2026-01-05T10:00:00Z"),
    metrics,
  } as unknown as BotDeps;
  // Slack's users.info: everyone not configured is a plain member.
  const client = {
    users: { info: async () => ({ ok: true, user: { id: "U0ALEX", team_id: "T0AAA" } }) },
  } as unknown as WebClient;
  const answers: RespondArguments[] = [];
  const respond = async (args: RespondArguments) => {
    answers.push(args);
  };
  const subject = (userId: string): Asker => ({
    teamId: "T0AAA",
    enterpriseId: undefined,
    userId,
    channelId: "C0CHAN",
    client,
  });
  return { deps, client, respond, answers, reads, failures, subject, logger };
}

describe("/live ingest, called directly", () => {
  it("a manager gets the ingest addresses, ephemerally", async () => {
    const t = setup();
    const req: CommandRequest = {
      ...requestOf(t.deps, t.subject("U0BOSS"), t.logger, t.client),
      respond: t.respond,
      triggerId: undefined,
    };
    await handleCommand(req, ingest, { kind: "ingest", livestreamId: "x1live" });
    expect(t.reads.map((r) => r.id)).toEqual(["x1live"]);
    expect(t.reads[0]?.fields).toContain("ingest");
    expect(t.answers).toHaveLength(1);
    expect(t.answers[0]?.response_type).toBe("ephemeral");
    expect(JSON.stringify(t.answers[0])).toContain("rtmp://ingest.example/live/SECRETKEY");
    expect(ingest.what({ kind: "ingest", livestreamId: "x1live" })).toBe(
      "Could not read the ingest addresses of x1live",
    );
  });

  it("a member is refused before the platform is read, and sees no address", async () => {
    const t = setup();
    const req: CommandRequest = {
      ...requestOf(t.deps, t.subject("U0ALEX"), t.logger, t.client),
      respond: t.respond,
      triggerId: undefined,
    };
    await handleCommand(req, ingest, { kind: "ingest", livestreamId: "x1live" });
    expect(t.reads).toEqual([]);
    expect(t.answers).toHaveLength(1);
    expect(t.answers[0]?.response_type).toBe("ephemeral");
    expect(t.answers[0]?.text).toMatch(/manager/i);
    expect(JSON.stringify(t.answers[0])).not.toContain("SECRETKEY");
  });
});

describe("the livestream card's Refresh button", () => {
  const boltArgs = (t: ReturnType<typeof setup>, ack: () => Promise<void>) =>
    ({
      ack,
      body: {
        type: "block_actions",
        team: { id: "T0AAA" },
        user: { id: "U0ALEX" },
        channel: { id: "C0CHAN" },
      },
      action: { type: "button", action_id: "live_refresh", value: "x1live" },
      respond: t.respond,
      client: t.client,
      context: { teamId: "T0AAA", userId: "U0ALEX" },
    }) as unknown as Parameters<ReturnType<typeof blockAction<ButtonAction>>>[0];

  it("called directly: the card replaces the message, read for the presser", async () => {
    const t = setup();
    const { body, action } = boltArgs(t, async () => {});
    await handleAction(
      {
        ...requestOf(t.deps, t.subject("U0ALEX"), t.logger, t.client),
        respond: t.respond,
        answer: t.respond,
        onHome: false,
        body,
        action,
      },
      liveRefresh,
    );
    expect(t.reads.map((r) => r.id)).toEqual(["x1live"]);
    expect(t.answers).toHaveLength(1);
    expect(t.answers[0]?.replace_original).toBe(true);
    expect(JSON.stringify(t.answers[0])).toContain("Morning show");
  });

  it("through the wrapper: acked first, a failure answered once in words and counted", async () => {
    const t = setup({ platformFails: true });
    const order: string[] = [];
    const ack = vi.fn(async () => {
      order.push(`ack with ${t.answers.length} answers`);
    });
    await blockAction(t.deps, "live_refresh", liveRefresh)(boltArgs(t, ack));
    expect(ack).toHaveBeenCalledTimes(1);
    expect(order).toEqual(["ack with 0 answers"]);
    expect(t.answers).toHaveLength(1);
    expect(t.answers[0]?.response_type).toBe("ephemeral");
    expect(t.answers[0]?.replace_original).toBe(false);
    expect(t.answers[0]?.text).toContain("Could not refresh livestream x1live");
    expect(t.failures).toEqual([{ kind: "unexpected" }]);
  });
});

describe("/live unwatch: the action it declares depends on the command", () => {
  const request = (t: ReturnType<typeof setup>, userId: string): CommandRequest => ({
    ...requestOf(t.deps, t.subject(userId), t.logger, t.client),
    respond: t.respond,
    triggerId: undefined,
  });

  it("a member's own DM watch (live.unwatch.dm) is theirs to stop; a channel's (live.unwatch) is refused", async () => {
    const t = setup();
    const run = vi.spyOn(unwatch, "run");
    await handleCommand(request(t, "U0ALEX"), unwatch, {
      kind: "unwatch",
      livestreamId: "x1live",
      dm: false,
    });
    expect(run).not.toHaveBeenCalled();
    expect(t.answers[0]?.text).toMatch(/manager/i);
    await handleCommand(request(t, "U0ALEX"), unwatch, { kind: "unwatch", livestreamId: "x1live", dm: true });
    expect(run).toHaveBeenCalledTimes(1);
    expect(t.answers).toHaveLength(2);
    expect(t.answers[1]?.text).not.toMatch(/manager/i);
    // No platform read for either: a watch can be stopped when the livestream is gone.
    expect(t.reads).toEqual([]);
    run.mockRestore();
  });
});
