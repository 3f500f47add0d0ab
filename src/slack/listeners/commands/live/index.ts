/**
 * `/live status|ingest|watch|unwatch|watching|help`: each subcommand's handler, by name. Every
 * one is authorized (src/access) before the platform is read, and a livestream of a profile not
 * bound to the workspace reads as missing.
 */
import type { App } from "@slack/bolt";
import type { BotDeps } from "../../../../deps.js";
import { liveHelp } from "../../../../messages/index.js";
import { slashCommand } from "../../../request.js";
import { type LiveCommand, parseLive } from "../grammar.js";
import { helpHandler } from "../help.js";
import { ingest } from "./ingest.js";
import { status } from "./status.js";
import { unwatch, watching } from "./unwatch.js";
import { watch } from "./watch.js";

export function register(app: App, deps: BotDeps): void {
  app.command(
    "/live",
    slashCommand<LiveCommand>(deps, "/live", parseLive, {
      help: helpHandler("/live", liveHelp),
      status,
      ingest,
      watch,
      unwatch,
      watching,
    }),
  );
}
