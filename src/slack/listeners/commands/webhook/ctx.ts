/** What a `/webhook` subcommand runs with (typed, or chosen from the profile menu), and its authorization step. */
import type { Action, Decision, Resource, Subject } from "../../../../access/index.js";
import type { BotDeps } from "../../../../deps.js";
import type { Logger } from "../../../../log.js";
import { refusalMessage } from "../../../../messages/index.js";
import { ephemeral, type Reply } from "../../../context.js";
import type { Answerable } from "../../../request.js";
import type { ProfileCommand } from "../grammar-types.js";

export interface Ctx {
  deps: BotDeps;
  subject: Subject;
  respond: Reply;
  log: Logger;
  teamId: string;
  userId: string;
  channelId: string;
  triggerId: string | undefined;
}

/** The webhook context of a request, answered through `respond`. */
export function ctxOf(req: Answerable, respond: Reply, triggerId: string | undefined): Ctx {
  const { deps, subject, log } = req;
  const { teamId, userId } = subject;
  return { deps, subject, respond, log, teamId, userId, channelId: subject.channelId ?? "", triggerId };
}

export type Allowed = Extract<Decision, { allowed: true }>;

/** Asks the authorizer; a refusal is answered ephemerally (why), and null is returned. */
export async function allowed(ctx: Ctx, action: Action, resource: Resource): Promise<Allowed | null> {
  const d = await ctx.deps.access.authorize(ctx.subject, action, resource);
  if (d.allowed) return d;
  await ctx.respond(ephemeral(refusalMessage(d)));
  return null;
}

/** What a profile command does once authorized for profile `id` (run.ts). */
export type Runner<C extends ProfileCommand> = (ctx: Ctx, cmd: C, id: string, d: Allowed) => Promise<void>;
