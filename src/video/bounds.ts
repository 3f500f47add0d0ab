/**
 * What a video's state keeps of foreign data, and what the reducer refuses: every part of the state
 * has a cap, so a hostile or broken delivery can neither grow it without bound nor break a later
 * copy, hash or write of it.
 */
import { canonicalJson } from "../domain/index.js";
import type { Delivery } from "../platform/index.js";
import { getOwn, nestsDeeperThan, setOwn, sha256Hex } from "./hash.js";

/** Data of an unknown event kept in its milestone: longer canonical JSON is cut to this. */
export const MILESTONE_DATA_MAX = 2000;
/** Presets per video; deliveries naming a further preset only count in `ignoredPresets`. */
export const PRESET_CAP = 50;
/** Preset names, and the strings of the video reference kept in a milestone, are cut to this. */
export const NAME_KEPT_MAX = 200;
/** The details of a format error kept in its milestone (canonical JSON, cut to this). */
export const DETAILS_KEPT_MAX = 1024;
/** A delivery whose data nests deeper than this is refused by the reducer (a dead letter). */
export const DATA_DEPTH_MAX = 32;

/** A delivery the reducer refuses for good (malformed or hostile): the worker dead-letters it. */
export class RefusedDelivery extends Error {}

export function stringField(data: Record<string, unknown>, key: string): string | undefined {
  const v = getOwn(data, key);
  return typeof v === "string" ? cut(v, NAME_KEPT_MAX) : undefined;
}

/** At most `max` code units, never ending with half a surrogate pair. */
export function cut(s: string, max: number): string {
  if (s.length <= max) return s;
  const c = s.charCodeAt(max - 1);
  return s.slice(0, c >= 0xd800 && c <= 0xdbff ? max - 1 : max);
}

/** A preset name as kept: a long one is cut, with a hash of the whole so that names stay distinct. */
export function keptName(name: string): string {
  if (name.length <= NAME_KEPT_MAX) return name;
  return `${cut(name, NAME_KEPT_MAX - 13)}…${sha256Hex(name).slice(0, 12)}`;
}

const VIDEO_REF_FIELDS = ["owner_id", "video_id", "preset_name", "status"] as const;

/** The video reference fields of a known event's data, each string cut (all a milestone shows). */
export function refFields(data: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of VIDEO_REF_FIELDS) {
    const v = stringField(data, f);
    if (v !== undefined) out[f] = v;
  }
  return out;
}

/**
 * What a format error's milestone keeps: the video reference and the other fields (the error's
 * details) as they are when their canonical JSON fits DETAILS_KEPT_MAX, else `_truncated` text.
 */
export function errorData(data: Record<string, unknown>): Record<string, unknown> {
  const out = refFields(data);
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(data)) {
    if (!(VIDEO_REF_FIELDS as readonly string[]).includes(k)) setOwn(extra, k, v);
  }
  if (Object.keys(extra).length === 0) return out;
  const json = canonicalJson(extra);
  if (json.length > DETAILS_KEPT_MAX) return { ...out, _truncated: cut(json, DETAILS_KEPT_MAX) };
  for (const [k, v] of Object.entries(extra)) setOwn(out, k, v);
  return out;
}

/** Data of an unknown event, bounded for storage: `{ _truncated: "<canonical JSON prefix>" }` if long. */
export function boundedData(data: Record<string, unknown>): Record<string, unknown> {
  if (nestsDeeperThan(data, DATA_DEPTH_MAX)) return { _truncated: "(nested too deep)" };
  const json = canonicalJson(data);
  if (json.length <= MILESTONE_DATA_MAX) return data;
  return { _truncated: cut(json, MILESTONE_DATA_MAX) };
}

/** Refuses what the reducer cannot apply safely (stored by an older version, or hostile). */
export function checkDelivery(d: Delivery): void {
  if (typeof d !== "object" || d === null) throw new RefusedDelivery("not a delivery");
  if (typeof d.type !== "string" || d.type.length === 0 || d.type.length > 1000)
    throw new RefusedDelivery("no valid type");
  if (!Number.isSafeInteger(d.timestamp) || d.timestamp < 0) throw new RefusedDelivery("no valid timestamp");
  if (typeof d.data !== "object" || d.data === null || Array.isArray(d.data))
    throw new RefusedDelivery("data is not an object");
  if (nestsDeeperThan(d.data, DATA_DEPTH_MAX))
    throw new RefusedDelivery(`data nests deeper than ${DATA_DEPTH_MAX} levels`);
  if (!d.known) return;
  const preset: unknown = getOwn(d.data, "preset_name");
  const needsPreset = d.type === "video.format.processing" || d.type === "video.format.ready";
  if (needsPreset ? typeof preset !== "string" : preset !== undefined && typeof preset !== "string")
    throw new RefusedDelivery("preset_name is not a string");
  if (d.type === "video.format.processing" && typeof getOwn(d.data, "progress") !== "number")
    throw new RefusedDelivery("progress is not a number");
}
