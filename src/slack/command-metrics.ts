/**
 * A Bolt middleware counting every slash command, button press and view submission by name
 * (`bot_commands_total`). The subcommand label is bounded: the grammar's names, else "other".
 */
import type { AnyMiddlewareArgs, Middleware } from "@slack/bolt";
import type { Metrics } from "../metrics.js";
import { LIVE_SUBCOMMANDS, WEBHOOK_SUBCOMMANDS } from "./listeners/commands/grammar.js";

/** Bounded label values for the commands metric. */
const KNOWN_SUBCOMMANDS = new Set<string>([...LIVE_SUBCOMMANDS, ...WEBHOOK_SUBCOMMANDS]);

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
    ? `${b.command.slice(0, 20)} ${KNOWN_SUBCOMMANDS.has(sub) ? sub : "other"}`
    : b.type === "block_actions"
      ? `action:${(b.actions?.[0]?.action_id ?? "?").slice(0, 40)}`
      : b.type === "view_submission"
        ? `view:${(b.view?.callback_id ?? "?").slice(0, 40)}`
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
