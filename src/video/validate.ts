/**
 * Reading a per-video state back from the store: a stored state is trusted only after this check
 * (a damaged or older-version one is started afresh by the worker).
 */

import { z } from "zod";
import { IGNORED_PRESETS_CAP } from "../domain/index.js";
import { boundedData } from "./bounds.js";
import { setOwn } from "./hash.js";
import {
  PRESET_STATUSES,
  type PresetState,
  SEEN_CAP,
  STAGES,
  type TitleFact,
  type VideoState,
} from "./state.js";

const eventTime = z.number().int().nonnegative();
const plainObject = z.custom<Record<string, unknown>>(
  (x) => typeof x === "object" && x !== null && !Array.isArray(x),
  "must be an object",
);

const PresetStateSchema = z.object({
  status: z.enum(PRESET_STATUSES),
  progress: z.number().min(0).max(100),
  at: eventTime,
});

const MilestoneSchema = z.object({
  key: z.string().min(1),
  type: z.string().min(1),
  timestamp: eventTime,
  posted: z.boolean(),
  // Kept as stored (a zod record would drop a `__proto__` key of foreign data).
  data: plainObject,
});

/** A title is at most 255 characters (PlatformNames cuts longer ones): up to 510 UTF-16 units. */
export const TitleFactSchema = z.union([
  z.object({ title: z.string().max(1024).nullable() }).strict(),
  z.object({ notConfirmed: z.literal(true) }).strict(),
  z.object({ unknown: z.string().min(1).max(40) }).strict(),
]);

/** A title fact read from a note or a state, or undefined when it is not one. */
export function parseTitleFact(x: unknown): TitleFact | undefined {
  const r = TitleFactSchema.safeParse(x);
  return r.success ? r.data : undefined;
}

const VideoStateSchema = z
  .object({
    v: z.literal(1),
    teamId: z.string(),
    profileId: z.string(),
    channelId: z.string(),
    videoId: z.string().nullable(),
    ownerId: z.string().nullable(),
    stage: z.enum(STAGES),
    stageAt: eventTime,
    firstEventAt: eventTime,
    lastEventAt: eventTime,
    presets: plainObject,
    createdAt: eventTime.nullable(),
    publishedAt: eventTime.nullable(),
    completeAt: eventTime.nullable(),
    deletedAt: eventTime.nullable(),
    eventCount: z.number().int().nonnegative(),
    milestones: z.array(MilestoneSchema),
    parentTs: z.string().min(1).nullable(),
    renderedHash: z.string().min(1).nullable(),
    lastRenderAt: z.number().nonnegative().nullable(),
    seen: z.array(z.string().regex(/^[0-9a-f]{64}$/)).max(SEEN_CAP),
    ignoredPresets: z
      .array(z.string().regex(/^[0-9a-f]{1,64}$/))
      .max(IGNORED_PRESETS_CAP)
      .optional(),
    attempt: z
      .object({ id: z.string().min(1).max(200), n: z.number().int().positive(), reason: z.string().max(500) })
      .optional(),
    title: TitleFactSchema.optional(),
    titleAskedAt: z.number().nonnegative().optional(),
    profileName: z.string().min(1).max(200).optional(),
    posting: z
      .object({
        what: z.string().min(1).max(1000),
        id: z.string().min(1).max(100),
        at: z.number().nonnegative(),
      })
      .optional(),
  })
  .superRefine((s, ctx) => {
    if ((s.stage === "deleted") !== (s.deletedAt !== null)) {
      ctx.addIssue({ code: "custom", message: "stage and deletedAt disagree", path: ["stage"] });
    }
    if (s.eventCount > 0 && s.firstEventAt > s.lastEventAt) {
      ctx.addIssue({ code: "custom", message: "firstEventAt after lastEventAt", path: ["firstEventAt"] });
    }
    if (new Set(s.milestones.map((m) => m.key)).size !== s.milestones.length) {
      ctx.addIssue({ code: "custom", message: "duplicate milestone key", path: ["milestones"] });
    }
  });

/** A stored state, or undefined when it is corrupt or of another version (start afresh then). */
export function validateState(x: unknown): VideoState | undefined {
  const r = VideoStateSchema.safeParse(x);
  if (!r.success) return undefined;
  // Presets by hand: preset names are foreign text, `__proto__` included.
  const presets: Record<string, PresetState> = {};
  for (const [name, value] of Object.entries(r.data.presets)) {
    const p = PresetStateSchema.safeParse(value);
    if (!p.success) return undefined;
    setOwn(presets, name, p.data);
  }
  // Milestone data bounded as the reducer bounds it now: a state written by an older version may
  // hold foreign data of any size or depth, which must not break a later copy, hash or write.
  const milestones = r.data.milestones.map((m) => ({ ...m, data: boundedData(m.data) }));
  const { ignoredPresets, attempt, title, titleAskedAt, profileName, posting, ...rest } = r.data;
  const state: VideoState = {
    ...rest,
    presets,
    milestones,
    ...(ignoredPresets ? { ignoredPresets } : {}),
    ...(attempt ? { attempt } : {}),
    ...(title ? { title } : {}),
    ...(titleAskedAt !== undefined ? { titleAskedAt } : {}),
    ...(profileName !== undefined ? { profileName } : {}),
    ...(posting ? { posting } : {}),
  };
  return state;
}
