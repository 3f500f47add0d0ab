/**
 * The menu of profiles `/webhook` offers when no profile was given: what a choice carries (the
 * command without its profile, in the block_id) and how a choice is read back by the same grammar.
 */
import { isPlatformId } from "../../../../domain/index.js";
import { PICK_BLOCK_PREFIX } from "../../../../messages/index.js";
import { commandText, type ProfileCommand, parseWebhook } from "../grammar.js";

/** The commands a menu of profiles continues. */
const PICKABLE = new Set<ProfileCommand["kind"]>([
  "set",
  "show",
  "events",
  "remove",
  "test",
  "subscribe",
  "subscriptions",
  "pause",
  "resume",
]);

/** What the menu carries for `cmd`: the command without its profile (`set created published`). */
export function pickCarry(cmd: ProfileCommand): string {
  return commandText(cmd, null);
}

/**
 * The command a choice from the menu continues: its block_id (`pick:` and the command without a
 * profile) read again with the chosen profile id, by the same grammar as a typed command; null for
 * anything else (a changed block_id or value gets a plain answer and changes nothing).
 */
export function decodePick(blockId: unknown, value: unknown): ProfileCommand | null {
  if (typeof blockId !== "string" || typeof value !== "string") return null;
  if (!blockId.startsWith(PICK_BLOCK_PREFIX) || blockId.length > 255 || !isPlatformId(value)) return null;
  const [sub, ...rest] = blockId.slice(PICK_BLOCK_PREFIX.length).split(" ");
  if (sub === undefined) return null;
  const parsed = parseWebhook([sub, value, ...rest].join(" "));
  if (!parsed.ok || !("profile" in parsed.value)) return null;
  const cmd = parsed.value;
  return PICKABLE.has(cmd.kind) && cmd.profile === value ? cmd : null;
}
