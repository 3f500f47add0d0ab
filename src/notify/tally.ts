/**
 * What one pass of the worker over a video did, for the App Home's activity (src/store/activity.ts):
 * recorded once the pass ends; a failure to record is logged, never the pass's.
 */
import type { VideoKey } from "../domain/index.js";
import type { Logger } from "../log.js";
import { videoTitleOf } from "../messages/index.js";
import type { ActivityDelta, ActivityRepo } from "../store/index.js";
import type { VideoState } from "../video/state.js";

export interface Tally extends ActivityDelta {
  teamId?: string;
  profileId?: string;
}

/** The video a pass shows, for the App Home's last video (by its title when the platform gave one). */
export function lastVideoOf(s: VideoState): ActivityDelta["lastVideo"] {
  return s.videoId === null ? undefined : { videoId: s.videoId, title: videoTitleOf(s) };
}

export async function recordTally(pass: {
  key: VideoKey;
  tally: Tally;
  opts: { activity?: ActivityRepo | undefined; logger: Logger; now: () => number };
}): Promise<void> {
  const { opts, key, tally } = pass;
  const { activity } = opts;
  if (!activity || !tally.teamId || !tally.profileId) return;
  if (!(tally.received || tally.posted || tally.failed)) return;
  await activity.record(tally.teamId, tally.profileId, tally, opts.now()).catch((err: unknown) => {
    opts.logger.warn({ err, video: key }, "could not record activity");
  });
}
