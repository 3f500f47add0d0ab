/**
 * Profiles by name (pure renderers): how a profile is named in a message, the menu of the
 * workspace's profiles that `/webhook` offers when no profile was given, and the plain answers
 * when that menu cannot be made.
 *
 * A profile's name is the platform's `display_name` or `name`: content anyone with a platform
 * account can set, so it is escaped and bounded in mrkdwn, and only ever shown as text (never a
 * mention or a link). The menu's options are plain text.
 */
import type { ActionsBlock, PlainTextOption, StaticSelect } from "@slack/types";
import { escapeMrkdwn, escapeTruncate, truncate } from "./escape.js";
import { ACTIONS } from "./ids.js";
import { code, context, message, section } from "./kit.js";
import type { KnownBlock, Message } from "./types.js";

/** The profile in mrkdwn: `Northwind News (`x2vq8nw`)`, or its id alone when its name is not known. */
export function profileRef(profileId: string, name?: string | undefined): string {
  const n = name?.replace(/\s+/g, " ").trim();
  return n && n !== profileId ? `${escapeTruncate(n, 100)} (${code(profileId, 100)})` : code(profileId, 100);
}

/** The profile in plain text (fallback texts, confirmation dialogs): `Northwind News (x2vq8nw)`. */
export function profilePlain(profileId: string, name?: string | undefined): string {
  const n = name?.replace(/\s+/g, " ").trim();
  const id = truncate(profileId, 100);
  return n && n !== profileId ? `${truncate(n, 100)} (${id})` : id;
}

/** A profile the menu offers (from `GET /me`: its id and its `name`). */
export interface MenuProfile {
  profileId: string;
  name?: string | undefined;
}

/** Options of a static select: at most 100; text at most 75 characters, value at most 150. */
export const MENU_LIMITS = { options: 100, optionText: 75, optionValue: 150, blockId: 255 } as const;

/** One option per profile, by name (the id after it), sorted by name; at most 100. */
export function profileOptions(profiles: readonly MenuProfile[]): PlainTextOption[] {
  const byName = (p: MenuProfile) => (p.name ?? p.profileId).toLowerCase();
  return [...profiles]
    .filter((p) => p.profileId.length <= MENU_LIMITS.optionValue)
    .sort((a, b) => byName(a).localeCompare(byName(b)) || a.profileId.localeCompare(b.profileId))
    .slice(0, MENU_LIMITS.options)
    .map((p) => ({
      text: { type: "plain_text", text: truncate(profilePlain(p.profileId, p.name), MENU_LIMITS.optionText) },
      value: p.profileId,
    }));
}

/** What the menu's block carries (its block_id): this prefix, then the command without a profile. */
export const PICK_BLOCK_PREFIX = "pick:";

/** The block_id that carries `carry`, or undefined when it does not fit Slack's 255 characters. */
export function pickBlockId(carry: string): string | undefined {
  const id = `${PICK_BLOCK_PREFIX}${carry}`;
  return id.length <= MENU_LIMITS.blockId ? id : undefined;
}

/** Example of the command with a profile named (the first one of the menu). */
function example(carry: string, profiles: readonly MenuProfile[]): string {
  const [sub, ...rest] = carry.split(" ");
  const first = [...profiles].sort((a, b) =>
    (a.name ?? a.profileId).toLowerCase().localeCompare((b.name ?? b.profileId).toLowerCase()),
  )[0];
  const word = first
    ? first.name && /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/.test(first.name)
      ? first.name
      : first.profileId
    : "<profile>";
  return [`/webhook ${sub ?? ""}`, word, ...rest].join(" ");
}

/**
 * `/webhook <command>` without a profile, when the workspace has none or several set up: a menu of
 * the profiles bound to the workspace; choosing one runs the command with it. `carry` is the
 * command without a profile (`set created published`), carried in the menu's block_id. When it
 * does not fit there, the profiles are listed instead, with how to name one.
 */
export function profilePickerMessage(opts: { carry: string; profiles: readonly MenuProfile[] }): Message {
  const command = `/webhook ${opts.carry}`;
  const options = profileOptions(opts.profiles);
  const blockId = pickBlockId(opts.carry);
  const more = opts.profiles.length - options.length;
  const typed = `Or name the profile (by its name or its id): \`${escapeTruncate(example(opts.carry, opts.profiles), 300)}\``;
  if (blockId === undefined || options.length === 0) {
    const lines = options.map((opt) => `• ${escapeMrkdwn(opt.text.text)}`);
    return message(`Which profile? Run ${command} again with a profile.`, [
      section(
        `*Which profile?* Run \`${escapeTruncate(command, 200)}\` again with one of this workspace's profiles:\n${lines.join("\n")}${more > 0 ? `\n• and ${more} more` : ""}`,
      ),
      context([typed]),
    ]);
  }
  const select: StaticSelect = {
    type: "static_select",
    action_id: ACTIONS.profilePick,
    placeholder: { type: "plain_text", text: "Choose a profile", emoji: true },
    options,
  };
  const menu: ActionsBlock = { type: "actions", block_id: blockId, elements: [select] };
  const blocks: KnownBlock[] = [
    section(
      `*Which profile?* Choose one of this workspace's profiles for \`${escapeTruncate(command, 300)}\`:`,
    ),
    menu,
    context([more > 0 ? `The first ${options.length} are listed (${more} more). ${typed}` : typed]),
  ];
  return message(`Which profile? Choose one for ${command}.`, blocks);
}

/** Why there is no menu of profiles (see profileMenuProblemMessage). */
export type ProfileMenuProblem = "no_profile" | "unavailable" | "none_bound";

/**
 * Why there is no menu of profiles, in mrkdwn: the platform says the key manages none, or it
 * could not be asked, or none of them is bound to this workspace; and what to do. `carry`: the
 * command the menu was for (`set created`), for the example.
 */
export function profileMenuProblemText(problem: ProfileMenuProblem, carry?: string | undefined): string {
  const [sub, ...rest] = (carry ?? "show").split(" ");
  const byId = escapeTruncate([`/webhook ${sub ?? "show"}`, "<profile_id>", ...rest].join(" "), 300);
  switch (problem) {
    case "no_profile":
      return "⚠️ *The bot's platform key manages no profile*, so there is no profile to choose from. The bot's operator gives the key access to a profile (platform management console: Organization, API keys); then try again.";
    case "unavailable":
      return `⚠️ *Could not ask the platform which profiles the bot manages*, so there is no menu to choose from. Name the profile by its id instead (\`${byId}\`: an id works without that list), or try again in a moment.`;
    case "none_bound":
      return "🔒 *No profile is bound to this Slack workspace*, so there is none to choose from. The bot's operator decides which profiles each workspace may use (the PROFILE_BINDINGS setting).";
  }
}

/**
 * `profileMenuProblemText` as an answer; `detail` (mrkdwn: the platform's error in words, with its
 * correlation id) follows it.
 */
export function profileMenuProblemMessage(
  problem: ProfileMenuProblem,
  opts: { carry?: string | undefined; detail?: string | undefined } = {},
): Message {
  const fallback = {
    no_profile: "The bot's platform key manages no profile: there is nothing to choose from.",
    unavailable: "Could not ask the platform for the profiles: name the profile by its id.",
    none_bound: "No profile is bound to this Slack workspace.",
  }[problem];
  return message(fallback, [
    section(profileMenuProblemText(problem, opts.carry)),
    ...(opts.detail?.trim() ? [context([opts.detail])] : []),
  ]);
}

/** A choice from a menu of profiles that no longer reads as a command (changed, or from another version). */
export function pickNotValidMessage(): Message {
  return message("This menu is no longer valid: run the command again.", [
    section(
      "⚠️ This menu no longer matches a command (it was changed or comes from an older version of the bot). Nothing was changed: run the `/webhook` command again.",
    ),
  ]);
}
