/**
 * Delivery bodies for the ingest load: every request a DIFFERENT valid delivery, so the route's
 * deduplication (type, timestamp, data) never short-circuits storage.
 *
 * The mix is realistic: request i is event i % 36 of the sandbox's lifecycle of one video
 * (1 created, 30 processing over 3 presets, 3 ready, published, complete), for video
 * floor(i / 36) of this run, with timestamp base + i (unique on its own). Bodies are built from
 * pre-split JSON templates, so the generator costs the load tool next to nothing and the same for
 * every target.
 */
import { lifecycleEvents } from "../../fakes/platform/deliver.js";

const TS = "@@TS@@";
const VID = "@@VID@@";

export interface DeliveryGenerator {
  /** The body of the i-th delivery (0-based). */
  body(i: number): string;
  /** Events per video in the mix. */
  readonly perVideo: number;
}

export function deliveryGenerator(
  ownerId: string,
  runTag: string,
  baseTimestamp = Date.now(),
  /**
   * Called once per video before the first of its bodies is built (in order of video number): the
   * platform only tells of videos it has, so the bench's sandbox adds it here, as the platform
   * would have it before its first event.
   */
  onVideo?: (videoId: string) => void,
): DeliveryGenerator {
  const events = lifecycleEvents(
    ownerId,
    { videoId: VID, presets: ["240p", "480p", "720p"], progressSteps: 10 },
    0,
  );
  // [before ts, between ts and first video id, ..., after last video id]
  const templates = events.map((e) =>
    JSON.stringify({ type: e.type, timestamp: TS, data: e.data })
      .replace(`"${TS}"`, TS)
      .split(new RegExp(`${TS}|${VID}`)),
  );
  const tag = runTag.replace(/[^a-z0-9]/gi, "").slice(0, 8);
  const videoIdOf = (n: number) => `xb${tag}_${n.toString(36)}`;
  /** Videos 0..known-1 were handed to onVideo. */
  let known = 0;
  return {
    perVideo: templates.length,
    body(i: number): string {
      const parts = templates[i % templates.length] ?? [];
      const n = Math.floor(i / templates.length);
      if (onVideo) for (; known <= n; known++) onVideo(videoIdOf(known));
      const videoId = videoIdOf(n);
      let out = parts[0] ?? "";
      out += String(baseTimestamp + i);
      for (let p = 1; p < parts.length - 1; p++) out += (parts[p] ?? "") + videoId;
      out += parts[parts.length - 1] ?? "";
      return out;
    },
  };
}
