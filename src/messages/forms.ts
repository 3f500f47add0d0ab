/**
 * What the App Home's forms (set-up, managers, events editor) say around their views: loading and
 * saving, a form no longer valid, failures, a channel the bot cannot post in, the set-up's
 * placeholder in the channel and the events' confirmation. src/slack tells the failures apart;
 * the words are here.
 */
import { profileRef } from "./profiles.js";
import { profileText } from "./setup.js";

export const FORM_LOADING = "⏳ Loading…";
export const FORM_SAVING = "⏳ Saving…";
export const FORM_EXPIRED = "This form is no longer valid; open it again from the Home tab.";
export const EDITOR_EXPIRED = "This editor is no longer valid; open it again.";
export const SOMETHING_WENT_WRONG = "Something went wrong; try again in a moment.";
export const STORE_NOT_ANSWERING =
  "The bot's settings store does not answer; try again in a moment. Nothing was changed.";
export const MANAGERS_NOT_READ = "⚠️ The bot's settings could not be read; try again in a moment.";
export const MANAGERS_NOT_SAVED =
  "⚠️ The managers could not be saved; nothing or only part was changed. Open the form again to see the current list.";
export const EVENTS_CHANGED_ELSEWHERE =
  "⚠️ These events were changed elsewhere since you opened this editor. This is the current state: review it and save again.";

/** The set-up form: another workspace manages the profile through the bot. */
export function claimedElsewhereText(profileId: string): string {
  return `Profile ${profileRef(profileId)} is managed from another Slack workspace through this bot: only that workspace can change it. Nothing was changed.`;
}

/** The events editor: another workspace manages the profile through the bot. */
export function eventsClaimedElsewhereText(profileId: string): string {
  return `Profile \`${profileId}\` is managed from another Slack workspace: its events can only be changed from there. Nothing was changed.`;
}

/** Why the bot cannot post in a channel (Slack's error code), in words for the person choosing it. */
export function channelProblemText(slackCode: string, channelId: string): string {
  const ch = `<#${channelId}>`;
  switch (slackCode) {
    case "not_in_channel":
      return `The bot is not in ${ch}, so it could not post there. Invite it first (\`/invite @\` followed by the bot's name in that channel), or choose a public channel.`;
    case "is_archived":
      return `${ch} is archived: choose another channel.`;
    case "channel_not_found":
      return "The bot cannot see that channel (private, or in another workspace). Invite it first, or choose another channel.";
    default:
      return `Slack refused the bot's message in ${ch} (\`${slackCode.slice(0, 60)}\`). Choose another channel or try again.`;
  }
}

/** The set-up form once submitted, while the bot works. */
export function settingUpText(profileId: string): string {
  return `⏳ Setting up profile \`${profileText(profileId)}\`…`;
}

/** Posted in the chosen channel first: a channel the bot cannot post in is refused before any change. */
export function setupPlaceholderText(
  userId: string,
  profileId: string,
  profileName: string | undefined,
): string {
  return `⏳ <@${userId}> is setting up the notifications of profile ${profileRef(profileId, profileName)} here…`;
}

/** The events editor saved: said in the channel, to the person only. */
export function eventsSavedText(
  profileId: string,
  profileName: string | undefined,
  events: readonly string[],
): string {
  return `✅ Events of profile ${profileRef(profileId, profileName)} saved: ${events.join(", ")}. The callback URL is unchanged.`;
}
