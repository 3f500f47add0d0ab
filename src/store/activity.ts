/**
 * What the App Home shows per profile: when the last delivery arrived, the video of the last
 * message posted or updated (its title when the platform gave one) and, over the last 24 h, how
 * many deliveries were received, how many Slack messages were posted or updated, and how many
 * deliveries Slack refused. Written by the notification worker (never on the delivery route),
 * one document per (workspace, profile) with hourly buckets.
 *
 * Concurrency: each record is a compare-and-set on the document (`Documents.update`): replicas
 * recording at the same moment add up, none is lost.
 */
import { z } from "zod";
import type { Logger } from "../log.js";
import { Documents } from "./documents.js";
import type { Store } from "./keyv.js";

const HOUR = 3_600_000;

const bucket = z.object({
  h: z.number().int(),
  received: z.number().int().nonnegative(),
  posted: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
});
const lastVideo = z.object({
  videoId: z.string().max(200),
  title: z.string().max(1024).nullable(),
  at: z.number(),
});
const activitySchema = z.object({
  v: z.literal(1),
  lastDeliveryAt: z.number().nullable(),
  hours: z.array(bucket).max(48),
  lastVideo: lastVideo.optional(),
});
type ActivityDoc = z.infer<typeof activitySchema>;

export interface ActivitySummary {
  lastDeliveryAt: number | null;
  received24h: number;
  posted24h: number;
  failed24h: number;
  /** The video of the last message posted or updated, with its title (null: shown by its id). */
  lastVideo?: LastVideo;
}

export type LastVideo = z.infer<typeof lastVideo>;

export interface ActivityDelta {
  received?: number;
  posted?: number;
  failed?: number;
  lastDeliveryAt?: number;
  /** The video these counts are about; kept as the last video when something was posted. */
  lastVideo?: { videoId: string; title: string | null } | undefined;
}

const key = (teamId: string, profileId: string) => `team:${teamId}:activity:${profileId}`;

export class ActivityRepo {
  private readonly docs: Documents;

  constructor(store: Store, logger: Logger) {
    this.docs = new Documents(store, logger.child({ component: "activity" }));
  }

  async record(teamId: string, profileId: string, d: ActivityDelta, now: number): Promise<void> {
    await this.docs.update(key(teamId, profileId), activitySchema, (stored) =>
      added(stored ?? { v: 1, lastDeliveryAt: null, hours: [] }, d, now),
    );
  }

  async summary(teamId: string, profileId: string, now: number): Promise<ActivitySummary> {
    const doc = await this.docs.read(key(teamId, profileId), activitySchema);
    const recent = (doc?.hours ?? []).filter((x) => x.h + HOUR > now - 24 * HOUR);
    const sum = (f: "received" | "posted" | "failed") => recent.reduce((n, x) => n + x[f], 0);
    return {
      lastDeliveryAt: doc?.lastDeliveryAt ?? null,
      received24h: sum("received"),
      posted24h: sum("posted"),
      failed24h: sum("failed"),
      ...(doc?.lastVideo ? { lastVideo: doc.lastVideo } : {}),
    };
  }

  async remove(teamId: string, profileId: string): Promise<void> {
    await this.docs.remove(key(teamId, profileId));
  }
}

/** The document with `d` counted in the hour of `now` (and hours older than 25 h dropped). */
function added(doc: ActivityDoc, d: ActivityDelta, now: number): ActivityDoc {
  const h = Math.floor(now / HOUR) * HOUR;
  let b = doc.hours.find((x) => x.h === h);
  if (!b) {
    b = { h, received: 0, posted: 0, failed: 0 };
    doc.hours.push(b);
  }
  b.received += d.received ?? 0;
  b.posted += d.posted ?? 0;
  b.failed += d.failed ?? 0;
  if (d.lastDeliveryAt !== undefined)
    doc.lastDeliveryAt = Math.max(doc.lastDeliveryAt ?? 0, d.lastDeliveryAt);
  if (d.lastVideo && d.posted && now >= (doc.lastVideo?.at ?? 0))
    doc.lastVideo = { videoId: d.lastVideo.videoId.slice(0, 200), title: d.lastVideo.title, at: now };
  doc.hours = doc.hours.filter((x) => x.h > now - 25 * HOUR).sort((a, b2) => a.h - b2.h);
  return doc;
}
