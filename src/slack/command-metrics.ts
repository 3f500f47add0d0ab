/**
 * A Bolt middleware counting every slash command, button press and view submission by name
 * (`bot_commands_total`). Every label is bounded: the commands, subcommands, action ids and view
 * callback ids the bot itself defines, else "other" (a signed request may carry anything).
 */
import type { AnyMiddlewareArgs, Middleware } from "@slack/bolt";
import { ACTIONS, BLOCKS, VIEWS } from "../messages/index.js";
import type { Metrics } from "../metrics.js";
import { LIVE_SUBCOMMANDS, WEBHOOK_SUBCOMMANDS } from "./listeners/commands/grammar.js";

/** Bounded label values for the commands metric. */
const KNOWN_SUBCOMMANDS = new Set<string>([...LIVE_SUBCOMMANDS, ...WEBHOOK_SUBCOMMANDS]);
const KNOWN_COMMANDS = new Set<string>(["/live", "/webhook"]);
const KNOWN_ACTIONS = new Set<string>([...Object.values(ACTIONS), ...Object.values(BLOCKS)]);
const KNOWN_VIEWS = new Set<string>(Object.values(VIEWS));
const known = (set: ReadonlySet<string>, v: string | undefined) =>
  v !== undefined && set.has(v) ? v : "other";

/** The metric's name for a request body, or undefined when it is not counted. */
export function commandName(body: unknown): string | undefined {
  const b = body as {
    command?: string;
    text?: string;
    type?: string;
    actions?: Array<{ action_id?: string }>;
    view?: { callback_id?: string };
  };
  const sub = (b.text ?? "").trim().split(/\s+/)[0]?.toLowerCase() || "help";
  return b.command
    ? `${known(KNOWN_COMMANDS, b.command)} ${known(KNOWN_SUBCOMMANDS, sub)}`
    : b.type === "block_actions"
      ? `action:${known(KNOWN_ACTIONS, b.actions?.[0]?.action_id)}`
      : b.type === "view_submission"
        ? `view:${known(KNOWN_VIEWS, b.view?.callback_id)}`
        : undefined;
}

export function countCommands(metrics: Metrics): Middleware<AnyMiddlewareArgs> {
  return async ({ body, next }) => {
    const name = commandName(body);
    try {
      await next();
      if (name) metrics.commands.inc({ name, outcome: "handled" });
    } catch (err) {
      if (name) metrics.commands.inc({ name, outcome: "error" });
      throw err;
    }
  };
}
