/**
 * The text of a `/webhook` command that `parseWebhook` (grammar.ts) reads back into it: the menu of
 * profiles carries the rest of a command this way.
 */
import { WEBHOOK_EVENTS } from "../../../domain/index.js";
import type { ProfileCommand } from "./grammar-types.js";

/** `video.created` → `created`. */
const shortEvent = (e: string) => e.replace(/^video\./, "");

/**
 * The text of `/webhook` that `parseWebhook` reads back into `cmd` (the menu of profiles carries
 * the rest of a command this way), with `profile` in place of the one typed (none: left out).
 */
export function commandText(cmd: ProfileCommand, profile: string | null): string {
  const words: string[] = [cmd.kind];
  if (profile !== null) words.push(profile);
  const all = (events: readonly string[]) => WEBHOOK_EVENTS.every((e) => events.includes(e));
  switch (cmd.kind) {
    case "set":
      if (cmd.url !== null) words.push(`url=${cmd.url}`);
      if (!all(cmd.events)) words.push(...cmd.events.map(shortEvent));
      break;
    case "events":
      if (cmd.events !== null) words.push(...(all(cmd.events) ? ["all"] : cmd.events.map(shortEvent)));
      break;
    case "subscribe":
      if (!all(cmd.events)) words.push(...cmd.events.map(shortEvent));
      if (cmd.presets.length > 0) words.push(`preset=${cmd.presets.join(",")}`);
      if (cmd.mention !== null)
        words.push(`mention=${cmd.mention === "here" ? "@here" : `<@${cmd.mention}>`}`);
      if (cmd.digest === "off") words.push("digest=off");
      else if (cmd.digest !== undefined) {
        words.push(`digest=${cmd.digest.every}`);
        if (cmd.digest.at !== null) words.push(`at=${cmd.digest.at}`);
      }
      break;
    case "pause":
      words.push(cmd.duration);
      break;
    default:
      break;
  }
  return words.join(" ");
}
