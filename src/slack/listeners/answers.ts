/** Answers shared by commands and buttons: what `/webhook unsubscribe` and the Unsubscribe button say. */
import {
  lastSubscriptionMessage,
  type Message,
  notOursMessage,
  notSubscribedMessage,
  unsubscribedMessage,
} from "../../messages/index.js";
import type { UnsubscribeOutcome } from "../../operations/subscriptions.js";

export function subscriptionOutcomeMessage(
  r: UnsubscribeOutcome,
  profileId: string,
  channelId: string,
  userId: string,
  profileName?: string,
): Message {
  switch (r.kind) {
    case "not-ours":
      return notOursMessage(profileId, profileName);
    case "not-subscribed":
      return notSubscribedMessage(profileId, channelId, profileName);
    case "last": {
      // The last channel: removing its subscription means removing the webhook; asked first.
      return lastSubscriptionMessage(profileId, channelId, profileName);
    }
    case "unsubscribed":
      return unsubscribedMessage({
        profileId,
        profileName,
        channelId,
        byUser: userId,
        platformChanged: r.platformChanged,
      });
  }
}
