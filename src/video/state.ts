/**
 * Per-video notification state: a pure reducer over webhook deliveries (spec section 6).
 * More: README.md ("state.ts").
 */
import { canonicalJson, IGNORED_PRESETS_CAP } from "../domain/index.js";
import type { Delivery } from "../platform/index.js";
import {
  boundedData,
  checkDelivery,
  errorData,
  keptName,
  PRESET_CAP,
  refFields,
  stringField,
} from "./bounds.js";
import { dedupeKeyOf, getOwn, setOwn, sha256Hex } from "./hash.js";

export {
  DATA_DEPTH_MAX,
  DETAILS_KEPT_MAX,
  MILESTONE_DATA_MAX,
  NAME_KEPT_MAX,
  PRESET_CAP,
  RefusedDelivery,
} from "./bounds.js";

import {
  MILESTONE_CAP,
  type Milestone,
  type PresetState,
  type PresetStatus,
  SEEN_CAP,
  type Stage,
  stageRank,
  type VideoState,
} from "./model.js";

export * from "./model.js";

/** Tie-break between final events of one preset with the same timestamp. */
const FINAL_RANK: Record<PresetStatus, number> = { processing: 0, ready: 1, error: 2, deleted: 3 };

export function initialState(ctx: {
  teamId: string;
  profileId: string;
  channelId: string;
  videoId: string | null;
  ownerId?: string | null;
}): VideoState {
  return {
    v: 1,
    teamId: ctx.teamId,
    profileId: ctx.profileId,
    channelId: ctx.channelId,
    videoId: ctx.videoId,
    ownerId: ctx.ownerId ?? null,
    stage: "created",
    stageAt: 0,
    firstEventAt: 0,
    lastEventAt: 0,
    presets: {},
    createdAt: null,
    publishedAt: null,
    completeAt: null,
    deletedAt: null,
    eventCount: 0,
    milestones: [],
    parentTs: null,
    renderedHash: null,
    lastRenderAt: null,
    seen: [],
  };
}

function minOf(a: number | null, b: number): number {
  return a === null ? b : Math.min(a, b);
}

function clampProgress(p: number): number {
  if (!Number.isFinite(p)) return 0;
  return Math.min(100, Math.max(0, p));
}

/** Merges one preset event into the preset's state (a join: order does not matter). */
function mergePreset(
  cur: PresetState | undefined,
  status: PresetStatus,
  progress: number,
  t: number,
): PresetState {
  const contribution = status === "processing" ? clampProgress(progress) : status === "ready" ? 100 : 0;
  if (!cur) return { status, progress: contribution, at: t };
  const merged = Math.max(cur.progress, contribution);
  if (status === "processing") {
    if (cur.status === "processing") return { status, progress: merged, at: Math.max(cur.at, t) };
    return { ...cur, progress: merged };
  }
  const wins =
    cur.status === "processing" ||
    t > cur.at ||
    (t === cur.at && FINAL_RANK[status] > FINAL_RANK[cur.status]);
  return wins ? { status, progress: merged, at: t } : { ...cur, progress: merged };
}

/** A copy of the presets with `name` merged (copy-on-write); beyond PRESET_CAP a new name is ignored. */
function updatePreset(s: VideoState, raw: string, status: PresetStatus, progress: number, t: number): void {
  const name = keptName(raw);
  const cur = getOwn(s.presets, name);
  if (!cur && Object.keys(s.presets).length >= PRESET_CAP) {
    const h = sha256Hex(name).slice(0, 12);
    const ignored = s.ignoredPresets ?? [];
    if (ignored.length < IGNORED_PRESETS_CAP && !ignored.includes(h)) s.ignoredPresets = [...ignored, h];
    return;
  }
  const presets: Record<string, PresetState> = {};
  for (const [k, v] of Object.entries(s.presets)) setOwn(presets, k, v);
  setOwn(presets, name, mergePreset(cur, status, progress, t));
  s.presets = presets;
}

/**
 * Adds a milestone once per key; for two deliveries of one key the earliest is kept. Copy-on-write:
 * `s.milestones` becomes a new array when it changes. True when it changed.
 */
function addMilestone(s: VideoState, m: Omit<Milestone, "posted">): boolean {
  const i = s.milestones.findIndex((x) => x.key === m.key);
  const old = s.milestones[i];
  if (i === -1 || !old) {
    s.milestones = [...s.milestones, { ...m, posted: false }];
    return true;
  }
  if (old.posted) return false;
  const earlier =
    m.timestamp < old.timestamp ||
    (m.timestamp === old.timestamp && canonicalJson(m.data) < canonicalJson(old.data));
  if (!earlier) return false;
  s.milestones = s.milestones.map((x, j) => (j === i ? { ...m, posted: false } : x));
  return true;
}

function compareMilestones(a: Milestone, b: Milestone): number {
  if (a.timestamp !== b.timestamp) return a.timestamp - b.timestamp;
  return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
}

/** Undoes what events after the deletion time could have recorded before the deletion arrived. */
function pruneAfterDeletion(s: VideoState, deletedAt: number): void {
  s.milestones = s.milestones.filter((m) => m.posted || m.timestamp <= deletedAt);
  if (s.publishedAt !== null && s.publishedAt > deletedAt) s.publishedAt = null;
  if (s.completeAt !== null && s.completeAt > deletedAt) s.completeAt = null;
  if (s.createdAt !== null && s.createdAt > deletedAt) s.createdAt = null;
  // The deletion is itself an applied event, and nothing after it counts.
  s.lastEventAt = deletedAt;
}

/** The stage the facts show, before the never-backwards rule. */
function derivedStage(s: VideoState): Stage {
  if (s.deletedAt !== null) return "deleted";
  if (s.completeAt !== null) return "complete";
  if (s.publishedAt !== null) return "published";
  let ready = 0;
  let processing = 0;
  let other = 0;
  for (const p of Object.values(s.presets)) {
    if (p.status === "ready") ready++;
    else if (p.status === "processing") processing++;
    else if (p.status === "error") other++;
  }
  if (ready > 0 && processing === 0) return "formats_ready";
  if (ready + processing + other > 0) return "encoding";
  return "created";
}

function updateStage(s: VideoState, prev: Stage, t: number): void {
  const derived = derivedStage(s);
  if (stageRank(derived) > stageRank(prev)) s.stage = derived;
  switch (s.stage) {
    case "created":
      s.stageAt = s.createdAt ?? s.firstEventAt;
      break;
    case "published":
      s.stageAt = s.publishedAt ?? s.stageAt;
      break;
    case "complete":
      s.stageAt = s.completeAt ?? s.stageAt;
      break;
    case "deleted":
      s.stageAt = s.deletedAt ?? s.stageAt;
      break;
    default:
      if (s.stage !== prev) s.stageAt = t;
  }
}

function capMilestones(s: VideoState): void {
  let excess = s.milestones.length - MILESTONE_CAP;
  if (excess <= 0) return;
  s.milestones = s.milestones.filter((m) => {
    if (excess > 0 && m.posted) {
      excess--;
      return false;
    }
    return true;
  });
}

/**
 * The state after `d`. Pure: `state` is not modified; a duplicate returns `state` itself, anything
 * else a new object. Copy-on-write: only what the delivery changes is copied (the presets, the
 * milestone list, `seen`), every part bounded by its cap, so a batch costs linear time.
 * Throws RefusedDelivery for a delivery it cannot apply (the same one always throws).
 */
export function applyDelivery(state: VideoState, d: Delivery): VideoState {
  checkDelivery(d);
  const key = dedupeKeyOf(d);
  if (state.seen.includes(key)) return state;
  const seen =
    state.seen.length >= SEEN_CAP ? state.seen.slice(state.seen.length - SEEN_CAP + 1) : [...state.seen];
  seen.push(key);
  const s: VideoState = { ...state, seen };

  const t = d.timestamp;
  if (s.deletedAt !== null && t > s.deletedAt) return s;

  const prevStage = s.stage;
  s.eventCount++;
  s.firstEventAt = s.eventCount === 1 ? t : Math.min(s.firstEventAt, t);
  s.lastEventAt = s.eventCount === 1 ? t : Math.max(s.lastEventAt, t);
  const owner = stringField(d.data, "owner_id");
  if (owner !== undefined && (s.ownerId === null || owner < s.ownerId)) s.ownerId = owner;

  let changed = false;
  if (!d.known) {
    changed = addMilestone(s, {
      key: `event:${d.type}:${t}`,
      type: d.type,
      timestamp: t,
      data: boundedData(d.data),
    });
  } else {
    const data = d.data as Record<string, unknown>;
    const milestone = (key: string, kept = refFields(data)) => {
      changed = addMilestone(s, { key, type: d.type, timestamp: t, data: kept }) || changed;
    };
    switch (d.type) {
      case "video.created":
        s.createdAt = minOf(s.createdAt, t);
        break;
      case "video.published":
        s.publishedAt = minOf(s.publishedAt, t);
        milestone("published");
        break;
      case "video.complete":
        s.completeAt = minOf(s.completeAt, t);
        milestone("complete");
        break;
      case "video.deleted":
        s.deletedAt = minOf(s.deletedAt, t);
        milestone("deleted");
        pruneAfterDeletion(s, s.deletedAt);
        break;
      case "video.format.processing":
        updatePreset(s, d.data.preset_name, "processing", d.data.progress, t);
        break;
      case "video.format.ready":
        updatePreset(s, d.data.preset_name, "ready", 100, t);
        break;
      case "video.format.error": {
        const preset = d.data.preset_name;
        if (preset !== undefined) updatePreset(s, preset, "error", 0, t);
        milestone(`error:${keptName(preset ?? "")}`, errorData(data));
        break;
      }
      case "video.format.deleted": {
        const preset = d.data.preset_name;
        if (preset !== undefined) updatePreset(s, preset, "deleted", 0, t);
        milestone(`format-deleted:${keptName(preset ?? "")}`);
        break;
      }
    }
  }

  updateStage(s, prevStage, t);
  if (changed) {
    s.milestones = [...s.milestones].sort(compareMilestones);
    capMilestones(s);
  }
  return s;
}

export { dedupeKeyOf };
