/**
 * The notice a workspace's managers get (once a day per channel and code) when Slack refuses a
 * channel's video notifications for good (src/notify/dead-letters.ts sends it).
 */
import { escapeTruncate } from "./escape.js";
import { code as inlineCode } from "./kit.js";
import { type VideoView, videoTitleOf } from "./video-view.js";

export function refusedNotice(
  s: Pick<VideoView, "profileId" | "videoId" | "title"> & { channelId: string },
  code: string,
): string {
  const title = videoTitleOf(s);
  const video =
    s.videoId === null
      ? ""
      : ` (video ${title === null ? "" : `“${escapeTruncate(title.replace(/\s+/g, " "), 150)}” `}${inlineCode(s.videoId, 80)})`;
  return (
    `⚠️ I could not post the notifications of profile \`${s.profileId}\` in <#${s.channelId}>${video}: Slack said \`${code}\`. ` +
    (code === "not_in_channel"
      ? "Invite me to the channel (`/invite @video-platform`) and new events will show up again."
      : code === "is_archived"
        ? "The channel is archived: run `/webhook set` in another channel."
        : code === "channel_not_found"
          ? "The channel no longer exists: run `/webhook set` in another channel."
          : "New events will be tried again; see the bot's logs for details.")
  );
}
