/**
 * The sample lifecycle `/webhook test` sends through the delivery path: a realistic video going
 * from created to complete over three formats, with progress. Timestamps start at `now` and rise.
 */
import { randomBytes } from "node:crypto";

export interface SampleEvent {
  type: string;
  timestamp: number;
  data: Record<string, unknown>;
}

export const SAMPLE_PRESETS = ["240p", "480p", "720p"] as const;

/** The sample video's title: the platform does not have it, so the bot gives it (title.ts noteTitle). */
export const SAMPLE_TITLE = "Sample video from /webhook test";

export function sampleVideoId(): string {
  return `xtest${randomBytes(4).toString("hex")}`;
}

export function sampleLifecycle(profileId: string, now: number, videoId = sampleVideoId()): SampleEvent[] {
  const ref = { owner_id: profileId, video_id: videoId };
  const events: SampleEvent[] = [];
  let t = now;
  const add = (type: string, data: Record<string, unknown>) => events.push({ type, timestamp: t++, data });
  add("video.created", ref);
  for (const progress of [25, 50, 75, 100]) {
    for (const preset_name of SAMPLE_PRESETS) {
      add("video.format.processing", { ...ref, preset_name, status: "processing", progress });
    }
  }
  for (const [i, preset_name] of SAMPLE_PRESETS.entries()) {
    add("video.format.ready", { ...ref, preset_name, status: "ready" });
    if (i === 1) add("video.published", ref);
  }
  add("video.complete", ref);
  return events;
}
